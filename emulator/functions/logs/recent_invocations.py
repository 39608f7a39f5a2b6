"""Recent invocations: each function's last few invocations, as Lambda's console shows them from CloudWatch.

    recent = RecentInvocations(keep=20)
    recent.add(function.arn, result, source="Invoke", started=clock.now())
    recent.of(function.arn)   # newest first: [{"RequestId", "Started", "DurationMs", "Outcome", "LogTail"}, ...]

The Invoker adds every invocation (from Invoke or from an event source mapping); the dashboard reads them.
Only the last `keep` invocations of each function and the last lines of each log are kept.
"""

from __future__ import annotations

import threading
from collections import deque
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from eddy.emulator.functions.invocation_results import InvocationResult

LOG_TAIL_LINES = 60


class RecentInvocations:
    def __init__(self, keep: int = 20) -> None:
        self.keep = keep
        self._by_function: dict[str, deque[tuple["InvocationResult", str, float]]] = {}
        self._lock = threading.Lock()

    def add(self, function_arn: str, result: "InvocationResult", *, source: str, started: float) -> None:
        """One finished invocation: `source` is "Invoke" or the event source mapping's UUID; `started` the clock's time.
        Kept as it is (this runs on every invocation, the pollers' included); `of` shapes it when asked."""
        with self._lock:
            self._by_function.setdefault(function_arn, deque(maxlen=self.keep)).appendleft((result, source, started))

    def of(self, function_arn: str) -> list[dict[str, Any]]:
        """The function's recent invocations, newest first."""
        with self._lock:
            kept = list(self._by_function.get(function_arn, ()))
        return [_entry(*invocation) for invocation in kept]

    def forget(self, function_arn: str) -> None:
        with self._lock:
            self._by_function.pop(function_arn, None)

    def reset(self) -> None:
        with self._lock:
            self._by_function.clear()


def _entry(result: "InvocationResult", source: str, started: float) -> dict[str, Any]:
    outcome = "Succeeded" if result.ok else ("TimedOut" if result.timed_out else "Failed")
    log = result.log_text().splitlines()
    entry: dict[str, Any] = {
        "RequestId": result.request_id,
        "Source": source,
        "Started": started,
        "DurationMs": round(result.duration * 1000, 2),
        "Outcome": outcome,
    }
    if result.error is not None:
        entry["Error"] = f"{result.error.error_type}: {result.error.message}"
        # as Lambda's runtimes log an unhandled error: [ERROR] and the stack trace, before END and REPORT (unless
        # the function's runtime logged it already, as the Python worker does)
        if f"[ERROR] {entry['Error']}" not in result.logs:
            trace = [line for part in result.error.stack_trace or () for line in str(part).splitlines()]
            header = ["Traceback (most recent call last):"] if trace and result.error_body is None else []
            log[-2:-2] = [f"[ERROR] {entry['Error']}", *header, *trace]
    entry["LogTail"] = log[-LOG_TAIL_LINES:]
    return entry

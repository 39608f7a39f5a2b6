"""What one invocation of a function came to: its payload or error, duration, log and the execution environment
that ran it (a plain value: the invoker makes it; pollers, pipes, log groups and recent invocations read it)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from eddy.emulator.errors import FunctionError


@dataclass
class InvocationResult:
    request_id: str
    payload: Any = None
    #: the payload is the text a custom runtime posted, not JSON (Invoke returns it as posted)
    raw: bool = False
    error: FunctionError | None = None
    duration: float = 0.0
    timed_out: bool = False
    #: what the function printed and logged during this invocation
    logs: str = ""
    #: the error document the function's runtime returns, when it is not Python's
    error_body: dict[str, Any] | None = None
    #: the log stream of the execution environment that ran it, and the worker subprocess's pid (uploaded code)
    log_stream_name: str = ""
    worker_pid: int | None = None
    #: not run: the function's reserved concurrency was in use (Lambda's TooManyRequestsException, before invoking)
    throttled: bool = False
    #: a new execution environment's Init phase (seconds), reported with its first invocation (uploaded code)
    init_duration: float | None = None
    #: what the handler's module wrote while it was imported (the Init phase's output, logged before START)
    init_logs: str = ""
    #: the Init phase's error type when it failed (INIT_REPORT ... Phase: init Status: error Error Type: ...)
    init_error: str | None = None
    #: the Init Lambda retried in this invocation after a failed one: {"duration", "logs", "errorType"?} (Phase: invoke)
    invoke_init: dict[str, Any] | None = None
    #: the version that ran ($LATEST, or a published one: an alias's picked by its weights)
    executed_version: str = "$LATEST"

    @property
    def ok(self) -> bool:
        return self.error is None

    def log_text(self) -> str:
        """The invocation's log as Lambda writes it: START, what the function logged, END and REPORT."""
        return (
            f"START RequestId: {self.request_id} Version: {self.executed_version}\n{self.logs}END RequestId: {self.request_id}\n"
            f"REPORT RequestId: {self.request_id}\tDuration: {self.duration * 1000:.2f} ms\n"
        )

    def error_payload(self) -> dict[str, Any]:
        """The body Lambda returns for a function error."""
        assert self.error is not None
        if self.error_body is not None:
            return dict(self.error_body)
        return {
            "errorMessage": self.error.message,
            "errorType": self.error.error_type,
            "requestId": self.request_id,
            "stackTrace": self.error.stack_trace,
        }

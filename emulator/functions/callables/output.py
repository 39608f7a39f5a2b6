"""A registered callable's output, kept for its log as a zip function's worker keeps it: what the invoking thread
writes to sys.stdout and sys.stderr (`print(..., file=sys.stderr)`, `traceback.print_exc()`, warnings) and the
`logging` records emitted on it, formatted as Lambda's Python runtime writes them
(worker.log_entry: `[WARNING]\\t<time>\\t<request id>\\t<message>`, or a JSON record in LogFormat JSON).

    output = CapturedOutput(request_id, json_format=False)
    with CALLABLE_OUTPUT.capturing(output):    # on the thread that runs the callable
        target(event, context)
    output.text()                               # the invocation's log lines, for log_groups

The callable runs in this process, so what it writes still reaches the process's standard output and error too (a
test's captured output), and a record reaches the log when the process's loggers let it through (the root logger's level, WARNING
unless the process set another, as Lambda's Text format has it). Output of threads the callable starts is not its
own. While no callable runs, sys.stdout, sys.stderr and the root logger are the process's own: the router is put in
place by the first invocation running and taken out by the last one ending.
"""

from __future__ import annotations

import logging
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from eddy.emulator.functions.worker import log_entry

_STREAMS = ("stdout", "stderr")


class CapturedOutput:
    """One invocation's output: its prints and records, in the order they came."""

    def __init__(self, request_id: str, json_format: bool) -> None:
        self.request_id, self.json_format = request_id, json_format
        self._parts: list[str] = []
        self._lock = threading.Lock()

    def add(self, text: str) -> None:
        with self._lock:
            self._parts.append(text)

    def text(self) -> str:
        with self._lock:
            return "".join(self._parts)


class _RoutedStream:
    """sys.stdout or sys.stderr while callables run: a write on an invoking thread is also kept for its invocation's
    log (Lambda's runtime sends both streams to the log)."""

    def __init__(self, router: OutputRouter, wrapped: Any) -> None:
        self._router, self.wrapped = router, wrapped

    def write(self, text: str) -> int:
        output = self._router.current()
        if output is not None:
            output.add(text)
        return self.wrapped.write(text)

    def __getattr__(self, name: str) -> Any:  # flush, fileno, encoding, isatty...: the process's stream
        return getattr(self.wrapped, name)


class _InvocationRecords(logging.Handler):
    """On the root logger while callables run: a record emitted on an invoking thread goes to its log."""

    def __init__(self, router: OutputRouter) -> None:
        super().__init__()
        self._router, self._formatter = router, logging.Formatter()

    def emit(self, record: logging.LogRecord) -> None:
        output = self._router.current()
        if output is not None:
            output.add(log_entry(record, output.request_id, output.json_format, self._formatter))


class OutputRouter:
    """Which thread's output is whose: the one registry of the callables' output."""

    def __init__(self) -> None:
        self._local = threading.local()
        self._lock = threading.Lock()
        self._running = 0
        self._streams: dict[str, _RoutedStream] = {}
        self._handler = _InvocationRecords(self)

    def current(self) -> CapturedOutput | None:
        return getattr(self._local, "output", None)

    @contextmanager
    def capturing(self, output: CapturedOutput) -> Iterator[None]:
        with self._lock:
            if self._running == 0:
                for name in _STREAMS:
                    self._streams[name] = _RoutedStream(self, getattr(sys, name))
                    setattr(sys, name, self._streams[name])
                logging.getLogger().addHandler(self._handler)
            self._running += 1
        self._local.output = output
        try:
            yield
        finally:
            self._local.output = None
            with self._lock:
                self._running -= 1
                if self._running == 0:
                    logging.getLogger().removeHandler(self._handler)
                    for name, stream in self._streams.items():
                        if getattr(sys, name) is stream:  # unless something replaced it meanwhile (then it is theirs)
                            setattr(sys, name, stream.wrapped)
                    self._streams = {}


CALLABLE_OUTPUT = OutputRouter()

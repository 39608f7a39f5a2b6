"""The worker subprocess that runs an uploaded function's code, as Lambda's Python runtime does.

    python emulator/functions/worker.py <handler module.func>   (a script: the emulator package is not imported)

It runs with the function's code folder as its working directory and first entry of sys.path, and the
function's environment variables. It imports the handler once, then reads one JSON request per line on
stdin ({"event", "context"}) and answers one JSON line on the original stdout:
{"ok": true, "payload": ..., "logs"} or {"ok": false, "errorType", "errorMessage", "stackTrace", "logs"}.
Anything the handler prints is the invocation's log: kept for the answer and written to stderr.
"""

from __future__ import annotations

import importlib
import json
import os
import sys
import time
import traceback
from typing import Any


class Context:
    def __init__(self, fields: dict[str, Any], deadline: float) -> None:
        for name, value in fields.items():
            setattr(self, name, value)
        self._deadline = deadline

    def get_remaining_time_in_millis(self) -> int:
        return max(0, int((self._deadline - time.monotonic()) * 1000))


class _Log:
    """The handler's stdout: kept for the invocation's log (LogType=Tail) and written to stderr."""

    def __init__(self) -> None:
        self.lines: list[str] = []

    def write(self, text: str) -> int:
        self.lines.append(text)
        return sys.__stderr__.write(text)

    def flush(self) -> None:
        sys.__stderr__.flush()

    def take(self) -> str:
        text, self.lines = "".join(self.lines), []
        return text


def _error(error: BaseException) -> dict[str, Any]:
    return {"ok": False, "errorType": type(error).__name__, "errorMessage": str(error),
            "stackTrace": traceback.format_exception(type(error), error, error.__traceback__)}


def main() -> int:
    protocol = os.fdopen(os.dup(sys.stdout.fileno()), "w", buffering=1)
    log = _Log()
    sys.stdout = log  # the handler's prints are logs, not answers
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path[:] = [os.getcwd(), *(path for path in sys.path if os.path.abspath(path or ".") != here)]
    module_name, _, function_name = sys.argv[1].rpartition(".")
    try:
        handler = getattr(importlib.import_module(module_name), function_name)
    except Exception as error:  # the answer to every request is the import error, as on Lambda
        handler, import_error = None, _error(error)
        import_error["errorType"] = "Runtime.ImportModuleError"
    for line in sys.stdin:
        request = json.loads(line)
        if handler is None:
            answer = import_error
        else:
            context = Context(request["context"], time.monotonic() + request["timeout"])
            try:
                answer = {"ok": True, "payload": handler(request["event"], context)}
                json.dumps(answer)
            except Exception as error:
                answer = _error(error)
        answer["logs"] = log.take()
        protocol.write(json.dumps(answer, default=str) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

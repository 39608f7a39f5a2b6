"""The worker subprocess that runs an uploaded function's code, as Lambda's Python runtime does.

    python emulator/functions/worker.py <handler module.func>   (a script: the emulator package is not imported)

It runs with the function's code folder as its working directory and first entry of sys.path, and the
function's environment variables. It imports the handler once, then reads one JSON request per line on
stdin ({"event", "context"}) and answers one JSON line on the original stdout:
{"ok": true, "payload": ..., "logs"} or {"ok": false, "errorType", "errorMessage", "stackTrace", "logs"}.
Anything the handler prints is the invocation's log: kept for the answer and written to stderr. So are its
`logging` records, through the root logger's handler as Lambda's Python runtime sets it up (`_lambda_logging`).
"""

from __future__ import annotations

import importlib
import json
import logging
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


class _LambdaLogHandler(logging.Handler):
    """The root logger's handler as Lambda's Python runtime installs it (aws-lambda-python-runtime-interface-client,
    bootstrap._setup_logging): `[LEVEL]\t<time>Z\t<request id>\t<message>` lines, or with AWS_LAMBDA_LOG_FORMAT=JSON
    one JSON record a line ({"timestamp", "level", "message", "logger", "requestId"}); in JSON format the root
    logger's level is AWS_LAMBDA_LOG_LEVEL (Lambda's WARN and FATAL are Python's WARNING and CRITICAL)."""

    request_id = ""

    def __init__(self, log: "_Log") -> None:
        super().__init__()
        self.log, self.json = log, os.environ.get("AWS_LAMBDA_LOG_FORMAT") == "JSON"
        logging.Formatter.converter = time.gmtime

    def emit(self, record: logging.LogRecord) -> None:
        when = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created)) + f".{int(record.msecs):03d}Z"
        level = {"WARNING": "WARN", "CRITICAL": "FATAL"}.get(record.levelname, record.levelname)
        if not self.json:
            self.log.write(f"[{record.levelname}]\t{when}\t{self.request_id}\t{record.getMessage()}\n")
            return
        entry = {"timestamp": when, "level": level, "message": record.getMessage(), "logger": record.name,
                 "requestId": self.request_id}
        if record.exc_info and record.exc_info[0] is not None:
            entry.update(errorType=record.exc_info[0].__name__, errorMessage=str(record.exc_info[1]),
                         stackTrace=traceback.format_tb(record.exc_info[2]))
        self.log.write(json.dumps(entry, default=str) + "\n")


def _lambda_logging(log: "_Log") -> _LambdaLogHandler:
    handler = _LambdaLogHandler(log)
    root = logging.getLogger()
    root.addHandler(handler)
    level = os.environ.get("AWS_LAMBDA_LOG_LEVEL", "") if handler.json else ""
    if level:
        root.setLevel({"WARN": "WARNING", "FATAL": "CRITICAL", "TRACE": "DEBUG"}.get(level, level))
    return handler


def _error(error: BaseException) -> dict[str, Any]:
    return {"ok": False, "errorType": type(error).__name__, "errorMessage": str(error),
            "stackTrace": traceback.format_exception(type(error), error, error.__traceback__)}


def main() -> int:
    protocol = os.fdopen(os.dup(sys.stdout.fileno()), "w", buffering=1)
    log = _Log()
    sys.stdout = log  # the handler's prints are logs, not answers
    lambda_log = _lambda_logging(log)
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
            lambda_log.request_id = request["context"].get("aws_request_id", "")
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

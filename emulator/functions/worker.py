"""The worker subprocess that runs an uploaded function's code, as Lambda's Python runtime does.

    python emulator/functions/worker.py <handler module.func>   (a script: the emulator package is not imported)

It runs with the function's code folder as its working directory and first entry of sys.path, and the
function's environment variables. It imports the handler once, then reads one JSON request per line on
stdin ({"event", "context"}) and answers one JSON line on the original stdout (first, once the handler is
imported or failed to import, {"ready": true, "logs": <its output so far>}: the end of Lambda's Init phase):
{"ok": true, "payload": ..., "logs"} or {"ok": false, "errorType", "errorMessage", "stackTrace", "logs"}.
Anything the handler prints is the invocation's log: kept for the answer and written to stderr, and, while the
invocation runs, sent at once as a {"log": <text>} line before the answer (runtimes/workers.py keeps them: the log of
an invocation killed at its timeout, which never answers). So are its
`logging` records, through the root logger's handler as Lambda's Python runtime sets it up (`_lambda_logging`).
The runtime's own error line (below) is the invocation's log only, like the rest of it in the function's log group:
not stderr, where it would repeat raw at every retry; the emulator's log line for the failure names the error.

Errors are Lambda's Python runtime's (awslambdaric's bootstrap.py): the stack trace lists the user's frames only
(traceback.format_list from the first frame that is neither this worker's nor importlib's), a handler module that cannot be imported
is Runtime.ImportModuleError "Unable to import module 'app': <reason>", a syntax error
Runtime.UserCodeSyntaxError, a missing handler function Runtime.HandlerNotFound "Handler 'f' missing on module
'app'", a result JSON cannot carry Runtime.MarshalError "Unable to marshal response: Object of type set is not JSON
serializable", each with an empty stack trace; the error is also the invocation's log line "[ERROR] <type>: <message>".
"""

from __future__ import annotations

import decimal
import importlib
import itertools
import json
import logging
import os
import sys
import time
import traceback
from typing import Any

#: set for the interpreter that retries a failed Init: the invocation it is for and when the retry began
RETRIED_INIT = "_EDDY_RETRIED_INIT"


class CognitoIdentity:
    cognito_identity_id = None
    cognito_identity_pool_id = None


class ClientContext:
    __slots__ = ("custom", "env", "client")


class Client:
    __slots__ = ("installation_id", "app_title", "app_version_name", "app_version_code", "app_package_name")


def _client_context(sent: Any) -> Any:
    """awslambdaric's client_context: a ClientContext (custom, env, client), its client a Client; None without one."""
    if not isinstance(sent, dict):
        return None
    context = ClientContext()
    for name in ClientContext.__slots__:
        setattr(context, name, sent.get(name))
    if isinstance(context.client, dict):
        client, context.client = context.client, Client()
        for name in Client.__slots__:
            setattr(context.client, name, client.get(name))
    return context


class Context:
    """Lambda's Python context: the fields the emulator sends (memory_limit_in_mb a string, client_context None),
    identity and get_remaining_time_in_millis()."""

    def __init__(self, fields: dict[str, Any], deadline: float) -> None:
        for name, value in fields.items():
            setattr(self, name, value)
        self.identity = CognitoIdentity()
        self.client_context = _client_context(fields.get("client_context"))
        self._deadline = deadline

    def get_remaining_time_in_millis(self) -> int:
        return max(0, int((self._deadline - time.monotonic()) * 1000))


class _Log:
    """The handler's stdout: kept for the invocation's log (LogType=Tail) and written to stderr."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        #: while an invocation runs, the protocol each write is also sent on at once ({"log": text} lines): what the
        #: handler printed reaches its log even when the worker is killed at its timeout before answering
        self.stream: Any = None

    def write(self, text: str) -> int:
        self.lines.append(text)
        if self.stream is not None and text:
            self.stream.write(json.dumps({"log": text}) + "\n")
        return sys.__stderr__.write(text)

    def flush(self) -> None:
        sys.__stderr__.flush()

    def keep(self, text: str) -> None:
        """A line of the runtime's own (an error's `[ERROR] ...`): the invocation's log, not stderr."""
        self.lines.append(text)

    def take(self) -> str:
        text, self.lines = "".join(self.lines), []
        return text


class _LambdaLogHandler(logging.Handler):
    """The root logger's handler as Lambda's Python runtime installs it (aws-lambda-python-runtime-interface-client,
    bootstrap._setup_logging, LambdaLoggerHandler: the record formatted whole, logger.exception's traceback after
    its message, one entry): `[LEVEL]\t<time>Z\t<request id>\t<message>` lines, or with AWS_LAMBDA_LOG_FORMAT=JSON
    one JSON record a line ({"timestamp", "level", "message", "logger", "requestId"}); in JSON format the root
    logger's level is AWS_LAMBDA_LOG_LEVEL (Lambda's WARN and FATAL are Python's WARNING and CRITICAL)."""

    request_id = ""

    def __init__(self, log: "_Log") -> None:
        super().__init__()
        self.log, self.json = log, os.environ.get("AWS_LAMBDA_LOG_FORMAT") == "JSON"
        self._formatter = logging.Formatter()
        logging.Formatter.converter = time.gmtime

    def emit(self, record: logging.LogRecord) -> None:
        self.log.write(log_entry(record, self.request_id, self.json, self._formatter))


def log_entry(record: logging.LogRecord, request_id: str, json_format: bool, formatter: logging.Formatter) -> str:
    """A logging record as the runtime's handler writes it, one line (a registered callable's records too)."""
    when = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created)) + f".{int(record.msecs):03d}Z"
    level = {"WARNING": "WARN", "CRITICAL": "FATAL"}.get(record.levelname, record.levelname)
    if not json_format:  # the runtime's Formatter: the message, then the exception's traceback and stack_info
        text = record.getMessage()
        if record.exc_info and record.exc_info[0] is not None:
            text += "\n" + formatter.formatException(record.exc_info)
        if record.stack_info:
            text += "\n" + formatter.formatStack(record.stack_info)
        # one record is one entry of the log (one CloudWatch event, as the runtime's telemetry frame is): its
        # lines joined by carriage returns, as the runtime's StandardLogSink joins a multi-line entry
        entry = f"[{record.levelname}]\t{when}\t{request_id}\t{text}".replace("\r\n", "\n")
        return entry.replace("\n", "\r") + "\n"
    fields = {
        "timestamp": when,
        "level": level,
        "message": record.getMessage(),
        "logger": record.name,
        "requestId": request_id,
    }
    if record.exc_info and record.exc_info[0] is not None:
        fields.update(
            errorType=record.exc_info[0].__name__,
            errorMessage=str(record.exc_info[1]),
            stackTrace=traceback.format_tb(record.exc_info[2]),
        )
    return json.dumps(fields, default=str) + "\n"


def _lambda_logging(log: "_Log") -> _LambdaLogHandler:
    handler = _LambdaLogHandler(log)
    root = logging.getLogger()
    root.addHandler(handler)
    level = os.environ.get("AWS_LAMBDA_LOG_LEVEL", "") if handler.json else ""
    if level:
        root.setLevel({"WARN": "WARNING", "FATAL": "CRITICAL", "TRACE": "DEBUG"}.get(level, level))
    return handler


HERE = os.path.abspath(__file__)
IMPORTLIB = os.path.dirname(os.path.abspath(importlib.__file__))


def _runtime_frame(filename: str) -> bool:
    """A frame of the runtime's (this worker, or the import machinery it loads the handler's module with)."""
    return (
        os.path.abspath(filename) == HERE
        or filename.startswith("<frozen importlib")
        or os.path.dirname(os.path.abspath(filename)) == IMPORTLIB
    )


#: where Lambda keeps a function's code: its stack traces name the code's files there (LocalStack's AWS-validated
#: test_lambda_destinations.snapshot.json: '  File "/var/task/handler.py", line 55, in handler\n ...')
TASK_ROOT = "/var/task"


def _error(error: BaseException) -> dict[str, Any]:
    frames = traceback.extract_tb(error.__traceback__)
    while frames and _runtime_frame(frames[0].filename):  # the user's frames only
        frames.pop(0)
    code = os.getcwd() + os.sep  # the worker runs in the function's code folder
    for frame in frames:
        if frame.filename.startswith(code):
            _ = frame.line  # the source line read from where the file is, before the frame names Lambda's place
            frame.filename = f"{TASK_ROOT}/{frame.filename[len(code):]}"
    return _fault(type(error).__name__, str(error), traceback.format_list(frames))


def _decimal(value: Any) -> Any:
    """A Decimal as the runtime's encoder writes it (a number: boto3's DynamoDB items hold them); anything else JSON
    cannot carry is refused as json's own TypeError words it."""
    if isinstance(value, decimal.Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def _fault(error_type: str, message: str, trace: list[str] | None = None) -> dict[str, Any]:
    return {"ok": False, "errorType": error_type, "errorMessage": message, "stackTrace": trace or []}


def _load(handler: str) -> Any:
    """The handler function, or the error Lambda's runtime answers instead (a dict)."""
    module_name, _, function_name = handler.rpartition(".")
    try:
        module = importlib.import_module(module_name.replace("/", "."))
    except ImportError as error:
        return _fault("Runtime.ImportModuleError", f"Unable to import module '{module_name}': {error}")
    except SyntaxError as error:
        return _fault(
            "Runtime.UserCodeSyntaxError",
            f"Syntax error in module '{module_name}': {error}",
            [f'  File "{error.filename}" Line {error.lineno}\n    {error.text}'],
        )
    except Exception as error:  # the module raised while it was imported: its own error, its frames
        return _error(error)
    if not hasattr(module, function_name):
        return _fault("Runtime.HandlerNotFound", f"Handler '{function_name}' missing on module '{module_name}'")
    return getattr(module, function_name)


def _error_log(answer: dict[str, Any]) -> str:
    """The log line Lambda's Python runtime writes for an error: `[ERROR] type: message`, then the trace."""
    lines = [f"[ERROR] {answer['errorType']}: {answer['errorMessage']}"]
    if answer["stackTrace"]:
        lines.append("Traceback (most recent call last):")
        lines.extend(line for frame in answer["stackTrace"] for line in frame.splitlines())
    return "\r".join(lines) + "\n"


def main() -> int:
    protocol = os.fdopen(os.dup(sys.stdout.fileno()), "w", buffering=1)
    retried = os.environ.pop(RETRIED_INIT, None)  # this interpreter is a failed Init's retry, for this invocation
    started_in = dict(os.environ), os.getcwd()  # what a retried Init starts from again, whatever the import changed
    log = _Log()
    sys.stdout = log  # the handler's prints are logs, not answers
    lambda_log = _lambda_logging(log)
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path[:] = [os.getcwd(), *(path for path in sys.path if os.path.abspath(path or ".") != here)]
    handler = _load(sys.argv[1])  # a dict: the error Lambda answers while the handler cannot be loaded
    if isinstance(handler, dict):
        log.keep(_error_log(handler))
    init, first = None, []
    if retried is None:
        ready = {"ready": True, "logs": log.take()}  # the Init phase's output: logged before the first START
        if isinstance(handler, dict):
            ready["initError"] = handler["errorType"]  # INIT_REPORT ... Phase: init Status: error Error Type: ...
        protocol.write(json.dumps(ready) + "\n")  # the Init phase is over: invocations' timeouts run from here
    else:  # the Init in the invocation (its Phase: invoke), then the invocation
        retry = json.loads(retried)
        init, first = {"duration": time.monotonic() - retry["began"], "logs": log.take()}, [retry["request"]]
        if isinstance(handler, dict):
            init["errorType"] = handler["errorType"]
    for line in itertools.chain(first, sys.stdin):
        request = json.loads(line)
        if init is None and isinstance(handler, dict):
            _retry_init(line, *started_in, protocol)
        if init is not None and isinstance(handler, dict):
            protocol.write(json.dumps({**handler, "body": _init_document(handler), "init": init, "logs": ""}) + "\n")
            init = None
            continue
        context = Context(request["context"], time.monotonic() + request["timeout"])
        lambda_log.request_id = request["context"].get("aws_request_id", "")
        log.stream = protocol
        try:
            answer = {"ok": True, "payload": handler(request["event"], context)}
        except Exception as error:
            answer = _error(error)
            log.keep(_error_log(answer))
        finally:
            log.stream = None
        try:
            json.dumps(answer, default=_decimal)
        except (TypeError, ValueError) as error:  # the runtime's words for a result JSON cannot carry
            answer = _fault("Runtime.MarshalError", f"Unable to marshal response: {error}")
            log.keep(_error_log(answer))
        if init is not None:
            answer["init"], init = init, None
        answer["logs"] = log.take()
        protocol.write(json.dumps(answer, default=_decimal) + "\n")
    return 0


def _init_document(fault: dict[str, Any]) -> dict[str, Any]:
    """The error document of a failed Init: the runtime reports it before any invocation, so its requestId is empty
    (AWS-recorded: LocalStack's test_lambda.snapshot.json, TestLambdaErrors::test_lambda_runtime_error; AWS's answers
    for Runtime.ImportModuleError, as users have posted them, say the same)."""
    return {"errorMessage": fault["errorMessage"], "errorType": fault["errorType"], "requestId": "",
            "stackTrace": fault["stackTrace"]}  # fmt: skip


def _retry_init(request: str, environment: dict[str, str], cwd: str, protocol: Any) -> None:
    """Lambda retries a failed Init with the next invocation in a fresh runtime (the Developer Guide, "Failures during
    the Init phase": the execution environment is reset): this process becomes a new interpreter, in the worker's
    first environment and folder, which imports the handler's module again (nothing the failed import loaded or
    changed stays) and answers `request`. The same process: the invoker's pipes, process group and pid stay."""
    protocol.flush()
    sys.stderr.flush()
    os.chdir(cwd)
    retry = json.dumps({"request": request, "began": time.monotonic()})
    os.execve(sys.executable, [sys.executable, *sys.orig_argv[1:]], {**environment, RETRIED_INIT: retry})


if __name__ == "__main__":
    sys.exit(main())

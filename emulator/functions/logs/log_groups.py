"""Function logs where Lambda puts them: every invocation's lines in CloudWatch Logs, as the function's
LoggingConfig asks.

    config = logging_config({"LogFormat": "JSON"}, "on-order")   # logging_configs.py: LoggingConfig as Lambda answers it
    logs = FunctionLogs(now=clock.now)
    logs.write(function, result, started=clock.now())           # after each invocation

Each invocation writes, into the function's log group (LoggingConfig.LogGroup, by default /aws/lambda/<name>) and
the log stream of the execution environment that ran it (`YYYY/MM/DD/[$LATEST]<32 hex digits>`, `[3]` for version 3; one per worker
subprocess, one per revision of a registered callable), as Lambda's runtimes do (AWS Lambda Developer Guide,
"Sending Lambda function logs to CloudWatch Logs", "Configuring JSON and plain text log formats", "Log-level
filtering"; the Python runtime's error line from aws-lambda-python-runtime-interface-client's bootstrap.py):

- Text: on a new execution environment's first invocation (a cold start; a worker subprocess's), first
  `INIT_START Runtime Version: python:3.12.v1\tRuntime Version ARN: arn:aws:lambda:<region>::runtime:<64 hex>` and
  what the handler's module wrote while it was imported (the Init phase's output), in the log group only (the tail
  of LogType Tail starts at START); then `START RequestId: <id> Version: $LATEST`, each line the function wrote, an unhandled error as the
  runtime logs it (Python: `[ERROR] <type>: <message>` and its traceback in one event, indented with no-break
  spaces; Node.js's worker writes its own `<time>\t<id>\tERROR\tInvoke Error \t<the error as JSON>` line),
  `END RequestId: <id>`, `REPORT RequestId:
  <id>\tDuration: ... ms\tBilled Duration: ... ms (a cold start's Init counted)\tMemory Size: ... MB\tMax Memory Used: ... MB\t` (and, for a new
  execution environment's first invocation, `Init Duration: ... ms\t`; a timed-out one ends `Status: timeout`), and
  after a timeout `<time> <id> Task timed out after N.00 seconds`.
- JSON: the system lines as JSON records (`platform.initStart` on a cold start, `platform.start` with the
  function's unqualified ARN and the version that ran,
  `platform.report` with its metrics and status), kept
  when SystemLogLevel lets INFO through; each line the function wrote kept when ApplicationLogLevel lets its level
  through (a JSON object's "level", else INFO); an unhandled error as one JSON record at level ERROR.

Max Memory Used is the worker's peak resident size (/proc), or this process's for a registered callable (it runs
here). Events carry the emulator's clock, so a test with a virtual clock reads them at its own times.
"""

from __future__ import annotations

import hashlib
import json
import re
import secrets
import threading
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any, Callable

from eddy.emulator.functions import platform_errors
from eddy.emulator.functions.logs.reports import report
from eddy.emulator.moto_seam.cloudwatch_logs import load_backend, put_events

if TYPE_CHECKING:
    from eddy.emulator.functions.invocation_results import InvocationResult
    from eddy.emulator.functions.function import Function

APPLICATION_LEVELS = ("TRACE", "DEBUG", "INFO", "WARN", "ERROR", "FATAL")
SYSTEM_LEVELS = ("DEBUG", "INFO", "WARN")
_LEVEL_WORDS = {"WARNING": "WARN", "CRITICAL": "FATAL"}  # Python's logging names, as Lambda reads them
NO_BREAK_SPACE = "\u00a0"


def environment(config: dict[str, str], log_stream_name: str) -> dict[str, str]:
    """What Lambda tells the runtime about its logs: the group and stream, and in JSON format the format and the
    application log level (AWS_LAMBDA_LOG_FORMAT, AWS_LAMBDA_LOG_LEVEL), which the runtime's logging follows."""
    variables = {"AWS_LAMBDA_LOG_GROUP_NAME": config["LogGroup"], "AWS_LAMBDA_LOG_STREAM_NAME": log_stream_name}
    if config["LogFormat"] == "JSON":
        variables.update(AWS_LAMBDA_LOG_FORMAT="JSON", AWS_LAMBDA_LOG_LEVEL=config["ApplicationLogLevel"])
    return variables


def level_of(line: str) -> str:
    """An application log line's level, as Lambda reads it: a JSON object's "level", else INFO."""
    try:
        parsed = json.loads(line)
    except ValueError:
        return "INFO"
    level = str(parsed.get("level", "")).upper() if isinstance(parsed, dict) else ""
    level = _LEVEL_WORDS.get(level, level)
    return level if level in APPLICATION_LEVELS else "INFO"


def runtime_version(runtime: str) -> str:
    """The runtime version Lambda names in INIT_START: python3.12 is python:3.12.v1, nodejs20.x nodejs:20.v1 (Lambda
    counts its own releases, python:3.12.v89; Eddy's runtime is the machine's, one release); provided.al2023
    provided:al2023.v1 (as Lambda writes provided:al2023.v16)."""
    if runtime.startswith("provided."):
        return runtime.replace(".", ":", 1) + ".v1"
    name = re.fullmatch(r"([a-z]+)(\d[\d.]*?)(?:\.x)?", runtime)
    return f"{name.group(1)}:{name.group(2)}.v1" if name else f"{runtime}.v1"


def runtime_version_arn(region: str, version: str) -> str:
    """`arn:aws:lambda:<region>::runtime:<64 hex digits>`, the same for every function of that runtime version."""
    return f"arn:aws:lambda:{region}::runtime:{hashlib.sha256(version.encode()).hexdigest()}"


def _iso(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


class FunctionLogs:
    """Writes each invocation's log into moto's CloudWatch Logs; names the execution environments' log streams."""

    def __init__(self, now: Callable[[], float]) -> None:
        self._now = now
        #: Settings.function_logs: False writes nothing
        self.enabled = True
        self._streams: dict[tuple[str, int], str] = {}  # a registered callable's stream, by (ARN, revision)
        self._lock = threading.Lock()
        #: where an invocation's events go: moto's CloudWatch Logs (the Emulator adds its write-ahead log)
        self.sink: Callable[[str, str, str, str, list[tuple[int, str]]], None] = put_events

    def prepare(self) -> None:
        """Load what the first write loads (moto's CloudWatch Logs, where every sink puts the events), before it is
        needed."""
        load_backend()

    def new_stream_name(self, version: str = "$LATEST") -> str:
        """A new execution environment's log stream, dated by the emulator's clock, named for the version it runs."""
        return f"{datetime.fromtimestamp(self._now(), timezone.utc):%Y/%m/%d}/[{version}]{secrets.token_hex(16)}"

    def stream_of_callable(self, function: "Function") -> str:
        with self._lock:
            key = (function.qualified_arn, function.revision)
            if key not in self._streams:
                self._streams[key] = self.new_stream_name(function.version)
            return self._streams[key]

    def write(self, function: "Function", result: "InvocationResult", started: float) -> None:
        if not self.enabled:
            return
        ended = started + result.duration
        lines = (_json_lines if function.logging_config["LogFormat"] == "JSON" else _text_lines)(
            function, result, started, ended
        )
        if result.init_duration is not None:  # a cold start: the Init phase's lines come first, in the log group only
            lines = _init_lines(function, result.init_logs, result.init_duration, result.init_error, started) + lines
        self._put(function, result.log_stream_name, lines)

    def write_init(
        self, function: "Function", stream: str, init: tuple[str, float | None, str | None], started: float, kind: str
    ) -> None:
        """An execution environment's Init run before any invocation (a provisioned one's: `kind`), its `init` (output,
        duration, error type or None) logged in its own stream: INIT_START, the output and, failed, INIT_REPORT."""
        if self.enabled:
            self._put(function, stream, _init_lines(function, *init, started, kind))

    def _put(self, function: "Function", stream: str, lines: list[tuple[float, str]]) -> None:
        events = [(int(at * 1000), message) for at, message in lines]
        self.sink(function.account_id, function.region, function.logging_config["LogGroup"], stream, events)

    def text(self, function: "Function", result: "InvocationResult") -> str:
        """The invocation's log as its log group has it (LogType Tail's), ended now on the emulator's clock."""
        ended = self._now()
        if function.logging_config["LogFormat"] == "JSON":
            lines = _json_lines(function, result, ended - result.duration, ended)
        else:
            lines = _text_lines(function, result, ended - result.duration, ended, tail=True)
        return "".join(line if line.endswith("\n") else line + "\n" for _, line in lines)


def _init_lines(
    function: "Function",
    output: str,
    duration: float | None,
    error: str | None,
    started: float,
    initialization_type: str = "on-demand",
) -> list[tuple[float, str]]:
    """INIT_START (JSON: platform.initStart, when SystemLogLevel lets INFO through), the Init phase's output and, if
    it failed, its INIT_REPORT."""
    version = runtime_version(function.runtime)
    arn = runtime_version_arn(function.region, version)
    init_logs = _events(output)
    if function.logging_config["LogFormat"] != "JSON":
        return [
            (started, f"INIT_START Runtime Version: {version}\tRuntime Version ARN: {arn}\n"),
            *((started, line) for line in init_logs),
            *_init_report(duration, "init", error, started),
        ]
    config = function.logging_config
    lines: list[tuple[float, str]] = []
    if SYSTEM_LEVELS.index(config["SystemLogLevel"]) <= SYSTEM_LEVELS.index("INFO"):
        lines.append(
            (
                started,
                json.dumps(
                    {
                        "time": _iso(started),
                        "type": "platform.initStart",
                        "record": {
                            "initializationType": initialization_type,
                            "phase": "init",
                            "runtimeVersion": version,
                            "runtimeVersionArn": arn,
                            "functionName": function.name,
                            "functionVersion": function.version,
                        },
                    }
                ),
            )
        )
    application = APPLICATION_LEVELS.index(config["ApplicationLogLevel"])
    init_logs = _init_error_records(init_logs, error, started)
    lines += [(started, line) for line in init_logs if APPLICATION_LEVELS.index(level_of(line)) >= application]
    if error is not None and SYSTEM_LEVELS.index(config["SystemLogLevel"]) <= SYSTEM_LEVELS.index("INFO"):
        lines.append((started, _init_report_record(duration, "init", error, started, initialization_type)))
    return lines


def _init_error_records(lines: list[str], error_type: str | None, at: float) -> list[str]:
    """A failed Init's output in JSON format: the runtime's `[ERROR] <type>: <message>` line (the worker writes text)
    as the JSON error record an invocation's error is (requestId empty: no invocation had begun)."""
    own = f"[ERROR] {error_type}: "
    return [
        json.dumps(
            {
                "timestamp": _iso(at),
                "level": "ERROR",
                "errorMessage": line[len(own) :].split("\r", 1)[0].rstrip("\n"),
                "errorType": error_type,
                "requestId": "",
                "stackTrace": [],
            }
        )
        if error_type and line.startswith(own)
        else line
        for line in lines
    ]


def _init_report(duration: float | None, phase: str, error: str | None, at: float) -> list[tuple[float, str]]:
    """A failed Init's INIT_REPORT (Lambda writes none for one that succeeded): `INIT_REPORT Init Duration: 252.02
    ms\tPhase: init\tStatus: error\tError Type: Runtime.ImportModuleError` (the Developer Guide, "Failures during the
    Init phase"; the Init Lambda retries in the invocation says `Phase: invoke`)."""
    if error is None:
        return []
    return [
        (
            at,
            f"INIT_REPORT Init Duration: {(duration or 0.0) * 1000:.2f} ms\tPhase: {phase}\tStatus: error\tError Type: {error}\n",
        )
    ]


def _init_report_record(
    duration: float | None, phase: str, error: str, at: float, initialization_type: str = "on-demand"
) -> str:
    """A failed Init's platform.initReport (the Telemetry API's schema), for the JSON log format."""
    record = {
        "initializationType": initialization_type,
        "phase": phase,
        "status": "error",
        "errorType": error,
        "metrics": {"durationMs": round((duration or 0.0) * 1000, 2)},
    }
    return json.dumps({"time": _iso(at), "type": "platform.initReport", "record": record})


def _output(result: "InvocationResult", tail: bool = False) -> list[str]:
    """The invocation's output, a line an event. The Python worker's own `[ERROR] type: message` line (its lines
    joined by carriage returns, as the runtime writes it to the tail log) is left out: the error's event is written
    from the error itself, in CloudWatch's form (_text_error, or a JSON record)."""
    lines = _events(result.logs, tail)
    if _logs_its_error(result):
        own = f"[ERROR] {result.error.error_type}"  # type: ignore[union-attr]
        lines = [line for line in lines if not line.startswith(own)]
    return lines


def _events(output: str, tail: bool = False) -> list[str]:
    """A worker's output, a line an event. A logging record of many lines (logger.exception's traceback) is one line
    of the worker's log, its lines joined by carriage returns; its event holds them as the runtime's one telemetry
    frame does, joined by newlines (the tail keeps the carriage returns, as the runtime's StandardLogSink writes it)."""
    lines = re.findall(r"[^\n]*\n|[^\n]+$", output)
    if tail:
        return lines
    return [line.replace("\r", "\n") if line.startswith("[") and "\t" in line else line for line in lines]


def _text_lines(
    function: "Function", result: "InvocationResult", started: float, ended: float, tail: bool = False
) -> list[tuple[float, str]]:
    request_id = result.request_id
    retried = result.invoke_init  # the Init retried in this invocation: its output and, failed, its INIT_REPORT
    lines = [] if retried is None else [(started, line) for line in _events(retried.get("logs", ""), tail)]
    if retried is not None:
        lines += _init_report(retried.get("duration"), "invoke", retried.get("errorType"), started)
    lines.append((started, f"START RequestId: {request_id} Version: {function.version}\n"))
    lines += [(ended, line) for line in _output(result, tail)]
    if retried is not None and retried.get("errorType"):
        pass  # the error's line was the retried Init's
    elif _logs_its_error(result):
        lines.append((ended, _text_error(result)))
    elif result.error is not None and (exit_line := platform_errors.log_line(result.error)):
        lines.append((ended, exit_line))
    duration, billed, used = report(result)
    lines.append((ended, f"END RequestId: {request_id}\n"))
    init = "" if result.init_duration is None else f"Init Duration: {result.init_duration * 1000:.2f} ms\t"
    failed_init = (retried or {}).get("errorType") or result.init_error
    if failed_init:  # no Init Duration (INIT_REPORT said it), and the invocation's status
        init = f"Status: error\tError Type: {failed_init}\t"
    elif result.timed_out:  # the invocation's status last, with no tab after it (Lambda's REPORT of a timeout)
        init += "Status: timeout"
    lines.append(
        (
            ended,
            f"REPORT RequestId: {request_id}\tDuration: {duration:.2f} ms\tBilled Duration: {billed} ms"
            f"\tMemory Size: {function.memory_size} MB\tMax Memory Used: {used} MB\t{init}\n",
        )
    )
    if result.timed_out:
        lines.append(
            (ended, f"{_iso(ended)} {request_id} Task timed out after {float(function.timeout):.2f} seconds\n")
        )
    return lines


def _logs_its_error(result: "InvocationResult") -> bool:
    """The Python runtime logs an unhandled error itself; another runtime's worker (Node.js: `Invoke Error`, with
    its error document) already wrote its line into the invocation's output; a timeout has its own line."""
    return result.error is not None and not result.timed_out and result.error_body is None


def _text_error(result: "InvocationResult") -> str:
    error = result.error
    assert error is not None
    lines = [f"[ERROR] {error.error_type}: {error.message}" if error.message else f"[ERROR] {error.error_type}"]
    frames = [element for element in error.stack_trace or () if str(element).startswith("  File")]
    if frames:  # the frames as Lambda's stackTrace lists them (traceback.format_list), whatever else it was given
        lines.append("Traceback (most recent call last):")
        for element in frames:
            for line in str(element).splitlines():
                stripped = line.lstrip(" ")
                lines.append(NO_BREAK_SPACE * (len(line) - len(stripped)) + stripped)
    return "\n".join(lines) + "\n"


def _json_lines(
    function: "Function", result: "InvocationResult", started: float, ended: float
) -> list[tuple[float, str]]:
    config, request_id = function.logging_config, result.request_id
    system = SYSTEM_LEVELS.index(config["SystemLogLevel"]) <= SYSTEM_LEVELS.index("INFO")
    application = APPLICATION_LEVELS.index(config["ApplicationLogLevel"])
    lines: list[tuple[float, str]] = []
    retried = result.invoke_init  # the Init retried in this invocation: its output and, failed, its initReport
    if retried is not None:
        logged = _init_error_records(_events(retried.get("logs", "")), retried.get("errorType"), started)
        lines += [(started, line) for line in logged if APPLICATION_LEVELS.index(level_of(line)) >= application]
        if system and retried.get("errorType"):
            lines.append(
                (started, _init_report_record(retried.get("duration"), "invoke", retried["errorType"], started))
            )
    failed_init = (retried or {}).get("errorType") or result.init_error
    if system:
        lines.append(
            (
                started,
                json.dumps(
                    {
                        "time": _iso(started),
                        "type": "platform.start",
                        "record": {"requestId": request_id, "functionArn": function.arn, "version": function.version},
                    }
                ),
            )
        )
    lines += [(ended, line) for line in _output(result) if APPLICATION_LEVELS.index(level_of(line)) >= application]
    if _logs_its_error(result) and not failed_init and APPLICATION_LEVELS.index("ERROR") >= application:
        assert result.error is not None
        error = {
            "errorMessage": result.error.message,
            "errorType": result.error.error_type,
            "requestId": request_id,
            "stackTrace": result.error.stack_trace,
        }
        lines.append((ended, json.dumps({"timestamp": _iso(ended), "level": "ERROR", **error})))
    if system:
        duration, billed, used = report(result)
        status = "timeout" if result.timed_out else ("error" if result.error is not None else "success")
        metrics: dict[str, float] = {
            "durationMs": duration,
            "billedDurationMs": billed,
            "memorySizeMB": function.memory_size,
            "maxMemoryUsedMB": used,
        }
        record: dict[str, Any] = {"requestId": request_id, "metrics": metrics, "status": status}
        if failed_init:  # the Init's error (its initReport says its duration)
            record["errorType"] = failed_init
        elif result.init_duration is not None:
            metrics["initDurationMs"] = round(result.init_duration * 1000, 2)
        lines.append((ended, json.dumps({"time": _iso(ended), "type": "platform.report", "record": record})))
    return lines

"""The worker of a custom runtime (provided.al2023, provided.al2): Lambda's Runtime API served on 127.0.0.1 to the
function's `bootstrap`, and the worker protocol (runtimes/__init__.py) spoken to the invoker.

    python -I emulator/functions/runtimes/runtime_api.py <code>/bootstrap [<opt>/bootstrap]   (a script)

As Lambda does (AWS Lambda Developer Guide, "Using the Lambda runtime API for custom runtimes", API version
2018-06-01), it starts the first `bootstrap` that exists (the package's, then the layers' /opt) with
AWS_LAMBDA_RUNTIME_API=127.0.0.1:<port>, and serves it:

    GET  /2018-06-01/runtime/invocation/next             the next event; Lambda-Runtime-Aws-Request-Id,
                                                         -Deadline-Ms, -Invoked-Function-Arn, -Trace-Id, -Client-Context
    POST /2018-06-01/runtime/invocation/<id>/response    the invocation's answer (202 {"status": "OK"})
    POST /2018-06-01/runtime/invocation/<id>/error       its error document (Lambda-Runtime-Function-Error-Type)
    POST /2018-06-01/runtime/init/error                  the runtime could not start

The Init phase ends with the runtime's first GET /next (the ready line). An error posted is the invocation's
failure with the posted document as Invoke's payload; an init error answers the next invocation, after which the
runtime is started again (Lambda's re-init in the invoke phase); a runtime that exits while it runs an invocation
is answered {"ok": false, "exited": <status>} (the invoker's Runtime.ExitError); one that exits between
invocations is started again by the next. What the runtime writes to stdout and stderr is the invocation's log, sent
as it comes while the invocation runs ({"log": <text>} lines: kept when the invocation is stopped at its timeout).
A request id that is not the running invocation's is 400 InvalidRequestID, as Lambda's runtime API answers it.
"""

from __future__ import annotations

import codecs
import errno
import json
import os
import queue
import select
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable

from eddy.emulator.processes.children import start

PREFIX = "/2018-06-01/runtime/"
#: where Lambda looks for the runtime, in order; its messages name these paths
LAMBDA_PATHS = ("/var/task/bootstrap", "/opt/bootstrap")
INVALID_ENTRYPOINT = "Runtime.InvalidEntrypoint"
#: the largest response the runtime API takes (6 MB and 100 bytes, platform_errors.MAX_RESPONSE_BYTES); past it
#: 413 in the words of Lambda's runtime API (aws-lambda-runtime-interface-emulator, lambda/rapi/handler/
#: invocationresponse_test.go, TestResponseTooLarge), and the invocation fails as Function.ResponseSizeTooLarge
MAX_RESPONSE_BYTES = 6 * 1024 * 1024 + 100


def trace_id() -> str:
    """An X-Ray trace header as Lambda passes it (Root=1-<epoch seconds, 8 hex>-<24 hex>;Parent=<16 hex>;Sampled=0)."""
    # os.urandom rather than secrets: that module's imports would add to every cold start
    return f"Root=1-{int(time.time()):08x}-{os.urandom(12).hex()};Parent={os.urandom(8).hex()};Sampled=0"


class RuntimeApi:
    """What the HTTP handlers share with the worker: the event waiting for GET /next, the invocation running, and
    `notify`, through which they report what the runtime said."""

    def __init__(self, notify: Callable[[tuple[Any, ...]], None]) -> None:
        self.notify = notify
        self._ready = threading.Condition()
        self._next: tuple[dict[str, str], bytes] | None = None
        self.running: str | None = None  # the request id the runtime owes an answer

    def offer(self, request_id: str, headers: dict[str, str], body: bytes) -> None:
        with self._ready:
            self.running, self._next = request_id, (headers, body)
            self._ready.notify_all()

    def take(self) -> tuple[dict[str, str], bytes]:
        """The next invocation's headers and event, once there is one (a GET /next waits as long as it takes)."""
        self.notify(("next",))
        with self._ready:
            while self._next is None:
                self._ready.wait()
            taken, self._next = self._next, None
            return taken

    def answered(self, request_id: str) -> bool:
        """Whether `request_id` is the invocation running (then it is answered: a second answer is refused)."""
        with self._ready:
            if request_id != self.running or self._next is not None:
                return False
            self.running = None
            return True


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # runtimes keep their connection open between invocations
    api: RuntimeApi

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
        """Requests are not the function's log."""

    def do_GET(self) -> None:
        if self.path != PREFIX + "invocation/next":
            return self._send(404, {"errorMessage": "Not Found", "errorType": "NotFound"})
        headers, body = self.api.take()
        self._send(200, body, headers)

    def do_POST(self) -> None:
        body = self._body()
        error_type = self.headers.get("Lambda-Runtime-Function-Error-Type", "")
        if self.path == PREFIX + "init/error":
            self.api.notify(("init_error", body, error_type))
            return self._send(202, {"status": "OK"})
        parts = self.path[len(PREFIX) :].split("/") if self.path.startswith(PREFIX) else []
        if len(parts) != 3 or parts[0] != "invocation" or parts[2] not in ("response", "error"):
            return self._send(404, {"errorMessage": "Not Found", "errorType": "NotFound"})
        if not self.api.answered(parts[1]):
            return self._send(400, {"errorMessage": "Invalid request ID", "errorType": "InvalidRequestID"})
        self.api.notify((parts[2], parts[1], body, error_type))
        if parts[2] == "response" and len(body) > MAX_RESPONSE_BYTES:
            message = f"Exceeded maximum allowed payload size ({MAX_RESPONSE_BYTES} bytes)."
            return self._send(413, {"errorMessage": message, "errorType": "RequestEntityTooLarge"})
        self._send(202, {"status": "OK"})

    def _body(self) -> bytes:
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            chunks = []
            while size := int(self.rfile.readline().split(b";")[0].strip() or b"0", 16):
                chunks.append(self.rfile.read(size))
                self.rfile.readline()
            while self.rfile.readline() not in (b"\r\n", b"\n", b""):  # trailers
                pass
            return b"".join(chunks)
        return self.rfile.read(int(self.headers.get("Content-Length") or 0))

    def _send(self, status: int, body: Any, headers: dict[str, str] | None = None) -> None:
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        self.send_response(status)
        for name, value in {"Content-Type": "application/json", **(headers or {})}.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


def decoded(body: bytes) -> Any:
    """An error document the runtime posted (JSON; an empty body is null, anything else its text)."""
    if not body.strip():
        return None
    try:
        return json.loads(body)
    except ValueError:
        return body.decode(errors="replace")


def response(body: bytes) -> dict[str, Any]:
    """The answer for a response the runtime posted: its JSON, or (empty, not JSON) its text as Invoke returns it."""
    try:
        return {"ok": True, "payload": json.loads(body)}
    except ValueError:
        return {"ok": True, "payload": body.decode(errors="replace"), "raw": True}


class Worker:
    """One execution environment: the runtime process, the Runtime API it talks to, and what it wrote."""

    def __init__(self, candidates: list[str], protocol: Any = None) -> None:
        self.candidates = candidates
        #: where the worker's protocol lines go (main's): what the runtime writes during an invocation is sent there too
        self.protocol = protocol
        self._events: queue.SimpleQueue[tuple[Any, ...]] = queue.SimpleQueue()
        self._wake_read, self._wake_write = os.pipe()
        self.api = RuntimeApi(self._notify)
        handler = type("RuntimeApiHandler", (Handler,), {"api": self.api})
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, name="runtime-api", daemon=True).start()
        self.environment = dict(os.environ, AWS_LAMBDA_RUNTIME_API=f"127.0.0.1:{self.server.server_address[1]}")
        self.process: subprocess.Popen | None = None
        self._output_fd: int | None = None
        self._output = bytearray()
        #: whether an invocation runs: what the runtime writes is then also sent at once as {"log": text} lines
        self._streaming = False
        self._stream_text = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._stdin = b""
        #: the answer owed to the next invocation because the Init phase failed (then the runtime starts again)
        self.failure: dict[str, Any] | None = None

    def _notify(self, event: tuple[Any, ...]) -> None:
        self._events.put(event)
        os.write(self._wake_write, b".")

    # -- the Init phase ------------------------------------------------------------------------------------

    def init(self) -> None:
        """Start the runtime and wait for its first GET /next, an error posted to init/error, or its exit."""
        self.failure = None
        found = next((index for index, path in enumerate(self.candidates) if os.path.isfile(path)), None)
        if found is None:
            reason = f"Couldn't find valid bootstrap(s): [{' '.join(LAMBDA_PATHS)}]"
            self.failure = {"entrypoint": reason}
            return
        while not self._events.empty():  # what a previous runtime said is not this one's
            self._events.get()
        try:  # in this worker's process group, which the invoker ends whole: the runtime and what it started
            self.process = start(
                [self.candidates[found]],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                env=self.environment,
            )
        except OSError as error:  # not executable, not a program (Go's exec words, as Lambda's init reports them)
            words = {errno.EACCES: "permission denied", errno.ENOEXEC: "exec format error"}
            self.failure = {
                "entrypoint": f"fork/exec {LAMBDA_PATHS[found]}: "
                f"{words.get(error.errno, os.strerror(error.errno or 0).lower())}"
            }
            return
        process, self._output_fd = self.process, self.process.stdout.fileno()
        threading.Thread(target=lambda: self._notify(("exited", process, process.wait())), daemon=True).start()
        event = self._wait(lambda e: e[0] in ("next", "init_error") or e[0] == "exited" and e[1] is process)
        if event[0] == "init_error":
            self.failure = self._error(event[1], event[2])
            self.stop()
        elif event[0] == "exited":
            self.failure = {"ok": False, "exited": event[2]}

    # -- invocations ---------------------------------------------------------------------------------------

    def invoke(self, request: dict[str, Any]) -> dict[str, Any]:
        context = request["context"]
        request_id = context["aws_request_id"]
        retried = (
            None  # an Init in this invocation (Lambda's Phase: invoke): after a failed one, or a runtime that ended
        )
        if self.failure is not None or self.process is None or self.process.poll() is not None:
            began, self.failure = time.monotonic(), None
            self.stop()
            self.init()
            retried = {"duration": time.monotonic() - began, "logs": self.output()}
        if self.failure is not None:
            failure, self.failure = self.failure, None
            self.stop()  # the next invocation starts the runtime again
            retried = {**(retried or {}), "errorType": init_error_type(failure)}
            if "entrypoint" in failure:
                document = {
                    "errorType": INVALID_ENTRYPOINT,
                    "errorMessage": f"RequestId: {request_id} Error: {failure['entrypoint']}",
                }
                return {"ok": False, **document, "body": document, "init": retried}
            return {**failure, "init": retried}
        answer = self._invoke(request, context, request_id)
        if retried is not None:
            answer["init"] = retried
        return answer

    def _invoke(self, request: dict[str, Any], context: dict[str, Any], request_id: str) -> dict[str, Any]:
        headers = {
            "Lambda-Runtime-Aws-Request-Id": request_id,
            "Lambda-Runtime-Deadline-Ms": str(int((time.time() + request["timeout"]) * 1000)),
            "Lambda-Runtime-Invoked-Function-Arn": context["invoked_function_arn"],
            "Lambda-Runtime-Trace-Id": trace_id(),
        }
        if context.get("client_context") is not None:
            headers["Lambda-Runtime-Client-Context"] = json.dumps(context["client_context"])
        process = self.process
        self.api.offer(request_id, headers, json.dumps(request["event"]).encode())
        self._streaming, self._stream_text = True, codecs.getincrementaldecoder("utf-8")(errors="replace")
        try:
            event = self._wait(
                lambda e: e[0] in ("response", "error") and e[1] == request_id or e[0] == "exited" and e[1] is process
            )
        finally:
            self._streaming = False
        if event[0] == "response":
            return response(event[2])
        if event[0] == "error":
            return self._error(event[2], event[3])
        self.api.answered(request_id)  # nothing more is taken for it
        return {"ok": False, "exited": event[2]}

    @staticmethod
    def _error(body: bytes, error_type: str) -> dict[str, Any]:
        """An error the runtime posted: its document is what Invoke answers (errorType and errorMessage read from it)."""
        document = decoded(body)
        if not isinstance(document, dict):
            document = {
                "errorMessage": "" if document is None else str(document),
                "errorType": error_type or "Unhandled",
            }
        return {
            "ok": False,
            "errorType": str(document.get("errorType") or error_type or "Unhandled"),
            "errorMessage": str(document.get("errorMessage", "")),
            "stackTrace": document.get("stackTrace") or [],
            "body": document,
        }

    def output(self) -> str:
        text, self._output = self._output.decode(errors="replace"), bytearray()
        return text

    def stop(self) -> None:
        process, self.process = self.process, None
        if process is not None and process.poll() is None:
            process.kill()
            process.wait()
        self._drain()
        self._output_fd = None

    # -- waiting -------------------------------------------------------------------------------------------

    def _wait(self, wanted: Callable[[tuple[Any, ...]], bool], requests: bool = False) -> tuple[Any, ...]:
        """The first event `wanted` takes (with `requests`, also the invoker's next line: ("request", line) or
        ("end",)), reading the runtime's output meanwhile. What the runtime wrote before it posted is read before
        its post is taken: it was in the pipe before the request was made."""
        while True:
            while not self._events.empty():
                event = self._events.get()
                self._drain()
                if wanted(event):
                    return event
            if requests and b"\n" in self._stdin:
                line, _, self._stdin = self._stdin.partition(b"\n")
                return ("request", line)
            watched = [
                self._wake_read,
                *([self._output_fd] if self._output_fd is not None else []),
                *([sys.stdin.fileno()] if requests else []),
            ]
            for fd in select.select(watched, [], [])[0]:
                if fd == self._wake_read:
                    os.read(fd, 4096)
                elif fd == self._output_fd:
                    self._read_output()
                else:
                    chunk = os.read(fd, 1 << 16)
                    if not chunk:
                        return ("end",)
                    self._stdin += chunk

    def _read_output(self) -> bool:
        assert self._output_fd is not None
        chunk = os.read(self._output_fd, 1 << 16)
        if not chunk:  # the runtime (and every process it started) closed it
            self._output_fd = None
            return False
        self._output += chunk
        if self._streaming and self.protocol is not None and (text := self._stream_text.decode(chunk)):
            self.protocol.write(json.dumps({"log": text}) + "\n")
        sys.stderr.buffer.write(chunk)  # as a Python function's output, Eddy's stderr shows it as it comes
        sys.stderr.flush()
        return True

    def _drain(self) -> None:
        while self._output_fd is not None and select.select([self._output_fd], [], [], 0)[0] and self._read_output():
            pass


def init_error_type(failure: dict[str, Any]) -> str:
    """A failed Init's Error Type: no bootstrap to run (Runtime.InvalidEntrypoint), the runtime's exit
    (Runtime.ExitError), else the type of the error the runtime posted to /runtime/init/error."""
    if "entrypoint" in failure:
        return INVALID_ENTRYPOINT
    if "exited" in failure:
        return "Runtime.ExitError"
    return str(failure.get("errorType") or "Runtime.Unknown")


def main(argv: list[str]) -> int:
    protocol = os.fdopen(os.dup(sys.stdout.fileno()), "w", buffering=1)
    worker = Worker(argv, protocol)
    worker.init()
    ready = {
        "ready": True,
        "logs": worker.output(),
        "pid": worker.process.pid if worker.process is not None else os.getpid(),
    }
    if worker.failure is not None:  # INIT_REPORT ... Phase: init Status: error Error Type: ...
        ready["initError"] = init_error_type(worker.failure)
    protocol.write(json.dumps(ready) + "\n")
    while True:
        event = worker._wait(lambda e: False, requests=True)
        if event[0] == "end":
            break
        answer = worker.invoke(json.loads(event[1]))
        answer["logs"] = worker.output()
        protocol.write(json.dumps(answer) + "\n")
    worker.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

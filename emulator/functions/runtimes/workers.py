"""A worker: one long-lived subprocess running one function's code in its runtime (runtimes/), spoken to in the
workers' protocol (runtimes/__init__.py: one JSON request a line on its stdin, one JSON answer a line on its
stdout, a {"ready": true} line first once its handler is loaded). invocation.py's Invoker keeps idle workers per
function and hands each invocation to one.

    worker = Worker(function, {"AWS_ENDPOINT_URL": url}, log_stream_name)
    answer = worker.call(request_line({"event": event, "context": context, "timeout": 3}), timeout=3)  # None: no answer

A request is its protocol line, written by invocation_events.py's request_line.

Loaded with the first worker (a server that runs only registered callables never loads the runtimes).
"""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import time
from typing import TYPE_CHECKING, Any

from eddy.emulator.functions.logs import log_groups
from eddy.emulator.functions.runtimes import runtime_of

if TYPE_CHECKING:
    from eddy.emulator.functions.function import Function


#: Lambda's Init phase (starting the runtime, importing the handler's module) may take 10 seconds and is not
#: part of the function's timeout ("The Init phase is limited to 10 seconds", Lambda execution environment
#: lifecycle, docs.aws.amazon.com/lambda/latest/dg/lambda-runtime-environment.html). A worker says when its
#: handler is loaded (a {"ready": true} line, whether the import worked or failed); the timeout runs from then
INIT_SECONDS = 10


class Worker:
    """One long-lived subprocess running one function's code."""

    def __init__(self, function: Function, extra_environment: dict[str, str], log_stream_name: str) -> None:
        self.revision = function.revision
        self.log_stream_name = log_stream_name
        self.initialized = False  # its ready line came: its runtime started and the handler is loaded
        self._started = time.monotonic()
        #: how long its Init phase took (start to ready line), reported once, with its first invocation
        self.init_duration: float | None = None
        #: what its handler's module wrote while it was imported (its ready line's "logs")
        self.init_logs = ""
        #: the Init phase's error type, when it failed (its ready line's "initError"): INIT_REPORT's Error Type
        self.init_error: str | None = None
        #: its exit status once it ended by itself (the runtime exited: sys.exit, process.exit, a crash)
        self.exit_status: int | None = None
        self.answer_bytes = 0  # the length of its last answer line
        self.runtime_pid: int | None = None  # the process that runs the function's code (its memory is reported)
        self._pending = b""  # what was read from its stdout past the last line taken
        #: what the running invocation's handler wrote so far, as the worker sent it: its log if it never answers
        self.streamed: list[str] = []
        runtime = runtime_of(function.runtime)
        #: a runtime that exits when its Init fails (Node.js) is started again for the next invocation, whose Init
        #: it is (Lambda's Phase: invoke); the others retry it themselves (worker.py, runtime_api.py)
        self._restarts_failed_init = runtime.restarts_failed_init
        #: the answer owed while the Init fails (its ready line's "error")
        self._init_failure: dict[str, Any] | None = None
        environment = runtime.environment(function)
        environment.update(extra_environment)
        environment.update(log_groups.environment(function.logging_config, log_stream_name))
        environment.update(function.environment)
        # Eddy's own endpoint, whatever the function's variables say (node_worker.mjs sends https requests to it there)
        environment["EDDY_ENDPOINT_URL"] = extra_environment.get("AWS_ENDPOINT_URL", "")
        environment.update(runtime.search_path(function))
        command, code_dir = runtime.command(function), str(function.code_dir)
        self._start = lambda: runtime.start(command, code_dir, environment)
        self.process = self._start()

    def call(self, request: str, timeout: float) -> dict[str, Any] | None:
        """The worker's answer, or None if it did not answer in time or died (then it is killed). A new worker
        first loads its handler (the Init phase: up to INIT_SECONDS, then the timeout as Lambda's retried init
        has), and the invocation's timeout runs from its ready line."""
        try:
            retried = None
            self.init(timeout)
            if self.initialized and self._init_failure is not None and self._restarts_failed_init:
                retried = self._init_again(timeout)
                if "errorType" in retried:
                    return {**self._init_failure, "init": retried, "logs": ""}
            line = self._answer(request, timeout) if self.initialized else ""
        except (BrokenPipeError, OSError):
            line = ""
        if not line:
            self.kill()
            return None
        self.answer_bytes = len(line)
        answer = json.loads(line)
        if retried is not None:
            answer["init"] = retried
        return answer

    def init(self, timeout: float) -> None:
        """Its Init phase, once: the runtime started and the handler loaded, up to INIT_SECONDS, then `timeout` (as
        Lambda's retried Init has). Then its duration, output and error are known (init_duration, init_logs,
        init_error); `initialized` stays False if no ready line came (the runtime ended, or never said it)."""
        if self.initialized or self.init_duration is not None:
            return
        said = self._ready(self._line(INIT_SECONDS) or self._line(timeout))
        self.init_logs, self.init_error = said.get("logs", ""), said.get("initError")
        self.init_duration = time.monotonic() - self._started

    def _ready(self, line: str) -> dict[str, Any]:
        """What the ready line says (the Init phase is over); {} when none came."""
        said = json.loads(line) if line else {}
        self.initialized = said.get("ready") is True
        self.runtime_pid = said.get("pid", self.process.pid)  # a custom runtime's bootstrap, else the worker
        self._init_failure = said.get("error") if said.get("initError") else None
        return said

    def _init_again(self, timeout: float) -> dict[str, Any]:
        """The failed Init tried again in a fresh runtime process, within the invocation (its timeout): its duration,
        output and, failed again, error type (the answer's "init", as worker.py and runtime_api.py give it)."""
        began = time.monotonic()
        self.kill()
        self.process, self._pending = self._start(), b""
        said = self._ready(self._line(timeout))
        retried = {"duration": time.monotonic() - began, "logs": said.get("logs", "")}
        if not self.initialized:  # no ready line in time: the invocation times out
            raise OSError("the runtime did not start again")
        if said.get("initError"):
            retried["errorType"] = said["initError"]
        return retried

    def _answer(self, request: str, timeout: float) -> str:
        assert self.process.stdin is not None
        self.streamed = []
        self.process.stdin.write(request)
        self.process.stdin.flush()
        return self._line(timeout)

    def _line(self, timeout: float) -> str:
        """The worker's next protocol line, or "" if none came in `timeout` seconds (or it ended). Read from the
        pipe's descriptor with a buffer of its own: a ready line and an answer may arrive in one read."""
        deadline = time.monotonic() + timeout
        fd = self.process.stdout.fileno()
        while True:
            while b"\n" not in self._pending:
                left = deadline - time.monotonic()
                ready, _, _ = select.select([fd], [], [], max(left, 0)) if left > 0 else ([], [], [])
                chunk = os.read(fd, 1 << 16) if ready else b""
                if ready and not chunk:  # the end of its output: the process ended (its status, once it is reaped)
                    self.exit_status = self.process.wait()
                if not chunk:
                    return ""
                self._pending += chunk
            line, _, self._pending = self._pending.partition(b"\n")
            if not line.startswith(b'{"log":'):
                return line.decode()
            # what the handler wrote so far (worker.py's _Log, node_worker.mjs's keep, runtime_api.py's _read_output)
            self.streamed.append(json.loads(line)["log"])

    def kill(self) -> None:
        """The worker and every process it started (its process group: a custom runtime's bootstrap and the
        programs that one runs, a handler's subprocesses), as Lambda ends an execution environment whole."""
        if self.process.poll() is None:  # not reaped yet: its process group is still its own
            if not isinstance(self.process, subprocess.Popen):  # forked by a template, which kills its group
                self.process.kill()
            else:
                try:
                    os.killpg(self.process.pid, signal.SIGKILL)
                except OSError:  # not a group leader (started elsewhere than Linux): the worker alone
                    self.process.kill()
        self.process.wait()


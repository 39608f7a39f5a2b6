"""Invoking a function: in a thread for a registered callable, in a worker subprocess for uploaded code.

Either way the handler gets Lambda's context object and at most its Timeout: a handler that runs longer
is a failed invocation ("Task timed out after N seconds"), and one that raises or crashes is a failed
invocation that keeps its error type, message and stack trace. Nothing a handler does takes Eddy down.
A registered callable gets its own copy of the event, as Lambda's JSON would give it: what it changes in
the event stays with it (the records' images are the stream's own). An OwnEvent is already that copy (a poller's
batch, made for one invocation with nothing in it shared): it is given as a plain dict without another. A
WrittenEvent is an event already written as JSON (a poller's batch for a worker): a worker is sent its text as it is. A registered callable that overruns
cannot be stopped (Python threads cannot be killed); it is left to finish in the background. An overrunning
worker subprocess is killed with the processes it started (its process group). A function's ReservedConcurrentExecutions caps its invocations running at once: one
past it is not run but throttled (Lambda's TooManyRequestsException "Rate Exceeded."); one of a version or alias with
provisioned concurrency runs in a provisioned environment while one is free (functions/concurrency.py decides both).
"""

from __future__ import annotations

import json
import os
import time
import traceback
import uuid
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from typing import TYPE_CHECKING, Any, Callable

from eddy.emulator.errors import FunctionError
from eddy.emulator.functions import platform_errors
from eddy.emulator.functions.logs import log_groups
from eddy.emulator.functions.callables.output import CALLABLE_OUTPUT, CapturedOutput
from eddy.emulator.functions.concurrency import PROVISIONED, Concurrency, Ticket
from eddy.emulator.functions.callables.environment import overlay
from eddy.emulator.functions.execution_environments import ExecutionEnvironments
from eddy.emulator.functions.invocation_results import InvocationResult
from eddy.emulator.functions.lambda_context import LambdaContext
from eddy.emulator.functions.logs.recent_invocations import RecentInvocations
from eddy.emulator.functions.function import Function
from eddy.emulator.functions.invocation_events import OwnEvent, WrittenEvent, own_copy, request_line

if TYPE_CHECKING:
    from eddy.emulator.functions.runtimes.workers import Worker


def _error_of(error: BaseException, request_id: str) -> FunctionError:
    """A registered callable's error as Lambda's Python runtime reports it: the stack trace lists the user's frames
    only (traceback.format_list from the frame after Eddy's last, as the runtime drops its bootstrap's frames). A
    sys.exit() is the runtime exiting (Runtime.ExitError), with the status Python would have exited with."""
    if isinstance(error, SystemExit):
        code = error.code
        return platform_errors.exited(request_id, code if isinstance(code, int) else 0 if code is None else 1)
    frames = traceback.extract_tb(error.__traceback__)
    ours = [index for index, frame in enumerate(frames) if os.path.abspath(frame.filename) == _HERE]
    return FunctionError(type(error).__name__, str(error), traceback.format_list(frames[ours[-1] + 1 if ours else 0 :]))


_HERE = os.path.abspath(__file__)


def _failed(request_id: str, error: FunctionError, **details: Any) -> InvocationResult:
    """A failed invocation; a platform error (timeout, exit, response too large) answers Lambda's own document."""
    return InvocationResult(request_id, error=error, error_body=platform_errors.document(error), **details)


def _too_large(payload: Any, runtime: str, measured: int | None = None) -> bool:
    """Whether a response is over Lambda's limit, as the runtime serialized it (Python's json.dumps, Node.js's compact
    JSON.stringify); `measured`: a bound already known (a worker's answer line holds the payload)."""
    if payload is None or (measured is not None and measured <= platform_errors.MAX_RESPONSE_BYTES):
        return False
    try:
        text = json.dumps(payload) if runtime.startswith("python") else json.dumps(payload, separators=(",", ":"))
    except (TypeError, ValueError):  # not JSON: the door answers Runtime.MarshalError
        return False
    return len(text.encode()) > platform_errors.MAX_RESPONSE_BYTES


class Invoker:
    def __init__(self, max_threads: int = 64, now: Callable[[], float] = time.time) -> None:
        #: the emulator's clock: when an invocation started, for its recent invocations
        self._now = now
        #: each function's last invocations (duration, outcome, log tail), newest first
        self.recent = RecentInvocations()
        #: every invocation's log, written to CloudWatch Logs as Lambda writes it
        self.logs = log_groups.FunctionLogs(now)
        self._threads = ThreadPoolExecutor(max_workers=max_threads, thread_name_prefix="eddy-invoke")
        #: the workers, idle and busy, by the code folder they run in (a folder is removed once none runs there)
        self.environments = ExecutionEnvironments(self._new_worker)
        #: which invocations run, in which kind of environment (reserved and provisioned concurrency)
        self.admission = Concurrency(now)
        #: environment every worker subprocess gets (e.g. AWS_ENDPOINT_URL pointing back at Eddy)
        self.worker_environment: dict[str, str] = {}
        #: called before a worker subprocess starts (the in-process door starts its loopback server here)
        self.before_worker_start: Callable[[], None] | None = None
        #: the credentials a function's worker gets (its execution role's session: runtimes/credentials.py); None:
        #: the runtime's own ("eddy")
        self.role_credentials: Callable[[Function], dict[str, str]] | None = None
        #: told when one of a function's executions ends (the asynchronous queue then tries the events a throttle
        #: held back: async_invocation/queue.py)
        self.released: Callable[[Function], None] | None = None

    def invoke(
        self,
        function: Function,
        event: Any,
        source: str = "Invoke",
        request_id: str | None = None,
        client_context: dict[str, Any] | None = None,
        invoked_arn: str | None = None,
    ) -> InvocationResult:
        """Run the function (a version: $LATEST or a published one) on `event`; `source` (the Lambda API's Invoke, or
        a mapping's UUID) is kept with the invocation in `recent`; `invoked_arn` is the context's
        invoked_function_arn (the qualified ARN invoked). `request_id`: an asynchronous event's, the same for each of its attempts (as
        Lambda's retries are: AWS re:Post, "lambda-function-duplicate-invocations"); else a new one."""
        request_id = request_id or str(uuid.uuid4())
        # the Lambda API's Invoke refuses a Pending function (Function.check_active); one of Lambda's services that
        # invokes it (a mapping, SNS, S3, EventBridge, Pipes, a retry) finds it Active, as on AWS, where its pollers
        # run long after the creation completed: its invocation completes the creation
        function.creation_completed()
        # while an update of $LATEST is in progress, what it was before runs, as on Lambda (Function.update_started)
        function = function.running(self._now())
        ticket = self.admission.admit(function)
        if ticket is None:
            return InvocationResult(
                request_id,
                error=FunctionError("TooManyRequestsException", "Rate Exceeded."),
                throttled=True,
                executed_version=function.version,
            )
        started_at = self._now()
        started = time.monotonic()
        try:
            if function.target is not None:
                result = self._invoke_callable(function, event, request_id, started, client_context, invoked_arn)
            else:
                result = self._invoke_worker(function, event, request_id, started, client_context, invoked_arn, ticket)
        finally:
            self.admission.release(ticket)
            if self.released is not None:
                self.released(function)
        result.duration = time.monotonic() - started - (result.init_duration or 0.0)  # Init is not the handler's
        if result.timed_out:  # Lambda reports a timed-out invocation as lasting its timeout ("Duration: 3000.00 ms")
            result.duration = float(function.timeout)
        result.executed_version = function.version
        self.recent.add(function.arn, result, source=source, started=started_at)
        self.logs.write(function, result, started_at)
        return result

    def prepare(self) -> None:
        """Load now what a function's first invocation loads (the Lambda variables' runtime module, and moto's
        CloudWatch Logs where its logs go), so that it is not loaded between a write and its handler: a mapping's
        runner calls this before it starts (triggers/mapping_registry.py)."""
        from eddy.emulator.functions.runtimes import base  # noqa: F401  (invocations read lambda_variables there)

        if self.logs.enabled:
            self.logs.prepare()

    def _invoke_callable(
        self,
        function: Function,
        event: Any,
        request_id: str,
        started: float,
        client_context: dict[str, Any] | None,
        invoked_arn: str | None,
    ) -> InvocationResult:
        log_stream_name = self.logs.stream_of_callable(function)
        context = LambdaContext(
            function,
            request_id,
            started + function.timeout,
            log_stream_name,
            client_context=client_context,
            invoked_arn=invoked_arn,
        )
        kind = type(event)
        event = dict(event) if kind is OwnEvent else event.decoded() if kind is WrittenEvent else own_copy(event)
        from eddy.emulator.functions.runtimes.base import lambda_variables  # with the first invocation

        variables = {**lambda_variables(function), **function.environment}
        output = CapturedOutput(request_id, json_format=function.logging_config["LogFormat"] == "JSON")

        def run() -> Any:
            # Lambda's variables and its own, seen by this invocation only; its prints and records, its log's
            with overlay(variables), CALLABLE_OUTPUT.capturing(output):
                return function.target(event, context)

        future = self._threads.submit(run)
        try:
            payload = future.result(timeout=function.timeout)
            if _too_large(payload, function.runtime):
                return _failed(
                    request_id,
                    platform_errors.response_too_large(),
                    log_stream_name=log_stream_name,
                    logs=output.text(),
                )
            return InvocationResult(request_id, payload=payload, log_stream_name=log_stream_name, logs=output.text())
        except FutureTimeout:
            return _failed(
                request_id,
                platform_errors.timed_out(request_id, function.timeout),
                timed_out=True,
                log_stream_name=log_stream_name,
                logs=output.text(),
            )
        except BaseException as error:  # the handler's own failure, whatever it raised
            return _failed(
                request_id, _error_of(error, request_id), log_stream_name=log_stream_name, logs=output.text()
            )

    def _invoke_worker(
        self,
        function: Function,
        event: Any,
        request_id: str,
        started: float,
        client_context: dict[str, Any] | None,
        invoked_arn: str | None,
        ticket: Ticket,
    ) -> InvocationResult:
        worker = self.environments.take(function, ticket.kind)
        if worker is None:  # the emulator is closing: no runtime is started for this invocation
            return _failed(request_id, platform_errors.exited(request_id, None))
        context = LambdaContext(
            function,
            request_id,
            started + function.timeout,
            worker.log_stream_name,
            client_context=client_context,
            invoked_arn=invoked_arn,
        )
        cold = not worker.initialized
        answer = worker.call(
            request_line({"event": event, "context": context.fields(), "timeout": function.timeout}), function.timeout
        )
        environment = {
            "log_stream_name": worker.log_stream_name,
            "worker_pid": worker.runtime_pid or worker.process.pid,
            "init_duration": worker.init_duration if cold else None,
            "init_logs": worker.init_logs if cold else "",
            "init_error": worker.init_error if cold else None,
        }
        if answer is None:
            timed_out = worker.exit_status is None and time.monotonic() - started >= function.timeout
            error = (
                platform_errors.timed_out(request_id, function.timeout)
                if timed_out
                else platform_errors.exited(request_id, worker.exit_status)
            )
            # what the handler printed before it was stopped is in its log, as on Lambda (AWS-validated: LocalStack's
            # TestLambdaBehavior::test_lambda_invoke_with_timeout finds "starting wait" in the log)
            self.environments.ended(worker)  # Worker.call killed it
            return _failed(request_id, error, timed_out=timed_out, logs="".join(worker.streamed), **environment)
        logs = answer.get("logs", "")
        if "init" in answer:  # the Init retried in this invocation (Lambda's Phase: invoke), after a failed one
            environment["invoke_init"] = answer["init"]
        if "exited" in answer:  # a custom runtime's process ended during the invocation: its environment is not reused
            worker.kill()
            self.environments.ended(worker)
            return _failed(request_id, platform_errors.exited(request_id, answer["exited"]), logs=logs, **environment)
        self.environments.give_back(function, worker, ticket.kind)
        if answer["ok"] and _too_large(answer["payload"], function.runtime, worker.answer_bytes):
            return _failed(request_id, platform_errors.response_too_large(), logs=logs, **environment)
        if answer["ok"]:
            raw = answer.get("raw", False)
            return InvocationResult(request_id, payload=answer["payload"], raw=raw, logs=logs, **environment)
        trace = answer.get("stackTrace") or answer.get("trace") or []
        return InvocationResult(
            request_id,
            error=FunctionError(answer["errorType"], answer["errorMessage"], trace),
            logs=logs,
            error_body=answer.get("body"),
            **environment,
        )

    def provision(self, function: Function, failed: Callable[[str], None] | None = None) -> str | None:
        """One provisioned-concurrency environment of a version made ready, as Lambda prepares them when their
        configuration is put ("Configuring provisioned concurrency": Lambda initializes the environments, running the
        function's initialization code, before they serve): its runtime started and its Init run, the function told
        AWS_LAMBDA_INITIALIZATION_TYPE provisioned-concurrency, INIT_START and the Init's output logged then in the
        environment's own stream. It then waits for the version's provisioned invocations, which it serves warm.
        Answers None, or the error type of an Init that failed (the environment is ended; `failed` is told it before
        the Init's lines are logged)."""
        if function.target is not None:
            return None  # a registered callable has no Init of its own
        started_at = self._now()
        worker = self.environments.start(function, PROVISIONED)
        if worker is None:  # the emulator is closing
            return None
        worker.init(function.timeout)
        error = worker.init_error
        if not worker.initialized:  # no ready line: the runtime ended, or outlasted the Init's time
            error = "Runtime.ExitError" if worker.exit_status is not None else "Sandbox.Timedout"
        if error is not None:
            worker.kill()
            self.environments.ended(worker)
            if failed is not None:
                failed(error)
        init = (worker.init_logs, worker.init_duration, error)
        self.logs.write_init(function, worker.log_stream_name, init, started_at, PROVISIONED)
        if error is None:
            self.environments.give_back(function, worker, PROVISIONED)
        return error

    def provision_later(self, function: Function, failed: Callable[[str], None]) -> None:
        """provision(), in the background; `failed` is told the error type of an Init that failed (an environment
        that could not be started at all is one: Runtime.Unknown)."""

        def prepare() -> None:
            try:
                self.provision(function, failed)
            except Exception:  # the runtime could not be started (its interpreter missing)
                failed("Runtime.Unknown")

        self._threads.submit(prepare)

    def _new_worker(self, function: Function, kind: str) -> Worker:
        if self.before_worker_start is not None:
            self.before_worker_start()
        from eddy.emulator.functions.runtimes.workers import Worker  # the runtimes load with the first worker

        environment, session = {**self.worker_environment, "AWS_LAMBDA_INITIALIZATION_TYPE": kind}, None
        if self.role_credentials is not None:
            session = self.role_credentials(function)
            environment = {**environment, **session}
        worker = Worker(function, environment, self.logs.new_stream_name(function.version))
        if session == {}:  # no role session (credentials.py: the disk refused it): this invocation's worker only
            worker.revision = None
        return worker

    def retire(self, function: Function) -> None:
        """Stop the idle workers of a function's version (its code or configuration changed, or it was deleted)."""
        self.environments.retire(function)

    def stop_workers(self) -> None:
        """Stop every worker, busy or idle (the emulator is reset: every function's files go)."""
        self.environments.stop_all()

    def close(self) -> None:
        """Every worker stopped, none started from now on (the emulator removes the code folders next)."""
        self.environments.close()
        self._threads.shutdown(wait=False, cancel_futures=True)

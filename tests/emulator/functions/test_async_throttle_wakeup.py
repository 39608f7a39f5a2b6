"""The asynchronous queue's throttled events and the executions that free (emulator/functions/async_invocation/queue.py):
a throttled event is tried again as soon as one of the function's executions ends, not at the end of its back-off.

The race this guards: an event's try is refused admission (the one execution is busy), and that execution ends
before the try has joined the function's throttled events. The ending execution looked for throttled events and
found none; without the count of ended executions the event then waited out its back-off (doubling up to 5 minutes),
which a test that never moves the clock saw as an event left Throttled for its whole wait
(test_async_invocations.py's queue behind a busy execution, one run in a few under load). Here the ending is made to
fall exactly there, on a clock that never moves, with the real queue and its dispatcher."""

from __future__ import annotations

import time
from typing import Any

from eddy.emulator.clock import Clock
from eddy.emulator.errors import FunctionError
from eddy.emulator.functions.async_invocation.queue import AsyncInvocations
from eddy.emulator.functions.function import Function
from eddy.emulator.functions.invocation_results import InvocationResult
from eddy.emulator.kernel import Kernel
from eddy.emulator.settings import Settings
from eddy.emulator.storage.channels import NOT_KEPT

FUNCTION = Function(name="busy", account_id="123456789012", region="us-east-1", handler="busy.handler")


class Functions:
    """The registry's two answers the queue reads: the function to run, and its event invoke config (none)."""

    def runnable(self, arn: str) -> Function:
        return FUNCTION

    def invoke_settings(self, arn: str) -> None:
        return None


class BusyThenFree:
    """An invoker whose first try is refused admission while the function's one execution ends: the Invoker tells
    the queue an execution freed (its `released`) between the refusal and the try's return."""

    def __init__(self) -> None:
        self.invocations: AsyncInvocations | None = None
        self.tries: list[tuple[Any, bool]] = []

    def invoke(self, function: Function, event: Any, *, request_id: str, **_: Any) -> InvocationResult:
        if not self.tries:
            self.tries.append((event, True))
            self.invocations.execution_freed(function)  # the busy execution ends now
            return InvocationResult(
                request_id, error=FunctionError("TooManyRequestsException", "Rate Exceeded."), throttled=True
            )
        self.tries.append((event, False))
        return InvocationResult(request_id, payload={"ok": True})


def test_a_try_throttled_as_an_execution_ends_is_tried_again_without_waiting_out_its_back_off():
    kernel = Kernel(Settings(), Clock(source=lambda: 1_800_000_000.0))  # a clock that never moves
    invoker = BusyThenFree()
    invocations = invoker.invocations = AsyncInvocations(kernel, NOT_KEPT, Functions(), invoker)
    invocations.start()
    try:
        invocations.submit(FUNCTION, {"n": 1}, "Invoke")
        deadline = time.monotonic() + 60
        with kernel.activity:
            while invocations.pending:  # the dispatcher and the try's thread notify as the event moves on
                assert time.monotonic() < deadline, invocations.pending_entries()
                kernel.activity.wait(1.0)
        assert invoker.tries == [({"n": 1}, True), ({"n": 1}, False)]
        assert invocations.figures_of() == {
            FUNCTION.arn: {
                "Invocations": 1,
                "Errors": 0,
                "Retries": 0,
                "EventsDropped": 0,
                "LastError": "TooManyRequestsException: Rate Exceeded.",
            }
        }
        assert invocations.take_failures() == []
    finally:
        invocations.close()

"""Asynchronous invocation (InvocationType Event) as EventBridge's targets need it: the one place rules' Lambda
targets and FIRE_AND_FORGET pipes go through, to be switched to Lambda's asynchronous invocation (its internal
queue, retries, event invoke configs and destinations) when Eddy has it.

Until then each event runs on its own thread, once; a failure is logged at WARNING and kept as the last error
(EventBridge.last_async_error). The events in flight count for wait_idle, so a test can wait for them.
"""

from __future__ import annotations

import logging
import threading
from typing import TYPE_CHECKING, Any

from emulator.errors import FunctionError
from emulator.functions.invocation import InvocationResult

if TYPE_CHECKING:
    from emulator.engine import Emulator

log = logging.getLogger("eddy.events")


def invoke_function(emulator: "Emulator", function_arn: str, payload: Any, source: str) -> InvocationResult:
    """Invoke a function synchronously (RequestResponse) and wait for its answer."""
    function = emulator.functions.functions.get(function_arn)
    if function is None:
        return InvocationResult("", error=FunctionError("ResourceNotFoundException", f"Function not found: {function_arn}"))
    return emulator.invoker.invoke(function, payload, source=source)


def invoke_asynchronously(emulator: "Emulator", function_arn: str, payload: Any, source: str) -> None:
    """Hand `payload` to the function without waiting for it (InvocationType Event)."""
    eventbridge = emulator.eventbridge
    with emulator.activity:
        eventbridge.async_in_flight += 1

    def run() -> None:
        try:
            result = invoke_function(emulator, function_arn, payload, source)
            if not result.ok:
                message = f"{function_arn}: {result.error.error_type}: {result.error.message}"
                log.warning("asynchronous invocation from %s failed: %s", source, message)
                eventbridge.last_async_error = message
        finally:
            with emulator.activity:
                eventbridge.async_in_flight -= 1
                emulator.activity.notify_all()

    threading.Thread(target=run, name="eddy-async-invocation", daemon=True).start()

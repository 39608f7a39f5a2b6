"""Senders: where a mapping's pollers send a batch, and the figures every send keeps.

A poller (pollers/) knows how to take a batch from its source and what to do with the outcome; what receives the
batch is its sender: a Lambda function for an event source mapping (FunctionSender), a pipe's enrichment and target
for EventBridge Pipes (pipes/runners.py). A sender answers an InvocationResult either way, so retries, bisection,
partial batch failures and the on-failure destination are one code path for both.

    sender = FunctionSender(functions, invoker, mapping)
    result = send_batch(sender, mapping, figures, {"Records": records}, identifiers)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from eddy.emulator.errors import FunctionError
from eddy.emulator.functions.invocation_events import WrittenEvent
from eddy.emulator.functions.invocation_results import InvocationResult

if TYPE_CHECKING:
    from eddy.emulator.functions.invocation import Invoker
    from eddy.emulator.functions.registry import FunctionRegistry
    from eddy.emulator.triggers.event_source_mappings import EventSourceMapping
    from eddy.emulator.triggers.mapping_figures import MappingFigures


class Sender(Protocol):
    def send(self, event: dict[str, Any] | WrittenEvent, identifiers: list[str]) -> InvocationResult:
        """Deliver one batch's event; `identifiers` name its records (sequence numbers, message ids) in order, for a
        target that answers partial failures by record."""
        ...

    def serializes(self) -> bool:
        """Whether the next batch's event will only be written out as JSON (a function in a worker subprocess), never
        given to code in this process: then it is made as its JSON text (a WrittenEvent) instead of as its own copy
        (an OwnEvent)."""
        ...


class FunctionSender:
    """A mapping's function, invoked synchronously (RequestResponse), as Lambda's pollers invoke it. The function is
    found by its ARN at each batch (a version's, or an alias's by its weights): one deleted since answers
    ResourceNotFoundException, as a failed invocation."""

    def __init__(self, functions: FunctionRegistry, invoker: Invoker, mapping: EventSourceMapping) -> None:
        self.functions = functions
        self.invoker = invoker
        self.mapping = mapping

    def send(self, event: dict[str, Any] | WrittenEvent, identifiers: list[str]) -> InvocationResult:
        function_arn = self.mapping.function_arn
        function = self.functions.runnable(function_arn)  # an alias's: by its weights
        if function is None:
            return InvocationResult(
                "", error=FunctionError("ResourceNotFoundException", f"Function not found: {function_arn}")
            )
        return self.invoker.invoke(function, event, source=self.mapping.uuid, invoked_arn=function_arn)

    def serializes(self) -> bool:
        """A function with code runs in a worker subprocess, which gets its event as JSON; a registered callable gets
        the event itself. (An alias's version is drawn again by `send`: a plain event that reaches a callable is
        copied for it by the Invoker, as any plain event is.)"""
        function = self.functions.runnable(self.mapping.function_arn)
        return function is not None and function.target is None


def send_batch(
    sender: Sender,
    mapping: EventSourceMapping,
    figures: MappingFigures,
    event: dict[str, Any] | WrittenEvent,
    identifiers: list[str],
) -> InvocationResult:
    """Send a batch and keep the mapping's figures and LastProcessingResult (its log line comes from the poller, once
    it knows what follows: a retry, a partial failure)."""
    figures.invocations += 1
    # counted before the handler, which may change its event
    delivered = event.records if type(event) is WrittenEvent else len(event["Records"])
    result = sender.send(event, identifiers)
    figures.records_delivered += delivered
    if result.ok:
        mapping.last_processing_result = "OK"
    else:
        outcome = f"{result.error.error_type}: {result.error.message}"
        figures.errors += 1
        figures.note_error(outcome)
        mapping.last_processing_result = f"PROBLEM: {outcome}"
    return result

"""What runs a pipe: the pollers of Lambda's event source mappings, sending to the pipe instead of a function.

A stream source (DynamoDB or Kinesis) runs on triggers/pollers/stream_pollers.py's MappingRunner: lanes per shard
following the lineage (parents first across splits and merges), order per key, batching, FilterCriteria, retries,
bisection, MaximumRecordAgeInSeconds, the dead-letter queue, and a checkpoint per shard after every batch, so a stopped
or restarted pipe resumes where it was. An SQS source runs on triggers/pollers/queue_pollers.py's QueueRunner: received
messages become invisible, what succeeds is deleted, what fails returns after the queue's visibility timeout.
Only the sender differs: the batch goes through the pipe's targets (pipes/targets.py: enrichment, then the target).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from eddy.emulator.functions.invocation_results import InvocationResult
from eddy.emulator.pipes.pipe import Pipe
from eddy.emulator.triggers.pollers.queue_pollers import QueueRunner
from eddy.emulator.triggers.pollers.sources import QueueSource
from eddy.emulator.triggers.pollers.stream_pollers import MappingRunner

if TYPE_CHECKING:
    from eddy.emulator.kernel import Kernel
    from eddy.emulator.pipes.targets import PipeTargets
    from eddy.emulator.triggers.pollers.sources import QueueJournal
    from eddy.emulator.triggers.checkpoints import Checkpoints
    from eddy.emulator.triggers.event_source_mappings import EventSourceMapping
    from eddy.emulator.triggers.failures import MappingFailures
    from eddy.emulator.triggers.mapping_figures import MappingFigures

log = logging.getLogger("eddy.pipes")


class PipeSender:
    """A pipe's enrichment and target, as the pollers' sender; one log line a batch."""

    def __init__(self, targets: PipeTargets, pipe: Pipe) -> None:
        self.targets = targets
        self.pipe = pipe

    def send(self, event: dict[str, Any], identifiers: list[str]) -> InvocationResult:
        records = event["Records"]
        result = self.targets.deliver(self.pipe, records, identifiers)
        outcome = "OK" if result.ok else f"PROBLEM: {result.error.error_type}: {result.error.message}"
        log.info("pipe %s batch %d %s in %.1f ms", self.pipe.name, len(records), outcome, result.duration * 1000)
        return result

    def serializes(self) -> bool:
        """A pipe's records may reach code in this process (an enrichment or target that is a registered callable,
        a filter, an input template): they are made as their own copy."""
        return False


def stream_runner(
    kernel: Kernel,
    targets: PipeTargets,
    pipe: Pipe,
    mapping: EventSourceMapping,
    stream: Any,
    *,
    checkpoints: Checkpoints,
    start_position: int,
    figures: MappingFigures,
    failures: MappingFailures,
) -> MappingRunner:
    """The runner of a pipe from a DynamoDB stream or a Kinesis data stream."""
    return MappingRunner(
        kernel,
        mapping,
        stream,
        PipeSender(targets, pipe),
        checkpoints=checkpoints,
        start_position=start_position,
        figures=figures,
        failures=failures,
    )


def queue_runner(
    kernel: Kernel,
    persistence: QueueJournal,
    targets: PipeTargets,
    pipe: Pipe,
    mapping: EventSourceMapping,
    *,
    figures: MappingFigures,
    failures: MappingFailures | None,
) -> QueueRunner:
    """The runner of a pipe from an SQS queue (each receive and delete written down by `persistence`: the mappings'
    durable channel, triggers/durable.py)."""
    return QueueRunner(
        kernel,
        mapping,
        QueueSource(pipe.source, kernel.lock, persistence),
        PipeSender(targets, pipe),
        figures=figures,
        failures=failures,
    )

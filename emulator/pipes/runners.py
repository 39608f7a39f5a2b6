"""What runs a pipe: the pollers of Lambda's event source mappings, sending to the pipe instead of a function.

A stream source (DynamoDB or Kinesis) runs on triggers/pollers/stream_pollers.py's MappingRunner: lanes per shard
following the lineage (parents first across splits and merges), order per key, batching, FilterCriteria, retries,
bisection, MaximumRecordAgeInSeconds, the dead-letter queue, and a checkpoint per shard after every batch, so a stopped
or restarted pipe resumes where it was. An SQS source runs on triggers/pollers/queue_pollers.py's QueueRunner: received
messages become invisible, what succeeds is deleted, what fails returns after the queue's visibility timeout.
Only the sender differs: the batch goes through pipes/targets.deliver (enrichment, then the target).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from eddy.emulator.functions.invocation_results import InvocationResult
from eddy.emulator.pipes import targets
from eddy.emulator.pipes.pipe import Pipe
from eddy.emulator.triggers.failures import MappingFailures
from eddy.emulator.triggers.pollers.queue_pollers import QueueRunner
from eddy.emulator.triggers.pollers.sources import QueueSource
from eddy.emulator.triggers.pollers.stream_pollers import MappingRunner

if TYPE_CHECKING:
    from eddy.emulator.pipes.pipe_registry import Pipes

log = logging.getLogger("eddy.pipes")


class PipeSender:
    """A pipe's enrichment and target, as the pollers' sender; one log line a batch."""

    def __init__(self, pipes: "Pipes", pipe: Pipe) -> None:
        self.pipes = pipes
        self.pipe = pipe

    def send(self, event: dict[str, Any], identifiers: list[str]) -> InvocationResult:
        records = event["Records"]
        result = targets.deliver(self.pipes.emulator, self.pipe, records, identifiers)
        outcome = "OK" if result.ok else f"PROBLEM: {result.error.error_type}: {result.error.message}"
        log.info("pipe %s batch %d %s in %.1f ms", self.pipe.name, len(records), outcome, result.duration * 1000)
        return result


class PipeStreamRunner(MappingRunner):
    """A pipe from a DynamoDB stream or a Kinesis data stream."""

    def __init__(self, pipes: "Pipes", pipe: Pipe, stream: Any) -> None:
        mapping = pipes.mappings[pipe.key]
        super().__init__(pipes.emulator.kernel, mapping, stream, PipeSender(pipes, pipe),
                         checkpoints=pipes.checkpoints, start_position=pipes.start_positions.get(pipe.key, 0),
                         figures=pipes.figures[pipe.key],
                         failures=pipes.failures.setdefault(pipe.key, MappingFailures(mapping.label)))
        self.pipe = pipe


class PipeQueueRunner(QueueRunner):
    """A pipe from an SQS queue."""

    def __init__(self, pipes: "Pipes", pipe: Pipe) -> None:
        emulator = pipes.emulator
        super().__init__(emulator.kernel, pipes.mappings[pipe.key], QueueSource(pipe.source, emulator.lock,
                                                                                emulator.persistence),
                         PipeSender(pipes, pipe), figures=pipes.figures[pipe.key],
                         failures=pipes.failures.get(pipe.key))
        self.pipe = pipe

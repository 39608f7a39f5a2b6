"""What runs a pipe: the pollers of Lambda's event source mappings, delivering to the pipe instead of a function.

A stream source (DynamoDB or Kinesis) runs on triggers/pollers.py's MappingRunner: lanes per shard following the
lineage (parents first across splits and merges), order per key, batching, FilterCriteria, retries, bisection,
MaximumRecordAgeInSeconds, the dead-letter queue, and a checkpoint per shard after every batch, so a stopped or
restarted pipe resumes where it was. An SQS source runs on triggers/sqs_pollers.py's QueueRunner: received
messages become invisible, what succeeds is deleted, what fails returns after the queue's visibility timeout.
Only `invoke` differs: the batch goes through pipes/targets.deliver (enrichment, then the target).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from eddy.emulator.functions.invocation_results import InvocationResult
from eddy.emulator.pipes import targets
from eddy.emulator.pipes.pipe import Pipe
from eddy.emulator.streams.records import ChangeRecord
from eddy.emulator.streams.shards import Shard
from eddy.emulator.triggers.pollers import MappingRunner
from eddy.emulator.triggers.sqs_pollers import QueueRunner

if TYPE_CHECKING:
    from eddy.emulator.pipes.pipe_registry import Pipes

log = logging.getLogger("eddy.pipes")


def _delivered(runner: Any, pipe: Pipe, records: list[Any], identifiers: list[str]) -> InvocationResult:
    """Deliver a batch and keep the pipe's figures (the mapping figures' names)."""
    figures = runner.figures
    figures.invocations += 1
    result = targets.deliver(runner.emulator, pipe, records, identifiers)
    figures.records_delivered += len(records)
    if result.ok:
        runner.mapping.last_processing_result = "OK"
    else:
        outcome = f"{result.error.error_type}: {result.error.message}"
        figures.errors += 1
        figures.note_error(outcome)
        runner.mapping.last_processing_result = f"PROBLEM: {outcome}"
    log.info("pipe %s batch %d %s in %.1f ms", pipe.name, len(records), runner.mapping.last_processing_result,
             result.duration * 1000)
    return result


class PipeStreamRunner(MappingRunner):
    """A pipe from a DynamoDB stream or a Kinesis data stream."""

    def __init__(self, pipes: "Pipes", pipe: Pipe, stream: Any) -> None:
        super().__init__(pipes, pipes.mappings[pipe.key], stream)  # type: ignore[arg-type]
        self.pipe = pipe

    def invoke(self, event: dict[str, Any], shard: Shard, batch: list[ChangeRecord], retries: int) -> Any:
        if batch:
            self.figures.iterator_age_ms = max(0.0, (self.emulator.clock.now() - batch[-1].created_at) * 1000)
        if retries:
            self.figures.retries += 1
        return _delivered(self, self.pipe, event["Records"], [str(record.sequence_number) for record in batch])


class PipeQueueRunner(QueueRunner):
    """A pipe from an SQS queue."""

    def __init__(self, pipes: "Pipes", pipe: Pipe) -> None:
        super().__init__(pipes, pipes.mappings[pipe.key])  # type: ignore[arg-type]
        self.pipe = pipe

    def invoke(self, event: dict[str, Any], size: int) -> InvocationResult:
        records = event["Records"]
        return _delivered(self, self.pipe, records, [record["messageId"] for record in records])

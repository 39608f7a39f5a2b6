"""A stream mapping's runner made alone, with exactly the collaborators it is built with (issue 35): the kernel, the
mapping, a source, a sender, the checkpoints, the figures and the failure report. No Emulator, no moto: a source
with two shards (a parent and its child) and a sender that fails on one record show lineage, bisection and what a
discarded record leaves behind, through the runner's own outputs (what was sent, its checkpoints, figures, report).
The end-to-end behaviour through boto3, in both doors, is in test_delivery.py and test_event_source_mappings.py."""

from __future__ import annotations

import bisect
import time
from dataclasses import dataclass, field
from typing import Any

from eddy.emulator.clock import Clock
from eddy.emulator.errors import FunctionError
from eddy.emulator.functions.invocation_results import InvocationResult
from eddy.emulator.kernel import Kernel
from eddy.emulator.settings import Settings
from eddy.emulator.triggers.checkpoints import Checkpoints, ShardCheckpoint
from eddy.emulator.triggers.event_source_mappings import EventSourceMapping
from eddy.emulator.triggers.failures import MappingFailures
from eddy.emulator.triggers.mapping_figures import MappingFigures
from eddy.emulator.triggers.pollers.stream_pollers import MappingRunner

STREAM_ARN = "arn:aws:dynamodb:us-east-1:123456789012:table/orders/stream/2026-01-01T00:00:00.000"


@dataclass
class Record:
    sequence_number: int
    created_at: float


@dataclass
class Shard:
    shard_id: str
    parent_shard_ids: tuple[str, ...]
    records: list[Record]
    is_open: bool = False
    trimmed_through: int = 0

    def index_at(self, sequence_number: int) -> int:
        return bisect.bisect_left([r.sequence_number for r in self.records], sequence_number)


@dataclass
class Source:
    """A StreamSource (triggers/pollers/sources.py) over plain shards."""

    shards: dict[str, Shard]
    arn: str = STREAM_ARN
    batch_info_key: str = "DDBStreamBatchInfo"

    def lambda_record(self, record: Record, shard_id: str) -> dict[str, Any]:
        return {"eventID": f"{shard_id}:{record.sequence_number}"}

    filter_view = lambda_record

    def lambda_records(self, records: list[Record], shard_id: str) -> list[dict[str, Any]]:
        return [self.lambda_record(record, shard_id) for record in records]

    def record_bytes(self, record: Record) -> int:
        return 100

    record_bytes_at_most = record_bytes

    def partition_of(self, record: Record) -> int:
        return record.sequence_number

    def record_identity(self, record: Record) -> dict[str, Any]:
        return {"SequenceNumber": str(record.sequence_number)}


@dataclass
class Sender:
    """Fails every batch that holds the record `poison`; keeps the events it was sent."""

    poison: int
    sent: list[list[str]] = field(default_factory=list)

    def send(self, event: dict[str, Any], identifiers: list[str]) -> InvocationResult:
        self.sent.append(identifiers)
        if str(self.poison) in identifiers:
            return InvocationResult("r", error=FunctionError("Unhandled", "poisoned"))
        return InvocationResult("r", payload=None)

    def serializes(self) -> bool:
        return False


def test_a_runner_alone_follows_lineage_bisects_and_reports_what_it_discarded(tmp_path):
    kernel = Kernel(Settings(), Clock(source=lambda: 1_800_000_000.0))  # a clock that stands still
    written = kernel.clock.now() - 10  # every record 10 seconds old
    parent = Shard("shardId-00000001-parent", (), [Record(n, written) for n in (1, 2, 3, 4)])
    child = Shard("shardId-00000002-child", (parent.shard_id,), [Record(5, written)], is_open=True)
    source = Source({child.shard_id: child, parent.shard_id: parent})  # the child first: lineage orders them
    mapping = EventSourceMapping(
        uuid="9f0e1d2c-mapping",
        event_source_arn=STREAM_ARN,
        function_arn="arn:fn",
        account_id="123456789012",
        region="us-east-1",
        starting_position="TRIM_HORIZON",
        maximum_retry_attempts=0,
        bisect_batch_on_function_error=True,
    )
    sender, figures, failures = Sender(poison=2), MappingFigures(), MappingFailures(mapping.label)
    checkpoints = Checkpoints(tmp_path / "checkpoints")
    runner = MappingRunner(
        kernel, mapping, source, sender, checkpoints=checkpoints, start_position=0, figures=figures, failures=failures
    )
    runner.start()
    deadline = time.monotonic() + 60
    with kernel.activity:
        while not runner.caught_up() and time.monotonic() < deadline:
            kernel.activity.wait(0.5)
        caught_up = runner.caught_up()
    runner.stop()

    assert caught_up
    # the whole batch, its halves, the failing half's halves; the failing record given up on (no retries); then
    # the child's record once its parent is finished
    assert sender.sent == [["1", "2", "3", "4"], ["1", "2"], ["1"], ["2"], ["3", "4"], ["5"]]
    assert checkpoints.get(mapping.uuid, parent.shard_id) == ShardCheckpoint([4], True, [None])
    assert checkpoints.get(mapping.uuid, child.shard_id) == ShardCheckpoint([5], False, [None])
    assert figures.to_dict() == {
        "Invocations": 6,
        "Errors": 3,
        "Retries": 0,
        "RecordsDelivered": 11,
        "RecordsFiltered": 0,
        "RecordsSentToOnFailureDestination": 0,
        "IteratorAgeMilliseconds": 10000.0,
        "LastError": "Unhandled: poisoned",
    }
    assert failures.take() == {
        "FailedBatches": 3,
        "RecordsDiscarded": 1,
        "LastError": "Unhandled: poisoned",
        "Discarded": [
            {
                "ShardId": parent.shard_id,
                "Condition": "RetryAttemptsExhausted",
                "ApproximateInvokeCount": 1,
                "Records": [{"SequenceNumber": "2"}],
                "OnFailureDestination": None,
                "Error": "Unhandled: poisoned",
            }
        ],
    }

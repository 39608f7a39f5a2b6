"""Sources: what a poller reads.

A stream source is a DynamoDB stream (DynamoDBStreamSource over streams/stream.py's Stream) or a Kinesis data stream
(kinesis/sources.py): both show shards with their parents and records in sequence order, and say how a record is
delivered, filtered, sized, assigned to a lane and named in a report; StreamSource is that face, so lineage,
batching, retries and windows are one code path for both.

An SQS queue is a QueueSource: the queue found by its ARN (one deleted and created again is a new one), its messages
received and deleted as Lambda's SQS poller does (moto_seam/sqs_polling.py), each receive and delete written to the journal
under the emulator's lock, in order with the services' requests, before it is made: a restart keeps receive counts and
deletes, and a change the disk refused is not made (a message is never deleted unless the log says so).
"""

from __future__ import annotations

import json
import threading
from typing import Any, Callable, Protocol, Sequence

from eddy.emulator.moto_seam import sqs as sqs_seam
from eddy.emulator.moto_seam import sqs_polling
from eddy.emulator.streams.records import ChangeRecord, lambda_dicts
from eddy.emulator.streams.shards import partition_hash
from eddy.emulator.streams.stream import Stream


class StreamRecord(Protocol):
    sequence_number: int
    created_at: float


class StreamShard(Protocol):
    shard_id: str
    parent_shard_ids: tuple[str, ...]

    @property
    def is_open(self) -> bool: ...

    @property
    def trimmed_through(self) -> int:
        """The last sequence number retention has trimmed (0: none)."""
        ...

    @property
    def records(self) -> Sequence[Any]: ...

    def index_at(self, sequence_number: int) -> int:
        """The index in `records` of the first record at or after `sequence_number`."""
        ...


class StreamSource(Protocol):
    arn: str
    #: the on-failure record's key for the batch (DDBStreamBatchInfo, KinesisBatchInfo)
    batch_info_key: str

    @property
    def shards(self) -> dict[str, Any]: ...

    def lambda_record(self, record: Any, shard_id: str) -> dict[str, Any]:
        """The record as Lambda delivers it in an event."""
        ...

    def lambda_records(self, records: list[Any], shard_id: str) -> list[dict[str, Any]]:
        """The records as Lambda delivers them in an event, the caller's own: nothing in them is the source's, so a
        handler may change them (a registered callable is given them without a further copy)."""
        ...

    def written_records(self, records: list[Any], shard_id: str) -> str:
        """The records as Lambda delivers them, as the JSON text of their list (compact: json.dumps with separators
        "," and ":"), for an event that is only written out (a worker subprocess's function)."""
        ...

    def filter_view(self, record: Any, shard_id: str) -> dict[str, Any]:
        """What FilterCriteria patterns match."""
        ...

    def record_bytes(self, record: Any) -> int: ...

    def record_bytes_at_most(self, record: Any) -> int:
        """At least record_bytes(record), cheaply."""
        ...

    def partition_of(self, record: Any) -> int:
        """The record's key hashed: which lane of a shard takes it."""
        ...

    def record_identity(self, record: Any) -> dict[str, Any]:
        """How a report of what was not delivered names the record."""
        ...


class DynamoDBStreamSource:
    """A DynamoDB stream as a mapping's (or a pipe's) source: its shards, and each record as Lambda delivers it (the
    event shape is Lambda's, not the stream's)."""

    batch_info_key = "DDBStreamBatchInfo"

    def __init__(self, stream: Stream) -> None:
        self.stream = stream
        self.arn = stream.arn

    @property
    def shards(self) -> dict[str, Any]:
        return self.stream.shards

    def sequence_before(self, timestamp: float) -> int:
        return self.stream.sequence_before(timestamp)

    def lambda_record(self, record: ChangeRecord, shard_id: str) -> dict[str, Any]:
        stream = self.stream
        return record.to_lambda_dict(stream.view_type, stream.region, stream.arn)

    filter_view = lambda_record  # FilterCriteria patterns match the record as Lambda delivers it

    def written_records(self, records: list[ChangeRecord], shard_id: str) -> str:
        """Each record's text written from the keys' and images' text it holds (ChangeRecord.lambda_json), nothing
        decoded, joined."""
        stream = self.stream
        view_type, region, arn = stream.view_type, stream.region, stream.arn
        return "[" + ",".join([record.lambda_json(view_type, region, arn) for record in records]) + "]"

    def lambda_records(self, records: list[ChangeRecord], shard_id: str) -> list[dict[str, Any]]:
        """The records as Lambda delivers them, the caller's own: nothing in them is the stream's. Their keys and
        images are decoded from the text the records hold in one json.loads for the batch (C speed) and the rest is
        made new: cheaper than the same records built and then copied whole."""
        stream = self.stream
        return lambda_dicts(records, stream.view_type, stream.region, stream.arn)

    def record_bytes(self, record: ChangeRecord) -> int:
        return len(record.wire(self.stream.view_type, self.stream.region))

    def record_bytes_at_most(self, record: ChangeRecord) -> int:
        """At least record_bytes(record), without encoding the record."""
        return record.wire_bytes_at_most()

    def partition_of(self, record: ChangeRecord) -> int:
        return partition_hash(record.keys[self.stream.hash_key_name])

    def record_identity(self, record: ChangeRecord) -> dict[str, Any]:
        """How a report of what was not delivered names a record: its sequence number and the item's keys."""
        return {"SequenceNumber": str(record.sequence_number), "Keys": record.keys}


def dynamodb_source(stream: Stream | None) -> DynamoDBStreamSource | None:
    return None if stream is None else DynamoDBStreamSource(stream)


class QueueJournal(Protocol):
    """Where a queue's changes made by pollers are written down (the mappings' durable channel, triggers/durable.py)."""

    durable: bool

    def queue_messages_changed(self, change: dict[str, Any]) -> None: ...

    def after_commit(self, action: Callable[[], Any]) -> None:
        """Done once the request making the change is written down (storage/units_of_work.py)."""


class QueueSource:
    """An SQS queue a mapping reads: its messages received and deleted as Lambda's poller does, each change written to
    the journal under `lock`."""

    def __init__(self, arn: str, lock: threading.RLock, journal: QueueJournal) -> None:
        self.arn = arn
        self.lock = lock
        self.journal = journal

    def find(self) -> Any:
        """The queue the ARN names now, or None (deleted, or not restored yet)."""
        return sqs_seam.find_queue(self.arn)

    @staticmethod
    def deliverable(queue: Any, now: float, limit: int) -> int:
        """How many messages (at most `limit`) a receive would get now."""
        return sqs_polling.deliverable(queue, now, limit)

    @staticmethod
    def next_change(queue: Any, now: float) -> float | None:
        """When a message next becomes visible or delayed ones arrive, if ever."""
        return sqs_polling.next_change(queue, now)

    @staticmethod
    def visibility_timeout(queue: Any) -> int:
        return sqs_seam.visibility_timeout(queue)

    def receive(self, queue: Any, limit: int, now: float, max_bytes: int) -> list[sqs_polling.ReceivedMessage]:
        """A batch received (invisible for the queue's VisibilityTimeout), written down before it is made; the caller
        holds the lock, so the journal keeps the order things happened in. WriteFailed (storage/disk.py: the disk
        refused the entry): nothing was received."""
        write_down = self.journal.queue_messages_changed if self.journal.durable else None
        return sqs_polling.receive(queue, limit, now, max_bytes, write_down)[0]

    def delete(self, queue: Any, messages: list[sqs_polling.ReceivedMessage]) -> None:
        """Delete messages from the queue, written down first, under the lock. WriteFailed: nothing was deleted (the
        messages come back after their visibility timeout and are delivered again: at least once)."""
        if not self.journal.durable:  # nothing to write down: the queue's own lock is enough
            sqs_polling.delete(queue, messages)
            return
        with self.lock:
            sqs_polling.delete(queue, messages, self.journal.queue_messages_changed)

"""Kinesis data streams as a source of event source mappings: the same face a DynamoDB stream shows the pollers.

A poller (triggers/pollers/, whose sources.StreamSource is this face) reads a source's `shards` (each with
`shard_id`, `parent_shard_ids`, `is_open`, `records` in sequence order, `trimmed_through`, `index_at`) and asks the
source how to present a record (`lambda_record`, `record_bytes`), which lane a record belongs to (`partition_of`) and how a failed batch is
described (`batch_info_key`). A DynamoDB stream (streams/stream.py) and a KinesisSource both answer these, so
lineage, batching, retries and windows are one code path for both. Records are read from moto's Kinesis
(moto_seam/kinesis/streams.py) and wrapped once, as they arrive.
"""

from __future__ import annotations

import base64
import bisect
import hashlib
import json
from typing import Any

from eddy.emulator.moto_seam.kinesis import streams as moto_kinesis
from eddy.emulator.streams.records import compact_json

BATCH_INFO_KEY = "KinesisBatchInfo"


class KinesisRecord:
    __slots__ = ("sequence_number", "partition_key", "data", "created_at", "_event")

    def __init__(self, sequence_number: int, partition_key: str, data: bytes, created_at: float) -> None:
        self.sequence_number = sequence_number
        self.partition_key = partition_key
        self.data = data
        self.created_at = created_at
        self._event: dict[str, Any] | None = None

    def to_lambda_dict(self, stream_arn: str, region: str, shard_id: str) -> dict[str, Any]:
        """The record as Lambda delivers a Kinesis record in an event."""
        if self._event is None:
            self._event = {
                "kinesis": {
                    "kinesisSchemaVersion": "1.0",
                    "partitionKey": self.partition_key,
                    "sequenceNumber": str(self.sequence_number),
                    "data": base64.b64encode(self.data).decode(),
                    "approximateArrivalTimestamp": round(self.created_at, 3),
                },
                "eventSource": "aws:kinesis",
                "eventVersion": "1.0",
                "eventID": f"{shard_id}:{self.sequence_number}",
                "eventName": "aws:kinesis:record",
                "invokeIdentityArn": "arn:aws:iam::123456789012:role/lambda-role",
                "awsRegion": region,
                "eventSourceARN": stream_arn,
            }
        return dict(self._event)


class KinesisShard:
    """One shard of a Kinesis data stream as a poller sees it; moto's records are wrapped as they arrive and
    dropped once the stream's retention trims them (`trimmed_through` moves, as a DynamoDB shard's does)."""

    def __init__(self, shard_id: str, parent_shard_ids: tuple[str, ...], handle: Any) -> None:
        self.shard_id = shard_id
        self.parent_shard_ids = parent_shard_ids
        self.parent_shard_id = parent_shard_ids[0] if parent_shard_ids else None
        self._handle = handle
        self._records: list[KinesisRecord] = []
        self._last = 0

    @property
    def is_open(self) -> bool:
        return moto_kinesis.is_open(self._handle)

    @property
    def trimmed_through(self) -> int:
        return moto_kinesis.trimmed_through(self._handle)

    @property
    def records(self) -> list[KinesisRecord]:
        trimmed = self.trimmed_through
        if self._records and self._records[0].sequence_number <= trimmed:
            self._records = self._records[bisect.bisect_right(self._records, trimmed, key=_sequence_number) :]
        fresh = moto_kinesis.records_after(self._handle, max(self._last, trimmed))
        if fresh:
            self._records.extend(KinesisRecord(*record) for record in fresh)
            self._last = self._records[-1].sequence_number
        return self._records

    def index_at(self, sequence_number: int) -> int:
        return bisect.bisect_left(self.records, sequence_number, key=_sequence_number)


def _sequence_number(record: KinesisRecord) -> int:
    return record.sequence_number


class KinesisSource:
    """A Kinesis data stream that event source mappings read (looked up in moto's Kinesis by ARN)."""

    batch_info_key = BATCH_INFO_KEY

    def __init__(self, arn: str, stream: Any) -> None:
        self.arn = arn
        self.region = arn.split(":")[3]
        self._stream = stream
        self._shards: dict[str, KinesisShard] = {}

    @property
    def shards(self) -> dict[str, KinesisShard]:
        for shard_id, parents, _, handle in moto_kinesis.shards(self._stream):
            if shard_id not in self._shards:
                self._shards[shard_id] = KinesisShard(shard_id, parents, handle)
        return dict(self._shards)

    @property
    def last_sequence_number(self) -> int:
        return moto_kinesis.last_sequence_number(self._stream)

    def sequence_before(self, timestamp: float) -> int:
        """The highest sequence number of a record that arrived before `timestamp` (AT_TIMESTAMP starts after it)."""
        before = [
            r.sequence_number for shard in self.shards.values() for r in shard.records if r.created_at < timestamp
        ]
        return max(before, default=0)

    def lambda_record(self, record: KinesisRecord, shard_id: str) -> dict[str, Any]:
        return record.to_lambda_dict(self.arn, self.region, shard_id)

    def written_records(self, records: list[KinesisRecord], shard_id: str) -> str:
        return compact_json([self.lambda_record(record, shard_id) for record in records])

    def lambda_records(self, records: list[KinesisRecord], shard_id: str) -> list[dict[str, Any]]:
        """The records as Lambda delivers them, the caller's own: each record's dicts new (their values are strings
        and numbers)."""
        delivered = [self.lambda_record(record, shard_id) for record in records]
        for record in delivered:
            record["kinesis"] = dict(record["kinesis"])
        return delivered

    def filter_view(self, record: KinesisRecord, shard_id: str) -> dict[str, Any]:
        """What FilterCriteria patterns match: the record's kinesis fields, `data` decoded when it is JSON."""
        view = dict(self.lambda_record(record, shard_id)["kinesis"])
        try:
            view["data"] = json.loads(record.data)
        except ValueError:
            pass  # data that is not JSON is matched only by patterns that do not look into it
        return view

    def record_bytes(self, record: KinesisRecord) -> int:
        return len(record.data) + len(record.partition_key) + 200

    record_bytes_at_most = record_bytes  # as cheap as it is exact

    def partition_of(self, record: KinesisRecord) -> int:
        return int.from_bytes(hashlib.md5(record.partition_key.encode()).digest(), "big")

    def record_identity(self, record: KinesisRecord) -> dict[str, Any]:
        """How a report of what was not delivered names a record: its sequence number and partition key."""
        return {"SequenceNumber": str(record.sequence_number), "PartitionKey": record.partition_key}


def find_source(arn: str) -> KinesisSource | None:
    stream = moto_kinesis.find_stream(arn)
    return KinesisSource(arn, stream) if stream is not None else None

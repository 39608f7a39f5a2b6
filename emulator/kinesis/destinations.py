"""Kinesis streaming destinations: which Kinesis data streams a table's changes go to, and in what form.

A table may stream to Kinesis data streams (EnableKinesisStreamingDestination). Every change committed to
the table after that (every write path, TTL deletions included) becomes one Kinesis record in AWS's format
for DynamoDB, put with a partition key derived from the item's key so that one item's changes stay in order.
A destination reports ENABLING (or DISABLING, UPDATING) in the answer to the call that changed it and its
settled state (ACTIVE, DISABLED) afterwards, the way AWS's asynchronous workflow looks to a quick caller.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import asdict, dataclass
from typing import Any, Callable, Iterable, Iterator

from eddy.emulator.errors import ResourceInUseException, ResourceNotFoundException, ValidationException
from eddy.emulator.streams.item_size import item_size
from eddy.emulator.streams.records import TTL_PRINCIPAL, EventName, Image, image_of_text
from eddy.emulator.streams.stream import Change
from eddy.emulator.storage.channels import NOT_KEPT, Channel, DurableLog

PRECISIONS = ("MILLISECOND", "MICROSECOND")
_SCALE = {"MILLISECOND": 1000, "MICROSECOND": 1_000_000}

TableKey = tuple[str, str, str]  # account, region, table name
#: put(stream ARN, partition key, data) -> None; raises ResourceNotFoundException when the stream is gone
Put = Callable[[str, str, bytes], None]


@dataclass
class Destination:
    stream_arn: str
    status: str
    #: the precision a request set; None: none was (records are then in milliseconds, and DescribeKinesisStreaming-
    #: Destination names none, as AWS's recorded answer in LocalStack's test_kinesis_streaming_destination_crud)
    precision: str | None = None
    description: str = ""

    def to_dict(self) -> dict[str, Any]:
        described = {"StreamArn": self.stream_arn, "DestinationStatus": self.status}
        if self.precision is not None:
            described["ApproximateCreationDateTimePrecision"] = self.precision
        if self.description:
            described["DestinationStatusDescription"] = self.description
        return described


def kinesis_record(
    change: Change,
    *,
    table_name: str,
    region: str,
    created_at: float,
    precision: str | None,
    by_ttl: bool,
    event_id: str,
) -> dict[str, Any]:
    """One change as Kinesis Data Streams for DynamoDB writes it (both images, whatever the table's stream; the
    change holds their text, decoded here)."""
    event_name, keys, old_text, new_text, old_size, new_size = change
    old_image, new_image = image_of_text(old_text), image_of_text(new_text)
    precision = precision or "MILLISECOND"
    dynamodb: dict[str, Any] = {"ApproximateCreationDateTime": int(created_at * _SCALE[precision]), "Keys": keys}
    size = item_size(keys)
    if new_image is not None:
        dynamodb["NewImage"] = new_image
        size += new_size
    if old_image is not None:
        dynamodb["OldImage"] = old_image
        size += old_size
    dynamodb["SizeBytes"] = size
    dynamodb["ApproximateCreationDateTimePrecision"] = precision
    return {
        "awsRegion": region,
        "eventID": event_id,
        "eventName": EventName(event_name).value,
        "userIdentity": {"type": "Service", "principalId": TTL_PRINCIPAL} if by_ttl else None,
        "recordFormat": "application/json",
        "tableName": table_name,
        "dynamodb": dynamodb,
        "eventSource": "aws:dynamodb",
    }


def partition_key(keys: Image) -> str:
    """The item's key as a Kinesis partition key: the same item always lands on the same shard, in order."""
    return hashlib.md5(json.dumps(keys, sort_keys=True, separators=(",", ":")).encode()).hexdigest().upper()


class KinesisDestinations:
    """Every table's Kinesis streaming destinations; `publish` is called with each commit's changes."""

    def __init__(self, put: Put, stream_exists: Callable[[str], bool], log: DurableLog = NOT_KEPT) -> None:
        self._put = put
        self._stream_exists = stream_exists
        #: told of every change of a table's destinations (registered with storage by the composition root)
        self.channel = KinesisDestinationsChannel(log, self)
        self.tables: dict[TableKey, list[Destination]] = {}

    def reset(self) -> None:
        self.tables.clear()

    def restore(self, table: TableKey, states: list[dict[str, Any]]) -> None:
        """A table's destinations as its durable channel recorded them."""
        if states:
            self.tables[table] = [Destination(**state) for state in states]
        else:
            self.tables.pop(table, None)

    def _saved(self, table: TableKey) -> None:
        self.channel.kinesis_destinations_saved(table, [asdict(d) for d in self.tables.get(table, [])])

    def _table_of(self, destination: Destination) -> TableKey:
        return next(table for table, destinations in self.tables.items() if destination in destinations)

    def _find(self, table: TableKey, stream_arn: str) -> Destination | None:
        return next((d for d in self.tables.get(table, []) if d.stream_arn == stream_arn), None)

    def enable(self, table: TableKey, stream_arn: str, precision: str | None) -> Destination:
        _check_arn(stream_arn)
        if not self._stream_exists(stream_arn):
            raise ResourceNotFoundException(f"Requested resource not found: Stream: {stream_arn} not found")
        current = self._find(table, stream_arn)
        if current is not None and current.status in ("ENABLING", "ACTIVE", "UPDATING"):
            raise ResourceInUseException(
                f"Table {table[2]} is already streaming to the Kinesis data stream {stream_arn}"
            )
        if current is None:
            current = Destination(stream_arn, "ENABLING")
            self.tables.setdefault(table, []).append(current)
        current.status, current.precision, current.description = "ENABLING", precision, ""
        self._saved(table)
        return current

    def disable(self, table: TableKey, stream_arn: str) -> Destination:
        _check_arn(stream_arn)
        current = self._find(table, stream_arn)
        if current is None or current.status not in ("ACTIVE", "ENABLING", "UPDATING"):
            raise ValidationException(
                f"Table {table[2]} is not streaming to the Kinesis data stream {stream_arn}: nothing to disable"
            )
        current.status = "DISABLING"
        self._saved(table)
        return current

    def update(self, table: TableKey, stream_arn: str, precision: str | None, table_id: str) -> Destination:
        """AWS's refusals as recorded in LocalStack's AWS-validated test_kinesis_streaming_destination_crud."""
        _check_arn(stream_arn)
        current = self._find(table, stream_arn)
        if current is None or current.status not in ("ACTIVE", "ENABLING"):
            raise ValidationException(
                "Table is not in a valid state to enable Kinesis Streaming Destination: No streaming destination "
                f"with streamArn: {stream_arn} found for table with tableName: {table[2]}"
            )
        if current.precision == precision:
            raise ValidationException(
                f"Invalid Request: Precision is already set to the desired value of "
                f"{precision} for tableId: {table_id}, kdsArn: {stream_arn}"
            )
        current.status, current.precision = "UPDATING", precision
        self._saved(table)
        return current

    def settle(self, destination: Destination) -> None:
        """What the asynchronous workflow does once the answer is out: ENABLING/UPDATING -> ACTIVE, DISABLING -> DISABLED."""
        destination.status = "DISABLED" if destination.status == "DISABLING" else "ACTIVE"
        self._saved(self._table_of(destination))

    def describe(self, table: TableKey) -> list[dict[str, Any]]:
        return [destination.to_dict() for destination in self.tables.get(table, [])]

    def table_deleted(self, table: TableKey) -> None:
        if (destinations := self.tables.pop(table, None)) is not None:
            self._saved(table)
            self.channel.log.on_undo(lambda: self.tables.__setitem__(table, destinations))  # the deletion refused

    def publish(self, table: TableKey, changes: Iterable[Change], now: float, by_ttl: bool) -> None:
        """Put each change on every active destination of the table, in commit order."""
        destinations = [d for d in self.tables.get(table, ()) if d.status in ("ACTIVE", "ENABLING", "UPDATING")]
        if not destinations:
            return
        for change in changes:
            key = partition_key(change[1])
            event_id = os.urandom(16).hex()
            for destination in destinations:
                record = kinesis_record(
                    change,
                    table_name=table[2],
                    region=table[1],
                    created_at=now,
                    precision=destination.precision,
                    by_ttl=by_ttl,
                    event_id=event_id,
                )
                try:
                    self._put(destination.stream_arn, key, json.dumps(record, separators=(",", ":")).encode())
                except ResourceNotFoundException:  # the data stream was deleted under the table
                    destination.status = "ENABLE_FAILED"
                    destination.description = f"The Kinesis data stream {destination.stream_arn} no longer exists"
                    self._saved(table)


def _check_arn(stream_arn: Any) -> None:
    if (
        not isinstance(stream_arn, str)
        or not stream_arn.startswith("arn:")
        or ":kinesis:" not in stream_arn
        or ":stream/" not in stream_arn
    ):
        raise ValidationException(f"Invalid StreamArn: {stream_arn!r} is not the ARN of a Kinesis data stream")


class KinesisDestinationsChannel(Channel):
    """The destinations' durable channel (storage/channels.py): {"op": "kinesis_destinations", "table",
    "destinations"}, a table's destinations whole, in the log whenever they change and in snapshots."""

    name, ops, kinds = "kinesis_destinations", ("kinesis_destinations",), ("kinesis_destinations",)

    def __init__(self, log: DurableLog, destinations: KinesisDestinations) -> None:
        self.log = log
        self.destinations = destinations

    def kinesis_destinations_saved(self, table: TableKey, destinations: list[dict[str, Any]]) -> None:
        self.log.log({"op": "kinesis_destinations", "table": list(table), "destinations": destinations})

    def snapshot_entries(self, generation: int) -> Iterator[dict[str, Any]]:
        for table, destinations in self.destinations.tables.items():
            yield {
                "kind": "kinesis_destinations",
                "table": list(table),
                "destinations": [asdict(destination) for destination in destinations],
            }

    def replay(self, entry: dict[str, Any]) -> None:
        self.destinations.restore(tuple(entry["table"]), entry["destinations"])

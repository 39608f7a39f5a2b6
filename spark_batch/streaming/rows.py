"""A DynamoDB stream record (GetRecords' JSON) as a row of the `dynamodbstreams` source, in Arrow batches."""

from __future__ import annotations

import json
from typing import Any

import pyarrow as pa
from pyspark.sql.types import LongType, StringType, StructField, StructType, TimestampType

#: a stream record as a row: keys and images stay DynamoDB JSON text (spark_batch.dynamodb_json types them)
SCHEMA = StructType(
    [
        StructField("event_id", StringType()),
        StructField("event_name", StringType()),
        StructField("shard_id", StringType()),
        StructField("sequence_number", StringType()),
        StructField("approximate_creation_date_time", TimestampType()),
        StructField("keys", StringType()),
        StructField("new_image", StringType()),
        StructField("old_image", StringType()),
        StructField("size_bytes", LongType()),
        StructField("stream_view_type", StringType()),
        StructField("user_identity_type", StringType()),
    ]
)

ARROW_SCHEMA = pa.schema(
    [
        ("event_id", pa.string()),
        ("event_name", pa.string()),
        ("shard_id", pa.string()),
        ("sequence_number", pa.string()),
        ("approximate_creation_date_time", pa.timestamp("us", tz="UTC")),
        ("keys", pa.string()),
        ("new_image", pa.string()),
        ("old_image", pa.string()),
        ("size_bytes", pa.int64()),
        ("stream_view_type", pa.string()),
        ("user_identity_type", pa.string()),
    ]
)

_dumps = json.JSONEncoder(separators=(",", ":")).encode


def record_batch(records: list[dict[str, Any]], shard_id: str) -> pa.RecordBatch:
    """One page of records as an Arrow batch of SCHEMA's columns."""
    columns: list[list[Any]] = [[] for _ in ARROW_SCHEMA]
    (
        event_id,
        event_name,
        shard,
        sequence_number,
        created,
        keys,
        new_image,
        old_image,
        size_bytes,
        view_type,
        identity,
    ) = columns
    for record in records:
        change = record["dynamodb"]
        event_id.append(record.get("eventID"))
        event_name.append(record.get("eventName"))
        sequence_number.append(change.get("SequenceNumber"))
        created.append(_micros(change.get("ApproximateCreationDateTime")))
        keys.append(_json(change.get("Keys")))
        new_image.append(_json(change.get("NewImage")))
        old_image.append(_json(change.get("OldImage")))
        size_bytes.append(change.get("SizeBytes"))
        view_type.append(change.get("StreamViewType"))
        who = record.get("userIdentity") or {}
        identity.append(who.get("Type") or who.get("type"))
    shard.extend([shard_id] * len(records))
    return pa.RecordBatch.from_arrays(
        [pa.array(column, type=field.type) for column, field in zip(columns, ARROW_SCHEMA)], schema=ARROW_SCHEMA
    )


def _json(value: Any) -> str | None:
    return None if value is None else _dumps(value)


def _micros(seconds: Any) -> int | None:
    """Epoch seconds (GetRecords sends a number) as microseconds."""
    return None if seconds is None else int(round(float(seconds) * 1_000_000))

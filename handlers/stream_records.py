"""What more than one handler needs from a DynamoDB Streams record: its table, its images, plain values."""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

from boto3.dynamodb.types import Binary, TypeDeserializer

_deserializer = TypeDeserializer()


def table_name(record: dict) -> str:
    """The source table, from eventSourceARN `arn:aws:dynamodb:<region>:<account>:table/<name>/stream/<label>`."""
    return record["eventSourceARN"].split(":", 5)[5].split("/")[1]


def image(record: dict, which: str) -> dict:
    """The record's "NewImage" or "OldImage"; a stream whose view type leaves it out is a configuration error."""
    try:
        return record["dynamodb"][which]
    except KeyError:
        view = record["dynamodb"].get("StreamViewType")
        raise ValueError(f"record {record.get('eventID')} has no {which}: the stream's view type is {view}") from None


def canonical(value: Any) -> str:
    """One JSON spelling per value (sorted keys, no spaces): document ids, archive lines."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)


def plain(item: dict) -> dict:
    """A DynamoDB JSON item as plain Python: whole numbers as int, others as float, sets as sorted lists."""
    return {name: _plain(_deserializer.deserialize(value)) for name, value in item.items()}


def _plain(value: Any) -> Any:
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    if isinstance(value, Binary):
        return value.value
    if isinstance(value, (set, frozenset)):
        return sorted(_plain(member) for member in value)
    if isinstance(value, list):
        return [_plain(member) for member in value]
    if isinstance(value, dict):
        return {key: _plain(member) for key, member in value.items()}
    return value

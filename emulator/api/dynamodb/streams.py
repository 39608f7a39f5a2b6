"""The DynamoDB Streams API (JSON 1.0, X-Amz-Target DynamoDBStreams_20120810.<Operation>).

Each operation parses and validates its parameters the way AWS does, calls the engine, and shapes the
response. GetRecords writes its JSON itself from records encoded once, which keeps it fast.
"""

from __future__ import annotations

import json
from typing import Any, Callable

from eddy.emulator.api import validation
from eddy.emulator.engine import Emulator
from eddy.emulator.errors import (
    AWSError,
    SerializationException,
    UnknownOperationException,
    ValidationException,
    constraint_violation,
)
from eddy.emulator.streams.iterators import ShardIteratorType
from eddy.emulator.aws_requests import Response, error_response, json_response, raw_json_response
from eddy.emulator.streams.stream_registry import STREAM_ARN

TARGET_PREFIX = "DynamoDBStreams_20120810."

Params = dict[str, Any]


def handle(emulator: Emulator, operation: str, body: bytes, caller: Callable[[], tuple[str, str]]) -> Response:
    """Run one operation; `caller()` gives the (account, region) the request speaks for."""
    try:
        handler = OPERATIONS.get(operation)
        if handler is None:
            raise UnknownOperationException(f"Unknown operation: {operation}")
        params = parse_body(body)
        validation.validate("dynamodbstreams", operation, params)
        return handler(emulator, params, caller)
    except AWSError as error:
        return error_response(error)


def parse_body(body: bytes) -> Params:
    try:
        params = _object_of(body)
    except (ValueError, UnicodeDecodeError):
        raise SerializationException("The request body is not valid JSON") from None
    if not isinstance(params, dict):
        raise SerializationException("The request body must be a JSON object")
    return params


_DECODER = json.JSONDecoder()  # json.loads's own decoder's settings


def _object_of(body: bytes) -> Any:
    """json.loads(body). An SDK's body is a JSON object with nothing around it: it is read by the decoder's
    raw_decode from its UTF-8 text, which skips what json.loads adds for any document (finding the bytes' encoding,
    and two regular expressions for the whitespace around the value: some 13k instructions, more than half of a
    GetItem body's decoding). A body that is not read whole so is left to json.loads, which accepts or refuses it as
    ever: a body raw_decode reads whole from its first byte, "{", is one json.loads reads as UTF-8 (a UTF-16 or
    UTF-32 text would have a NUL byte next, which no JSON object has there) and to the same object."""
    if body[:1] == b"{":
        try:
            text = body.decode()
            params, end = _DECODER.raw_decode(text)
            if end == len(text):
                return params
        except ValueError:  # UnicodeDecodeError too (json.loads decodes with surrogatepass): json.loads decides
            pass
    return json.loads(body or b"{}")


# -- parameters --------------------------------------------------------------------------------------


def _string(
    params: Params, name: str, *, required: bool = False, min_length: int = 1, max_length: int = 2048
) -> str | None:
    value = params.get(name)
    field = name[0].lower() + name[1:]
    if value is None:
        if required:
            raise constraint_violation(field, None, "Member must not be null")
        return None
    if not isinstance(value, str):
        raise SerializationException(f"Unexpected value type for {name}: expected a string")
    if len(value) < min_length:
        raise constraint_violation(field, value, f"Member must have length greater than or equal to {min_length}")
    if len(value) > max_length:
        raise constraint_violation(field, value, f"Member must have length less than or equal to {max_length}")
    return value


def _limit(params: Params, maximum: int, default: int) -> int:
    value = params.get("Limit")
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int):
        raise SerializationException("Unexpected value type for Limit: expected an integer")
    if value < 1:
        raise constraint_violation("limit", value, "Member must have value greater than or equal to 1")
    if value > maximum:
        raise constraint_violation("limit", value, f"Member must have value less than or equal to {maximum}")
    return value


def _stream_arn(params: Params, name: str = "StreamArn", required: bool = True) -> str | None:
    return _string(params, name, required=required, min_length=37, max_length=1024)


def _shard_id(params: Params, name: str = "ShardId", required: bool = True) -> str | None:
    return _string(params, name, required=required, min_length=28, max_length=65)


# -- operations --------------------------------------------------------------------------------------


def list_streams(emulator: Emulator, params: Params, caller: Callable[[], tuple[str, str]]) -> Response:
    account_id, region = caller()
    start = _stream_arn(params, "ExclusiveStartStreamArn", required=False)
    if start is not None and not STREAM_ARN.match(start):  # not a stream's ARN: refused as DescribeStream refuses it
        raise ValidationException(f"Invalid StreamArn: {start}")
    result = emulator.stream_reads.list_streams(
        account_id,
        region,
        table_name=_string(params, "TableName", min_length=3, max_length=255),
        limit=_limit(params, maximum=100, default=100),
        exclusive_start_stream_arn=start,
    )
    return json_response(result)


def describe_stream(emulator: Emulator, params: Params, caller: Callable[[], tuple[str, str]]) -> Response:
    shard_filter = params.get("ShardFilter")
    parent_shard_id = None
    if shard_filter is not None:
        if not isinstance(shard_filter, dict):
            raise SerializationException("Unexpected value type for ShardFilter: expected an object")
        if shard_filter.get("Type") != "CHILD_SHARDS":
            raise constraint_violation(
                "shardFilter.type", shard_filter.get("Type"), "Member must satisfy enum value set: [CHILD_SHARDS]"
            )
        parent_shard_id = _shard_id(shard_filter, "ShardId")
    result = emulator.stream_reads.describe_stream(
        _stream_arn(params),
        limit=_limit(params, maximum=100, default=100),
        exclusive_start_shard_id=_shard_id(params, "ExclusiveStartShardId", required=False),
        parent_shard_id=parent_shard_id,
    )
    return json_response(result)


def get_shard_iterator(emulator: Emulator, params: Params, caller: Callable[[], tuple[str, str]]) -> Response:
    stream_arn = _stream_arn(params)
    shard_id = _shard_id(params)
    kind = _string(params, "ShardIteratorType", required=True)
    try:
        iterator_type = ShardIteratorType(kind)
    except ValueError:
        raise constraint_violation(
            "shardIteratorType",
            kind,
            "Member must satisfy enum value set: [AFTER_SEQUENCE_NUMBER, AT_SEQUENCE_NUMBER, TRIM_HORIZON, LATEST]",
        ) from None
    text = _string(params, "SequenceNumber", min_length=21, max_length=40)
    sequence_number = None
    if iterator_type in (ShardIteratorType.AT_SEQUENCE_NUMBER, ShardIteratorType.AFTER_SEQUENCE_NUMBER):
        if text is None:
            raise ValidationException(f"SequenceNumber is required for ShardIteratorType {iterator_type.value}")
        if not text.isdigit():
            raise constraint_violation("sequenceNumber", text, "Member must satisfy regular expression pattern: [0-9]+")
        sequence_number = int(text)
    elif text is not None:
        raise ValidationException(f"SequenceNumber must not be given with ShardIteratorType {iterator_type.value}")
    iterator = emulator.stream_reads.get_shard_iterator(stream_arn, shard_id, iterator_type, sequence_number)
    return json_response({"ShardIterator": iterator})


def get_records(emulator: Emulator, params: Params, caller: Callable[[], tuple[str, str]]) -> Response:
    iterator = params.get("ShardIterator")
    if iterator is None:
        raise constraint_violation("shardIterator", None, "Member must not be null")
    if not isinstance(iterator, str):
        raise SerializationException("Unexpected value type for ShardIterator: expected a string")
    records, next_iterator = emulator.stream_reads.get_records(
        iterator, limit=_limit(params, maximum=1000, default=1000)
    )
    body = b'{"Records":[' + b",".join(records) + b"]"
    if next_iterator is not None:
        body += b',"NextShardIterator":' + json.dumps(next_iterator).encode()
    return raw_json_response(body + b"}")


OPERATIONS: dict[str, Callable[[Emulator, Params, Callable[[], tuple[str, str]]], Response]] = {
    "ListStreams": list_streams,
    "DescribeStream": describe_stream,
    "GetShardIterator": get_shard_iterator,
    "GetRecords": get_records,
}

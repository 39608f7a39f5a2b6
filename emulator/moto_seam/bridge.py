"""moto's DynamoDB backend and the hooks into moto's request handling (one module of the seam, emulator/moto_seam/).

moto is Eddy's DynamoDB data plane (items, expressions, GSIs, transactions; Eddy reads PartiQL itself and runs
it as those item operations, emulator/api/dynamodb/partiql/) and serves the plain services (S3, SQS, SNS, ...). Eddy
owns streams. The seams, all pinned by tests/emulator/moto_seam/test_bridge.py
so that a moto upgrade that moves them fails loudly:
  - `Table.stream_shard`: moto calls `table.stream_shard.add(old_item, new_item)` on every item it stores
    or removes (tables/write_hook.py hands each call to the capture the engine activated).
  - `BotocoreStubber.process_request` (botocore_hook.py): moto's in-process hook into botocore. Eddy's router
    sees every request first (DynamoDB, DynamoDB Streams on any host, /_eddy/), the rest goes on to moto
    through the services' journal.
  - `DynamoHandler`: moto's DynamoDB API, called with a request Eddy has already read.
  - `Item.eddy_image`: Eddy keeps on each of moto's items the text of the image its last write left
    (tables/item_images.py reads it).
  - `UpdateExpressionFunctionEvaluator.get_list_from_ddb_typed_value`: a list_append operand that names no
    attribute is AWS's ValidationException (moto asserts on it unless it is the first operand).
  - `FuncSize.expr` (condition and filter expressions' size()): an item without the attribute does not match,
    where moto failed the whole request.
  - `kinesis_backends[account][region].put_record(...)`: where Kinesis Data Streams for DynamoDB puts a
    table's changes (moto's Kinesis is the store; its API is served by moto in both doors).
  - moto's `Item.__init__`, `Table.put_item` (without a condition), `Table.query` and DynamoType's `cast_value`,
    `__hash__` and `__eq__` are replaced by equivalent, faster ones while an emulator is active
    (speedups/); UpdateItem and BatchWriteItem made all or nothing (all_or_nothing.py, actions.py).
  - moto's Kinesis `Stream.put_record`, `split_shard` and `merge_shards` are replaced (kinesis/streams.py, with the reading side):
    moto puts records on closed shards, copies a parent's records into its children and numbers each shard
    from 1; Eddy's keep records where they were put, route only to open shards and number a stream's records
    in one increasing sequence, so lineage and per-key order hold for readers and pollers.
"""

from __future__ import annotations

import base64
import json
import zlib
from typing import Any, Callable, Iterator

from moto.core.request import Request as MotoRequest
from moto.dynamodb.comparisons import FuncSize
from moto.dynamodb.exceptions import MockValidationException
from moto.dynamodb.models import dynamodb_backends
from moto.dynamodb.models.dynamo_type import Item
from moto.dynamodb.models.table import Table
from moto.dynamodb.parsing.ast_nodes import NoneExistingPath
from moto.dynamodb.parsing.validators import UpdateExpressionFunctionEvaluator
from moto.dynamodb.responses import DynamoHandler
from werkzeug.exceptions import HTTPException

from eddy.emulator.moto_seam import all_or_nothing, botocore_hook
from eddy.emulator.moto_seam import Patches
from eddy.emulator.moto_seam.speedups import dynamodb_text_items
from eddy.emulator import callers
from eddy.emulator.errors import ResourceNotFoundException
from eddy.emulator.aws_requests import Request, Response
from eddy.emulator.streams.records import Image, ImageText

# -- the door's registry: the router and Kinesis observer of the emulator whose door is open in this process -----

#: told (with `now()` and the `activity` condition) of every record put on, and every reshard of, moto's Kinesis
_kinesis_observer: Any = None


def connect(
    router: Callable[[Request], Response | None] | None = None,
    claims: Callable[[Request], bool] | None = None,
    kinesis_observer: Any = None,
    journal: Any = None,
) -> None:
    """A door opens: in-process, requests that `claims` accepts go to `router` first; moto's Kinesis tells
    `kinesis_observer` of its records."""
    global _kinesis_observer
    _kinesis_observer = kinesis_observer
    botocore_hook.route_through(router, claims, journal)


def disconnect() -> None:
    global _kinesis_observer
    _kinesis_observer = None
    botocore_hook.route_through(None, None, None)


def kinesis_observer() -> Any:
    return _kinesis_observer


def find_table(account_id: str, region: str, table_name: str) -> Table | None:
    try:
        return dynamodb_backends[account_id][region].tables.get(table_name)
    except KeyError:
        return None


def restore_item(table: Table, image: Image) -> None:
    """Put an item back as it was stored before a restart: no validation, no capture (it was both already). It is
    kept as its image's text, as a put keeps it (speedups/dynamodb_text_items.py)."""
    item = dynamodb_text_items.restored(image, table.hash_key_attr, table.range_key_attr)
    if item.range_key is not None:
        table.items[item.hash_key][item.range_key] = item
    else:
        table.items[item.hash_key] = item


def put_back(
    table_key: tuple[str, str, str], change: tuple[Any, Image, ImageText | None, ImageText | None, int, int]
) -> None:
    """An item as it was before a write whose commit failed (capture's change: keys, old image's text), unseen by
    the hook."""
    _, keys, old, *_ = change
    if (table := find_table(*table_key)) is not None and old is not None:
        restore_item(table, json.loads(old))
    elif table is not None:
        all_or_nothing.put_back(
            table,
            dynamodb_text_items.key_value(keys[table.hash_key_attr]),
            dynamodb_text_items.key_value(keys[table.range_key_attr]) if table.range_key_attr else None,
            None,
        )


def item_by_keys(table: Table, keys: Image) -> Item | None:
    """The item moto stores under these key attributes (None: none); KeyError for a key without the table's."""
    range_key = dynamodb_text_items.key_value(keys[table.range_key_attr]) if table.range_key_attr else None
    return table.get_item(dynamodb_text_items.key_value(keys[table.hash_key_attr]), range_key)


def delete_item_by_keys(table: Table, keys: Image) -> None:
    range_key = dynamodb_text_items.key_value(keys[table.range_key_attr]) if table.range_key_attr else None
    table.delete_item(dynamodb_text_items.key_value(keys[table.hash_key_attr]), range_key)


def drop_table(account_id: str, region: str, table_name: str) -> None:
    dynamodb_backends[account_id][region].tables.pop(table_name, None)


def put_table(table: Table) -> None:
    """A table moto held, back in its backend (a deletion the disk refused)."""
    dynamodb_backends[table.account_id][table.region_name].tables[table.name] = table


def all_tables() -> Iterator[Table]:
    for account_id in list(dynamodb_backends.keys()):
        for region in list(dynamodb_backends[account_id].keys()):
            yield from list(dynamodb_backends[account_id][region].tables.values())


def table_summaries() -> list[dict[str, Any]]:
    """Every table moto holds, as the dashboard lists it: account, region, name, ARN and item count."""
    return [
        {
            "AccountId": table.account_id,
            "Region": table.region_name,
            "TableName": table.name,
            "TableArn": table.table_arn,
            "ItemCount": len(table),
        }
        for table in all_tables()
    ]


def set_table_stream(table: Table, label: str, view_type: str | None) -> None:
    """Keep moto's table description in step with Eddy's stream (LatestStreamArn, StreamSpecification)."""
    table.latest_stream_label = label
    table.stream_specification = (
        {"StreamEnabled": True, "StreamViewType": view_type} if view_type else {"StreamEnabled": False}
    )


def table_created_at(table: Table) -> str:
    return table.created_at.isoformat()


def set_table_created_at(table: Table, created_at: str) -> None:
    """Restore CreationDateTime after a restart rebuilt the table."""
    from datetime import datetime

    table.created_at = datetime.fromisoformat(created_at)


def table_key_schema(table: Table) -> list[dict[str, str]]:
    """The table's KeySchema, each element with its AttributeType (S, N or B) from the AttributeDefinitions."""
    types = {definition["AttributeName"]: definition["AttributeType"] for definition in table.attr}
    return [dict(element, AttributeType=types.get(element["AttributeName"], "S")) for element in table.schema]


def table_indexes(table: Table) -> tuple[str, dict[str, list[str]], dict[str, list[str]]]:
    """The table's partition key attribute, and its global and local secondary indexes: name -> key attributes."""

    def keys(indexes: Any) -> dict[str, list[str]]:
        return {index.name: [element["AttributeName"] for element in index.schema] for index in indexes}

    return table.hash_key_attr, keys(table.global_indexes), keys(table.indexes)


# -- moto's Kinesis: the store of Kinesis Data Streams for DynamoDB ---------------------------------------


def _kinesis_backend(stream_arn: str) -> Any:
    """moto's Kinesis backend of the stream's account and region (moto's Kinesis loaded by the first call)."""
    from moto.kinesis.models import kinesis_backends

    parts = stream_arn.split(":")
    return kinesis_backends[parts[4]][parts[3]]


def kinesis_stream_exists(stream_arn: str) -> bool:
    from moto.kinesis.exceptions import StreamNotFoundError

    try:
        _kinesis_backend(stream_arn).describe_stream(stream_arn=stream_arn, stream_name=None)
    except StreamNotFoundError:
        return False
    return True


def kinesis_put(stream_arn: str, partition_key: str, data: bytes) -> None:
    """PutRecord on moto's Kinesis; ResourceNotFoundException if the stream is gone."""
    from moto.kinesis.exceptions import StreamNotFoundError

    try:
        _kinesis_backend(stream_arn).put_record(stream_arn, None, partition_key, None, base64.b64encode(data).decode())
    except StreamNotFoundError:
        raise ResourceNotFoundException(f"Kinesis stream {stream_arn} not found") from None


# -- moto's DynamoDB API ---------------------------------------------------------------------------


class DynamoDBCall:
    """One DynamoDB API request executed by moto; knows the caller's account and region as moto resolved them."""

    def __init__(self, request: Request, body: bytes) -> None:
        self._request = MotoRequest.from_primitives(request.method, request.url, request.headers, body)
        self._handler = DynamoHandler()
        self._handler.setup_class(self._request, request.url, self._request.headers)
        self.account_id: str = self._handler.current_account
        self.region: str = self._handler.region

    def run(self) -> Response:
        try:
            status, headers, body = self._handler.call_action()
        except HTTPException as error:
            status, headers, body = error.code, dict(error.get_headers()), error.get_body()
        if isinstance(body, str):
            body = body.encode()
        return Response(status, dict(headers), body)

    def table(self, table_name: str) -> Table | None:
        return find_table(self.account_id, self.region, table_name)


def with_body(response: Response, body: dict[str, Any]) -> Response:
    """The response with a new JSON body (and the CRC32 header botocore checks for DynamoDB)."""
    encoded = json.dumps(body, default=_json_default).encode()
    headers = {k: v for k, v in response.headers.items() if k.lower() not in ("content-length", "x-amz-crc32")}
    headers["x-amz-crc32"] = str(zlib.crc32(encoded))
    return Response(response.status, headers, encoded)


def _json_default(value: Any) -> Any:
    if isinstance(value, (bytes, bytearray)):
        return base64.b64encode(value).decode()
    raise TypeError(f"not JSON serialisable: {type(value).__name__}")


# -- list_append over an attribute that does not exist: AWS's ValidationException, not moto's AssertionError --

_original_list_operand = UpdateExpressionFunctionEvaluator.get_list_from_ddb_typed_value.__func__


def _list_operand(cls: type, node: Any, function_name: str) -> Any:
    """moto checks only list_append's first operand for a missing attribute; the second fails an assert."""
    if isinstance(node, NoneExistingPath):
        raise MockValidationException("The provided expression refers to an attribute that does not exist in the item")
    return _original_list_operand(cls, node, function_name)


# -- size() of an attribute an item lacks: the comparison is false for that item, as in AWS --------------

_original_size = FuncSize.expr


def _size(self: FuncSize, item: Any) -> Any:
    """moto raised "Invalid attribute name" for any item without the attribute, failing a whole Scan or Query
    whose filter uses size(); in AWS such an item just does not match (None compares false in moto's <, >, =)."""
    if self.attr.get_type(item) is None:
        return None
    return _original_size(self, item)


# -- who is calling: account and region (emulator/callers.py), the account by moto's mapping of access keys -------


def caller(request: Request) -> tuple[str, str]:
    """The (account, region) a request speaks for (callers.py's precedence; the access key's account as moto maps it)."""
    from moto.iam.models import get_account_id_from

    authorization = request.header("Authorization") or ""
    scope = callers.scope_of(authorization, request.url)
    account_id = callers.account_of(request.header, scope.access_key if scope else "", get_account_id_from)
    return account_id, callers.region_of(authorization, request.url)


# -- the patches (moto_seam/__init__.py applies them while an emulator is open) ------------------------------

_patches = Patches()


def install() -> None:
    """list_append's and size()'s answers (moto's writes are handed to capture by tables/write_hook.py)."""
    _patches.set(UpdateExpressionFunctionEvaluator, "get_list_from_ddb_typed_value", classmethod(_list_operand))
    _patches.set(FuncSize, "expr", _size)


def uninstall() -> None:
    _patches.restore()

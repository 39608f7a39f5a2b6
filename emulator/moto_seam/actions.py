"""moto's DynamoDB actions called directly, from a request body Eddy has already read and decoded.

moto's own door spends most of a request outside the model: it builds a werkzeug request, runs
`setup_class`, parses the body again through botocore's model, finds the action with `inspect.getmembers`
and serialises the answer through botocore's model once more. `run` skips all of that: it shapes the
decoded body as moto's parser would (`shape_params`), calls the `DynamoHandler` method of the operation on a
handler that knows only its body, account and region, and hands back moto's result dict or moto's error.
The answers are moto's own (same validation, same model calls); tests/emulator/test_dynamodb_fast.py
compares them with moto's full path request by request.

Seams (pinned by those tests): `DynamoHandler.<action>()` reads `self.body`/`self.params` and
`self.dynamodb_backend` only; moto's mapping of access keys to accounts; moto's JSON parser's
shaping (members by model, nulls dropped, blobs base64-decoded, numbers cast).
"""

from __future__ import annotations

import base64
import functools
import math
import sys
from typing import Any, Callable

from moto import settings as moto_settings
from moto.core import DEFAULT_ACCOUNT_ID
from moto.core.exceptions import ServiceException
from moto.core.parse import default_timestamp_parser
from moto.core.responses import ActionResult, get_service_model
from moto.dynamodb.models import dynamodb_backends
from moto.dynamodb.responses import DynamoHandler
from moto.utilities.utils import get_partition
from werkzeug.exceptions import HTTPException

from eddy.emulator.moto_seam.speedups.dynamodb_items import ITEM_SIZE_LIMIT
from eddy.emulator.moto_seam.tables import batch_writes, gets, puts
from eddy.emulator import callers

#: operations answered here; the rest take moto's full path
OPERATIONS = {
    "PutItem": "put_item",
    "GetItem": "get_item",
    "DeleteItem": "delete_item",
    "UpdateItem": "update_item",
    "Query": "query",
    "Scan": "scan",
    "BatchWriteItem": "batch_write_item",
    "BatchGetItem": "batch_get_item",
}


class NotShaped(Exception):
    """The body is not what moto's parser could shape: the request takes moto's full path instead."""


# -- the body as moto's JSON parser shapes it ---------------------------------------------------------------

Converter = Callable[[Any], Any]
_operations: dict[str, Converter] = {}  # by operation name
_AV_SCALARS = frozenset({"S", "N", "NULL", "BOOL"})


def _attribute_value(value: Any) -> Any:
    """An AttributeValue as moto's parser shapes it: the value itself when shaping would change nothing (no
    null member to drop, no B or BS to decode: most values; a body is decoded afresh for each request, so
    nothing else holds them), else a shaped copy."""
    if value is None:
        return None
    return value if _as_given(value) else _reshaped(value)


def _as_given(value: dict[str, Any]) -> bool:
    for kind, content in value.items():
        if content is None:
            return False
        if kind in _AV_SCALARS:
            continue
        if kind == "M":
            if type(content) is not dict:
                return False
            for element in content.values():
                if type(element) is not dict or not _as_given(element):
                    return False
        elif kind == "L":
            if type(content) is not list:
                return False
            for element in content:
                if type(element) is not dict or not _as_given(element):
                    return False
        elif kind != "SS" and kind != "NS" or type(content) is not list:
            return False
    return True


def _reshaped(value: Any) -> Any:
    """The hot shape, written out by hand (moto's parser walks all ten members)."""
    shaped = {}
    for kind, content in value.items():
        if content is None:
            continue
        if kind in _AV_SCALARS:
            shaped[kind] = content
        elif kind == "M":
            shaped[kind] = {name: _attribute_value(element) for name, element in content.items()}
        elif kind == "L":
            shaped[kind] = [_attribute_value(element) for element in content]
        elif kind == "B":
            shaped[kind] = base64.b64decode(content)
        elif kind == "BS":
            shaped[kind] = [base64.b64decode(member) for member in content]
        elif kind in ("SS", "NS"):
            shaped[kind] = list(content)
    return shaped


def _attribute_values(value: dict[str, Any]) -> dict[str, Any]:
    """A map of AttributeValues (an item, a key) as moto's parser shapes it: _attribute_value of each, with the
    commonest value, a lone S or N string, taken as it is without the two calls."""
    shaped = {}
    for name, element in value.items():
        if type(element) is dict and len(element) == 1 and (
            type(element.get("S")) is str or type(element.get("N")) is str
        ):
            shaped[name] = element
        else:
            shaped[name] = _attribute_value(element)
    return shaped


def _map_of(key: Converter, element: Converter) -> Converter:
    if key is _same and element is _attribute_value:
        return _attribute_values
    if key is _same:  # string keys (attribute names, table names): the common case, one call less per entry
        return lambda value: {k: element(v) for k, v in value.items()}
    return lambda value: {key(k): element(v) for k, v in value.items()}


class ShapeWalker:
    """A botocore shape compiled into one function over its values, once per shape name.

    A structure keeps the members its shape names that are not None, read by their JSON names and written by
    their model names when `from_json` (a request), the other way round when not (an answer); `map_of(key,
    value)` makes a map's function from its key's and value's; leaves by type name (others kept as they are).
    """

    def __init__(
        self,
        *,
        from_json: bool,
        attribute_value: Converter,
        map_of: Callable[[Converter, Converter], Converter],
        leaves: dict[str, Converter],
    ) -> None:
        self.from_json, self.attribute_value, self.map_of, self.leaves = from_json, attribute_value, map_of, leaves
        self._compiled: dict[str, Converter] = {}

    def __call__(self, shape: Any) -> Converter:
        name = shape.name
        found = self._compiled.get(name)
        if found is not None:
            return found
        kind = shape.type_name
        if name == "AttributeValue":
            walk = self.attribute_value
        elif kind == "structure":
            members: list[tuple[str, str, Converter]] = []
            self._compiled[name] = lambda value: _structure(members, value)  # a recursive shape finds itself
            for member_name, member in shape.members.items():
                json_name = member.serialization.get("name", member_name)
                read, write = (json_name, member_name) if self.from_json else (member_name, json_name)
                members.append((read, write, self(member)))
            return self._compiled[name]
        elif kind == "list":
            element = self(shape.member)
            walk = lambda value: [element(item) for item in value]  # noqa: E731
        elif kind == "map":
            walk = self.map_of(self(shape.key), self(shape.value))
        else:
            walk = self.leaves.get(kind, _same)
        self._compiled[name] = walk
        return walk


def _same(value: Any) -> Any:
    return value


def _structure(members: list[tuple[str, str, Converter]], value: Any) -> Any:
    if value is None:
        return None
    walked = {}
    for read, write, walk in members:
        member = value.get(read)
        if member is not None:
            walked[write] = walk(member)
    return walked


_shaped = ShapeWalker(
    from_json=True,
    attribute_value=_attribute_value,
    map_of=_map_of,
    leaves={
        "integer": int,
        "long": int,
        "short": int,
        "byte": int,
        "float": float,
        "double": float,
        "blob": base64.b64decode,
        "timestamp": default_timestamp_parser,
    },
)


def shape_params(operation: str, params: dict[str, Any]) -> dict[str, Any]:
    """`params` (the decoded body) as moto's parser hands them to its handler; NotShaped if it could not."""
    converter = _operations.get(operation)
    if converter is None:
        converter = _operations[operation] = _shaped(
            get_service_model("dynamodb").operation_model(operation).input_shape
        )
    try:
        return converter(params)
    except Exception as error:  # moto's own parser fails on it too: its full path answers as it does
        raise NotShaped(f"{type(error).__name__}: {error}") from None


def output_shape(operation: str) -> Any:
    """botocore's output shape of the operation, as moto's serializer reads it."""
    return get_service_model("dynamodb").operation_model(operation).output_shape


# -- who is calling (emulator/callers.py), the account by moto's mapping ------------------------------------------


def moto_caller(url: str, header: Callable[[str], str | None]) -> tuple[str, str, str]:
    """(account, region, access key) of a request (emulator/callers.py's precedence), the account by moto's mapping
    of access keys and an unsigned request's access key moto's; `header(name)`: the request's header of that name in
    any case, as text (Request.header), asked only for the ones the caller needs (not every header lowered for two)."""
    authorization = header("Authorization") or ""
    scope = callers.scope_of(authorization, url)
    access_key = scope.access_key if scope else "AKIAEXAMPLE"
    account_id = callers.account_of(header, access_key, _account_id_from)
    return account_id, callers.region_in(scope, url), access_key


# moto's IAM models (moto.iam.models: 13 MB of a process's memory with the `cryptography` modules they import, and
# 0.1 to 0.2 s of a server's start) are read here through whatever sys.modules holds: moto's own module once something
# has loaded it (its IAM and STS APIs, which make every access key moto knows, do), services/access_keys.py's
# stand-in before that while an emulator is open, or nothing. Until they are loaded moto knows no access key: every
# key is its default account's, and a visit has nothing to record (moto's own answers, below).


def _account_id_from(access_key: str) -> str:
    """moto's account of the access key (moto.iam.models.get_account_id_from)."""
    lookup = getattr(sys.modules.get("moto.iam.models"), "get_account_id_from", None)
    return DEFAULT_ACCOUNT_ID if lookup is None else lookup(access_key)


def _mark_account_as_visited(account_id: str, access_key: str, region: str) -> None:
    """moto's record of the access key's last use by DynamoDB (moto.iam.models.mark_account_as_visited)."""
    mark = getattr(sys.modules.get("moto.iam.models"), "mark_account_as_visited", None)
    if mark is not None:
        mark(account_id=account_id, access_key=access_key, service="dynamodb", region=region)


def direct_calls_allowed() -> bool:
    """moto checks IAM on every request once INITIAL_NO_AUTH_ACTION_COUNT is set: then its full path runs."""
    return moto_settings.INITIAL_NO_AUTH_ACTION_COUNT == math.inf  # not float("inf"): a string parsed every call


def key_attribute_names(account_id: str, region: str, table_name: Any, index_name: Any) -> list[str]:
    """The key attributes of a table and of its index `index_name` (if it has one by that name); [] if there is no
    such table."""
    regions = dict.get(dynamodb_backends, account_id) if isinstance(table_name, str) else None  # read, never made
    backend = dict.get(regions, region) if regions is not None else None
    table = backend.tables.get(table_name) if backend is not None else None
    if table is None:
        return []
    index = next((index for index in table.all_indexes() if index.name == index_name), None)
    return list(table.table_key_attrs) + ([element["AttributeName"] for element in index.schema] if index else [])


# -- the call ----------------------------------------------------------------------------------------------


class MotoError(Exception):
    """moto refused the request: its own status, headers and body."""

    def __init__(self, status: int, headers: dict[str, str], body: bytes) -> None:
        super().__init__(status)
        self.status, self.headers, self.body = status, headers, body


class _Handler(DynamoHandler):
    """moto's DynamoHandler whose backend, where it exists already, is found once a request by two dict lookups
    (`found`): moto's property asks `dynamodb_backends[account][region]` at every use, and BackendDict.__getitem__
    lists its accounts and compares itself with every BackendDict moto has made, each time. Where it does not exist,
    moto's own lookup makes it (or refuses the region) at the handler's first use, as before."""

    found: Any = None

    @property
    def dynamodb_backend(self) -> Any:
        found = self.found
        return found if found is not None else DynamoHandler.dynamodb_backend.fget(self)


def _existing_backend(account_id: str, region: str) -> Any:
    """moto's DynamoDB backend of the account and region if moto has made it (None: not yet)."""
    regions = dict.get(dynamodb_backends, account_id)
    return None if regions is None else dict.get(regions, region)


def run(
    operation: str, shaped: dict[str, Any], account_id: str, region: str, access_key: str, body_size: int | None = None
) -> dict[str, Any]:
    """moto's answer to the operation as a plain dict (DynamoDB JSON values); MotoError if moto refused it.
    `body_size`: the length of the request's body, when known."""
    handler = _handler(shaped, account_id, region, access_key)
    try:
        fits = body_size is not None and body_size <= ITEM_SIZE_LIMIT
        if operation == "PutItem":  # the body passed Eddy's validation (api/dynamodb/door.py's handle)
            return puts.put_item(handler, fits=fits).result
        if operation == "GetItem":  # likewise
            return gets.get_item(handler).result
        if operation == "BatchWriteItem":  # likewise
            return batch_writes.batch_write_item(handler, validated=True, fits=fits).result
        return getattr(handler, OPERATIONS[operation])().result
    except (HTTPException, ServiceException) as error:
        raise _refusal(handler, operation, error) from None


def plainest_get(shaped: dict[str, Any]) -> bool:
    """Whether a GetItem (shaped, validated) is its plainest form, which `item_text` answers (gets.py)."""
    return gets.plainest(shaped)


def item_text(shaped: dict[str, Any], account_id: str, region: str, access_key: str) -> str | None:
    """The item a plainest GetItem (`plainest_get`) finds, as the compact JSON text of its image, which is what moto's
    answer's Item encodes to (None: no such item); MotoError if moto refused the get."""
    handler = _handler(shaped, account_id, region, access_key)
    try:
        return gets.item_text(handler)
    except (HTTPException, ServiceException) as error:
        raise _refusal(handler, "GetItem", error) from None


def _handler(shaped: dict[str, Any], account_id: str, region: str, access_key: str) -> _Handler:
    """A DynamoHandler that knows only its body, account and region (the access key's visit recorded)."""
    handler = _Handler.__new__(_Handler)
    handler.service_name = "dynamodb"
    handler.automated_parameter_parsing = True
    handler.body = handler.params = shaped
    handler.uri_match = {}
    handler.current_account, handler.region = account_id, region
    handler.partition = _partition(region)
    handler.found = _existing_backend(account_id, region)
    _mark_account_as_visited(account_id, access_key, region)
    return handler


@functools.lru_cache(maxsize=64)  # bounded: a region is whatever a request's scope or host names
def _partition(region: str) -> str:
    """moto's partition of a region (get_partition: the region's name against each partition's prefixes in turn), once
    per region rather than once per request: a caller's region is one of a few, and a region's partition never
    changes."""
    return get_partition(region)


def _refusal(handler: DynamoHandler, operation: str, error: Exception) -> MotoError:
    """moto's refusal of a request as moto's full path answers it."""
    if isinstance(error, HTTPException):  # moto's DynamoDB errors (JsonRESTError)
        body = error.get_body()
        return MotoError(error.code, dict(error.get_headers()), body.encode() if isinstance(body, str) else body)
    return MotoError(*_serialized_error(handler, operation, error))


def _serialized_error(handler: DynamoHandler, operation: str, error: ServiceException) -> tuple[int, dict, bytes]:
    """A ServiceException through moto's own serializer (no DynamoDB error is one today; kept exact if one becomes one)."""
    handler.querystring = {}
    handler.headers = {"X-Amz-Target": "DynamoDB_20120810." + operation, "Content-Type": "application/x-amz-json-1.0"}
    handler.response_headers = {"server": "amazon.com"}
    status, headers, body = handler.serialized(ActionResult(error))
    return status, dict(headers), body.encode() if isinstance(body, str) else body

"""moto's DynamoDB actions called directly, from a request body Eddy has already read and decoded.

moto's own door spends most of a request outside the model: it builds a werkzeug request, runs
`setup_class`, parses the body again through botocore's model, finds the action with `inspect.getmembers`
and serialises the answer through botocore's model once more. `run` skips all of that: it shapes the
decoded body as moto's parser would (`shape_params`), calls the `DynamoHandler` method of the operation on a
handler that knows only its body, account and region, and hands back moto's result dict or moto's error.
The answers are moto's own (same validation, same model calls); tests/emulator/test_dynamodb_fast.py
compares them with moto's full path request by request.

Seams (pinned by those tests): `DynamoHandler.<action>()` reads `self.body`/`self.params` and
`self.dynamodb_backend` only; `BaseResponse`'s region, access-key and account rules; moto's JSON parser's
shaping (members by model, nulls dropped, blobs base64-decoded, numbers cast).
"""

from __future__ import annotations

import base64
import os
from typing import Any, Callable

from moto import settings as moto_settings
from moto.core.exceptions import ServiceException
from moto.core.parse import default_timestamp_parser
from moto.core.responses import BaseResponse, get_service_model
from moto.dynamodb.responses import DynamoHandler
from moto.iam.models import get_account_id_from, mark_account_as_visited
from moto.utilities.utils import get_partition
from werkzeug.exceptions import HTTPException

#: operations answered here; the rest take moto's full path
OPERATIONS = {
    "PutItem": "put_item", "GetItem": "get_item", "DeleteItem": "delete_item", "UpdateItem": "update_item",
    "Query": "query", "Scan": "scan", "BatchWriteItem": "batch_write_item", "BatchGetItem": "batch_get_item",
}


class NotShaped(Exception):
    """The body is not what moto's parser could shape: the request takes moto's full path instead."""


# -- the body as moto's JSON parser shapes it ---------------------------------------------------------------

Converter = Callable[[Any], Any]
_converters: dict[str, Converter] = {}  # by shape name
_operations: dict[str, Converter] = {}  # by operation name
_AV_SCALARS = frozenset({"S", "N", "NULL", "BOOL"})


def _attribute_value(value: Any) -> Any:
    """An AttributeValue: the hot shape, written out by hand (moto's parser walks all ten members)."""
    if value is None:
        return None
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


def _converter(shape: Any) -> Converter:
    name = shape.name
    found = _converters.get(name)
    if found is not None:
        return found
    if name == "AttributeValue":
        converter = _attribute_value
    elif shape.type_name == "structure":
        members: list[tuple[str, str, Converter]] = []
        _converters[name] = lambda value: _structure(members, value)  # a recursive shape finds itself
        for member_name, member in shape.members.items():
            members.append((member_name, member.serialization.get("name", member_name), _converter(member)))
        return _converters[name]
    elif shape.type_name == "list":
        element = _converter(shape.member)
        converter = lambda value: [element(item) for item in value]  # noqa: E731
    elif shape.type_name == "map":
        key, element = _converter(shape.key), _converter(shape.value)
        converter = lambda value: {key(k): element(v) for k, v in value.items()}  # noqa: E731
    elif shape.type_name in ("integer", "long", "short", "byte"):
        converter = int
    elif shape.type_name in ("float", "double"):
        converter = float
    elif shape.type_name == "blob":
        converter = base64.b64decode
    elif shape.type_name == "timestamp":
        converter = default_timestamp_parser
    else:
        converter = _same
    _converters[name] = converter
    return converter


def _same(value: Any) -> Any:
    return value


def _structure(members: list[tuple[str, str, Converter]], value: Any) -> Any:
    if value is None:
        return None
    shaped = {}
    for name, json_name, convert in members:
        raw = value.get(json_name)
        if raw is not None:
            shaped[name] = convert(raw)
    return shaped


def shape_params(operation: str, params: dict[str, Any]) -> dict[str, Any]:
    """`params` (the decoded body) as moto's parser hands them to its handler; NotShaped if it could not."""
    converter = _operations.get(operation)
    if converter is None:
        converter = _operations[operation] = _converter(
            get_service_model("dynamodb").operation_model(operation).input_shape)
    try:
        return converter(params)
    except Exception as error:  # moto's own parser fails on it too: its full path answers as it does
        raise NotShaped(f"{type(error).__name__}: {error}") from None


def output_shape(operation: str) -> Any:
    """botocore's output shape of the operation, as moto's serializer reads it."""
    return get_service_model("dynamodb").operation_model(operation).output_shape


# -- who is calling, by moto's rules (BaseResponse.setup_class) -----------------------------------------------


def moto_caller(url: str, headers: dict[str, str]) -> tuple[str, str, str]:
    """(account, region, access key) as moto's handler resolves them; `headers` with lower-case names."""
    url_match = BaseResponse.region_regex.search(url)
    if url_match:
        region = url_match.group(1)
    else:
        agent = BaseResponse.region_from_useragent_regex.search(headers.get("user-agent", ""))
        authorization = headers.get("authorization")
        if agent:
            region = agent.group(1)
        elif authorization is not None and "AWS4" in authorization:
            region = authorization.split(",")[0].split("/")[2]
        else:
            region = BaseResponse.default_region
    access_key = "AKIAEXAMPLE"
    authorization = headers.get("authorization")
    if authorization is not None:
        match = BaseResponse.access_key_regex.search(authorization)
        if match:
            access_key = match.group(1)
    account_id = os.environ.get("MOTO_ACCOUNT_ID") or headers.get("x-moto-account-id")
    if not account_id:
        account_id = get_account_id_from(access_key)
    return account_id, region, access_key


def direct_calls_allowed() -> bool:
    """moto checks IAM on every request once INITIAL_NO_AUTH_ACTION_COUNT is set: then its full path runs."""
    return moto_settings.INITIAL_NO_AUTH_ACTION_COUNT == float("inf")


# -- the call ----------------------------------------------------------------------------------------------


class MotoError(Exception):
    """moto refused the request: its own status, headers and body."""

    def __init__(self, status: int, headers: dict[str, str], body: bytes) -> None:
        super().__init__(status)
        self.status, self.headers, self.body = status, headers, body


def run(operation: str, shaped: dict[str, Any], account_id: str, region: str, access_key: str) -> dict[str, Any]:
    """moto's answer to the operation as a plain dict (DynamoDB JSON values); MotoError if moto refused it."""
    handler = DynamoHandler.__new__(DynamoHandler)
    handler.service_name = "dynamodb"
    handler.automated_parameter_parsing = True
    handler.body = handler.params = shaped
    handler.uri_match = {}
    handler.current_account, handler.region = account_id, region
    handler.partition = get_partition(region)
    mark_account_as_visited(account_id=account_id, access_key=access_key, service="dynamodb", region=region)
    try:
        return getattr(handler, OPERATIONS[operation])().result
    except HTTPException as error:  # moto's DynamoDB errors (JsonRESTError)
        body = error.get_body()
        raise MotoError(error.code, dict(error.get_headers()), body.encode() if isinstance(body, str) else body) from None
    except ServiceException as error:
        raise MotoError(*_serialized_error(handler, operation, error)) from None


def _serialized_error(handler: DynamoHandler, operation: str, error: ServiceException) -> tuple[int, dict, bytes]:
    """A ServiceException through moto's own serializer (no DynamoDB error is one today; kept exact if one becomes one)."""
    from moto.core.responses import ActionResult

    handler.querystring = {}
    handler.headers = {"X-Amz-Target": "DynamoDB_20120810." + operation, "Content-Type": "application/x-amz-json-1.0"}
    handler.response_headers = {"server": "amazon.com"}
    status, headers, body = handler.serialized(ActionResult(error))
    return status, dict(headers), body.encode() if isinstance(body, str) else body

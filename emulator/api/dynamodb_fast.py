"""The DynamoDB item operations' fast path: moto's model called directly, answered by Eddy's serializer.

`answer` takes a request whose body dynamodb_api has already decoded (once, for validation and for this)
and answers PutItem, GetItem, DeleteItem, UpdateItem, Query, Scan, BatchWriteItem and BatchGetItem
without moto's per-request machinery (emulator/moto_seam/actions.py). It answers None, and moto's full path
runs, for any other operation, for a body moto's parser could not shape, and while moto checks IAM.
The caller holds the emulator's lock and the capture operation, as for moto's full path: the model
calls are the same, so change capture sees every item they touch.
"""

from __future__ import annotations

import base64
import json
import uuid
import zlib
from typing import Any, Callable

from eddy.emulator.api.dynamodb_answers import collection_key, item_collection_metrics
from eddy.emulator.moto_seam import actions as moto_actions
from eddy.emulator.aws_requests import JSON_1_0, Request, Response

OPERATIONS = frozenset(moto_actions.OPERATIONS)
#: the operations whose answer moto gives ConsumedCapacity or ItemCollectionMetrics unasked (AWS: only when asked)
CAPACITY_REPORTED = frozenset({"UpdateItem", "BatchGetItem", "BatchWriteItem", "TransactWriteItems"})


def answer(operation: str, request: Request, params: dict[str, Any]) -> Response | None:
    if operation not in OPERATIONS or not moto_actions.direct_calls_allowed():
        return None
    headers = {name.lower(): _text(value) for name, value in request.headers.items()}
    try:
        shaped = moto_actions.shape_params(operation, params)
    except moto_actions.NotShaped:
        return None
    account_id, region, access_key = moto_actions.moto_caller(request.url, headers)
    try:
        result = moto_actions.run(operation, shaped, account_id, region, access_key, len(request.body or b""))
    except moto_actions.MotoError as refused:
        headers = dict(refused.headers, **{"x-amzn-RequestId": uuid.uuid4().hex})
        headers["x-amz-crc32"] = str(zlib.crc32(refused.body))  # botocore checks it on DynamoDB answers
        return Response(refused.status, headers, refused.body)
    answered = output_of(operation, result)
    if operation in CAPACITY_REPORTED:
        _unasked_removed(params, answered)
    if "ReturnItemCollectionMetrics" in params and item_collection_metrics.asked(params) \
            and operation in item_collection_metrics.OPERATIONS:  # DynamoDB's, for a table with an LSI
        item_collection_metrics.added(operation, params, answered, collection_key(account_id, region))
    body = json.dumps(answered).encode()
    return Response(200, {"Content-Type": JSON_1_0, "x-amzn-RequestId": uuid.uuid4().hex,
                          "x-amz-crc32": str(zlib.crc32(body))}, body)


def unasked_capacity_removed(operation: str, params: dict[str, Any], response: Response) -> Response:
    """moto's full-path answer without the ConsumedCapacity and ItemCollectionMetrics the request did not ask for."""
    if response.status != 200 or operation not in CAPACITY_REPORTED:
        return response
    answered = json.loads(response.body)
    if not _unasked_removed(params, answered):
        return response
    body = json.dumps(answered).encode()
    headers = {name: value for name, value in response.headers.items()
               if name.lower() not in ("content-length", "x-amz-crc32")}
    headers["x-amz-crc32"] = str(zlib.crc32(body))
    return Response(response.status, headers, body)


def _unasked_removed(params: dict[str, Any], answered: dict[str, Any]) -> bool:
    """AWS answers ConsumedCapacity only for ReturnConsumedCapacity TOTAL or INDEXES (with each table's and index's
    share, `Table`, only for INDEXES) and ItemCollectionMetrics only for ReturnItemCollectionMetrics SIZE (DynamoDB
    API reference, BatchWriteItem/UpdateItem "Response Elements"; LocalStack's AWS-recorded test_batch_write_items
    answer has neither). True when something was removed."""
    removed = False
    asked = params.get("ReturnConsumedCapacity")
    if asked not in ("TOTAL", "INDEXES"):
        removed = answered.pop("ConsumedCapacity", None) is not None or removed
    elif asked == "TOTAL" and isinstance(answered.get("ConsumedCapacity"), list):
        for consumed in answered["ConsumedCapacity"]:
            removed = consumed.pop("Table", None) is not None or removed
    if params.get("ReturnItemCollectionMetrics") != "SIZE":
        removed = answered.pop("ItemCollectionMetrics", None) is not None or removed
    return removed


# -- Eddy's serializer: moto's answer as botocore's output shape lets through ------------------------------------
# (members the shape does not name are left out, None members too; blobs in base64, strings as str)

Writer = Callable[[Any], Any]
_outputs: dict[str, Writer] = {}  # by operation


def output_of(operation: str, result: dict[str, Any]) -> dict[str, Any]:
    writer = _outputs.get(operation)
    if writer is None:
        writer = _outputs[operation] = _writer(moto_actions.output_shape(operation))
    return writer(result)


def _string(value: Any) -> Any:
    return str(value) if value not in (None, {}, []) else value


def _blob(value: Any) -> str:
    if isinstance(value, str):
        value = value.encode()
    return base64.b64encode(value).strip().decode()


def _attribute_value(value: Any) -> Any:
    """An AttributeValue, written out by hand: items are most of what these answers carry."""
    if value is None:
        return None
    written = {}
    for kind, content in value.items():
        if content is None:
            continue
        if kind in ("S", "N"):
            written[kind] = _string(content)
        elif kind in ("NULL", "BOOL"):
            written[kind] = content
        elif kind == "M":
            written[kind] = {name: element for name, element in
                             ((name, _attribute_value(element)) for name, element in content.items())
                             if element is not None}
        elif kind == "L":
            written[kind] = [_attribute_value(element) for element in content]
        elif kind in ("SS", "NS"):
            written[kind] = [_string(member) for member in content]
        elif kind == "B":
            written[kind] = _blob(content)
        elif kind == "BS":
            written[kind] = [_blob(member) for member in content]
    return written


_writer = moto_actions.ShapeWalker(
    from_json=False, attribute_value=_attribute_value,
    map_of=lambda key, element: lambda value: {
        k: w for k, w in ((k, element(v)) for k, v in value.items()) if w is not None},
    leaves={"string": _string, "blob": _blob, "integer": int, "long": int, "float": float, "double": float},
)


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else value

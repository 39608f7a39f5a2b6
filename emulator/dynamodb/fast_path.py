"""The DynamoDB item operations' fast path: moto's model called directly, answered by Eddy's serializer.

`answer` takes a request whose body the door has already decoded (once, for validation and for this) and answers
PutItem, GetItem, DeleteItem, UpdateItem, Query, Scan, BatchWriteItem and BatchGetItem without moto's per-request
machinery (emulator/moto_seam/actions.py). It answers None, and moto's full path runs, for any other operation, for
a body moto's parser could not shape, and while moto checks IAM. The caller (operations.py) holds the emulator's lock
and the capture operation, as for moto's full path: the model calls are the same, so change capture sees every item
they touch. moto's answer shares values with moto's items: it is shaped (`shape`, the door's) and encoded under
that lock, as compact JSON (AWS's own form). A GetItem of the whole item is answered from the text of the item's image
Eddy keeps on moto's item (moto_actions.item_text): that text is what moto's answer encodes to, so it is spliced in as
the answer's Item, never decoded and encoded again.
"""

from __future__ import annotations

import base64
import zlib
from typing import Any, Callable

from eddy.emulator.moto_seam import actions as moto_actions
from eddy.emulator.aws_requests import JSON_1_0, Request, Response, request_id
from eddy.emulator.streams.records import compact_json as encode

OPERATIONS = frozenset(moto_actions.OPERATIONS)
#: what the door does to moto's answer before it is encoded: (operation, params, answer, account_id, region)
Shape = Callable[[str, dict[str, Any], dict[str, Any], str, str], None]


def answer(operation: str, request: Request, params: dict[str, Any], shape: Shape | None = None) -> Response | None:
    if operation not in OPERATIONS or not moto_actions.direct_calls_allowed():
        return None
    try:
        shaped = moto_actions.shape_params(operation, params)
    except moto_actions.NotShaped:
        return None
    account_id, region, access_key = moto_actions.moto_caller(request.url, request.header)
    try:
        if operation == "GetItem" and moto_actions.plainest_get(shaped):
            return _item_answer(
                moto_actions.item_text(shaped, account_id, region, access_key), params, account_id, region, shape
            )
        result = moto_actions.run(operation, shaped, account_id, region, access_key, len(request.body or b""))
    except moto_actions.MotoError as refused:
        headers = dict(refused.headers, **{"x-amzn-RequestId": request_id()})
        headers["x-amz-crc32"] = str(zlib.crc32(refused.body))  # botocore checks it on DynamoDB answers
        return Response(refused.status, headers, refused.body)
    answered = output_of(operation, result)
    if shape is not None:
        shape(operation, params, answered, account_id, region)
    return _answer(encode(answered).encode() if answered else b"{}")  # a plain put's answer, as it is


def _item_answer(
    item: str | None, params: dict[str, Any], account_id: str, region: str, shape: Shape | None
) -> Response:
    """A plainest GetItem's answer: the item's text (moto_actions.item_text) spliced in as its Item, never decoded and
    written again; what the door adds (ConsumedCapacity, when asked) after it, as GetItemOutput orders them."""
    answered: dict[str, Any] = {}
    if shape is not None:
        shape("GetItem", params, answered, account_id, region)
    if item is None:
        return _answer(encode(answered).encode() if answered else b"{}")
    rest = "}" if not answered else "," + encode(answered)[1:]
    return _answer(('{"Item":' + item + rest).encode())


def _answer(body: bytes) -> Response:
    return Response(
        200,
        {"Content-Type": JSON_1_0, "x-amzn-RequestId": request_id(), "x-amz-crc32": str(zlib.crc32(body))},
        body,
    )


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
    """An AttributeValue, written out by hand: items are most of what these answers carry. A str (what moto keeps in
    S, N, SS and NS) is written as it is: _string's answer for it, without the call and its comparisons."""
    if value is None:
        return None
    written = {}
    for kind, content in value.items():
        if content is None:
            continue
        if kind == "S" or kind == "N":
            written[kind] = content if type(content) is str else _string(content)
        elif kind == "NULL" or kind == "BOOL":
            written[kind] = content
        elif kind == "M":
            members = written[kind] = {}
            for name, element in content.items():
                if element is not None:  # _attribute_value's None: only for a None
                    members[name] = _attribute_value(element)
        elif kind == "L":
            written[kind] = [_attribute_value(element) for element in content]
        elif kind == "SS" or kind == "NS":
            written[kind] = [member if type(member) is str else _string(member) for member in content]
        elif kind == "B":
            written[kind] = _blob(content)
        elif kind == "BS":
            written[kind] = [_blob(member) for member in content]
    return written


_writer = moto_actions.ShapeWalker(
    from_json=False,
    attribute_value=_attribute_value,
    map_of=lambda key, element: (
        lambda value: {k: w for k, w in ((k, element(v)) for k, v in value.items()) if w is not None}
    ),
    leaves={"string": _string, "blob": _blob, "integer": int, "long": int, "float": float, "double": float},
)


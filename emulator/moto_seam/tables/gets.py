"""GetItem's plainest form (the whole item: no ProjectionExpression, AttributesToGet or ExpressionAttributeNames) as
moto's DynamoHandler.get_item answers it, without the work moto's handler does for the other forms (actions.py runs
it for the fast path). tests/emulator/api/test_dynamodb_fast.py compares its answers with moto's own action.

moto's handler, for such a get: its table (ResourceNotFoundException), its check for empty key values, its checks
of a projection and of expression attribute names (none given: they pass), the key's attributes against the
table's (ProvidedKeyDoesNotExist), a projection parser of no expression (no paths), then the backend's get_item and
the item's attributes as its answer. Here the same checks in the same order with the same errors, the parser left
out: a get with no projection reads the whole item.

    result = get_item(handler)    # moto's ActionResult, or moto's error raised
    text = item_text(handler)     # the item found as its image's compact JSON text (None: no item), or moto's error

`item_text` is the answer's item without moto's item made plain and written again: the text Eddy keeps on each of
moto's items (item_images.py), which is what moto's answer encodes to, attribute by attribute in the same order.
"""

from __future__ import annotations

from typing import Any

from moto.core.responses import ActionResult
from moto.dynamodb.exceptions import KeyIsEmptyStringException, ProvidedKeyDoesNotExist
from moto.dynamodb.models.dynamo_type import Item
from moto.dynamodb.responses import DynamoHandler, DynamoResult, include_consumed_capacity

from eddy.emulator.moto_seam.tables import item_images
from eddy.emulator.streams.records import ImageText

moto_get_item = DynamoHandler.get_item
#: members that make a get other than the plainest: moto's own handler answers it
_NOT_PLAIN = ("ProjectionExpression", "AttributesToGet", "ExpressionAttributeNames")
#: what moto's include_consumed_capacity takes (anything else it refuses before the get)
_CAPACITY_MODES = frozenset({"NONE", "TOTAL", "INDEXES"})


def plainest(body: dict[str, Any]) -> bool:
    """Whether a validated get is the plainest form, whose answer `item_text` gives: no projection, and a
    ReturnConsumedCapacity moto takes (the capacity is the door's to add: api/dynamodb/answers/unasked.py)."""
    return not any(member in body for member in _NOT_PLAIN) and body.get("ReturnConsumedCapacity", "NONE") in (
        _CAPACITY_MODES
    )


def get_item(handler: DynamoHandler) -> ActionResult:
    """moto's DynamoHandler.get_item (its ConsumedCapacity too) for a get the door has validated."""
    body = handler.body
    if any(member in body for member in _NOT_PLAIN):
        return moto_get_item(handler)
    return _plain_get(handler)  # moto's decorator takes the handler alone as an argument


def item_text(handler: DynamoHandler) -> ImageText | None:
    """The item a plainest get (`plainest`) finds, as the compact JSON text of its image (None: no such item); moto's
    errors raised as its handler raises them."""
    return item_images.image_text_of(_stored_item(handler))


@include_consumed_capacity(0.5)
def _plain_get(handler: DynamoHandler) -> ActionResult:
    item = _stored_item(handler)
    return DynamoResult({"Item": item.attrs} if item else {})


def _stored_item(handler: DynamoHandler) -> Item | None:
    body = handler.body
    name = body["TableName"]
    backend = handler.dynamodb_backend
    table = backend.get_table(name)
    key = body["Key"]
    empty_keys = [k for k, v in key.items() if not next(iter(v.values()))]
    if empty_keys:
        raise KeyIsEmptyStringException(empty_keys[0])
    attribute_keys = table.attribute_keys  # a new list at each read of moto's property: read once
    if not all(k in attribute_keys for k in key):
        raise ProvidedKeyDoesNotExist
    return backend.get_item(name, key, [])  # [] : what moto's parser of no projection gives

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

from eddy.emulator.moto_seam.speedups.dynamodb_items import dynamo
from eddy.emulator.moto_seam.tables import item_images
from eddy.emulator.moto_seam.tables.lookups import table_named
from eddy.emulator.streams.records import ImageText

moto_get_item = DynamoHandler.get_item
#: members that make a get other than the plainest: moto's own handler answers it (a set: `isdisjoint` asks about
#: them all in one call, where `any(member in body ...)` ran a generator)
_NOT_PLAIN = frozenset({"ProjectionExpression", "AttributesToGet", "ExpressionAttributeNames"})
#: what moto's include_consumed_capacity takes (anything else it refuses before the get)
_CAPACITY_MODES = frozenset({"NONE", "TOTAL", "INDEXES"})


def plainest(body: dict[str, Any]) -> bool:
    """Whether a validated get is the plainest form, whose answer `item_text` gives: no projection, and a
    ReturnConsumedCapacity moto takes (the capacity is the door's to add: api/dynamodb/answers/unasked.py)."""
    return _NOT_PLAIN.isdisjoint(body) and body.get("ReturnConsumedCapacity", "NONE") in _CAPACITY_MODES


def get_item(handler: DynamoHandler) -> ActionResult:
    """moto's DynamoHandler.get_item (its ConsumedCapacity too) for a get the door has validated."""
    body = handler.body
    if not _NOT_PLAIN.isdisjoint(body):
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
    table = table_named(backend, name)
    key = body["Key"]
    empty_keys = [k for k, v in key.items() if not next(iter(v.values()))]
    if empty_keys:
        raise KeyIsEmptyStringException(empty_keys[0])
    if not _key_attributes(table, key):
        raise ProvidedKeyDoesNotExist
    return _item_at(backend, table, key)


def _key_attributes(table: Any, key: dict[str, Any]) -> bool:
    """moto's check that each of the key's names is one of the table's attribute keys (its key's and its indexes'):
    the table's own key attributes answer it for a key that names only them, the commonest key, without moto's
    attribute_keys, a property that copies the table's key list and adds each index's (a new list at each read)."""
    names = key.keys()
    return names <= set(table.table_key_attrs) or names <= set(table.attribute_keys)


def _item_at(backend: Any, table: Any, key: dict[str, Any]) -> Item | None:
    """What moto's backend.get_item(name, key, []) finds, in the table found already: moto's get_item looks the table
    up again by its name, and its Table.get_item asks `hash_key in items`, then `items[hash_key]` (two hashes and
    comparisons of the key's DynamoType); a table without a sort key is read here by one `items.get`. A table with one
    is read by moto's own Table.get_item (its items are a defaultdict of partitions, which moto's lookup fills in).
    A key of the partition key alone, on a table without a sort key, passes moto's get_keys_value without a word: its
    DynamoType is built directly (dynamodb_items.dynamo), without get_keys_value's checks and DynamoType's own calls."""
    hash_name = table.hash_key_attr
    if table.range_key_attr is None and len(key) == 1 and hash_name in key:
        return table.items.get(dynamo(key[hash_name]))
    hash_key, range_key = backend.get_keys_value(table, key)  # moto's errors for a key that is not the table's
    if table.range_key_attr is None:
        return table.items.get(hash_key)
    return table.get_item(hash_key, range_key, [])  # [] : what moto's parser of no projection gives

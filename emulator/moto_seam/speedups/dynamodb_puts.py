"""moto's `Table.put_item` without a condition, in less time (speedups/dynamodb.py installs `put_item`;
moto_seam/actions.py builds a BatchWriteItem's items with `item_to_put` and stores them with `store_item`; pinned
against moto's own by tests/emulator/moto_seam/test_speedups_put_item.py).

- A put without a condition (no Expected, no ConditionExpression: PutItem's plainest form and every
  put of a BatchWriteItem): moto's checks in moto's order with moto's errors, but the key sizes measured on
  the key DynamoTypes already built (dynamodb_items.attribute_size) and the conditions, which are moto's OpDefault (always
  true) when absent, not parsed; the item's partition looked up once, for the item it replaces and for storing it.
  Its two halves are `item_to_put` (every check, the Item built) and `store_item`. One difference: moto looks
  the item up (leaving an empty partition in its defaultdict) before building it, Eddy after; a refused put
  leaves nothing. Anything with a condition takes moto's own method.
- `Table._validate_item_types`' number check is skipped for plain numbers (digits, an optional fraction, at most
  20 digits each side), which moto's check would pass; the whole check is skipped for an item Eddy's validation
  has passed (BatchWriteItem's fast path), because that validation refuses everything it refuses.
- PutItem's check for empty sets (moto.dynamodb.responses.validate_put_has_empty_attrs): the same walk, with the
  table's key attributes (Table.attribute_keys, a list moto builds anew from the table and its indexes) listed once
  per item instead of once per attribute: a tenth of moto's PutItem action for a five-attribute item.
- A BatchWriteItem's put that replaces an item (`item_to_put(fits=True)`) gives each attribute it does not change
  the replaced item's DynamoType for it rather than a new one: the replaced item is gone once the put is stored
  (moto copies an item it keeps, deeply: transactions, backups, UpdateItem's old values), so nothing else holds
  it, and every attribute a put leaves as it was is no new object for the garbage collector to promote and walk.
  An attribute is unchanged when the put's AttributeValue equals the replaced item's image (`IMAGE`, its text kept
  up to date by moto_bridge, decoded) under its name; without an image every attribute is built anew. The new
  item's image is made of those attributes' part of the replaced item's image and, when the attributes the put
  changes are scalars, whose image is the AttributeValue, of theirs, and kept as its text; otherwise moto_bridge
  builds it.
  The item's hash_key and range_key are its key attributes' DynamoTypes, not two more equal ones.

    store_item(table, item_to_put(table, {"id": {"S": "o-1"}}))    # as table.put_item({"id": {"S": "o-1"}})
"""

from __future__ import annotations

import json
import re
from typing import Any

from moto.dynamodb.exceptions import (
    HashKeyTooLong,
    InvalidAttributeTypeError,
    MockValidationException,
    RangeKeyTooLong,
    SerializationException,
    ValidationException,
)
from moto.dynamodb.limits import HASH_KEY_MAX_LENGTH, RANGE_KEY_MAX_LENGTH
from moto.dynamodb.models.dynamo_type import DynamoType, Item, LimitedSizeDict
from moto.dynamodb.models.table import Table
from moto.dynamodb import responses as moto_responses

from eddy.emulator.moto_seam.speedups import dynamodb_items
from eddy.emulator.streams.item_size import item_size
from eddy.emulator.streams.records import compact_json

original_validate_put_has_empty_attrs = moto_responses.validate_put_has_empty_attrs
#: the attribute of moto's Item on which moto_bridge keeps the item's image as its last write left it, as its compact
#: JSON text (records.image_json's), or None
IMAGE = "eddy_image"
#: the attribute beside it with that image's item size (item_size's), set with the text
IMAGE_SIZE = "eddy_image_size"
original_put_item = Table.put_item


def put_item(
    self: Table,
    item_attrs: dict[str, Any],
    expected: dict[str, Any] | None = None,
    condition_expression: str | None = None,
    expression_attribute_names: dict[str, Any] | None = None,
    expression_attribute_values: dict[str, Any] | None = None,
    overwrite: bool = False,
    return_values_on_condition_check_failure: str | None = None,
) -> Item:
    if expected is not None or condition_expression:
        return original_put_item(
            self,
            item_attrs,
            expected,
            condition_expression,
            expression_attribute_names,
            expression_attribute_values,
            overwrite,
            return_values_on_condition_check_failure,
        )
    item = item_to_put(self, item_attrs)
    # not overwrite: moto checks get_expected({}) and the absent ConditionExpression, both OpDefault: true
    store_item(self, item)
    return item


def item_to_put(table: Table, item_attrs: dict[str, Any], *, types_checked: bool = False, fits: bool = False) -> Item:
    """The Item a put without a condition stores, built after every check moto's Table.put_item makes, in its order
    and with its errors (a key missing or of the wrong type, attribute values, key sizes; ItemSizeTooLarge while it
    is built). Nothing is stored: a BatchWriteItem builds all its items before it stores any. `types_checked`: the
    item passed Eddy's validation (emulator/api/validation.py), which refuses everything moto's attribute value
    checks refuse (tests/emulator/moto_seam/test_speedups_put_item.py pins it), so they are not made twice. `fits`: the
    request that carried the item is no longer than dynamodb_items.ITEM_SIZE_LIMIT, so the item's size is not measured (an item's
    JSON text is longer than its size: names and strings are in it whole, numbers with every digit, binary values in
    base64, and every value with its type's name)."""
    hash_key_attr, range_key_attr = table.hash_key_attr, table.range_key_attr
    if hash_key_attr not in item_attrs.keys():
        raise MockValidationException(
            "One or more parameter values were invalid: Missing the key " + hash_key_attr + " in the item"
        )
    hash_value = dynamodb_items.dynamo(item_attrs[hash_key_attr])
    if range_key_attr is not None:
        if range_key_attr not in item_attrs.keys():
            raise MockValidationException(
                f"One or more parameter values were invalid: Missing the key {range_key_attr} in the item"
            )
        range_value = dynamodb_items.dynamo(item_attrs[range_key_attr])
    else:
        range_value = None
    if hash_value.type != table.hash_key_type:
        raise InvalidAttributeTypeError(hash_key_attr, expected_type=table.hash_key_type, actual_type=hash_value.type)
    if range_value and range_value.type != table.range_key_type:
        raise InvalidAttributeTypeError(
            range_key_attr, expected_type=table.range_key_type, actual_type=range_value.type
        )
    if not types_checked:
        _validate_item_types(table, item_attrs)
    _validate_key_sizes(table, item_attrs, hash_value, range_value)
    if not fits:
        return Item(hash_value, range_value, item_attrs)
    item = dynamodb_items.item_new(Item)  # item_init without the sizes
    item.attrs = attributes = LimitedSizeDict.__new__(LimitedSizeDict)
    current = _stored(table, hash_value, range_value)
    text = getattr(current, IMAGE, None) if current is not None else None
    if text is None:
        dict.update(attributes, {name: dynamodb_items.dynamo(value) for name, value in item_attrs.items()})
    else:  # what the put leaves as it was keeps its DynamoType, and its part of the image (see above)
        kept, image, new_image = current.attrs, json.loads(text), {}
        for name, value in item_attrs.items():
            if image.get(name) == value:
                dict.__setitem__(attributes, name, kept[name])
                new_image[name] = image[name]
            else:
                dict.__setitem__(attributes, name, dynamodb_items.dynamo(value))
                new_image[name] = dict(value) if _scalar(value) else None
        if None not in new_image.values():
            setattr(item, IMAGE, compact_json(new_image))  # kept by store_item
            setattr(item, IMAGE_SIZE, item_size(new_image))
    item.hash_key = attributes[hash_key_attr]  # the key attributes' own DynamoTypes (a key is never updated)
    item.range_key = attributes[range_key_attr] if range_value is not None else None
    return item


_SCALARS = {"S": str, "N": str, "BOOL": bool}


def _scalar(value: dict[str, Any]) -> bool:
    """An AttributeValue that is its own image: a lone S or N (a str), BOOL (a bool) or NULL (true)."""
    kind, content = next(iter(value.items()), (None, None))
    return len(value) == 1 and (type(content) is _SCALARS.get(kind) or kind == "NULL" and content is True)


def _stored(table: Table, hash_value: DynamoType, range_value: DynamoType | None) -> Item | None:
    """The item stored under a key (read without leaving an empty partition in moto's defaultdict)."""
    if range_value is None:
        return table.items.get(hash_value)
    partition = table.items.get(hash_value)
    return partition.get(range_value) if partition is not None else None


def store_item(table: Table, item: Item) -> None:
    """Store an item built by item_to_put in place of the one with its key (its partition found once, for the item
    replaced and for storing), and tell stream_shard, which drops the item's image: item_to_put's is put back."""
    hash_value, range_value, image = item.hash_key, item.range_key, getattr(item, IMAGE, None)
    if range_value:
        partition = table.items[hash_value]
        current = partition.get(range_value)
        partition[range_value] = item
    else:
        current = table.items.get(hash_value)
        table.items[hash_value] = item  # type: ignore[assignment]
    if table.stream_shard is not None:
        table.stream_shard.add(current, item)
    if image is not None:
        setattr(item, IMAGE, image)


def _validate_item_types(table: Table, item_attrs: dict[str, Any], attr: str | None = None) -> None:
    """Table._validate_item_types (the same checks, in the same order), with its recursion into each dict value
    written out one level deep: one call per item and per map rather than one per attribute value."""
    for key, value in item_attrs.items():
        if isinstance(value, dict):
            for kind, content in value.items():  # Table._validate_item_types(value, attr=key)
                if isinstance(content, dict):
                    _validate_item_types(table, content, kind)
                if kind == "N":
                    if type(content) is not str or not _plain_number(content):  # moto's check passes these
                        table._validate_number_type(content)
                elif (kind == "S" and type(content) is not str) or kind == "NULL":  # a str S passes both checks
                    _validate_member(table, kind, content, key)
        if key == "N" or key == "S" or key == "NULL":
            _validate_member(table, key, value, attr)


#: numbers moto's _validate_number_type passes without a word: ASCII digits, no exponent, no blanks, magnitude
#: between 1E-20 and 1E20 (or zero), far inside DynamoDB's range
_plain_number = re.compile(r"-?[0-9]{1,20}(?:\.[0-9]{1,20})?").fullmatch


def _validate_member(table: Table, key: str, value: Any, attr: str | None) -> None:
    if key == "N":
        table._validate_number_type(value)
    elif key == "S":
        if isinstance(value, int):
            raise SerializationException("NUMBER_VALUE cannot be converted to String")
        if attr and attr in table.table_key_attrs and isinstance(value, dict):
            raise SerializationException("Start of structure or map found where not expected")
    elif key == "NULL":
        if isinstance(value, bool) and value is not True:
            raise ValidationException("Null attribute value types must have the value of true")


def _validate_key_sizes(
    table: Table, item_attrs: dict[str, Any], hash_value: DynamoType, range_value: DynamoType | None
) -> None:
    """Table._validate_key_sizes, with the table's own keys measured on the DynamoTypes built from them."""
    for name in table.hash_key_names:
        value = item_attrs.get(name)
        if value:
            built = hash_value if name == table.hash_key_attr else dynamodb_items.dynamo(value)
            if dynamodb_items.attribute_size(built) > HASH_KEY_MAX_LENGTH:
                raise HashKeyTooLong
    for name in table.range_key_names:
        value = item_attrs.get(name)
        if value:
            built = (
                range_value
                if name == table.range_key_attr and range_value is not None
                else dynamodb_items.dynamo(value)
            )
            if dynamodb_items.attribute_size(built) > RANGE_KEY_MAX_LENGTH:
                raise RangeKeyTooLong


def validate_put_has_empty_attrs(field_updates: dict[str, Any], table: Table) -> None:
    """moto's validate_put_has_empty_attrs: an empty NS or SS anywhere in a non-key attribute's value (maps
    included) refused in moto's words; the key attributes read once."""
    if table:
        keys = table.attribute_keys
        for name, value in field_updates.items():
            if name not in keys:
                _refuse_empty_sets(value)


def _refuse_empty_sets(attribute: dict[str, Any]) -> None:
    for set_type, error in (("NS", "number"), ("SS", "string")):
        if set_type in attribute and attribute[set_type] == []:
            raise MockValidationException(
                f"1 validation error detected: One or more parameter values were invalid: An {error} set  may not be empty"
            )
    for value in attribute.values():
        if isinstance(value, dict):
            _refuse_empty_sets(value)

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
- A put Eddy's door has validated (`item_to_put(types_checked=True)`: PutItem's plainest form, a BatchWriteItem's
  puts) stores its item as the text of its image (dynamodb_text_items.py's TextItem): its key's DynamoTypes and
  the request's item as compact JSON with its item size, which is the image item_images would make from the
  DynamoTypes built from it, byte for byte (every AttributeValue of a validated request has one member, of the
  JSON type its kind names, but binary values, which moto's parser decodes and the text holds in base64, as
  item_images writes them; numbers are already as DynamoDB stores them). moto decodes its attributes the first
  time it reads them; a put builds no DynamoType for them, and capture reads its new image as that text.

    store_item(table, item_to_put(table, {"id": {"S": "o-1"}}))    # as table.put_item({"id": {"S": "o-1"}})
"""

from __future__ import annotations

import re
from typing import Any

from moto.dynamodb.exceptions import (
    HashKeyTooLong,
    ItemSizeTooLarge,
    InvalidAttributeTypeError,
    MockValidationException,
    RangeKeyTooLong,
    SerializationException,
    ValidationException,
)
from moto.dynamodb.limits import HASH_KEY_MAX_LENGTH, RANGE_KEY_MAX_LENGTH
from moto.dynamodb.models.dynamo_type import DynamoType, Item
from moto.dynamodb.models.table import Table
from moto.dynamodb import responses as moto_responses

from eddy.emulator.moto_seam.speedups import dynamodb_items, dynamodb_text_items
from eddy.emulator.streams.item_size import item_size

original_validate_put_has_empty_attrs = moto_responses.validate_put_has_empty_attrs
IMAGE = dynamodb_text_items.IMAGE  # the text of its image Eddy keeps on moto's Item
IMAGE_SIZE = dynamodb_text_items.IMAGE_SIZE  # and that image's item size
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
    checks refuse (tests/emulator/moto_seam/test_speedups_put_item.py pins it), so they are not made twice, and the
    item is a TextItem, its image's text (see above). `fits` (with `types_checked`): the request that carried the item
    is no longer than dynamodb_items.ITEM_SIZE_LIMIT, so the item's size is not measured (an item's JSON text is
    longer than its size: names and strings are in it whole, numbers with every digit, binary values in base64, and
    every value with its type's name)."""
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
    if not types_checked:
        return Item(hash_value, range_value, item_attrs)
    # validated: every AttributeValue has one member of the type its kind names, so the image's text is the
    # request's item's (what item_images would make from the DynamoTypes built from it, byte for byte)
    if not fits and dynamodb_items.plain_size(item_attrs) > dynamodb_items.ITEM_SIZE_LIMIT:
        raise ItemSizeTooLarge  # what Item.__init__ raises, measured as it measures
    text = dynamodb_text_items.image_text(item_attrs)
    return dynamodb_text_items.text_item(hash_value, range_value, text, item_size(item_attrs))


def store_item(table: Table, item: Item) -> None:
    """Store an item built by item_to_put in place of the one with its key (its partition found once, for the item
    replaced and for storing), and tell stream_shard."""
    hash_value, range_value = item.hash_key, item.range_key
    if range_value:
        partition = table.items[hash_value]
        current = partition.get(range_value)
        partition[range_value] = item
    else:
        current = table.items.get(hash_value)
        table.items[hash_value] = item  # type: ignore[assignment]
    if table.stream_shard is not None:
        table.stream_shard.add(current, item)


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
    included) refused in moto's words; the key attributes read once, and only for an item with a value that may
    hold a set: a lone S or N (most of an item) holds none."""
    if table:
        keys = None
        for name, value in field_updates.items():
            if type(value) is dict and len(value) == 1 and ("S" in value or "N" in value):
                continue
            if keys is None:
                keys = table.attribute_keys
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

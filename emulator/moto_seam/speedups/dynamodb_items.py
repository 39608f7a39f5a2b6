"""moto's DynamoDB items built in linear time (speedups/dynamodb.py installs them; each pinned against moto's own by
tests/emulator/moto_seam/test_speedups.py and test_speedups_put_item.py).

- `Item.__init__` (item_init): moto stores an item's attributes in a LimitedSizeDict whose every `__setitem__` sums
  the sizes of all the attributes already there, so building an item is quadratic in its attributes (a
  25-item BatchWriteItem spends most of its time there). Here the running size is kept as the attributes
  go in, each measured once without copies (`attribute_size`): the same ItemSizeTooLarge at the same 405,000 bytes,
  the same dict. Each attribute's DynamoType is built by `dynamo`, which sets the type and value
  DynamoType.__init__ would set without its two list() copies and method calls.
- `Item.__new__` (item_new): moto's BaseModel appends every instance it makes to its class's `instances_tracked`
  (for moto's /moto-api/data.json) and lets go of them only at a reset, so every version of every item ever
  written, and every copy a read hands back, stays in memory, and every full garbage collection walks them all.
  Items are made without it (moto's data.json lists no DynamoDB items while an emulator runs).

    built = dynamo({"M": {"total": {"N": "42"}}})    # the DynamoType moto would build, without its copies
"""

from __future__ import annotations

import base64
from typing import Any

from moto.dynamodb.exceptions import ItemSizeTooLarge
from moto.dynamodb.models.dynamo_type import DynamoType, Item, LimitedSizeDict
from moto.dynamodb.models.utilities import bytesize

ITEM_SIZE_LIMIT = 405000  # moto's LimitedSizeDict limit

original_item_init = Item.__init__
original_item_new = Item.__new__


def item_new(cls: type[Item], *args: Any, **kwargs: Any) -> Item:
    return object.__new__(cls)


def dynamo(value: Any) -> DynamoType:
    """DynamoType(value), built directly for an AttributeValue dict (anything else: by DynamoType itself)."""
    if type(value) is not dict or not value:
        return DynamoType(value)
    for kind, content in value.items():  # DynamoType's type and value: the first member's
        break
    built = object.__new__(DynamoType)
    built.type = kind
    if kind == "L":
        content = [dynamo(element) for element in content]
    elif kind == "M":
        content = {name: dynamo(element) for name, element in content.items()}
    built.value = content
    return built


def item_init(self: Item, hash_key: DynamoType, range_key: DynamoType | None, attrs: dict[str, Any]) -> None:
    self.hash_key, self.range_key = hash_key, range_key
    self.attrs = stored = LimitedSizeDict()
    size = 0
    for key, value in attrs.items():
        sized = _sized(value)
        if sized is None:  # a value _sized does not take: built, then measured
            value = dynamo(value)
            sized = value, attribute_size(value)
        value = sized[0]
        size += (len(key) if type(key) is str and key.isascii() else bytesize(key)) + sized[1]
        if size > ITEM_SIZE_LIMIT:
            raise ItemSizeTooLarge
        dict.__setitem__(stored, key, value)


def _sized(value: Any) -> tuple[DynamoType, int] | None:
    """(dynamo(value), attribute_size of it) in one walk, for a value of the JSON types a request carries (S, N: str;
    BOOL, NULL: bool; B: bytes; SS, NS: lists of str; L, M of such values); None for anything else, which the
    caller builds and measures apart, so that an odd value fails exactly as it would there."""
    if type(value) is not dict or not value:
        return None
    for kind, content in value.items():
        break
    kind_of = type(content)
    if kind == "S" and kind_of is str:
        size = len(content) if content.isascii() else len(content.encode("utf-8"))
    elif kind == "N" and kind_of is str:
        size = len(content)
    elif (kind == "BOOL" or kind == "NULL") and kind_of is bool:
        size = 1
    elif kind == "M" and kind_of is dict:
        size, members = 0, {}
        for name, element in content.items():
            sized = _sized(element)
            if sized is None or type(name) is not str:
                return None
            members[name] = sized[0]
            size += bytesize(name) + sized[1]
        content = members
    elif kind == "L" and kind_of is list:
        size, elements = 0, []
        for element in content:
            sized = _sized(element)
            if sized is None:
                return None
            elements.append(sized[0])
            size += sized[1]
        content = elements
    elif (kind == "SS" or kind == "NS") and kind_of is list and all(type(member) is str for member in content):
        size = sum(len(member) for member in content) if kind == "NS" else sum(bytesize(member) for member in content)
    elif kind == "B" and kind_of is bytes:
        size = len(content)
    else:
        return None
    built = object.__new__(DynamoType)
    built.type = kind
    built.value = content
    return built, size


def attribute_size(value: DynamoType) -> int:
    """DynamoType.size() without its copies: it wraps every map value and set member in a new DynamoType."""
    kind, content = value.type, value.value
    if kind == "N":
        return len(str(content))
    if kind == "NS":
        return sum(len(str(member)) for member in content)
    if kind in ("SS", "BS"):
        return sum(1 if isinstance(member, bool) else bytesize(member) for member in content)
    if kind == "L":
        return sum(attribute_size(element) for element in content)
    if kind == "M":
        return sum(bytesize(name) + attribute_size(element) for name, element in content.items())
    if isinstance(content, bool):
        return 1
    return bytesize(content)


def plain_size(attrs: dict[str, Any]) -> int:
    """moto's Item.size() of the Item built from `attrs`, measured on its AttributeValues without building their
    DynamoTypes: each attribute's name and attribute_size of its DynamoType. The values as moto's parser shapes a
    request's (S, N: str; B: bytes; BOOL, NULL: bool; SS, NS: lists of str; BS of bytes; L, M of such values), or
    as an image's text decodes (binary values in base64, measured decoded)."""
    return sum(bytesize(name) + _plain_value_size(value) for name, value in attrs.items())


def _plain_value_size(value: dict[str, Any]) -> int:
    for kind, content in value.items():  # DynamoType's type and value: the first member's
        break
    if kind == "S":
        return len(content) if content.isascii() else bytesize(content)
    if kind == "N":
        return len(content)
    if kind == "M":
        return sum(bytesize(name) + _plain_value_size(element) for name, element in content.items())
    if kind == "L":
        return sum(_plain_value_size(element) for element in content)
    if kind == "NS":
        return sum(len(member) for member in content)
    if kind == "SS":
        return sum(bytesize(member) for member in content)
    if kind == "B":
        return _binary_size(content)
    if kind == "BS":
        return sum(_binary_size(member) for member in content)
    return 1  # BOOL, NULL: a bool


def _binary_size(content: bytes | str) -> int:
    return len(content) if type(content) is bytes else len(base64.b64decode(content))

"""DynamoDB's item-size accounting, used for a stream record's SizeBytes.

The rules (DynamoDB developer guide, "Item sizes and formats"): an attribute counts the UTF-8 length of
its name plus its value; strings count their UTF-8 bytes, binaries their raw bytes; a number counts one
byte per two significant digits plus one (leading and trailing zeros trimmed); booleans and nulls one
byte; a list or map 3 bytes plus, per element, 1 byte and the element's size (a map element's name
counts too); a set the sum of its members.

    >>> item_size({"Id": {"N": "101"}, "Message": {"S": "New item!"}})
    21
"""

from __future__ import annotations

import base64
from decimal import Decimal, InvalidOperation
from typing import Any


def number_size(text: str) -> int:
    digits = (text[1:] if text[:1] == "-" else text).replace(".", "", 1)
    if digits.isascii() and digits.isdigit():  # the common case, without an exponent: read as it is written
        return (len(digits.strip("0") or "0") + 1) // 2 + 1
    try:
        digits = Decimal(text).as_tuple().digits
    except (InvalidOperation, ValueError):
        digits = tuple(ch for ch in text if ch.isdigit())
    significant = "".join(map(str, digits)).strip("0") or "0"
    return (len(significant) + 1) // 2 + 1


def binary_size(value: Any) -> int:
    if isinstance(value, (bytes, bytearray)):
        return len(value)
    try:
        return len(base64.b64decode(value, validate=False))
    except (ValueError, TypeError):
        return len(str(value).encode())


def attribute_value_size(value: dict[str, Any]) -> int:
    ((kind, content),) = value.items()
    if kind == "S":
        return len(content) if content.isascii() else len(content.encode())
    if kind == "N":
        return number_size(content)
    if kind == "B":
        return binary_size(content)
    if kind in ("BOOL", "NULL"):
        return 1
    if kind == "SS":
        return sum(len(member.encode()) for member in content)
    if kind == "NS":
        return sum(number_size(member) for member in content)
    if kind == "BS":
        return sum(binary_size(member) for member in content)
    if kind == "L":
        return 3 + len(content) + sum(map(attribute_value_size, content))
    if kind == "M":
        return 3 + len(content) + item_size(content)  # per element: 1, its name and its value
    raise ValueError(f"not a DynamoDB attribute value type: {kind}")


def item_size(item: dict[str, dict[str, Any]] | None) -> int:
    """The item's size. The kinds most attributes have (strings, plain numbers, maps, string sets) are counted here,
    without a call each: a stream record's SizeBytes is measured for every record a poller delivers."""
    size = 0
    if item:
        for name, value in item.items():
            size += len(name) if name.isascii() else len(name.encode())
            ((kind, content),) = value.items()
            if kind == "S":
                size += len(content) if content.isascii() else len(content.encode())
            elif kind == "N":
                if content.isdigit() and content.isascii():  # an integer without a sign: number_size's common case
                    content = content.strip("0")
                    size += (len(content) + 1) // 2 + 1 if content else 2
                else:
                    size += number_size(content)
            elif kind == "M":
                size += 3 + len(content) + item_size(content)
            elif kind == "SS":  # the members' UTF-8 bytes: those of the members joined
                joined = "".join(content)
                size += len(joined) if joined.isascii() else len(joined.encode())
            else:
                size += attribute_value_size(value)
    return size

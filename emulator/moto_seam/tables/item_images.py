"""An item's image: what Eddy reads of one of moto's stored Items (one module of the seam, emulator/moto_seam/).

    image_of(item)          # new dicts, sharing nothing with moto's item
    image_text_of(item)     # its compact JSON text (records.image_json's)
    sized_image_of(item)    # that text and its item size
    number_of(item, "ttl")  # one attribute's number as written, if it is a Number

Eddy keeps on each of moto's items the text of the image its last write left (`Item.eddy_image`, a seam pinned by
tests/emulator/moto_seam/test_bridge.py); these read it, or make it from the item's DynamoTypes when it is not kept.
An item a validated put stored is that text until moto reads its attributes (speedups/dynamodb_text_items.py):
these read it without decoding them.
"""

from __future__ import annotations

import base64
import copy
import json
from typing import Any

from moto.dynamodb.models.dynamo_type import DynamoType, Item

from eddy.emulator.moto_seam.speedups import dynamodb_puts
from eddy.emulator.moto_seam.speedups.dynamodb_text_items import undecoded
from eddy.emulator.streams.item_size import item_size
from eddy.emulator.streams.records import Image, ImageText, SizedImage, compact_json

_SCALARS = frozenset({"S", "N", "BOOL", "NULL"})


def plain(value: Any) -> Any:
    """A DynamoType as a plain DynamoDB JSON value that shares nothing with moto's item."""
    if type(value) is not DynamoType and not isinstance(value, DynamoType):
        return copy.deepcopy(value)
    kind, content = value.type, value.value
    if kind in _SCALARS:  # the common case first: strings, numbers and booleans are shared as they are
        return {kind: content}
    if kind == "M":
        return {"M": {name: plain(element) for name, element in content.items()}}
    if kind == "L":
        return {"L": [plain(element) for element in content]}
    if kind == "B":
        return {"B": _base64(content)}
    if kind == "BS":
        return {"BS": [_base64(member) for member in content]}
    if kind in ("SS", "NS"):
        return {kind: list(content)}
    return {kind: content}


def _base64(content: Any) -> str:
    return base64.b64encode(content).decode() if isinstance(content, (bytes, bytearray)) else content


#: an item's image as its last write left it, as its compact JSON text, kept on moto's Item: the next change's old
#: image (made once; the same str is the stream record's new image, and then the next record's old one). Dropped
#: whenever moto stores the item, which UpdateItem changes in place, and set when the operation ends. An attribute, never read through item.__dict__, which would give each item a dict for the collector to walk.
_IMAGE = dynamodb_puts.IMAGE
#: the item size of that image (item_size's), kept beside it: a MODIFY's SizeBytes counts its old image's
_IMAGE_SIZE = dynamodb_puts.IMAGE_SIZE


def image_of(item: Item | None) -> Image | None:
    """An item's image, new dicts that share nothing with moto's item (decoded from the text the item keeps, if
    it keeps one)."""
    if item is None:
        return None
    text = getattr(item, _IMAGE, None)
    if text is not None:
        return json.loads(text)
    return _built_image(item)


def image_text_of(item: Item | None) -> ImageText | None:
    """An item's image's compact JSON text (records.image_json's): the one the item keeps, else made."""
    if item is None:
        return None
    text = getattr(item, _IMAGE, None)
    return text if text is not None else compact_json(_built_image(item))


def sized_image_of(item: Item | None) -> SizedImage | None:
    """An item's image's text and item size: the ones the item keeps, else made (not kept: write_hook keeps them)."""
    if item is None:
        return None
    text = getattr(item, _IMAGE, None)
    if text is None:
        image = _built_image(item)
        return compact_json(image), item_size(image)
    size = getattr(item, _IMAGE_SIZE, None)
    return text, item_size(json.loads(text)) if size is None else size


def number_of(item: Item, name: str) -> str | None:
    """The number an item's attribute holds, as written (None: no such attribute, or not a Number), read from its
    text while moto has not read its attributes (and only decoded when the name is in the text at all)."""
    if undecoded(item):
        text = item.eddy_image
        if json.dumps(name) + ":" not in text:  # the text writes each attribute's name so (a map's names too)
            return None
        value = json.loads(text).get(name)
        return value["N"] if value is not None and "N" in value else None
    value = item.attrs.get(name)
    return value.value if value is not None and value.type == "N" else None


def _built_image(item: Item) -> Image:
    image = {}
    for name, value in item.attrs.items():  # plain, with its common case (a scalar) written out
        image[name] = (
            {value.type: value.value} if type(value) is DynamoType and value.type in _SCALARS else plain(value)
        )
    return image

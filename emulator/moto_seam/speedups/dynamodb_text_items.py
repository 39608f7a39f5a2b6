"""moto's DynamoDB Item kept as its image's text, its attributes made on first need (a put's item: dynamodb_puts.py).

A put Eddy's door has validated stores a `TextItem`: its key (`hash_key`, `range_key`, the DynamoTypes moto's table
is keyed by) and the compact JSON text of its image with that image's item size (`eddy_image`, `eddy_image_size`:
records.image_json's text, streams/item_size.py's size, the pair Eddy keeps on every stored item). Its `attrs`, the
LimitedSizeDict of DynamoTypes moto's code reads and changes (UpdateItem in place, conditions, filters,
projections, transactions, PartiQL), are decoded from that text the first time moto reads them, then kept as on
any Item. Until then the text is the item: a stored item moto never read holds one str and its key, not a
DynamoType per attribute and member, and its image is never made again from DynamoTypes. Eddy's own readers
(item_images.py, the Query and Scan speedups in dynamodb_reads.py, TTL) read the text without decoding it. An item
put back from an image Eddy logged (recovery, a refused commit: bridge.restore_item) is one too (`restored`).

    item = text_item(DynamoType({"S": "o-1"}), None, '{"id":{"S":"o-1"},"n":{"N":"2"}}', 7)
    item.attrs["n"]    # DynamoType {"N": "2"}, decoded now and kept

Pinned against moto's own Item (the same attributes, the same answers and refusals) by
tests/emulator/moto_seam/test_text_items.py.
"""

from __future__ import annotations

import base64
import json
from typing import Any

from moto.dynamodb.models.dynamo_type import DynamoType, Item, LimitedSizeDict

from eddy.emulator.moto_seam.speedups.dynamodb_items import dynamo, plain_size
from eddy.emulator.streams.item_size import item_size

#: the attribute of moto's Item on which Eddy keeps the item's image as its last write left it, as its compact JSON
#: text (records.image_json's), or None
IMAGE = "eddy_image"
#: the attribute beside it with that image's item size (item_size's), set with the text
IMAGE_SIZE = "eddy_image_size"


class TextItem(Item):
    """An Item whose attributes are its image's text until moto reads them (see the module's docstring)."""

    #: the attributes once decoded (or set by moto); None: not yet, the text is the item
    eddy_attrs: LimitedSizeDict | None = None
    #: moto's Item.size() of it while undecoded, measured once on its text's values (moto_size); None: not yet
    eddy_moto_size: int | None = None

    @property
    def attrs(self) -> LimitedSizeDict:
        attrs = self.eddy_attrs
        if attrs is None:
            attrs = self.eddy_attrs = decoded(self.eddy_image)
        return attrs

    @attrs.setter
    def attrs(self, value: LimitedSizeDict) -> None:
        self.eddy_attrs = value


def text_item(hash_key: DynamoType, range_key: DynamoType | None, text: str, size: int) -> TextItem:
    """A stored item kept as its image's text and item size, keyed by `hash_key` and `range_key`."""
    item = object.__new__(TextItem)  # neither moto's __init__ (it builds attrs) nor its instance tracking
    item.hash_key, item.range_key = hash_key, range_key
    item.eddy_image, item.eddy_image_size = text, size
    return item


def restored(image: dict[str, Any], hash_key_attr: str, range_key_attr: str | None) -> TextItem:
    """A stored item as an image Eddy logged says it was (JSON: binary values in base64), kept as that image's text:
    its key's DynamoTypes as moto's parser shapes a request's (a binary key as bytes, so that a request's key finds
    it), its text and item size the ones its write kept (the image's compact JSON, the same text again)."""
    range_key = key_value(image[range_key_attr]) if range_key_attr else None
    return text_item(key_value(image[hash_key_attr]), range_key, image_text(image), item_size(image))


def key_value(value: dict[str, Any]) -> DynamoType:
    """A key attribute's value as JSON writes it (a binary one in base64) as the DynamoType of moto's table's key:
    built from the value moto's parser shapes (a binary one as bytes)."""
    return dynamo(_binary(value))


def moto_size(item: TextItem) -> int:
    """moto's Item.size() of an undecoded TextItem, measured on its text's values the first time it is asked (moto's
    Query and Scan ask twice an item, every time they read it) and kept: until it is decoded its text is all it holds,
    and never changes."""
    size = item.eddy_moto_size
    if size is None:
        size = item.eddy_moto_size = plain_size(json.loads(item.eddy_image))
    return size


def undecoded(item: Any) -> bool:
    """True for a TextItem whose attributes moto has never read: its text is all it holds, and so true."""
    return type(item) is TextItem and item.eddy_attrs is None


def forget_image(item: Item) -> None:
    """moto has stored the item, perhaps changed: the text it keeps is no longer known to be its image (capture
    makes it again when the operation ends). A TextItem whose attributes were never read cannot have changed: its
    text stays, and is still all it holds."""
    if not undecoded(item):
        setattr(item, IMAGE, None)


def _base64(value: Any) -> str:
    if type(value) is bytes:
        return base64.b64encode(value).decode()
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


#: a request's item, as moto's parser shapes it (binary values decoded to bytes), as its image's compact JSON text:
#: records.compact_json's, binary values in base64 as item_images.plain writes them
image_text = json.JSONEncoder(separators=(",", ":"), default=_base64).encode


def decoded(text: str) -> LimitedSizeDict:
    """An image's text as an Item's attributes: each AttributeValue the DynamoType moto's Item.__init__ builds for the
    value moto's parser shapes (binary values as bytes), in the text's order, in a LimitedSizeDict (filled as moto's
    __deepcopy__ fills one: its size was measured when the item was put)."""
    image = json.loads(text, object_hook=_binary) if '"B' in text else json.loads(text)
    attrs = LimitedSizeDict.__new__(LimitedSizeDict)
    dict.__init__(attrs, {name: dynamo(value) for name, value in image.items()})
    return attrs


def _binary(value: dict[str, Any]) -> dict[str, Any]:
    """A decoded AttributeValue B or BS with its base64 as bytes (any other JSON object as it is: a map's members
    and an item's attributes are objects, never a str or a list)."""
    if len(value) == 1:
        content = value.get("B")
        if type(content) is str:
            return {"B": base64.b64decode(content)}
        content = value.get("BS")
        if type(content) is list:
            return {"BS": [base64.b64decode(member) for member in content]}
    return value


def copied(item: TextItem, key_copy: Any) -> TextItem:
    """A copy of an undecoded TextItem (dynamodb_reads.item_deepcopy's): its key copied by `key_copy`, its text and
    size shared (str and int)."""
    copy = text_item(key_copy(item.hash_key), key_copy(item.range_key), item.eddy_image, item.eddy_image_size)
    if item.eddy_moto_size is not None:
        copy.eddy_moto_size = item.eddy_moto_size
    return copy

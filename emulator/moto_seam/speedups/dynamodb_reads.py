"""What moto's Query and Scan do to every item they return, in less time (speedups/dynamodb.py installs them; pinned
against moto's own by tests/emulator/moto_seam/test_speedups_reads.py).

- `Item.size` (item_size): moto's Table.query and scan measure each item twice against the 1 MB page, and moto's
  DynamoType.size() wraps every map value and set member in a new DynamoType to measure it: more than a third of a
  10-item Query's time in the server (cProfile, bench/server_profile.py --kind Query). Here each attribute is
  measured by dynamodb_items.attribute_size (pinned equal to DynamoType.size()); an item kept as its image's text
  whose attributes moto has not read (dynamodb_text_items.py) is measured on its text's values
  (dynamodb_items.plain_size) once, its size kept with it (dynamodb_text_items.moto_size), and stays undecoded.
- `Item.__deepcopy__` (item_deepcopy): the page's items are deep-copied before projection; moto's copy goes through
  copy.deepcopy for each attribute value and member, and asks is_list(), is_map() and is_set() of each. Here
  DynamoType values are copied directly (the same types, the same sharing through `memo`), anything else through
  copy.deepcopy as moto's does. The copy shares the image's text Eddy keeps on the item (`eddy_image` and its size,
  speedups/dynamodb_text_items.py): a copy is the item as it is, and moto's UpdateItem copies the stored item before it
  changes it in place, for the old image of its stream record, which is then that text, not encoded again.

    copied = item_deepcopy(item, {})    # equal to copy.deepcopy(item) with moto's own, attribute by attribute
"""

from __future__ import annotations

import copy
from typing import Any

from moto.dynamodb.models.dynamo_type import DynamoType, Item, LimitedSizeDict
from moto.dynamodb.models.utilities import bytesize

from eddy.emulator.moto_seam.speedups import dynamodb_text_items
from eddy.emulator.moto_seam.speedups.dynamodb_items import attribute_size
from eddy.emulator.moto_seam.speedups.dynamodb_text_items import moto_size, undecoded
from eddy.emulator.moto_seam.speedups.dynamodb_puts import IMAGE, IMAGE_SIZE

original_item_size = Item.size
original_item_deepcopy = Item.__deepcopy__

_SETS = frozenset({"SS", "NS", "BS"})


def item_size(self: Item) -> int:
    if undecoded(self):  # measured once on its text's values: its attributes stay undecoded
        return moto_size(self)
    return sum(
        bytesize(key) + (attribute_size(value) if type(value) is DynamoType else value.size())
        for key, value in self.attrs.items()
    )


def item_deepcopy(self: Item, memo: dict[int, Any]) -> Item:
    found = memo.get(id(self))
    if found is not None:
        return found
    if undecoded(self):  # its key copied, its text shared: the copy is undecoded too
        result = memo[id(self)] = dynamodb_text_items.copied(self, lambda key: _copied(key, memo))
        return result
    result = self.__class__.__new__(self.__class__)
    memo[id(self)] = result
    result.hash_key = _copied(self.hash_key, memo)
    result.range_key = _copied(self.range_key, memo)
    attrs = LimitedSizeDict.__new__(LimitedSizeDict)  # as moto's: without LimitedSizeDict's check on each insert
    dict.__init__(attrs)
    for key, value in self.attrs.items():
        dict.__setitem__(attrs, key, _copied(value, memo))
    result.attrs = attrs
    text = getattr(self, IMAGE, None)
    if text is not None:  # the image's text as the item's last write left it: the copy's too (a str: shared)
        setattr(result, IMAGE, text)
        setattr(result, IMAGE_SIZE, getattr(self, IMAGE_SIZE, None))
    return result


def _copied(value: Any, memo: dict[int, Any]) -> Any:
    """copy.deepcopy(value, memo), a DynamoType's as moto's DynamoType.__deepcopy__ makes it."""
    if type(value) is not DynamoType:
        return None if value is None else copy.deepcopy(value, memo)
    found = memo.get(id(value))
    if found is not None:
        return found
    result = object.__new__(DynamoType)
    memo[id(value)] = result
    kind, content = value.type, value.value
    result.type = kind
    if kind == "L":
        result.value = [_copied(element, memo) for element in content]
    elif kind == "M":
        result.value = {name: _copied(element, memo) for name, element in content.items()}
    elif kind in _SETS:
        result.value = list(content)
    else:
        result.value = content
    return result

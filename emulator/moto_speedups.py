"""Two of moto's DynamoDB model methods, replaced by ones that give the same results in less time.

- `Item.__init__`: moto stores an item's attributes in a LimitedSizeDict whose every `__setitem__` sums
  the sizes of all the attributes already there, so building an item is quadratic in its attributes (a
  25-item BatchWriteItem spends most of its time there). Here the running size is kept as the attributes
  go in, each measured once without copies (`_size`): the same ItemSizeTooLarge at the same 405,000 bytes,
  the same dict.
- `Table.query` on a table's own key (no IndexName): moto sorts every item of the table, then keeps those of
  the queried partition. Here its `all_items` hands the query the queried partition only (found by the
  DynamoType's hash, which agrees with its equality), sorted by the same key.

Installed while an emulator is active (moto_bridge.activate / deactivate). Both are pinned by tests/emulator/test_moto_speedups.py against moto's own methods (kept here as
`original_item_init` and `original_query`), so a moto upgrade that changes them fails loudly.
"""

from __future__ import annotations

from typing import Any

from moto.dynamodb.exceptions import ItemSizeTooLarge
from moto.dynamodb.models.dynamo_type import DynamoType, Item, LimitedSizeDict
from moto.dynamodb.models.table import Table
from moto.dynamodb.models.utilities import bytesize

ITEM_SIZE_LIMIT = 405000  # moto's LimitedSizeDict limit

original_item_init = Item.__init__
original_query = Table.query


def _item_init(self: Item, hash_key: DynamoType, range_key: DynamoType | None, attrs: dict[str, Any]) -> None:
    self.hash_key = hash_key
    self.range_key = range_key
    self.attrs = stored = LimitedSizeDict()
    size = 0
    for key, value in attrs.items():
        value = DynamoType(value)
        size += bytesize(key) + _size(value)
        if size > ITEM_SIZE_LIMIT:
            raise ItemSizeTooLarge
        dict.__setitem__(stored, key, value)


def _size(value: DynamoType) -> int:
    """DynamoType.size() without its copies: it wraps every map value and set member in a new DynamoType."""
    kind, content = value.type, value.value
    if kind == "N":
        return len(str(content))
    if kind in ("SS", "NS", "BS"):
        if kind == "NS":
            return sum(len(str(member)) for member in content)
        return sum(1 if isinstance(member, bool) else bytesize(member) for member in content)
    if kind == "L":
        return sum(_size(element) for element in content)
    if kind == "M":
        return sum(bytesize(name) + _size(element) for name, element in content.items())
    if isinstance(content, bool):
        return 1
    return bytesize(content)


def _sort_key(item: Item) -> Any:  # Table.all_items' order
    return (item.hash_key, item.range_key) if item.range_key else item.hash_key


def _query(self: Table, hash_key: DynamoType | None, *args: Any, **kwargs: Any) -> Any:
    index_name = kwargs.get("index_name") if len(args) < 7 else args[6]
    if index_name or hash_key is None or "all_items" in self.__dict__:
        return original_query(self, hash_key, *args, **kwargs)
    self.__dict__["all_items"] = lambda: _partition(self, hash_key)
    try:
        return original_query(self, hash_key, *args, **kwargs)
    finally:
        del self.__dict__["all_items"]


def _partition(table: Table, hash_key: DynamoType) -> list[Item]:
    found = table.items.get(hash_key)
    if found is None:
        return []
    items = list(found.values()) if table.range_key_attr else [found]
    return sorted(items, key=_sort_key)


def install() -> None:
    """While an emulator is active (moto_bridge.activate): plain moto in the same process keeps its own."""
    Item.__init__ = _item_init  # type: ignore[method-assign]
    Table.query = _query  # type: ignore[method-assign]


def uninstall() -> None:
    Item.__init__ = original_item_init  # type: ignore[method-assign]
    Table.query = original_query  # type: ignore[method-assign]

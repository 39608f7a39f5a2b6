"""Some of moto's DynamoDB model methods, replaced by ones that give the same results in less time.

- Items built in linear time, and without moto's instance tracking (`Item.__init__`, `Item.__new__`):
  dynamodb_items.py.
- `Table.put_item` without a condition, its checks in moto's order on the DynamoTypes already built, a validated
  put's item kept as its image's text (dynamodb_text_items.py), and PutItem's check for empty sets with the
  table's key attributes listed once: dynamodb_puts.py.
- `DynamoType.cast_value`, `__hash__` and `__eq__` (every key lookup in a table hashes and compares keys):
  for S, B and BOOL the value itself and for N its Decimal, as moto's, found by the type directly rather than
  by five is_*() calls; the other types are moto's own code.
- `dynamo_to_dict`, which moto's handlers run over every answer, by each value's exact type: dynamodb_results.py.
- `Item.size` and `Item.__deepcopy__`, which Query and Scan run over every item they return: dynamodb_reads.py.
- `Table.query` on a table's own key (no IndexName): moto sorts every item of the table, then keeps those of
  the queried partition. Here its `all_items` hands the query the queried partition only (found by the
  DynamoType's hash, which agrees with its equality), sorted by the same key.

Installed while an emulator is active (moto_seam.apply / remove). All are pinned by
tests/emulator/moto_seam/test_speedups.py, test_speedups_put_item.py, test_speedups_results.py and
test_speedups_reads.py against moto's own methods (kept as `dynamodb_items.original_item_init`, `original_query`
here, `dynamodb_puts.original_put_item`, `dynamodb_results.original_dynamo_to_dict` and `dynamodb_reads`'
`original_item_size` and `original_item_deepcopy`), so a moto upgrade that changes them fails loudly.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from moto.dynamodb.models.dynamo_type import DynamoType, Item
from moto.dynamodb import responses as moto_responses
from moto.dynamodb.models.table import Table

from eddy.emulator.moto_seam import Patches
from eddy.emulator.moto_seam.speedups import dynamodb_items, dynamodb_puts, dynamodb_reads, dynamodb_results

original_query = Table.query
original_cast_value = DynamoType.cast_value
original_hash = DynamoType.__hash__
original_eq = DynamoType.__eq__

_AS_IS = frozenset({"S", "B", "BOOL"})  # the types whose cast value is their value (N: its Decimal)


def _cast_value(self: DynamoType) -> Any:
    kind = self.type
    if kind in _AS_IS:
        return self.value
    if kind == "N":
        return Decimal(self.value)
    return original_cast_value.fget(self)


def _hash(self: DynamoType) -> int:
    kind = self.type
    if kind in _AS_IS:
        return hash((kind, self.value))
    if kind == "N":
        return hash((kind, Decimal(self.value)))
    return original_hash(self)


def _eq(self: DynamoType, other: DynamoType) -> bool:
    kind = self.type
    if kind != other.type:
        return False
    if kind in _AS_IS:
        return self.value == other.value
    if kind == "N":
        return Decimal(self.value) == Decimal(other.value)
    return original_eq(self, other)


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


_patches = Patches()


def install() -> None:
    """While an emulator is open (moto_seam/__init__.py): plain moto in the same process keeps its own."""
    _patches.set(Item, "__init__", dynamodb_items.item_init)
    _patches.set(Item, "__new__", staticmethod(dynamodb_items.item_new))
    _patches.set(Table, "query", _query)
    _patches.set(Table, "put_item", dynamodb_puts.put_item)
    _patches.set(moto_responses, "validate_put_has_empty_attrs", dynamodb_puts.validate_put_has_empty_attrs)
    _patches.set(DynamoType, "cast_value", property(_cast_value))
    _patches.set(DynamoType, "__hash__", _hash)
    _patches.set(DynamoType, "__eq__", _eq)
    _patches.set(moto_responses, "dynamo_to_dict", dynamodb_results.dynamo_to_dict)
    _patches.set(Item, "size", dynamodb_reads.item_size)
    _patches.set(Item, "__deepcopy__", dynamodb_reads.item_deepcopy)


def uninstall() -> None:
    _patches.restore()

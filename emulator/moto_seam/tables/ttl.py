"""moto's DynamoDB tables read for Time to Live: each item's expiry, as the TTL attribute holds it, and an expired
item deleted through moto's table (so change capture sees it).

A table's TTL specification is moto's `Table.ttl` ({"TimeToLiveStatus": ..., "AttributeName": ...}, what
UpdateTimeToLive wrote); an item's attribute is a DynamoType (`type`, `value`). Which of them have expired is
streams/ttl.py's rule, on the emulator's clock. Nothing of moto leaves here: a table is named by its key (account,
region, name), an item by an Expiring. Pinned by tests/emulator/moto_seam/test_ttl.py.
"""

from __future__ import annotations

from typing import Iterator

from moto.dynamodb.models.dynamo_type import Item
from moto.dynamodb.models.table import Table

from eddy.emulator.moto_seam import bridge
from eddy.emulator.moto_seam.tables import item_images
from eddy.emulator.streams.records import Image

TableKey = tuple[str, str, str]  # account, region, table name


class Expiring:
    """An item whose TTL attribute is a Number: its keys, and its deletion through moto's table."""

    __slots__ = ("_table", "_item")

    def __init__(self, table: Table, item: Item) -> None:
        self._table, self._item = table, item

    @property
    def keys(self) -> Image:
        image = item_images.image_of(self._item)
        return {name: image[name] for name in self._table.table_key_attrs}

    def delete(self) -> bool:
        """False if it was already gone."""
        return self._table.delete_item(self._item.hash_key, self._item.range_key) is not None


def expiries() -> Iterator[tuple[TableKey, Expiring, str]]:
    """(table, item, the TTL attribute's number as written) of every item whose table has TTL enabled (or being
    enabled) and whose TTL attribute is a Number; other items never expire."""
    for table in bridge.all_tables():
        if table.ttl.get("TimeToLiveStatus") not in ("ENABLED", "ENABLING"):
            continue
        attribute = table.ttl.get("AttributeName")
        key = (table.account_id, table.region_name, table.name)
        for item in table.all_items():
            number = item_images.number_of(item, attribute)  # from its text, if moto never read it
            if number is not None:
                yield key, Expiring(table, item), number

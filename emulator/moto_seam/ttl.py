"""moto's DynamoDB tables read for Time to Live: each item's expiry, as the TTL attribute holds it.

A table's TTL specification is moto's `Table.ttl` ({"TimeToLiveStatus": ..., "AttributeName": ...}, what
UpdateTimeToLive wrote); an item's attribute is a DynamoType (`type`, `value`). Which of them have expired is
streams/ttl.py's rule, on the emulator's clock. Pinned by tests/emulator/moto_seam/test_ttl.py.
"""

from __future__ import annotations

from typing import Iterable, Iterator

from moto.dynamodb.models.dynamo_type import Item
from moto.dynamodb.models.table import Table


def expiries(tables: Iterable[Table]) -> Iterator[tuple[Table, Item, str]]:
    """(table, item, the TTL attribute's number as written) of every item whose table has TTL enabled (or being
    enabled) and whose TTL attribute is a Number; other items never expire."""
    for table in tables:
        if table.ttl.get("TimeToLiveStatus") not in ("ENABLED", "ENABLING"):
            continue
        attribute = table.ttl.get("AttributeName")
        for item in table.all_items():
            value = item.attrs.get(attribute)
            if value is not None and value.type == "N":
                yield table, item, value.value

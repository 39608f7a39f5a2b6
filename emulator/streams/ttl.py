"""Time to Live: the sweeper that deletes expired items, as DynamoDB's background process does.

An item expires when its table has TTL enabled and the TTL attribute is a Number of epoch seconds in
the past on the emulator's clock. As on AWS, an item whose expiry lies more than five years in the
past is left alone. The deletions are ordinary REMOVE changes, marked as made by the service
(userIdentity {"type": "Service", "principalId": "dynamodb.amazonaws.com"}).
"""

from __future__ import annotations

from typing import Iterable, Iterator

from moto.dynamodb.models.dynamo_type import Item
from moto.dynamodb.models.table import Table

FIVE_YEARS = 5 * 365 * 24 * 3600


def expired_items(tables: Iterable[Table], now: float) -> Iterator[tuple[Table, Item]]:
    for table in tables:
        if table.ttl.get("TimeToLiveStatus") not in ("ENABLED", "ENABLING"):
            continue
        attribute = table.ttl.get("AttributeName")
        for item in table.all_items():
            value = item.attrs.get(attribute)
            if value is None or value.type != "N":
                continue
            try:
                expiry = float(value.value)
            except ValueError:
                continue
            if now - FIVE_YEARS <= expiry < now:
                yield table, item

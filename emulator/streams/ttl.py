"""Time to Live: the sweeper that deletes expired items, as DynamoDB's background process does.

An item expires when its table has TTL enabled and the TTL attribute is a Number of epoch seconds in
the past on the emulator's clock. As on AWS, an item whose expiry lies more than five years in the
past is left alone. The deletions are ordinary REMOVE changes, marked as made by the service
(userIdentity {"type": "Service", "principalId": "dynamodb.amazonaws.com"}). The items and their TTL
attribute are read from moto's tables by moto_seam/tables/ttl.py.
"""

from __future__ import annotations

from typing import Iterable, Iterator, TypeVar

FIVE_YEARS = 5 * 365 * 24 * 3600

Table = TypeVar("Table")
Item = TypeVar("Item")


def expired_items(expiries: Iterable[tuple[Table, Item, str]], now: float) -> Iterator[tuple[Table, Item]]:
    """The (table, item) of `expiries` (each with its TTL attribute's number) that have expired at `now`."""
    for table, item, number in expiries:
        try:
            expiry = float(number)
        except ValueError:
            continue
        if now - FIVE_YEARS <= expiry < now:
            yield table, item

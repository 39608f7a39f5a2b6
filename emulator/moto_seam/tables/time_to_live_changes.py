"""When a table's Time to Live was last changed by UpdateTimeToLive (the emulator's clock), kept on moto's table so a
table made again under the same name starts without one: DynamoDB refuses another change for a while after one
(api/dynamodb/rules/time_to_live.py)."""

from __future__ import annotations

from eddy.emulator.moto_seam import bridge

_ATTRIBUTE = "eddy_time_to_live_changed_at"


def changed_at(account_id: str, region: str, table_name: str) -> float | None:
    """When the table's Time to Live was last changed (None: never, or no such table)."""
    table = bridge.find_table(account_id, region, table_name)
    return None if table is None else vars(table).get(_ATTRIBUTE)


def note(account_id: str, region: str, table_name: str, at: float) -> None:
    table = bridge.find_table(account_id, region, table_name)
    if table is not None:
        setattr(table, _ATTRIBUTE, at)

"""When a table's Time to Live was last changed by UpdateTimeToLive (the emulator's clock), kept on moto's table so a
table made again under the same name starts without one: DynamoDB refuses another change for a while after one
(api/dynamodb_rules/time_to_live.py)."""

from __future__ import annotations

from typing import Any

_ATTRIBUTE = "eddy_time_to_live_changed_at"


def changed_at(table: Any) -> float | None:
    return vars(table).get(_ATTRIBUTE)


def note(table: Any, at: float) -> None:
    setattr(table, _ATTRIBUTE, at)

"""moto's EventBridge event-pattern operators, as triggers/filters.py uses them on one leaf value.

`operator_matches(value, rule)` is moto's `EventPattern._does_item_match_named_filter`: prefix, suffix (also with
`{"equals-ignore-case": ...}`), equals-ignore-case, anything-but (a value, a list, or prefix / suffix /
equals-ignore-case), numeric comparisons and ranges, exists (given UNDEFINED where the path has no leaf). Where it
differs from AWS (Python's `True == 1`), filters.py corrects it. Pinned by tests/emulator/moto_seam/test_event_patterns.py.
"""

from __future__ import annotations

from typing import Any, Callable

from moto.events.models import UNDEFINED, EventPattern

__all__ = ["UNDEFINED", "operator_matches"]

#: moto's answer: does `value` (a leaf's value, or UNDEFINED) pass `rule` ({operator: argument})
operator_matches: Callable[[Any, dict[str, Any]], bool] = EventPattern._does_item_match_named_filter

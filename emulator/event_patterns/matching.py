"""Matching a compiled pattern's branches against an event, as AWS's event-ruler matches JSON events.

The event is flattened into its leaves: each scalar under a path of field names joined by dots, arrays "crushed
out" of the path (every element's leaves are the field's leaves; an empty array or object has none). A branch
matches when each of its fields matches: one of the field's values matches one of the leaves at its path, or the
field asks {"exists": false} and there is no leaf there. Leaves used for one branch must be array-consistent: two
fields may not be matched by leaves from different elements of the same array (event-ruler's README, "JSON Array
Matching": ``{"employees": {"firstName": ["Anna"], "lastName": ["Jones"]}}`` does not match Anna Smith and Peter
Jones).
"""

from __future__ import annotations

from collections import defaultdict
from itertools import count
from typing import Any

from eddy.emulator.event_patterns.conditions import leaf_of

#: where a leaf sits: (array, element index) for each array on its way from the root
Trail = tuple[tuple[int, int], ...]
Leaves = dict[str, list[tuple[Any, Trail]]]


def flatten(event: Any) -> Leaves:
    """Every leaf of the event by its dotted path."""
    leaves: Leaves = defaultdict(list)
    arrays = count()

    def walk(node: Any, path: str, trail: Trail) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                walk(value, f"{path}.{key}" if path else key, trail)
        elif isinstance(node, list):
            array = next(arrays)
            for index, item in enumerate(node):
                walk(item, path, (*trail, (array, index)))
        elif path:
            leaves[path].append((leaf_of(node), trail))

    walk(event, "", ())
    return leaves


def branch_matches(branch: dict[str, list[Any]], leaves: Leaves) -> bool:
    """Whether every field of the branch matches, with array-consistent leaves."""
    needed: list[list[Trail | None]] = []  # each field's ways to match: a leaf's trail, or None (no leaf there)
    absent: dict[int, list[Trail]] = {}  # for a field that may match by absence, the trails of its leaves
    for path, values in branch.items():
        present = leaves.get(path, ())
        asked = [value for value in values if not value.absence]
        ways: list[Trail | None] = list(
            dict.fromkeys(trail for leaf, trail in present if any(value.matches(leaf) for value in asked))
        )
        if any(value.absence for value in values):
            if not present:
                continue
            absent[len(needed)] = [trail for _, trail in present]
            ways.append(None)
        if not ways:
            return False
        if () not in ways:  # a leaf outside every array fits with any other
            needed.append(ways)
    order = sorted(range(len(needed)), key=lambda n: (n in absent, len(needed[n])))  # absences checked last
    return _consistent([needed[n] for n in order], [absent.get(n) for n in order], [])


def _consistent(needed: list[list[Trail | None]], absent: list[list[Trail] | None], chosen: list[Trail]) -> bool:
    if not needed:
        return True
    for way in needed[0]:
        if way is None:  # matched by absence: none of the field's leaves may fit with what is chosen
            if all(not _fits(trail, chosen) for trail in absent[0] or ()) and _consistent(
                needed[1:], absent[1:], chosen
            ):
                return True
        elif _fits(way, chosen) and _consistent(needed[1:], absent[1:], [*chosen, way]):
            return True
    return False


def _fits(trail: Trail, chosen: list[Trail]) -> bool:
    elements = dict(trail)
    return all(elements.get(array, index) == index for other in chosen for array, index in other)

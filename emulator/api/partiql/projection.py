"""A SELECT's projection applied to an item: a path ending in a name is that name's value under its own name, as
PartiQL names a path's column (`SELECT mymap.nested` -> {"nested": ...}: the AWS-run conformance suite
nubo-db/dynamodb-conformance, tests/tier2/partiql/executeStatement.test.ts "SELECT with nested map path"); a path
ending in a list index kept at its place as a ProjectionExpression keeps it (`l[1]` -> {"l": {"L": [<element 1>]}},
AWS's answer for those not recorded); paths that lead nowhere left out."""

from __future__ import annotations

from typing import Any

from eddy.emulator.api.partiql.tree import Path


def project(item: dict[str, Any], paths: tuple[Path, ...]) -> dict[str, Any]:
    projected: dict[str, Any] = {}
    for path in paths:
        found = _at(item, path.elements)
        if found is None:
            continue
        if len(path.elements) > 1 and isinstance(path.elements[-1], str):
            projected[path.elements[-1]] = found
        else:
            _merge(projected, path.elements, found)
    _lists_in_order(projected)
    return projected


def _at(item: dict[str, Any], elements: tuple[str | int, ...]) -> Any:
    value: Any = {"M": item}
    for element in elements:
        if isinstance(element, int):
            listed = value.get("L") if isinstance(value, dict) else None
            value = listed[element] if isinstance(listed, list) and element < len(listed) else None
        else:
            members = value.get("M") if isinstance(value, dict) else None
            value = members.get(element) if isinstance(members, dict) else None
        if value is None:
            return None
    return value


def _merge(projected: dict[str, Any], elements: tuple[str | int, ...], value: Any) -> None:
    """Put `value` at `elements` in `projected` (list elements kept in order of their indexes)."""
    container: Any = {"M": projected}
    for position, element in enumerate(elements):
        last = position == len(elements) - 1
        nested = value if last else ({"L": {}} if isinstance(elements[position + 1], int) else {"M": {}})
        if "L" in container:
            container = container["L"].setdefault(element, nested)
        else:
            container = container["M"].setdefault(element, nested)


def _lists_in_order(value: Any) -> None:
    members = value.values() if isinstance(value, dict) else value
    for member in members:
        if isinstance(member, dict) and isinstance(member.get("L"), dict):
            member["L"] = [member["L"][index] for index in sorted(member["L"])]
        if isinstance(member, (dict, list)):
            _lists_in_order(member)

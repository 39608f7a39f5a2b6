"""moto's condition expressions evaluated as DynamoDB evaluates them: `<`, `<=`, `>` and `>=` between values of
different types (a number and a string, a string and a binary) are false, so a ConditionExpression comparing them
fails its condition (ConditionalCheckFailedException) and a FilterExpression leaves the item out. moto's
`OpLessThan` ... `OpGreaterThanOrEqual` compared the values in Python, whose TypeError became a 500 (the AWS-recorded
suite of issue 37: AWS answers ConditionalCheckFailedException). `begins_with` takes a binary attribute and a binary
prefix as DynamoDB documents it (developer guide, "Comparison operator and function reference": "a" can be a String
or a Binary) and compares their bytes; moto answered false for every binary. A ProjectionExpression path whose name
placeholder carries a list index (`#l[0]`, `#l[1].#m`) reads the name and keeps the index (developer guide, "Document
paths": "#pr.ThreeStar[0]"-style paths); moto looked the whole `#l[0]` up as a name and refused the placeholder as
unused. Paths that index one list more than once (`l[0], l[1].q`) keep every element they name, in the list's order
(`project_paths`, which PartiQL's SELECT uses too); moto kept the last path's.

Installed with all_or_nothing.py while an emulator is active; plain moto in the same process keeps its own.
Pinned by tests/emulator/moto_seam/test_conditions.py.
"""

from __future__ import annotations

import base64
import binascii
import operator
import re
from typing import Any, Callable

from moto.dynamodb import comparisons, responses
from moto.dynamodb.models.dynamo_type import Item

#: each ordering operator of moto's and the comparison it makes
ORDERINGS = {
    comparisons.OpLessThan: operator.lt,
    comparisons.OpLessThanOrEqual: operator.le,
    comparisons.OpGreaterThan: operator.gt,
    comparisons.OpGreaterThanOrEqual: operator.ge,
}
originals = {op: op.expr for op in ORDERINGS}
original_begins_with = comparisons.FuncBeginsWith.expr
original_projection_parse = responses.ProjectionExpressionParser.parse
original_project = Item.project


def _begins_with(self: Any, item: Any) -> bool:
    if self.attr.get_type(item) == "B" and self.substr.get_type(item) == "B":
        try:
            return _bytes(self.attr.expr(item)).startswith(_bytes(self.substr.expr(item)))
        except (binascii.Error, TypeError, ValueError):  # not base64 as DynamoDB keeps binaries: no match
            return False
    return original_begins_with(self, item)


def _projection_parse(self: Any) -> list[list[str]]:
    """moto's parse, with each path element `#name[i]...` read as the name's attribute and its indexes."""
    names = self.expression_attribute_names
    indexed = {}
    for element in {part.strip() for path in (self.projection_expression or "").split(",") for part in path.split(".")}:
        name, bracket, rest = element.partition("[")
        if bracket and name in names:
            indexed[element] = (name, names[name] + bracket + rest)
    if not indexed:
        return original_projection_parse(self)
    paths = original_projection_parse(self)
    for path in paths:
        for at, element in enumerate(path):
            if element in indexed:
                self.expr_attr_names_found.append(indexed[element][0])
                path[at] = indexed[element][1]
    return paths


def project_paths(item: dict[str, Any], paths: list[tuple[Any, ...]]) -> dict[str, Any]:
    """`item` (AttributeValues by name) projected on `paths` (names and list indexes): each path's value kept at its
    place, list elements in the order of their indexes, paths that lead nowhere left out."""
    projected: dict[str, Any] = {}
    for elements in paths:
        found = value_at(item, elements)
        if found is not None:
            _merge(projected, elements, found)
    _lists_in_order(projected)
    return projected


def value_at(item: dict[str, Any], elements: tuple[Any, ...]) -> Any:
    """The value at `elements` (names and list indexes) in `item`, or None."""
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


def _merge(projected: dict[str, Any], elements: tuple[Any, ...], value: Any) -> None:
    container: Any = {"M": projected}
    for position, element in enumerate(elements):
        last = position == len(elements) - 1
        nested = value if last else ({"L": {}} if isinstance(elements[position + 1], int) else {"M": {}})
        container = container["L" if "L" in container else "M"].setdefault(element, nested)


def _lists_in_order(value: Any) -> None:
    members = value.values() if isinstance(value, dict) else value
    for member in members:
        if isinstance(member, dict) and isinstance(member.get("L"), dict):
            member["L"] = [member["L"][index] for index in sorted(member["L"])]
        if isinstance(member, (dict, list)):
            _lists_in_order(member)


_INDEX = re.compile(r"\[(\d+)\]")


def _project(self: Any, projection_expressions: list[list[str]]) -> Any:
    """moto's Item.project, but for paths that index one list more than once (moto kept the last path's)."""
    paths = [tuple(element for part in path for element in _elements(part)) for path in projection_expressions]
    indexed = [path[0] for path in paths if any(isinstance(element, int) for element in path)]
    if len(indexed) == len(set(indexed)):
        return original_project(self, projection_expressions)
    attributes = project_paths(self.to_json()["Attributes"], paths)
    return Item(hash_key=self.hash_key, range_key=self.range_key, attrs=attributes)


def _elements(part: str) -> list[Any]:
    name, bracket, _ = part.partition("[")
    return [name, *map(int, _INDEX.findall(part))] if bracket else [part]


def _bytes(value: Any) -> bytes:
    """A binary's bytes: moto keeps some decoded, some as the base64 text of the request."""
    return value if isinstance(value, bytes) else base64.b64decode(value, validate=True)


def _ordering(compare: Callable[[Any, Any], bool]) -> Callable[[Any, Any], bool]:
    def expr(self: Any, item: Any) -> bool:
        lhs, rhs = self.lhs.expr(item), self.rhs.expr(item)
        if lhs is None or rhs is None:  # a missing attribute: false, as moto has it
            return False
        try:
            return compare(lhs, rhs)
        except TypeError:  # two types DynamoDB does not order against each other
            return False

    return expr


def install() -> None:
    for op, compare in ORDERINGS.items():
        op.expr = _ordering(compare)  # type: ignore[method-assign]
    comparisons.FuncBeginsWith.expr = _begins_with  # type: ignore[method-assign]
    responses.ProjectionExpressionParser.parse = _projection_parse  # type: ignore[method-assign]
    Item.project = _project  # type: ignore[method-assign]


def uninstall() -> None:
    for op, original in originals.items():
        op.expr = original  # type: ignore[method-assign]
    comparisons.FuncBeginsWith.expr = original_begins_with  # type: ignore[method-assign]
    responses.ProjectionExpressionParser.parse = original_projection_parse  # type: ignore[method-assign]
    Item.project = original_project  # type: ignore[method-assign]

"""PartiQL trees written as DynamoDB expressions: names as `#n0`, values as `:v0`, so DynamoDB's own
expression engine (the one UpdateItem, Query and Scan use) evaluates them.

    names = Expressions()
    names.condition(parse("SELECT * FROM t WHERE a = 1 AND begins_with(b, 'x')", None).where)
    # -> "(#n0 = :v0 AND begins_with(#n1, :v1))"
    # names.names == {"#n0": "a", "#n1": "b"}, names.values == {":v0": {"N": "1"}, ":v1": {"S": "x"}}
"""

from __future__ import annotations

from typing import Any

from eddy.emulator.api.dynamodb.partiql.tree import Arithmetic, Between, Call, Compare, In, Is, Logical, Not, Path, Value
from eddy.emulator.errors import ValidationException

#: functions a condition may call, with how many arguments each takes
CONDITION_FUNCTIONS = {
    "begins_with": 2,
    "contains": 2,
    "attribute_type": 2,
    "attribute_exists": 1,
    "attribute_not_exists": 1,
    "size": 1,
}


class Expressions:
    """The names and values an item operation's expressions refer to, collected as they are written."""

    def __init__(self) -> None:
        self.names: dict[str, str] = {}
        self.values: dict[str, Any] = {}
        self._name_marks: dict[str, str] = {}

    def request(self) -> dict[str, Any]:
        """ExpressionAttributeNames / ExpressionAttributeValues for the request, those that are not empty."""
        found: dict[str, Any] = {}
        if self.names:
            found["ExpressionAttributeNames"] = dict(self.names)
        if self.values:
            found["ExpressionAttributeValues"] = dict(self.values)
        return found

    def path(self, path: Path) -> str:
        written = ""
        for element in path.elements:
            if isinstance(element, int):
                written += f"[{element}]"
                continue
            mark = self._name_marks.get(element)
            if mark is None:
                mark = self._name_marks[element] = f"#n{len(self._name_marks)}"
                self.names[mark] = element
            written += ("." if written else "") + mark
        return written

    def value(self, value: dict[str, Any]) -> str:
        mark = f":v{len(self.values)}"
        self.values[mark] = value
        return mark

    def operand(self, node: Any) -> str:
        if isinstance(node, Path):
            return self.path(node)
        if isinstance(node, Value):
            return self.value(node.value)
        if isinstance(node, Call) and node.name == "size":
            return self.call(node)
        if isinstance(node, Arithmetic):
            raise ValidationException("Arithmetic is allowed only in the SET clause of an UPDATE")
        raise ValidationException(f"Unexpected function in an operand: {getattr(node, 'name', node)}")

    def call(self, node: Call) -> str:
        arity = CONDITION_FUNCTIONS.get(node.name)
        if arity is None:
            raise ValidationException(f"Function {node.name} is not supported in a condition")
        if len(node.args) != arity:
            raise ValidationException(f"Incorrect number of arguments for function {node.name}: {arity} expected")
        if not isinstance(node.args[0], Path):
            raise ValidationException(f"The first argument of {node.name} must be an attribute path")
        return f"{node.name}({', '.join(self.operand(arg) for arg in node.args)})"

    def condition(self, node: Any) -> str:
        if isinstance(node, Logical):
            return f"({self.condition(node.left)} {node.op} {self.condition(node.right)})"
        if isinstance(node, Not):
            return f"(NOT {self.condition(node.operand)})"
        if isinstance(node, Compare):
            return f"{self.operand(node.left)} {node.op} {self.operand(node.right)}"
        if isinstance(node, In):
            return f"{self.operand(node.operand)} IN ({', '.join(self.operand(v) for v in node.values)})"
        if isinstance(node, Between):
            return f"{self.operand(node.operand)} BETWEEN {self.operand(node.low)} AND {self.operand(node.high)}"
        if isinstance(node, Is):
            if not isinstance(node.operand, Path):
                raise ValidationException(f"IS {node.what} applies to an attribute path")
            path = self.path(node.operand)
            if node.what == "MISSING":
                return f"attribute_{'' if node.negated else 'not_'}exists({path})"
            written = f"attribute_type({path}, {self.value({'S': 'NULL'})})"
            return f"(NOT {written})" if node.negated else written
        if isinstance(node, Call) and node.name != "size":
            return self.call(node)
        raise ValidationException("Unexpected expression in a condition: it must be true or false")


def key_equalities(where: Any) -> dict[str, dict[str, Any]]:
    """The `name = value` conditions joined by AND at the top of a WHERE clause, by attribute name."""
    found: dict[str, dict[str, Any]] = {}
    pending = [where]
    while pending:
        node = pending.pop()
        if isinstance(node, Logical) and node.op == "AND":
            pending += [node.left, node.right]
        elif isinstance(node, Compare) and node.op == "=":
            for path, value in ((node.left, node.right), (node.right, node.left)):
                if isinstance(path, Path) and len(path.elements) == 1 and isinstance(value, Value):
                    found.setdefault(str(path.elements[0]), value.value)
    return found


def has_more_than(where: Any, keys: dict[str, Any]) -> bool:
    """Whether the WHERE clause says anything beyond `key = value` for the given keys."""
    pending = [where]
    while pending:
        node = pending.pop()
        if isinstance(node, Logical) and node.op == "AND":
            pending += [node.left, node.right]
        elif not (
            isinstance(node, Compare)
            and node.op == "="
            and any(
                isinstance(side, Path) and side.elements == (name,) for side in (node.left, node.right) for name in keys
            )
        ):
            return True
    return False

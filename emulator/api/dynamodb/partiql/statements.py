"""Each PartiQL statement as the DynamoDB item operation that does the same: SELECT a Query (the partition
key given) or a Scan, INSERT a PutItem that refuses an existing key, UPDATE an UpdateItem of an existing
item, DELETE a DeleteItem, EXISTS a ConditionCheck. The WHERE clause beyond the key becomes the operation's
condition or filter, evaluated by DynamoDB's own expression engine, and the write is captured in the
stream exactly as the item operation is.

    plan(parse("UPDATE t SET v = v + 1 WHERE pk = 'p1'", None), Schema("t", ("pk",))).params
    # -> {"TableName": "t", "Key": {"pk": {"S": "p1"}}, "UpdateExpression": "SET #n1 = #n1 + :v1",
    #     "ConditionExpression": "attribute_exists(#n0) AND #n0 = :v0",
    #     "ExpressionAttributeNames": {"#n0": "pk", "#n1": "v"},
    #     "ExpressionAttributeValues": {":v0": {"S": "p1"}, ":v1": {"N": "1"}}}
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from eddy.emulator.api.dynamodb.partiql.expressions import Expressions, has_more_than, key_equalities
from eddy.emulator.api.dynamodb.partiql.tree import (
    Arithmetic,
    Between,
    Call,
    Compare,
    Delete,
    Exists,
    In,
    Insert,
    Logical,
    Path,
    Select,
    Statement,
    Update,
    Value,
)
from eddy.emulator.errors import ValidationException

MANDATORY_KEYS = "Where clause does not contain a mandatory equality on all key attributes"


@dataclass(frozen=True)
class Schema:
    """A table's key attributes, and each index's (HASH first)."""

    table: str
    keys: tuple[str, ...]
    indexes: dict[str, tuple[str, ...]] = field(default_factory=dict)
    types: dict[str, str] = field(default_factory=dict)  # the key attributes' types: S, N or B

    def check_key(self, item: dict[str, Any]) -> None:
        """AWS's error for a key attribute of another type than the table's (moto's transactions fail on it)."""
        for name in self.keys:
            value, expected = item.get(name), self.types.get(name)
            actual = next(iter(value), None) if isinstance(value, dict) and len(value) == 1 else None
            if value is not None and expected is not None and actual != expected:
                raise ValidationException(
                    f"One or more parameter values were invalid: Type mismatch for key {name} "
                    f"expected: {expected} actual: {actual}"
                )


@dataclass
class Plan:
    operation: str  # Query, Scan, PutItem, UpdateItem, DeleteItem, ConditionCheck, DeleteEach (a Query's items)
    params: dict[str, Any]
    statement: Statement
    key: dict[str, Any] | None = None  # a SELECT's: the table's full key, when its WHERE names one by equality
    only_key: bool = False  # and the WHERE says nothing else


def plan(statement: Statement, schema: Schema) -> Plan:
    if isinstance(statement, Select):
        return _select(statement, schema)
    if isinstance(statement, Exists):
        names = Expressions()
        key, condition = _key_and_condition(statement.select.where, schema, names)
        return Plan(
            "ConditionCheck",
            {"TableName": schema.table, "Key": key, "ConditionExpression": condition, **names.request()},
            statement,
        )
    if isinstance(statement, Insert):
        schema.check_key(statement.item)
        names = Expressions()
        condition = f"attribute_not_exists({names.path(Path((schema.keys[0],)))})"
        return Plan(
            "PutItem",
            {"TableName": schema.table, "Item": statement.item, "ConditionExpression": condition, **names.request()},
            statement,
        )
    if isinstance(statement, Update):
        return _update(statement, schema)
    if isinstance(statement, Delete):
        equalities = key_equalities(statement.where)
        if schema.keys[0] in equalities and any(name not in equalities for name in schema.keys):
            # moto's reading, kept so code written against it runs: each item of the partition that matches
            return Plan(
                "DeleteEach", _select(Select(schema.table, None, None, statement.where), schema).params, statement
            )
        key = _key(statement.where, schema)
        params: dict[str, Any] = {"TableName": schema.table, "Key": key}
        if has_more_than(statement.where, key):
            names = Expressions()
            params["ConditionExpression"] = names.condition(statement.where)
            params.update(names.request())
        if statement.returning:
            params["ReturnValues"] = statement.returning
        return Plan("DeleteItem", params, statement)
    raise ValidationException("Unsupported statement")


def _key(where: Any, schema: Schema) -> dict[str, Any]:
    equalities = key_equalities(where)
    if any(name not in equalities for name in schema.keys):
        raise ValidationException(MANDATORY_KEYS)
    key = {name: equalities[name] for name in schema.keys}
    schema.check_key(key)
    return key


def _key_and_condition(where: Any, schema: Schema, names: Expressions) -> tuple[dict[str, Any], str]:
    """The key `where` names, and a condition that holds when that item exists and matches `where`."""
    key = _key(where, schema)
    return key, f"attribute_exists({names.path(Path((schema.keys[0],)))}) AND {names.condition(where)}"


def _update(statement: Update, schema: Schema) -> Plan:
    names = Expressions()  # one collection for both expressions
    key, condition = _key_and_condition(statement.where, schema, names)
    clauses: dict[str, list[str]] = {"SET": [], "REMOVE": [], "ADD": [], "DELETE": []}
    for path, value in statement.sets:
        target = names.path(path)
        if isinstance(value, Call) and value.name in ("set_add", "set_delete"):
            if len(value.args) != 2 or value.args[0] != path or not isinstance(value.args[1], Value):
                raise ValidationException(f"{value.name.upper()} takes the attribute being set and a set value")
            clauses["ADD" if value.name == "set_add" else "DELETE"].append(
                f"{target} {names.value(value.args[1].value)}"
            )
        else:
            clauses["SET"].append(f"{target} = {_update_value(value, names)}")
    for path in statement.removes:
        clauses["REMOVE"].append(names.path(path))
    params = {
        "TableName": schema.table,
        "Key": key,
        "UpdateExpression": " ".join(f"{kind} {', '.join(items)}" for kind, items in clauses.items() if items),
        "ConditionExpression": condition,
        **names.request(),
    }
    if statement.returning:
        params["ReturnValues"] = statement.returning
    return Plan("UpdateItem", params, statement)


def _update_value(node: Any, names: Expressions, *, nested: bool = False) -> str:
    if isinstance(node, Path):
        return names.path(node)
    if isinstance(node, Value):
        return names.value(node.value)
    if isinstance(node, Arithmetic) and not nested:
        return (
            f"{_update_value(node.left, names, nested=True)} {node.op} {_update_value(node.right, names, nested=True)}"
        )
    if isinstance(node, Call) and node.name in ("list_append", "if_not_exists") and len(node.args) == 2:
        return f"{node.name}({', '.join(_update_value(arg, names, nested=True) for arg in node.args)})"
    if isinstance(node, Arithmetic):
        raise ValidationException("A SET value takes one + or - between two operands")
    raise ValidationException(f"Unsupported value in SET: {getattr(node, 'name', 'expression')}")


# -- SELECT ---------------------------------------------------------------------------------------------------


def _select(statement: Select, schema: Schema) -> Plan:
    keys = schema.keys
    params: dict[str, Any] = {"TableName": schema.table}
    if statement.index is not None:
        if statement.index not in schema.indexes:
            raise ValidationException("The table does not have the specified index")
        keys = schema.indexes[statement.index]
        params["IndexName"] = statement.index
    names = Expressions()
    conjuncts = [_key_left(c) for c in _conjuncts(statement.where)] if statement.where is not None else []
    partition = next((c for c in conjuncts if _on_key(c, keys[0], equality=True)), None)
    every_key = set(keys) | set(schema.keys)
    operation = "Scan"
    if partition is not None:
        rest = [c for c in conjuncts if c is not partition]
        sort = next((c for c in rest if len(keys) > 1 and _on_key(c, keys[1], equality=False)), None)
        rest = [c for c in rest if c is not sort]
        if not any(_mentions(c, every_key) for c in rest):
            operation = "Query"
            params["KeyConditionExpression"] = " AND ".join(names.condition(c) for c in (partition, sort) if c)
            if rest:
                params["FilterExpression"] = " AND ".join(names.condition(c) for c in rest)
            if _descending(statement.order_by, keys):
                params["ScanIndexForward"] = False
    if operation == "Scan" and statement.order_by:
        _check_order_by(statement, keys[0])
    if operation == "Scan" and statement.where is not None:
        params["FilterExpression"] = names.condition(statement.where)
    params.update(names.request())
    equalities = key_equalities(statement.where) if statement.where is not None else {}
    if statement.index is not None or any(name not in equalities for name in schema.keys):
        return Plan(operation, params, statement)
    key = {name: equalities[name] for name in schema.keys}
    schema.check_key(key)
    return Plan(operation, params, statement, key, not has_more_than(statement.where, key))


def _descending(order_by: tuple[tuple[Path, bool], ...], keys: tuple[str, ...]) -> bool:
    """Whether a Query runs backwards: as ORDER BY orders its sort key (or its first key, naming none)."""
    on_sort_key = [descending for path, descending in order_by if len(keys) > 1 and path == Path((keys[1],))]
    return (on_sort_key or [descending for _, descending in order_by[:1]] or [False])[0]


def _check_order_by(statement: Select, partition_key: str) -> None:
    """AWS orders the items of one partition, or of several given by = or IN when ORDER BY names the partition
    key; it refuses anything else."""
    if statement.where is None:
        raise ValidationException("Must have WHERE clause in the statement when using ORDER BY clause.")
    conjuncts = [_key_left(c) for c in _conjuncts(statement.where)]
    if any(_on_key(c, partition_key, equality=True) for c in conjuncts):
        return  # one partition
    if not any(_partitions(c, partition_key) for c in conjuncts):
        raise ValidationException(
            "Must have at least one non-optional hash key condition in WHERE clause when using ORDER BY clause."
        )
    if all(path != Path((partition_key,)) for path, _ in statement.order_by):
        raise ValidationException(
            "Must have hash key in ORDER BY clause when more than one hash key condition specified in WHERE clause."
        )


def _partitions(node: Any, partition_key: str) -> bool:
    """Whether a condition names partitions by their key: `=`, `IN [...]`, or an OR of those."""
    key = Path((partition_key,))
    if isinstance(node, Logical) and node.op == "OR":
        return _partitions(node.left, partition_key) and _partitions(node.right, partition_key)
    if isinstance(node, In):
        return node.operand == key and all(isinstance(value, Value) for value in node.values)
    return _on_key(_key_left(node), partition_key, equality=True)


def _conjuncts(node: Any) -> list[Any]:
    if isinstance(node, Logical) and node.op == "AND":
        return _conjuncts(node.left) + _conjuncts(node.right)
    return [node]


_FLIPPED = {"=": "=", "<>": "<>", "<": ">", "<=": ">=", ">": "<", ">=": "<="}


def _key_left(node: Any) -> Any:
    """`value op path` as `path op' value`, the order a KeyConditionExpression wants."""
    if isinstance(node, Compare) and isinstance(node.left, Value) and isinstance(node.right, Path):
        return Compare(_FLIPPED[node.op], node.right, node.left)
    return node


def _on_key(node: Any, name: str, *, equality: bool) -> bool:
    """Whether a condition is one a KeyConditionExpression takes on this key: `=` for the partition key,
    =, <, <=, >, >=, BETWEEN or begins_with for the sort key, against values."""
    key = Path((name,))
    if isinstance(node, Compare) and (node.op == "=" or (not equality and node.op != "<>")):
        return node.left == key and isinstance(node.right, Value)
    if equality:
        return False
    if isinstance(node, Between):
        return node.operand == key and isinstance(node.low, Value) and isinstance(node.high, Value)
    return (
        isinstance(node, Call)
        and node.name == "begins_with"
        and len(node.args) == 2
        and node.args[0] == key
        and isinstance(node.args[1], Value)
    )


def _mentions(node: Any, names: set[str]) -> bool:
    if isinstance(node, Path):
        return str(node.elements[0]) in names
    if isinstance(node, (tuple, list)):
        return any(_mentions(child, names) for child in node)
    if hasattr(node, "__dataclass_fields__") and not isinstance(node, Value):
        return any(_mentions(getattr(node, f), names) for f in node.__dataclass_fields__)
    return False

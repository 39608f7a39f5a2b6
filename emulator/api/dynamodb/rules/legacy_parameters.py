"""Legacy (non-expression) parameters moto reads otherwise than DynamoDB, rewritten at the door into the expressions
they stand for, once their own rules have passed (attribute_values.check_legacy):

- AttributesToGet on GetItem, Query and Scan (moto answers whole items; its BatchGetItem already projects): a
  ProjectionExpression of the same names, each through a placeholder (a name may be a reserved word or hold a dot).
  A Select other than SPECIFIC_ATTRIBUTES is left to moto, which refuses it with AttributesToGet in AWS's words.
- Expected on PutItem, UpdateItem and DeleteItem, QueryFilter and ScanFilter (moto ANDs every condition whatever
  ConditionalOperator says, and reads Exists: true with a Value as the attribute's existence alone): the conditions
  joined by ConditionalOperator (AND unless OR) into a ConditionExpression or FilterExpression, each as DynamoDB's
  developer guide reads it ("Legacy conditional parameters"): Exists false is attribute_not_exists; a Value (Exists
  true or absent) is equality; EQ, NE, LE, LT, GE, GT the comparison; NULL and NOT_NULL attribute_not_exists /
  attribute_exists; CONTAINS, NOT_CONTAINS, BEGINS_WITH the functions; IN and BETWEEN the operators. The AWS-run
  conformance suite (nubo-db/dynamodb-conformance tests/tier3/legacy-api/expected.test.ts, scanFilter.test.ts,
  queryFilter.test.ts, attributesToGet.test.ts) pins OR, AND, Exists and the projections.

A request without these parameters costs a look-up each; the rewritten request goes on as any expression request.
"""

from __future__ import annotations

from typing import Any

PROJECTED = frozenset({"GetItem", "Query", "Scan"})
#: the legacy conditions of each operation, and the expression each becomes
CONDITIONS = {
    "PutItem": ("Expected", "ConditionExpression"),
    "UpdateItem": ("Expected", "ConditionExpression"),
    "DeleteItem": ("Expected", "ConditionExpression"),
    "Query": ("QueryFilter", "FilterExpression"),
    "Scan": ("ScanFilter", "FilterExpression"),
}
#: each ComparisonOperator (but IN, which takes any number of values) as an expression: {name}, then its values
_FORMS = {
    "EQ": "{name} = {0}",
    "NE": "{name} <> {0}",
    "LE": "{name} <= {0}",
    "LT": "{name} < {0}",
    "GE": "{name} >= {0}",
    "GT": "{name} > {0}",
    "NULL": "attribute_not_exists({name})",
    "NOT_NULL": "attribute_exists({name})",
    "CONTAINS": "contains({name}, {0})",
    "NOT_CONTAINS": "NOT contains({name}, {0})",
    "BEGINS_WITH": "begins_with({name}, {0})",
    "BETWEEN": "{name} BETWEEN {0} AND {1}",
}


def rewritten(operation: str, params: dict[str, Any]) -> dict[str, Any] | None:
    """`params` with its AttributesToGet and legacy conditions as expressions, or None when it has none to rewrite."""
    request = None
    names: dict[str, str] = {}
    attributes = params.get("AttributesToGet") if operation in PROJECTED else None
    if isinstance(attributes, list) and attributes and params.get("Select") in (None, "SPECIFIC_ATTRIBUTES"):
        request = {key: value for key, value in params.items() if key != "AttributesToGet"}
        placeholders = {f"#a{at}": name for at, name in enumerate(dict.fromkeys(attributes))}
        request["ProjectionExpression"] = ", ".join(placeholders)
        names.update(placeholders)
    member, expression = CONDITIONS.get(operation, (None, None))
    conditions = params.get(member) if member is not None else None
    if isinstance(conditions, dict) and conditions:
        request = {
            key: value for key, value in (request or params).items() if key not in (member, "ConditionalOperator")
        }
        values: dict[str, Any] = {}
        written = [_condition(attribute, condition, names, values) for attribute, condition in conditions.items()]
        request[expression] = (" OR " if params.get("ConditionalOperator") == "OR" else " AND ").join(written)
        if values:
            request["ExpressionAttributeValues"] = values
    if request is not None:
        request["ExpressionAttributeNames"] = names
    return request


def _condition(attribute: str, condition: dict[str, Any], names: dict[str, str], values: dict[str, Any]) -> str:
    name = f"#c{len(names)}"
    names[name] = attribute

    def value(given: Any) -> str:
        placeholder = f":e{len(values)}"
        values[placeholder] = given
        return placeholder

    operator = condition.get("ComparisonOperator")
    if operator is None:
        if condition.get("Exists") is False:
            return f"attribute_not_exists({name})"
        return f"{name} = {value(condition.get('Value'))}"
    given = condition.get("AttributeValueList")
    given = given if given is not None else ([condition["Value"]] if condition.get("Value") is not None else [])
    placeholders = [value(member) for member in given]
    if operator == "IN":
        return f"{name} IN ({', '.join(placeholders)})"
    return _FORMS[operator].format(*placeholders, name=name)

"""The keys of a transaction's actions against their tables' key schemas, once the tables are found: what DynamoDB
refuses for the whole request, and what cancels the transaction with a `ValidationError` reason for the action.

- An empty string or binary as a key attribute's value (a Put's item, another action's Key) refuses the request:
  "One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty string
  value. Key: pk" ("binary" for B);
- a Get, Update, Delete or ConditionCheck whose Key is not the table's key (an attribute missing or extra, another
  type, a list or map) cancels the transaction, that action's reason
  `{"Code": "ValidationError", "Message": "The provided key element does not match the schema"}`, every other
  action's `{"Code": "None"}`;
- a Put whose item has a key attribute of another type cancels it with "One or more parameter values were invalid:
  Type mismatch for key pk expected: S actual: N".

    check("TransactGetItems", {"TransactItems": [{"Get": {"TableName": "t", "Key": {}}}]}, key_schema)
    # TransactionCanceledException: Transaction cancelled, please refer cancellation reasons for specific reasons
    # [ValidationError]

Sources, captured from DynamoDB: the AWS-run conformance suite nubo-db/dynamodb-conformance (tests/tier3/error-messages/
transactGetItems.test.ts, "missing key attribute": an empty Key is the reason ValidationError of a
TransactionCanceledException, not a ValidationException) and its successor paritysuite/dynamodb-conformance
(tests/tier3/error-messages/transactWriteItems.test.ts, captured in four regions: the empty-value, schema-mismatch and
type-mismatch words above). `key_schema(table)` is the table's KeySchema with each AttributeType, None for a table
that is not there: the request then goes on, and is answered ResourceNotFoundException.
"""

from __future__ import annotations

from typing import Any, Callable

from eddy.emulator.errors import TransactionCanceledException, ValidationException

OPERATIONS = frozenset({"TransactGetItems", "TransactWriteItems"})
NOT_THE_SCHEMA = "The provided key element does not match the schema"
EMPTY_KEY = (
    "One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an "
    "empty {} value. Key: {}"
)
KeySchema = Callable[[Any], "list[dict[str, str]] | None"]
_KEYED = ("Get", "Update", "Delete", "ConditionCheck")


def check(params: dict[str, Any], key_schema: KeySchema) -> None:
    actions = [_action(item) for item in params.get("TransactItems") or ()]
    schemas = {name: key_schema(name) for _, action in actions if isinstance(name := action.get("TableName"), str)}
    if not schemas or not all(schemas.values()):
        return  # a table that is not there: answered for the whole request
    for kind, action in actions:
        attributes = action.get("Item") if kind == "Put" else action.get("Key")
        for element in schemas.get(action.get("TableName")) or ():
            value = attributes.get(element["AttributeName"]) if isinstance(attributes, dict) else None
            empty = _empty(value)
            if empty is not None:
                raise ValidationException(EMPTY_KEY.format(empty, element["AttributeName"]))
    reasons = [_reason(kind, action, schemas.get(action.get("TableName")) or []) for kind, action in actions]
    if any(reasons):
        raise TransactionCanceledException([reason or {"Code": "None"} for reason in reasons])


def _action(item: Any) -> tuple[str, dict[str, Any]]:
    """(kind, action) of one TransactItems entry (validation has made each an object with one action)."""
    kind, action = next(iter(item.items())) if isinstance(item, dict) and item else ("", {})
    return kind, action if isinstance(action, dict) else {}


def _empty(value: Any) -> str | None:
    """ "string" or "binary" if `value` is an empty S or B, else None."""
    if isinstance(value, dict) and len(value) == 1:
        kind, content = next(iter(value.items()))
        if kind in ("S", "B") and content in ("", b""):
            return "string" if kind == "S" else "binary"
    return None


def _reason(kind: str, action: dict[str, Any], schema: list[dict[str, str]]) -> dict[str, str] | None:
    if kind == "Put":
        item = action.get("Item") if isinstance(action.get("Item"), dict) else {}
        for element in schema:
            value = item.get(element["AttributeName"])
            actual = next(iter(value)) if isinstance(value, dict) and len(value) == 1 else None
            if actual is not None and actual != element["AttributeType"]:
                return {
                    "Code": "ValidationError",
                    "Message": "One or more parameter values were invalid: Type mismatch "
                    f"for key {element['AttributeName']} expected: {element['AttributeType']} actual: {actual}",
                }
        return None
    if kind not in _KEYED:
        return None
    key = action.get("Key")
    matches = (
        isinstance(key, dict)
        and set(key) == {element["AttributeName"] for element in schema}
        and all(
            isinstance(key[element["AttributeName"]], dict)
            and list(key[element["AttributeName"]]) == [element["AttributeType"]]
            for element in schema
        )
    )
    return None if matches else {"Code": "ValidationError", "Message": NOT_THE_SCHEMA}

"""A request's expressions and their parameters, as DynamoDB reads them before it runs any of them.

In each item operation (and each action of a transaction, each table of a BatchGetItem), in this order:
1. expression parameters and their legacy (non-expression) counterparts are not mixed: "Can not use both expression
   and non-expression parameters in the same request: Non-expression parameters: {Expected} Expression parameters:
   {ConditionExpression}" (KeyConditions alone may go with a Query's other expressions);
2. ExpressionAttributeNames only with an expression: "ExpressionAttributeNames can only be specified when using
   expressions";
3. ExpressionAttributeValues only with an expression that can use them (a ProjectionExpression cannot):
   "ExpressionAttributeValues can only be specified when using expressions: UpdateExpression and ConditionExpression
   are null";
4. every name and value given is used by one of the expressions: "Value provided in ExpressionAttributeNames unused in
   expressions: keys: {#a, #b}" (names first, then values); PutItem and DeleteItem give it in the "1
   validation error detected: " envelope, UpdateItem, GetItem, Query, Scan, BatchGetItem and a transaction's actions
   without it (moto's AWS-verified tests: test_put_item_unused_attributes, test_delete_unused_attribute_name;
   test_get_item_unused_attribute_name, test_query_..., test_scan_..., test_batch_get_item_...,
   test_transact_write_item_put_unused_attribute_name; UpdateItem's as AWS answered the AWS-run conformance suite
   nubo-db/dynamodb-conformance in 2026, tests/tier3/error-messages/updateItem.test.ts, where moto's older
   test_update_item_unused_attributes recorded the envelope). UpdateItem's UpdateExpression is read first: a syntax
   error in it is answered before an unused name or value (the same suite), and so is an empty UpdateExpression or
   KeyConditionExpression, "Invalid UpdateExpression: The expression can not be empty;" (the same suite; moto gave
   UpdateItem's in the envelope and a Query's as "Either KeyConditions or QueryFilter should be present").
   A name or value an expression uses but the request does not define, an empty expression and a key that is no
   name's or value's are left to the expression's reader, which words them first.
The first three messages stand alone. The words and the order are dynalite's tests (test/putItem.js, updateItem.js,
query.js: "should return ValidationException if expression and non-expression", "... for extra
ExpressionAttributeNames"), written against DynamoDB; ScyllaDB's AWS-run test_transact.py pins the unused names and
values in a transaction's actions.
"""

from __future__ import annotations

import re
from typing import Any, Iterable

from eddy.emulator.errors import ValidationException
from eddy.emulator.moto_seam import dynamodb_rules

#: per operation (or transaction action): its expression parameters, its legacy ones (in AWS's order)
PARAMETERS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "GetItem": (("ProjectionExpression",), ("AttributesToGet",)),
    "PutItem": (("ConditionExpression",), ("Expected",)),
    "DeleteItem": (("ConditionExpression",), ("Expected",)),
    "UpdateItem": (("UpdateExpression", "ConditionExpression"), ("AttributeUpdates", "Expected")),
    "Query": (
        ("ProjectionExpression", "FilterExpression", "KeyConditionExpression"),
        ("AttributesToGet", "QueryFilter", "ConditionalOperator", "KeyConditions"),
    ),
    "Scan": (("ProjectionExpression", "FilterExpression"), ("AttributesToGet", "ScanFilter", "ConditionalOperator")),
    "KeysAndAttributes": (("ProjectionExpression",), ("AttributesToGet",)),  # a BatchGetItem's table
    "Get": (("ProjectionExpression",), ()),  # TransactGetItems' action
    "Put": (("ConditionExpression",), ()),  # TransactWriteItems' actions
    "Delete": (("ConditionExpression",), ()),
    "ConditionCheck": (("ConditionExpression",), ()),
    "Update": (("UpdateExpression", "ConditionExpression"), ()),
}
#: the operations whose unused names and values are reported in the model's envelope
ENVELOPED = frozenset({"PutItem", "DeleteItem"})
#: the expressions whose emptiness the door words (moto words the others', or another rule)
_WORDED_EMPTY = {"UpdateItem": "UpdateExpression", "Query": "KeyConditionExpression"}
_NAME = re.compile(r"#[0-9A-Za-z_]+")
_VALUE = re.compile(r":[0-9A-Za-z_]+")


def check(operation: str, params: dict[str, Any]) -> None:
    if operation in ("TransactGetItems", "TransactWriteItems"):
        for item in params.get("TransactItems") or ():
            for action, request in item.items() if isinstance(item, dict) else ():
                if action in PARAMETERS and isinstance(request, dict):
                    check_request(action, request)
    elif operation == "BatchGetItem":
        for request in (params.get("RequestItems") or {}).values():
            if isinstance(request, dict):
                check_request("KeysAndAttributes", request)
    elif operation in PARAMETERS:
        check_request(operation, params)


def check_request(kind: str, params: dict[str, Any]) -> None:
    """Raise AWS's error for the first rule of the module's four that `params` (an operation's or an action's
    members) breaks."""
    expressions, legacy = PARAMETERS[kind]
    given = [name for name in expressions if params.get(name) is not None]
    names, values = params.get("ExpressionAttributeNames"), params.get("ExpressionAttributeValues")
    if not given and names is None and values is None:
        return  # no expression, no names, no values (a plain GetItem or PutItem): none of the four rules applies
    if given:
        mixed = [
            name
            for name in legacy
            if params.get(name) is not None
            and not (name == "KeyConditions" and params.get("KeyConditionExpression") is None)
        ]
        if mixed:
            raise ValidationException(
                "Can not use both expression and non-expression parameters in the same request: Non-expression "
                f"parameters: {{{', '.join(mixed)}}} Expression parameters: {{{', '.join(given)}}}"
            )
    elif names is not None:
        raise ValidationException("ExpressionAttributeNames can only be specified when using expressions")
    takes_values = [name for name in expressions if name != "ProjectionExpression"]
    if values is not None and takes_values and not any(params.get(name) is not None for name in takes_values):
        raise ValidationException(
            "ExpressionAttributeValues can only be specified when using expressions: "
            f"{' and '.join(takes_values)} {'are' if len(takes_values) > 1 else 'is'} null"
        )
    texts = [params[name] for name in given if isinstance(params[name], str)]
    if not all(text.strip() for text in texts):
        empty = _WORDED_EMPTY.get(kind)
        if empty is not None and isinstance(params.get(empty), str) and not params[empty].strip():
            raise ValidationException(f"Invalid {empty}: The expression can not be empty;")
        return  # an empty expression: its reader words that
    envelope = "1 validation error detected: " if kind in ENVELOPED else ""
    for member, defined, token in (
        ("ExpressionAttributeNames", names, _NAME),
        ("ExpressionAttributeValues", values, _VALUE),
    ):
        unused = _unused(defined, token, texts)
        if unused:
            if kind == "UpdateItem" and dynamodb_rules.update_expression_refused(params.get("UpdateExpression")):
                return  # a syntax error is worded before an unused name or value (moto's parser words it)
            raise ValidationException(
                f"{envelope}Value provided in {member} unused in expressions: keys: {{{', '.join(unused)}}}"
            )


def _unused(defined: Any, token: re.Pattern[str], texts: Iterable[str]) -> list[str]:
    """The names (or values) `defined` gives that no expression uses; none where the expression's reader words
    what is wrong first."""
    if (
        not isinstance(defined, dict)
        or not defined
        or not all(isinstance(key, str) and token.fullmatch(key) for key in defined)
    ):
        return []  # none given, an empty map, or a key that is no name's or value's: the expression's reader words that
    used = {found for text in texts for found in token.findall(text)}
    if not used <= set(defined):
        return []  # an expression uses one the request does not define: the expression's reader words that first
    return [key for key in defined if key not in used]

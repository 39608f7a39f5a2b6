"""A table given by its ARN where DynamoDB takes "the name of the table or its ARN": read as the table's name, once,
at the door, so that moto, change capture, streams and persistence only ever see names.

AWS takes `arn:aws:dynamodb:<region>:<account>:table/<name>` in every TableName of DynamoDB's API, in the keys of
BatchGetItem's and BatchWriteItem's RequestItems and in each TransactItems action's TableName; CreateTable's table
is named by the ARN's last part. A batch's answer keys its tables as the request did (moto's AWS-verified
test_batch_write_using_arn: BatchGetItem's Responses by the ARN); other answers name tables by their names.

    resolve("PutItem", {"TableName": "arn:aws:dynamodb:us-east-1:123456789012:table/orders", ...},
            "123456789012", "us-east-1")   # -> {"orders": "arn:..."}, params["TableName"] == "orders"

Only an ARN of the caller's own account and region names a table here (Eddy has no resource-based policies to
reach another account's); any other ARN is left as it is, which finds no table (ResourceNotFoundException), and
CreateTable refuses it as a table name.
"""

from __future__ import annotations

import re
from typing import Any

_TABLE_ARN = re.compile(r"arn:aws[a-z-]*:dynamodb:([a-z0-9-]+):([0-9]{12}):table/([a-zA-Z0-9_.-]{3,255})")
KEYED_BY_TABLE = ("BatchGetItem", "BatchWriteItem")  # RequestItems: a map from table to requests
_TRANSACTIONS = ("TransactGetItems", "TransactWriteItems")  # TransactItems: each action names its table


def given(operation: str, params: dict[str, Any]) -> bool:
    """Whether the request names any table by an ARN (a look at strings only: every request asks it)."""
    return any(name.startswith("arn:") for name in _table_names(operation, params))


def resolve(operation: str, params: dict[str, Any], account_id: str, region: str) -> dict[str, str]:
    """Replace, in place, every ARN of a table of this account and region by the table's name; {name: ARN} of each
    replaced (empty: none was)."""
    given: dict[str, str] = {}
    name = params.get("TableName")
    if isinstance(name, str) and (resolved := _name(name, account_id, region)) is not None:
        params["TableName"], given[resolved] = resolved, name
    if operation in KEYED_BY_TABLE and isinstance(params.get("RequestItems"), dict):
        renamed = {}
        for key, value in params["RequestItems"].items():
            resolved = _name(key, account_id, region)
            if resolved is not None:
                given[resolved] = key
            renamed[resolved or key] = value
        params["RequestItems"] = renamed
    if operation in _TRANSACTIONS:
        for action in _actions(params):
            name = action.get("TableName")
            if isinstance(name, str) and (resolved := _name(name, account_id, region)) is not None:
                action["TableName"], given[resolved] = resolved, name
    return given


def keyed_as_given(operation: str, answer: dict[str, Any], given: dict[str, str]) -> dict[str, Any]:
    """A batch's answer with its maps by table (Responses, UnprocessedKeys/Items, ItemCollectionMetrics) keyed by
    the ARNs the request gave, where it gave one."""
    if operation in KEYED_BY_TABLE:
        for member in ("Responses", "UnprocessedKeys", "UnprocessedItems", "ItemCollectionMetrics"):
            if isinstance(answer.get(member), dict):
                answer[member] = {given.get(name, name): value for name, value in answer[member].items()}
    return answer


def _name(arn: str, account_id: str, region: str) -> str | None:
    match = _TABLE_ARN.fullmatch(arn) if arn.startswith("arn:") else None
    if match is None or match.group(1) != region or match.group(2) != account_id:
        return None
    return match.group(3)


def _table_names(operation: str, params: dict[str, Any]) -> list[str]:
    names = [params["TableName"]] if isinstance(params.get("TableName"), str) else []
    if operation in KEYED_BY_TABLE and isinstance(params.get("RequestItems"), dict):
        names.extend(params["RequestItems"])
    if operation in _TRANSACTIONS:
        names.extend(action["TableName"] for action in _actions(params) if isinstance(action.get("TableName"), str))
    return names


def _actions(params: dict[str, Any]) -> list[dict[str, Any]]:
    """Each TransactItems entry's actions (Get; ConditionCheck, Put, Delete, Update) that are objects."""
    items = params.get("TransactItems")
    if not isinstance(items, list):
        return []
    return [action for item in items if isinstance(item, dict) for action in item.values() if isinstance(action, dict)]

"""A table given by its ARN where DynamoDB takes "the name of the table or its ARN": read as the table's name, once,
at the door, so that moto, change capture, streams and persistence only ever see names.

AWS takes `arn:aws:dynamodb:<region>:<account>:table/<name>` in every TableName of DynamoDB's API, in the keys of
BatchGetItem's and BatchWriteItem's RequestItems and in each TransactItems action's TableName; CreateTable's table
is named by the ARN's last part, and answers name tables by their names.

    resolve("PutItem", {"TableName": "arn:aws:dynamodb:us-east-1:123456789012:table/orders", ...},
            "123456789012", "us-east-1")   # -> True, params["TableName"] == "orders"

Only an ARN of the caller's own account and region names a table here (Eddy has no resource-based policies to
reach another account's); any other ARN is left as it is, which finds no table (ResourceNotFoundException), and
CreateTable refuses it as a table name.
"""

from __future__ import annotations

import re
from typing import Any

_TABLE_ARN = re.compile(r"arn:aws[a-z-]*:dynamodb:([a-z0-9-]+):([0-9]{12}):table/([a-zA-Z0-9_.-]{3,255})")
_KEYED_BY_TABLE = ("BatchGetItem", "BatchWriteItem")  # RequestItems: a map from table to requests
_TRANSACTIONS = ("TransactGetItems", "TransactWriteItems")  # TransactItems: each action names its table


def given(operation: str, params: dict[str, Any]) -> bool:
    """Whether the request names any table by an ARN (a look at strings only: every request asks it)."""
    return any(name.startswith("arn:") for name in _table_names(operation, params))


def resolve(operation: str, params: dict[str, Any], account_id: str, region: str) -> bool:
    """Replace, in place, every ARN of a table of this account and region by the table's name; True if any was."""
    changed = False
    name = params.get("TableName")
    if isinstance(name, str) and (resolved := _name(name, account_id, region)) is not None:
        params["TableName"], changed = resolved, True
    if operation in _KEYED_BY_TABLE and isinstance(params.get("RequestItems"), dict):
        renamed = {_name(key, account_id, region) or key: value for key, value in params["RequestItems"].items()}
        if list(renamed) != list(params["RequestItems"]):
            params["RequestItems"], changed = renamed, True
    if operation in _TRANSACTIONS:
        for action in _actions(params):
            name = action.get("TableName")
            if isinstance(name, str) and (resolved := _name(name, account_id, region)) is not None:
                action["TableName"], changed = resolved, True
    return changed


def _name(arn: str, account_id: str, region: str) -> str | None:
    match = _TABLE_ARN.fullmatch(arn) if arn.startswith("arn:") else None
    if match is None or match.group(1) != region or match.group(2) != account_id:
        return None
    return match.group(3)


def _table_names(operation: str, params: dict[str, Any]) -> list[str]:
    names = [params["TableName"]] if isinstance(params.get("TableName"), str) else []
    if operation in _KEYED_BY_TABLE and isinstance(params.get("RequestItems"), dict):
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

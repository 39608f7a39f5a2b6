"""The rules that read a table's key attributes, checked once the table is found (dynalite's tests, written against
DynamoDB: "should check table exists first before checking for duplicate keys"):
- one BatchWriteItem touches an item once: two requests with one key in a table (two puts, two deletes, or a put and
  a delete) are refused whatever else the items hold: "Provided list of item keys contains duplicates";
- one TransactGetItems reads an item once: "Transaction request cannot include multiple operations on one item" (the
  AWS-run conformance suite nubo-db/dynamodb-conformance, tests/tier2/transactions/transactGet.test.ts, refuses two
  Gets of one item with a ValidationException; the words are AWS's for TransactWriteItems, moto's there);
- UpdateItem's legacy AttributeUpdates does not change a key attribute: "One or more parameter values were invalid:
  Cannot update attribute a. This attribute is part of the key" (dynalite's test/updateItem.js, "should return
  ValidationException if trying to update key").
`key_names(table)` gives a table's key attributes (hash key first), or () when there is no such table: moto then
answers ResourceNotFoundException, as AWS does before these rules.
"""

from __future__ import annotations

import json
from typing import Any, Callable

from eddy.emulator.errors import ValidationException

OPERATIONS = frozenset({"BatchWriteItem", "UpdateItem", "TransactGetItems"})
DUPLICATES = "Provided list of item keys contains duplicates"
ONE_ITEM_TWICE = "Transaction request cannot include multiple operations on one item"
KeyNames = Callable[[str], tuple[str, ...]]


def check(operation: str, params: dict[str, Any], key_names: KeyNames) -> None:
    if operation == "BatchWriteItem":
        _batch_keys(params["RequestItems"], key_names)
    elif operation == "TransactGetItems":
        _transaction_keys(params["TransactItems"], key_names)
    elif isinstance(params.get("AttributeUpdates"), dict):
        names = key_names(params["TableName"])
        for name in params["AttributeUpdates"]:
            if name in names:
                raise ValidationException(
                    "One or more parameter values were invalid: Cannot update attribute "
                    f"{name}. This attribute is part of the key"
                )


def _batch_keys(request_items: dict[str, Any], key_names: KeyNames) -> None:
    names_by_table = {table: key_names(table) for table in request_items}
    if not all(names_by_table.values()):
        return
    for table, requests in request_items.items():
        names, seen = names_by_table[table], set()
        for request in requests:
            put, delete = request.get("PutRequest"), request.get("DeleteRequest")
            attributes = (
                put.get("Item") if isinstance(put, dict) else (delete.get("Key") if isinstance(delete, dict) else None)
            )
            if not isinstance(attributes, dict) or not all(name in attributes for name in names):
                continue  # a request without its key: moto words that
            key = tuple(json.dumps(attributes[name], sort_keys=True) for name in names)
            if key in seen:
                raise ValidationException(DUPLICATES)
            seen.add(key)


def _transaction_keys(items: list[Any], key_names: KeyNames) -> None:
    seen = set()
    for item in items:
        get = item.get("Get") if isinstance(item, dict) else None
        if not isinstance(get, dict) or not isinstance(get.get("Key"), dict):
            continue
        names = key_names(get.get("TableName"))
        if not names or not all(name in get["Key"] for name in names):
            continue  # no such table, or a Get without its key: moto words that
        key = (get.get("TableName"), *(json.dumps(get["Key"][name], sort_keys=True) for name in names))
        if key in seen:
            raise ValidationException(ONE_ITEM_TWICE)
        seen.add(key)

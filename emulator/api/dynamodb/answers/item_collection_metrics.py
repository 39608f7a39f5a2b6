"""ItemCollectionMetrics, as DynamoDB gives them for ReturnItemCollectionMetrics SIZE: only for a table with a local
secondary index (an item collection is the items of one partition key value, which such an index keeps together), one
per item written, keyed by the partition key (DynamoDB API reference, PutItem/UpdateItem/DeleteItem/BatchWriteItem/
TransactWriteItems "ItemCollectionMetrics"; the AWS-run conformance suite nubo-db/dynamodb-conformance
tests/tier1/putItem/itemCollectionMetrics.test.ts: Put, Update and Delete give ItemCollectionKey and a two-element
SizeEstimateRangeGB, NONE gives nothing). The estimate is DynamoDB developer guide's for a collection under 1 GB,
[0.0, 1.0] ("Item collections in Local Secondary Indexes"): Eddy's collections are never near the 10 GB limit.
A table without a local secondary index gets none (moto's empty `{}` removed).
"""

from __future__ import annotations

from typing import Any, Callable, Iterable

SINGLE = frozenset({"PutItem", "UpdateItem", "DeleteItem"})
OPERATIONS = SINGLE | {"BatchWriteItem", "TransactWriteItems"}
ESTIMATE = [0.0, 1.0]
#: a table's partition key attribute if it has a local secondary index, else None (and None for no such table)
CollectionKey = Callable[[str], "str | None"]


def asked(params: dict[str, Any]) -> bool:
    return params.get("ReturnItemCollectionMetrics") == "SIZE"


def added(operation: str, params: dict[str, Any], answered: dict[str, Any], collection_key: CollectionKey) -> None:
    """`answered` (the operation's answer) given DynamoDB's ItemCollectionMetrics for `params` in place of moto's."""
    answered.pop("ItemCollectionMetrics", None)
    if operation in SINGLE:
        table = params.get("TableName")
        name = collection_key(table) if isinstance(table, str) else None
        source = params.get("Item") if operation == "PutItem" else params.get("Key")
        if name is not None and isinstance(source, dict) and name in source:
            answered["ItemCollectionMetrics"] = _metrics(name, source[name])
        return
    by_table: dict[str, list[dict[str, Any]]] = {}
    for table, attributes in _written(operation, params):
        name = collection_key(table)
        if name is not None and isinstance(attributes, dict) and name in attributes:
            by_table.setdefault(table, []).append(_metrics(name, attributes[name]))
    if by_table:
        answered["ItemCollectionMetrics"] = by_table


def _metrics(name: str, value: Any) -> dict[str, Any]:
    return {"ItemCollectionKey": {name: value}, "SizeEstimateRangeGB": list(ESTIMATE)}


def _written(operation: str, params: dict[str, Any]) -> Iterable[tuple[str, Any]]:
    """(table, item or key) of each write a batch or a transaction carries (a ConditionCheck writes nothing)."""
    if operation == "BatchWriteItem":
        for table, requests in (params.get("RequestItems") or {}).items():
            for request in requests:
                put, delete = request.get("PutRequest"), request.get("DeleteRequest")
                yield table, (put or {}).get("Item") if put else (delete or {}).get("Key")
        return
    for action in params.get("TransactItems") or ():
        for kind in ("Put", "Update", "Delete"):
            request = action.get(kind)
            if isinstance(request, dict):
                yield request.get("TableName"), request.get("Item" if kind == "Put" else "Key")

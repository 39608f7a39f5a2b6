"""The collections a batch or a transaction carries, held to DynamoDB's sizes, and a batch's keys to one request each.

- None is empty: BatchGetItem's and BatchWriteItem's RequestItems ("The requestItems parameter is required for
  BatchGetItem", the AWS-run conformance suite nubo-db/dynamodb-conformance, tests/tier3/error-messages; dynalite's
  older record had the model's words), TransactGetItems' and TransactWriteItems' TransactItems,
  BatchExecuteStatement's Statements, ExecuteTransaction's TransactStatements (botocore's model: min 1), in the words
  LocalStack's AWS-validated snapshot has for an empty list ("Value '[]' at 'parameters' ...").
- A BatchWriteItem holds 1 to 25 requests per table (the model's WriteRequests: "Map value must satisfy constraint",
  dynalite) and 25 in all ("Too many items requested for the BatchWriteItem call", as BatchGetItem's 100 keys).
- TransactGetItems, like TransactWriteItems, takes 100 actions since September 2022 (AWS's announcement; ScyllaDB's
  AWS-run test_transact.py::test_transact_get_items_100): moto's 25 is lifted behind the seam, and 101 are refused
  here in the model's words, the list shown as AWS's Java side shows it. A TransactWriteItems of 101 is refused here
  too, before its actions' own rules, in the same words (the AWS-run conformance suite nubo-db/dynamodb-conformance,
  2026, tests/tier3/error-messages/transactWriteItems.test.ts: "1 validation error detected: Value '[...]' at
  'transactItems' ..."; ScyllaDB's AWS-run test_transact_write_items_101 matches "ValidationException.*transactItems.*100").
- A BatchGetItem reads at most 100 keys of one table: "1 validation error detected: Value at
  'RequestItems.<table>.member.Keys' failed to satisfy constraint: Member must have length less than or equal to 100"
  (the conformance suite's tier3/error-messages/batchGetItem.test.ts; moto wrote the path in lower case).
- A TransactWriteItems carries at most 4 MB (DynamoDB API reference: "The aggregate size of the items in the
  transaction cannot exceed 4 MB"): what it carries is measured as DynamoDB measures items (streams/item_size.py), a
  Put's item, an Update's key and values, a Delete's or ConditionCheck's key, not the items it names (ScyllaDB's
  AWS-run test_transact_write_items_put_5MB is refused matching "ValidationException.*size cannot exceed",
  test_transact_write_items_delete_5MB, deleting 5 MB with a small request, is not). The words are AWS's as a
  client's test captured them (`com.amazon.coral.validate#ValidationException`, "Transaction payload size cannot
  exceed 4MB. Payload Size: : Transaction payload size cannot exceed 4MB. Payload Size: 4306456"). A request whose
  body is under 4 MB carries less than that, so only a larger body is measured (`check_payload`).
A batch's keys, which need the table, are item_keys.py's.
"""

from __future__ import annotations

from typing import Any

from eddy.emulator.errors import ValidationException
from eddy.emulator.streams.item_size import item_size

COLLECTIONS = {
    "BatchGetItem": "RequestItems",
    "BatchWriteItem": "RequestItems",
    "TransactGetItems": "TransactItems",
    "TransactWriteItems": "TransactItems",
    "BatchExecuteStatement": "Statements",
    "ExecuteTransaction": "TransactStatements",
}
MAX_BATCH_WRITES = 25
MAX_BATCH_KEYS = 100  # a BatchGetItem's keys for one table
MAX_TRANSACTION_ACTIONS = 100
EMPTY = (
    "1 validation error detected: Value '{shown}' at '{member}' failed to satisfy constraint: Member must have "
    "length greater than or equal to 1"
)
WRITES_PER_TABLE = (
    "1 validation error detected: Value '{shown}' at 'requestItems' failed to satisfy constraint: Map "
    "value must satisfy constraint: [Member must have length less than or equal to 25, Member must "
    "have length greater than or equal to 1]"
)
TOO_MANY_WRITES = "Too many items requested for the BatchWriteItem call"
MAX_TRANSACTION_PAYLOAD = 4 * 1024 * 1024
#: the sentence, given twice as AWS's wrapped exception gives it, the size only in the second
TOO_LARGE = "Transaction payload size cannot exceed 4MB. Payload Size: "
#: how AWS's Java side shows a request object in a message: its class and a hash code (moto numbers them from here)
_FIRST_HASH = 0x10000000


def check(operation: str, params: dict[str, Any]) -> None:
    member = COLLECTIONS.get(operation)
    value = params.get(member) if member is not None else None
    if value is None:  # not one of these operations, or the member is missing: validation has answered
        return
    if not value:
        if member == "RequestItems":
            raise ValidationException(f"The requestItems parameter is required for {operation}")
        raise ValidationException(EMPTY.format(shown="[]", member=member[:1].lower() + member[1:]))
    if operation == "BatchWriteItem":
        _write_counts(value)
    elif operation == "BatchGetItem":
        for table, request in value.items():
            keys = request.get("Keys") if isinstance(request, dict) else None
            if isinstance(keys, list) and len(keys) > MAX_BATCH_KEYS:
                raise ValidationException(
                    f"1 validation error detected: Value at 'RequestItems.{table}.member.Keys' "
                    f"failed to satisfy constraint: Member must have length less than or equal "
                    f"to {MAX_BATCH_KEYS}"
                )
    elif operation in ("TransactGetItems", "TransactWriteItems") and len(value) > MAX_TRANSACTION_ACTIONS:
        shown = ", ".join(_java_objects(operation[:-1], len(value)))
        raise ValidationException(
            f"1 validation error detected: Value '[{shown}]' at 'transactItems' failed to satisfy "
            f"constraint: Member must have length less than or equal to {MAX_TRANSACTION_ACTIONS}"
        )


def _write_counts(request_items: dict[str, Any]) -> None:
    if any(
        isinstance(requests, list) and not 1 <= len(requests) <= MAX_BATCH_WRITES for requests in request_items.values()
    ):
        raise ValidationException(WRITES_PER_TABLE.format(shown=_java_requests(request_items)))
    if sum(len(requests) for requests in request_items.values() if isinstance(requests, list)) > MAX_BATCH_WRITES:
        raise ValidationException(TOO_MANY_WRITES)


def _java_requests(request_items: dict[str, Any]) -> str:
    """RequestItems as AWS's Java side prints it: {table=[com.amazonaws.dynamodb.v20120810.WriteRequest@..., ...]}."""
    shown = iter(_java_objects("WriteRequest", sum(map(len, request_items.values()))))
    return (
        "{"
        + ", ".join(
            f"{table}=[" + ", ".join(next(shown) for _ in requests) + "]" for table, requests in request_items.items()
        )
        + "}"
    )


def _java_objects(kind: str, count: int) -> list[str]:
    """`count` request objects as AWS's Java side prints them: class name @ hash code (numbered, as moto numbers them)."""
    return [f"com.amazonaws.dynamodb.v20120810.{kind}@{_FIRST_HASH + at:x}" for at in range(1, count + 1)]


def check_payload(params: dict[str, Any]) -> None:
    """A TransactWriteItems whose body passes 4 MB: refused if what it carries does (item sizes, not JSON's)."""
    size = 0
    for action in params.get("TransactItems") or ():
        for kind, request in action.items() if isinstance(action, dict) else ():
            if not isinstance(request, dict):
                continue
            size += item_size(request.get("Item") if kind == "Put" else request.get("Key"))
            if kind == "Update":
                size += item_size(request.get("ExpressionAttributeValues"))
    if size > MAX_TRANSACTION_PAYLOAD:
        raise ValidationException(f"{TOO_LARGE}: {TOO_LARGE}{size}")

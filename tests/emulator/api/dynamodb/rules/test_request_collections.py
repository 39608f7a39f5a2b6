"""A batch's and a transaction's collections held to DynamoDB's sizes, in AWS's words, before any table is read.

Sources: the AWS-run conformance suite nubo-db/dynamodb-conformance (tests/tier3/error-messages/batchGetItem.test.ts,
batchWriteItem.test.ts, 2026: "The requestItems parameter is required for BatchGetItem") for empty RequestItems, where
dynalite's older record had the model's words; dynalite's test/batchWriteItem.js (written against DynamoDB) for a
table's 26 writes; LocalStack's AWS-validated snapshot test_dynamodb.snapshot.json
(test_dynamodb_execute_statement_empy_parameter: "Value '[]' at 'parameters' ...") for an empty list; botocore's model
(TransactGetItemList, TransactWriteItemList: 1 to 100; PartiQLBatchRequest 1 to 25); ScyllaDB's AWS-run
test_transact.py::test_transact_get_items_100 for 100 gets in one transaction."""

from __future__ import annotations

import pytest

from tests.emulator.api.dynamodb.rules.conftest import TABLE, invalid, items, refused

EMPTY = ("1 validation error detected: Value '{shown}' at '{member}' failed to satisfy constraint: Member must have "
         "length greater than or equal to 1")


def put(key: str) -> dict:
    return {"PutRequest": {"Item": {"pk": {"S": key}}}}


@pytest.mark.parametrize("operation, name", [("batch_get_item", "BatchGetItem"), ("batch_write_item", "BatchWriteItem")])
def test_empty_request_items_are_refused_as_a_missing_parameter(dynamodb, operation, name):
    assert refused(lambda: getattr(dynamodb, operation)(RequestItems={})) == invalid(
        f"The requestItems parameter is required for {name}")


@pytest.mark.parametrize("operation, params, shown, member", [
    ("transact_get_items", {"TransactItems": []}, "[]", "transactItems"),
    ("transact_write_items", {"TransactItems": []}, "[]", "transactItems"),
    ("batch_execute_statement", {"Statements": []}, "[]", "statements"),
    ("execute_transaction", {"TransactStatements": []}, "[]", "transactStatements"),
])
def test_an_empty_collection_is_refused_in_the_models_words(dynamodb, operation, params, shown, member):
    assert refused(lambda: getattr(dynamodb, operation)(**params)) == invalid(EMPTY.format(shown=shown, member=member))


def test_a_table_with_26_writes_is_refused_and_nothing_is_written(dynamodb):
    requests = [put(str(index)) for index in range(26)]
    shown = ", ".join(f"com.amazonaws.dynamodb.v20120810.WriteRequest@{0x10000001 + index:x}" for index in range(26))
    assert refused(lambda: dynamodb.batch_write_item(RequestItems={TABLE: requests})) == invalid(
        f"1 validation error detected: Value '{{{TABLE}=[{shown}]}}' at 'requestItems' failed to satisfy constraint: "
        "Map value must satisfy constraint: [Member must have length less than or equal to 25, Member must have "
        "length greater than or equal to 1]")
    assert items(dynamodb) == []


def test_a_table_with_no_writes_is_refused(dynamodb):
    assert refused(lambda: dynamodb.batch_write_item(RequestItems={TABLE: []})) == invalid(
        f"1 validation error detected: Value '{{{TABLE}=[]}}' at 'requestItems' failed to satisfy constraint: "
        "Map value must satisfy constraint: [Member must have length less than or equal to 25, Member must have "
        "length greater than or equal to 1]")


def test_26_writes_across_two_tables_are_refused_and_25_are_written(dynamodb):
    thirteen = [put(str(index)) for index in range(13)]
    assert refused(lambda: dynamodb.batch_write_item(RequestItems={TABLE: thirteen, "lines": [
        {"PutRequest": {"Item": {"pk": {"S": str(index)}, "sk": {"S": "s"}}}} for index in range(13)]})) == invalid(
        "Too many items requested for the BatchWriteItem call")
    assert items(dynamodb) == []
    assert dynamodb.batch_write_item(RequestItems={TABLE: [put(str(index)) for index in range(25)]})[
        "UnprocessedItems"] == {}
    assert len(items(dynamodb)) == 25


def test_a_transaction_reads_100_items_and_not_101(dynamodb):
    dynamodb.put_item(TableName=TABLE, Item={"pk": {"S": "7"}, "n": {"N": "7"}})
    gets = [{"Get": {"TableName": TABLE, "Key": {"pk": {"S": str(index)}}}} for index in range(100)]
    answer = dynamodb.transact_get_items(TransactItems=gets)
    assert answer["Responses"] == [{}] * 7 + [{"Item": {"pk": {"S": "7"}, "n": {"N": "7"}}}] + [{}] * 92
    shown = ", ".join(f"com.amazonaws.dynamodb.v20120810.TransactGetItem@{0x10000001 + index:x}" for index in range(101))
    assert refused(lambda: dynamodb.transact_get_items(
        TransactItems=gets + [{"Get": {"TableName": TABLE, "Key": {"pk": {"S": "x"}}}}])) == invalid(
        f"1 validation error detected: Value '[{shown}]' at 'transactItems' failed to satisfy constraint: Member must "
        "have length less than or equal to 100")


def test_a_transaction_of_101_writes_and_a_batch_of_101_keys_are_refused(dynamodb):
    """The AWS-run conformance suite nubo-db/dynamodb-conformance (2026): tests/tier3/error-messages/
    transactWriteItems.test.ts ("1 validation error detected: Value '[...]' at 'transactItems' ...") and
    batchGetItem.test.ts ("Value at 'RequestItems.<table>.member.Keys' ...")."""
    puts = [{"Put": {"TableName": TABLE, "Item": {"pk": {"S": str(index)}}}} for index in range(101)]
    shown = ", ".join(f"com.amazonaws.dynamodb.v20120810.TransactWriteItem@{0x10000001 + index:x}" for index in range(101))
    assert refused(lambda: dynamodb.transact_write_items(TransactItems=puts)) == invalid(
        f"1 validation error detected: Value '[{shown}]' at 'transactItems' failed to satisfy constraint: Member must "
        "have length less than or equal to 100")
    keys = [{"pk": {"S": str(index)}} for index in range(101)]
    assert refused(lambda: dynamodb.batch_get_item(RequestItems={TABLE: {"Keys": keys}})) == invalid(
        f"1 validation error detected: Value at 'RequestItems.{TABLE}.member.Keys' failed to satisfy constraint: Member "
        "must have length less than or equal to 100")
    assert items(dynamodb) == []

"""A transaction's keys against its tables' key schemas: an empty key value refuses the request; a key that is not
the table's cancels the transaction with the action's ValidationError reason, and nothing is written.

Sources, recorded from DynamoDB: the AWS-run conformance suite nubo-db/dynamodb-conformance
(tests/tier3/error-messages/transactGetItems.test.ts, "missing key attribute": a Get with an empty Key is
TransactionCanceledException [ValidationError]); paritysuite/dynamodb-conformance (its successor),
tests/tier3/error-messages/transactWriteItems.test.ts, captured in four regions: a Put's key of another type
"Type mismatch for key pk expected: S actual: N", an Update's, Delete's or ConditionCheck's key of another type or a
list "The provided key element does not match the schema", an empty string key a top-level ValidationException."""

from __future__ import annotations

import pytest
from botocore.exceptions import ClientError

from tests.emulator.api.dynamodb.rules.conftest import RANGE_TABLE, TABLE, invalid, items, refused

CANCELLED = "Transaction cancelled, please refer cancellation reasons for specific reasons [{}]"
NOT_THE_SCHEMA = {"Code": "ValidationError", "Message": "The provided key element does not match the schema"}


def cancelled(call) -> tuple[int, str, str, list]:
    with pytest.raises(ClientError) as error:
        call()
    answer = error.value.response
    return (
        answer["ResponseMetadata"]["HTTPStatusCode"],
        answer["Error"]["Code"],
        answer["Error"]["Message"],
        answer["CancellationReasons"],
    )


@pytest.mark.parametrize("key", [{}, {"pk": {"N": "5"}}, {"pk": {"S": "a"}, "x": {"S": "b"}}, {"pk": {"L": []}}])
def test_a_get_whose_key_is_not_the_tables_cancels_the_transaction(dynamodb, key):
    dynamodb.put_item(TableName=TABLE, Item={"pk": {"S": "a"}})
    good = {"Get": {"TableName": TABLE, "Key": {"pk": {"S": "a"}}}}
    assert cancelled(
        lambda: dynamodb.transact_get_items(TransactItems=[good, {"Get": {"TableName": TABLE, "Key": key}}])
    ) == (
        400,
        "TransactionCanceledException",
        CANCELLED.format("None, ValidationError"),
        [{"Code": "None"}, NOT_THE_SCHEMA],
    )


def test_a_write_whose_key_is_not_the_tables_cancels_the_transaction_and_writes_nothing(dynamodb):
    put = {"Put": {"TableName": TABLE, "Item": {"pk": {"S": "new"}}}}
    update = {
        "Update": {
            "TableName": TABLE,
            "Key": {"pk": {"L": [{"S": "x"}]}},
            "UpdateExpression": "SET a = :v",
            "ExpressionAttributeValues": {":v": {"S": "x"}},
        }
    }
    delete = {"Delete": {"TableName": RANGE_TABLE, "Key": {"pk": {"S": "a"}}}}  # without its sort key
    check = {
        "ConditionCheck": {
            "TableName": TABLE,
            "Key": {"pk": {"N": "5"}},
            "ConditionExpression": "attribute_not_exists(pk)",
        }
    }
    for action in (update, delete, check):
        assert cancelled(lambda: dynamodb.transact_write_items(TransactItems=[put, action])) == (
            400,
            "TransactionCanceledException",
            CANCELLED.format("None, ValidationError"),
            [{"Code": "None"}, NOT_THE_SCHEMA],
        )
    wrong_type = {"Put": {"TableName": TABLE, "Item": {"pk": {"N": "5"}}}}
    assert cancelled(lambda: dynamodb.transact_write_items(TransactItems=[wrong_type])) == (
        400,
        "TransactionCanceledException",
        CANCELLED.format("ValidationError"),
        [
            {
                "Code": "ValidationError",
                "Message": "One or more parameter values were invalid: Type mismatch for key pk expected: S actual: N",
            }
        ],
    )
    assert items(dynamodb) == []


def test_an_empty_key_value_refuses_the_whole_request(dynamodb):
    for action in (
        {"Delete": {"TableName": TABLE, "Key": {"pk": {"S": ""}}}},
        {"Put": {"TableName": TABLE, "Item": {"pk": {"S": ""}}}},
    ):
        assert refused(lambda: dynamodb.transact_write_items(TransactItems=[action])) == invalid(
            "One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an "
            "empty string value. Key: pk"
        )
    assert refused(
        lambda: dynamodb.transact_get_items(
            TransactItems=[
                {"Get": {"TableName": TABLE, "Key": {"pk": {"S": "a"}}}},
                {"Get": {"TableName": TABLE, "Key": {"pk": {"S": ""}}}},
            ]
        )
    ) == invalid(
        "One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty "
        "string value. Key: pk"
    )


def test_a_missing_table_is_named_before_any_key(dynamodb):
    assert refused(
        lambda: dynamodb.transact_get_items(
            TransactItems=[{"Get": {"TableName": "nothere", "Key": {}}}, {"Get": {"TableName": TABLE, "Key": {}}}]
        )
    ) == (400, "ResourceNotFoundException", "Requested resource not found")

"""The rules that read a table's key attributes, once the table is found, in AWS's words.

Source: dynalite's tests, written against DynamoDB: test/batchWriteItem.js ("should return ValidationException for
puts and deletes of the same item with put first", "should check table exists first before checking for duplicate
keys") and test/updateItem.js ("should return ValidationException if trying to update key" / "range key")."""

from __future__ import annotations

from tests.emulator.api.dynamodb.rules.conftest import RANGE_TABLE, TABLE, invalid, items, refused

DUPLICATES = invalid("Provided list of item keys contains duplicates")


def test_a_put_and_a_delete_of_one_item_in_a_batch_are_refused(dynamodb):
    requests = [{"PutRequest": {"Item": {"pk": {"S": "a"}, "c": {"S": "c"}}}}, {"DeleteRequest": {"Key": {"pk": {"S": "a"}}}}]
    assert refused(lambda: dynamodb.batch_write_item(RequestItems={TABLE: requests})) == DUPLICATES
    assert refused(lambda: dynamodb.batch_write_item(RequestItems={TABLE: requests[::-1]})) == DUPLICATES
    assert items(dynamodb) == []


def test_two_puts_of_one_key_with_other_attributes_are_refused(dynamodb):
    requests = [{"PutRequest": {"Item": {"pk": {"S": "a"}, "sk": {"S": "1"}, "v": {"S": str(n)}}}} for n in range(2)]
    assert refused(lambda: dynamodb.batch_write_item(RequestItems={RANGE_TABLE: requests})) == DUPLICATES
    other_sort_key = [requests[0], {"PutRequest": {"Item": {"pk": {"S": "a"}, "sk": {"S": "2"}}}}]
    dynamodb.batch_write_item(RequestItems={RANGE_TABLE: other_sort_key})
    assert len(items(dynamodb, RANGE_TABLE)) == 2


def test_a_missing_table_is_named_before_duplicates(dynamodb):
    requests = [{"PutRequest": {"Item": {"pk": {"S": "a"}}}}, {"DeleteRequest": {"Key": {"pk": {"S": "a"}}}}]
    assert refused(lambda: dynamodb.batch_write_item(RequestItems={"nothere": requests})) == (
        400, "ResourceNotFoundException", "Requested resource not found")


def test_attribute_updates_on_a_key_attribute_are_refused_and_nothing_is_written(dynamodb):
    assert refused(lambda: dynamodb.update_item(TableName=TABLE, Key={"pk": {"S": "a"}}, AttributeUpdates={
        "pk": {"Value": {"S": "b"}, "Action": "PUT"}})) == invalid(
        "One or more parameter values were invalid: Cannot update attribute pk. This attribute is part of the key")
    assert refused(lambda: dynamodb.update_item(TableName=RANGE_TABLE, Key={"pk": {"S": "a"}, "sk": {"S": "b"}},
                                                AttributeUpdates={"d": {"Value": {"N": "1"}},
                                                                  "sk": {"Value": {"S": "c"}}})) == invalid(
        "One or more parameter values were invalid: Cannot update attribute sk. This attribute is part of the key")
    assert items(dynamodb) == [] and items(dynamodb, RANGE_TABLE) == []



def test_two_gets_of_one_item_in_a_transaction_are_refused(dynamodb):
    """The AWS-run conformance suite nubo-db/dynamodb-conformance (tests/tier2/transactions/transactGet.test.ts) refuses
    them with a ValidationException; the words are AWS's for TransactWriteItems (moto's there)."""
    dynamodb.put_item(TableName=RANGE_TABLE, Item={"pk": {"S": "a"}, "sk": {"S": "1"}})
    get = {"Get": {"TableName": RANGE_TABLE, "Key": {"pk": {"S": "a"}, "sk": {"S": "1"}}}}
    assert refused(lambda: dynamodb.transact_get_items(TransactItems=[get, get])) == invalid(
        "Transaction request cannot include multiple operations on one item")
    other = {"Get": {"TableName": RANGE_TABLE, "Key": {"pk": {"S": "a"}, "sk": {"S": "2"}}}}
    assert dynamodb.transact_get_items(TransactItems=[get, other])["Responses"] == [
        {"Item": {"pk": {"S": "a"}, "sk": {"S": "1"}}}, {}]

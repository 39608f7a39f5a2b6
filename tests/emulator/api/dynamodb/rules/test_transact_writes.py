"""TransactWriteItems as DynamoDB answers it beyond its actions: the 4 MB payload, the ClientRequestToken, the
ConsumedCapacity asked for; and ItemCollectionMetrics for tables with a local secondary index (also PutItem,
UpdateItem, DeleteItem, BatchWriteItem). Both doors; every answer compared whole.

Sources: ScyllaDB's AWS-run test/alternator/test_transact.py (test_transact_write_items_put_5MB: "ValidationException.*
size cannot exceed"; test_transact_write_items_delete_5MB; _clientrequesttoken, _clientrequesttoken_mismatch); the
words of the 4 MB refusal as a client's test captured DynamoDB's answer (com.amazon.coral.validate#ValidationException,
"Transaction payload size cannot exceed 4MB. Payload Size: : ..."); LocalStack's AWS-validated
test_dynamodb_idempotent_writing (the same item, attributes in another order, under one token: 200 twice); the AWS-run
conformance suite nubo-db/dynamodb-conformance (tests/tier3/limits/transactionLimits.test.ts: 10 x 350 KB written,
12 x 350 KB refused; tests/tier2/transactions/transactWrite.test.ts: a token's repeat writes once, another payload is
IdempotentParameterMismatchException; tests/tier1/putItem/itemCollectionMetrics.test.ts); the DynamoDB API reference
(TransactWriteItems ClientRequestToken: 10 minutes, a repeat reports read capacity; ConsumedCapacity) and developer
guide ("Capacity management for transactions": two writes per item; the [0.0, 1.0] estimate of a small collection).
"""

from __future__ import annotations

import uuid

import pytest

from tests.emulator.api.dynamodb.rules.conftest import TABLE, invalid, items, refused

PAYLOAD = ("Transaction payload size cannot exceed 4MB. Payload Size: ")
#: DynamoDB's words in a production log (aexhq/brain pull request #58: a TransactWriteItems retried under its token
#: with other request parameters)
MISMATCH = "Specified idempotent token was used with different request parameters within the idempotency window"
COLLECTED = "collected"  # a table with a local secondary index


def answer(response: dict) -> dict:
    return {key: value for key, value in response.items() if key != "ResponseMetadata"}


def put(key: str, **attributes) -> dict:
    return {"Put": {"TableName": TABLE, "Item": {"pk": {"S": key}, **attributes}}}


@pytest.fixture
def collected(dynamodb):
    dynamodb.create_table(
        TableName=COLLECTED, BillingMode="PAY_PER_REQUEST",
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "sk", "AttributeType": "S"},
                              {"AttributeName": "at", "AttributeType": "S"}],
        LocalSecondaryIndexes=[{"IndexName": "by_at", "Projection": {"ProjectionType": "ALL"},
                                "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"},
                                              {"AttributeName": "at", "KeyType": "RANGE"}]}])
    return dynamodb


def test_a_transaction_carrying_more_than_4_mb_is_refused_and_writes_nothing(dynamodb):
    large = [put(f"big-{index}", payload={"S": "x" * 350_000}) for index in range(12)]
    status, kind, message = refused(lambda: dynamodb.transact_write_items(TransactItems=large))
    size = 12 * (len("pk") + len("big-0") + len("payload") + 350_000) + 2  # big-10 and big-11: a letter more
    assert (status, kind, message) == invalid(f"{PAYLOAD}: {PAYLOAD}{size}")
    assert items(dynamodb) == []


def test_a_transaction_carrying_3_5_mb_is_written(dynamodb):
    assert answer(dynamodb.transact_write_items(TransactItems=[
        put(f"ok-{index}", payload={"S": "x" * 350_000}) for index in range(10)])) == {}
    assert [dynamodb.get_item(TableName=TABLE, Key={"pk": {"S": f"ok-{index}"}}, ProjectionExpression="pk")["Item"]
            for index in range(10)] == [{"pk": {"S": f"ok-{index}"}} for index in range(10)]  # a Scan pages at 1 MB


def test_the_same_request_under_its_token_writes_once_and_succeeds_again(dynamodb):
    token = str(uuid.uuid4())
    count = [{"Update": {"TableName": TABLE, "Key": {"pk": {"S": "counter"}}, "UpdateExpression": "ADD n :one",
                         "ExpressionAttributeValues": {":one": {"N": "1"}}}}]
    assert answer(dynamodb.transact_write_items(TransactItems=count, ClientRequestToken=token)) == {}
    assert answer(dynamodb.transact_write_items(TransactItems=count, ClientRequestToken=token)) == {}
    assert items(dynamodb) == [{"pk": {"S": "counter"}, "n": {"N": "1"}}]
    dynamodb.transact_write_items(TransactItems=count)  # without a token, every request writes
    assert items(dynamodb) == [{"pk": {"S": "counter"}, "n": {"N": "2"}}]


def test_attributes_in_another_order_are_the_same_request(dynamodb):
    token = str(uuid.uuid4())
    dynamodb.transact_write_items(ClientRequestToken=token, TransactItems=[
        {"Put": {"TableName": TABLE, "Item": {"pk": {"S": "id1"}, "name": {"S": "name1"}}}}])
    assert answer(dynamodb.transact_write_items(ClientRequestToken=token, TransactItems=[
        {"Put": {"TableName": TABLE, "Item": {"name": {"S": "name1"}, "pk": {"S": "id1"}}}}])) == {}


def test_another_request_under_a_used_token_is_refused_and_changes_nothing(door, dynamodb):
    token = str(uuid.uuid4())
    dynamodb.transact_write_items(ClientRequestToken=token, TransactItems=[put("first", val={"S": "first"})])
    assert refused(lambda: dynamodb.transact_write_items(
        ClientRequestToken=token, TransactItems=[put("first", val={"S": "different"})])) == (
        400, "IdempotentParameterMismatchException", MISMATCH)
    assert items(dynamodb) == [{"pk": {"S": "first"}, "val": {"S": "first"}}]
    door.advance(601)  # 10 minutes after the first request completed, the token is new again
    assert answer(dynamodb.transact_write_items(
        ClientRequestToken=token, TransactItems=[put("first", val={"S": "different"})])) == {}
    assert items(dynamodb) == [{"pk": {"S": "first"}, "val": {"S": "different"}}]


def test_a_cancelled_transaction_leaves_its_token_unused(dynamodb):
    token = str(uuid.uuid4())
    guarded = [{"Put": {"TableName": TABLE, "Item": {"pk": {"S": "g"}}, "ConditionExpression": "attribute_exists(pk)"}}]
    assert refused(lambda: dynamodb.transact_write_items(ClientRequestToken=token, TransactItems=guarded))[1] == (
        "TransactionCanceledException")
    assert answer(dynamodb.transact_write_items(ClientRequestToken=token, TransactItems=[put("other")])) == {}


def test_consumed_capacity_total_and_indexes(dynamodb):
    actions = [put("a"), put("b", big={"S": "x" * 1500}),
               {"ConditionCheck": {"TableName": "lines", "Key": {"pk": {"S": "p"}, "sk": {"S": "s"}},
                                   "ConditionExpression": "attribute_not_exists(pk)"}}]
    assert answer(dynamodb.transact_write_items(TransactItems=actions, ReturnConsumedCapacity="TOTAL")) == {
        "ConsumedCapacity": [
            {"TableName": TABLE, "CapacityUnits": 6.0, "WriteCapacityUnits": 6.0},  # 2 x 1 KB + 2 x 2 KB
            {"TableName": "lines", "CapacityUnits": 2.0, "WriteCapacityUnits": 2.0}]}
    again = [put("c"), {"Delete": {"TableName": TABLE, "Key": {"pk": {"S": "a"}}}}]
    assert answer(dynamodb.transact_write_items(TransactItems=again, ReturnConsumedCapacity="INDEXES")) == {
        "ConsumedCapacity": [{"TableName": TABLE, "CapacityUnits": 4.0, "WriteCapacityUnits": 4.0,
                              "Table": {"CapacityUnits": 4.0, "WriteCapacityUnits": 4.0}}]}
    assert answer(dynamodb.transact_write_items(TransactItems=[put("d")], ReturnConsumedCapacity="NONE")) == {}


def test_a_repeat_under_its_token_reports_read_capacity(dynamodb):
    token = str(uuid.uuid4())
    first = dynamodb.transact_write_items(ClientRequestToken=token, TransactItems=[put("r", big={"S": "x" * 5000})],
                                          ReturnConsumedCapacity="TOTAL")
    assert answer(first) == {"ConsumedCapacity": [{"TableName": TABLE, "CapacityUnits": 10.0,
                                                   "WriteCapacityUnits": 10.0}]}
    repeat = dynamodb.transact_write_items(ClientRequestToken=token, TransactItems=[put("r", big={"S": "x" * 5000})],
                                           ReturnConsumedCapacity="TOTAL")
    assert answer(repeat) == {"ConsumedCapacity": [{"TableName": TABLE, "CapacityUnits": 4.0,
                                                    "ReadCapacityUnits": 4.0}]}  # 2 x one unit per 4 KB


def test_item_collection_metrics_for_a_table_with_a_local_secondary_index(collected):
    key = {"pk": {"S": "p1"}, "sk": {"S": "a"}}
    metrics = {"ItemCollectionKey": {"pk": {"S": "p1"}}, "SizeEstimateRangeGB": [0.0, 1.0]}
    assert answer(collected.put_item(TableName=COLLECTED, Item=dict(key, at={"S": "1"}),
                                     ReturnItemCollectionMetrics="SIZE")) == {"ItemCollectionMetrics": metrics}
    assert answer(collected.update_item(TableName=COLLECTED, Key=key, UpdateExpression="SET v = :v",
                                        ExpressionAttributeValues={":v": {"S": "x"}},
                                        ReturnItemCollectionMetrics="SIZE")) == {"ItemCollectionMetrics": metrics}
    assert answer(collected.delete_item(TableName=COLLECTED, Key=key, ReturnItemCollectionMetrics="SIZE")) == {
        "ItemCollectionMetrics": metrics}
    assert answer(collected.put_item(TableName=COLLECTED, Item=key, ReturnItemCollectionMetrics="NONE")) == {}
    batch = collected.batch_write_item(ReturnItemCollectionMetrics="SIZE", RequestItems={
        COLLECTED: [{"PutRequest": {"Item": {"pk": {"S": "p2"}, "sk": {"S": "b"}}}}],
        TABLE: [{"PutRequest": {"Item": {"pk": {"S": "plain"}}}}]})
    assert answer(batch) == {"UnprocessedItems": {}, "ItemCollectionMetrics": {COLLECTED: [
        {"ItemCollectionKey": {"pk": {"S": "p2"}}, "SizeEstimateRangeGB": [0.0, 1.0]}]}}
    transaction = collected.transact_write_items(ReturnItemCollectionMetrics="SIZE", TransactItems=[
        {"Put": {"TableName": COLLECTED, "Item": {"pk": {"S": "p3"}, "sk": {"S": "c"}}}}, put("plain2")])
    assert answer(transaction) == {"ItemCollectionMetrics": {COLLECTED: [
        {"ItemCollectionKey": {"pk": {"S": "p3"}}, "SizeEstimateRangeGB": [0.0, 1.0]}]}}


def test_no_item_collection_metrics_for_a_table_without_a_local_secondary_index(dynamodb):
    assert answer(dynamodb.put_item(TableName=TABLE, Item={"pk": {"S": "a"}}, ReturnItemCollectionMetrics="SIZE")) == {}
    assert answer(dynamodb.batch_write_item(ReturnItemCollectionMetrics="SIZE", RequestItems={
        TABLE: [{"PutRequest": {"Item": {"pk": {"S": "b"}}}}]})) == {"UnprocessedItems": {}}

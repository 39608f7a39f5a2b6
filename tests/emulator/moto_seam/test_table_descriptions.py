"""DynamoDB's control plane answered as AWS answers it, whole, in both doors.

The expected answers are AWS's, as recorded against AWS in 2025 by LocalStack's AWS-validated tests
(tests/aws/services/dynamodb/test_dynamodb.snapshot.json: test_table_crud, test_table_warm_throughput,
test_gsi_with_billing_mode[PROVISIONED|PAY_PER_REQUEST], test_batch_write_items, test_batch_write_items_streaming;
tests/aws/services/lambda_/event_source_mapping/test_lambda_integration_dynamodbstreams.snapshot.json: the
update_table_response of a stream enabled on an on-demand table), with their placeholders for what differs per run
(ids, times) written the same way here.
"""

from __future__ import annotations

import math

import datetime
import uuid

import pytest

from tests.emulator.helpers import read_stream

ACCOUNT, REGION = "123456789012", "us-east-1"
TABLE_ARN = f"arn:aws:dynamodb:{REGION}:{ACCOUNT}:table/orders"
KEY = {"AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "S"}],
       "KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}]}
PROVISIONED = {"ReadCapacityUnits": 5, "WriteCapacityUnits": 5}


def placeholders(answer: dict) -> dict:
    """An answer without its metadata, its times as "datetime" and its TableId as "<uuid>" (a UUID)."""
    answer = {key: value for key, value in answer.items() if key != "ResponseMetadata"}

    def walk(value):
        if isinstance(value, dict):
            return {key: ("<uuid>" if key == "TableId" and str(uuid.UUID(element)) == element else walk(element))
                    for key, element in value.items()}
        if isinstance(value, list):
            return [walk(element) for element in value]
        return "datetime" if isinstance(value, datetime.datetime) else value

    return walk(answer)


def create_provisioned(dynamodb, **extra) -> dict:
    return dynamodb.create_table(TableName="orders", ProvisionedThroughput=PROVISIONED, **KEY, **extra)


def test_create_describe_delete_table_answer_as_aws(door):
    """test_table_crud: CREATING with a TableId and no WarmThroughput, then ACTIVE with it; DeleteTable DELETING."""
    dynamodb = door.client("dynamodb")
    created = create_provisioned(dynamodb)
    description = {**KEY, "CreationDateTime": "datetime", "DeletionProtectionEnabled": False, "ItemCount": 0,
                   "ProvisionedThroughput": {"NumberOfDecreasesToday": 0, **PROVISIONED}, "TableArn": TABLE_ARN,
                   "TableId": "<uuid>", "TableName": "orders", "TableSizeBytes": 0}
    assert placeholders(created) == {"TableDescription": {**description, "TableStatus": "CREATING"}}
    described = dynamodb.describe_table(TableName="orders")
    assert placeholders(described) == {"Table": {
        **description, "TableStatus": "ACTIVE",
        "WarmThroughput": {"ReadUnitsPerSecond": 5, "Status": "ACTIVE", "WriteUnitsPerSecond": 5}}}
    table_id = created["TableDescription"]["TableId"]
    assert described["Table"]["TableId"] == table_id
    deleted = dynamodb.delete_table(TableName="orders")
    assert placeholders(deleted) == {"TableDescription": {
        "DeletionProtectionEnabled": False, "ItemCount": 0,
        "ProvisionedThroughput": {"NumberOfDecreasesToday": 0, **PROVISIONED}, "TableArn": TABLE_ARN,
        "TableId": "<uuid>", "TableName": "orders", "TableSizeBytes": 0, "TableStatus": "DELETING"}}
    assert deleted["TableDescription"]["TableId"] == table_id
    assert create_provisioned(dynamodb)["TableDescription"]["TableId"] != table_id  # a new table, a new id


def test_the_table_exists_waiter_still_works(door):
    dynamodb = door.client("dynamodb")
    assert create_provisioned(dynamodb)["TableDescription"]["TableStatus"] == "CREATING"
    dynamodb.get_waiter("table_exists").wait(TableName="orders", WaiterConfig={"Delay": 1, "MaxAttempts": 2})
    assert dynamodb.describe_table(TableName="orders")["Table"]["TableStatus"] == "ACTIVE"


def test_a_requested_warm_throughput_is_answered_updating_then_active(door):
    """test_table_warm_throughput."""
    dynamodb = door.client("dynamodb")
    warm = {"ReadUnitsPerSecond": 1000, "WriteUnitsPerSecond": 1200}
    created = create_provisioned(dynamodb, WarmThroughput=warm)["TableDescription"]
    assert created["WarmThroughput"] == {**warm, "Status": "UPDATING"}
    assert dynamodb.describe_table(TableName="orders")["Table"]["WarmThroughput"] == {**warm, "Status": "ACTIVE"}


@pytest.mark.parametrize("billing_mode", ["PROVISIONED", "PAY_PER_REQUEST"])
def test_a_table_with_a_global_secondary_index_as_aws(door, billing_mode):
    """test_gsi_with_billing_mode: the index with its IndexArn, sizes and status; the summary only on demand."""
    dynamodb = door.client("dynamodb")
    throughput = PROVISIONED if billing_mode == "PROVISIONED" else {"ReadCapacityUnits": 0, "WriteCapacityUnits": 0}
    index_throughput = {"ReadCapacityUnits": 1, "WriteCapacityUnits": 1}
    index = {"IndexName": "TransactionRecordID", "KeySchema": [{"AttributeName": "TRID", "KeyType": "HASH"}],
             "Projection": {"ProjectionType": "ALL"}}
    extra = {"ProvisionedThroughput": PROVISIONED} if billing_mode == "PROVISIONED" else {}
    created = dynamodb.create_table(
        TableName="orders", BillingMode=billing_mode, KeySchema=[{"AttributeName": "TID", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "TID", "AttributeType": "S"},
                              {"AttributeName": "TRID", "AttributeType": "S"}],
        GlobalSecondaryIndexes=[dict(index, **({"ProvisionedThroughput": index_throughput} if extra else {}))],
        **extra)
    if billing_mode == "PAY_PER_REQUEST":
        index_throughput = {"ReadCapacityUnits": 0, "WriteCapacityUnits": 0}
    warm = ({"ReadUnitsPerSecond": 5, "Status": "ACTIVE", "WriteUnitsPerSecond": 5} if extra else
            {"ReadUnitsPerSecond": 12000, "Status": "ACTIVE", "WriteUnitsPerSecond": 4000})
    index_warm = ({"ReadUnitsPerSecond": 1, "Status": "ACTIVE", "WriteUnitsPerSecond": 1} if extra else warm)
    described_index = {**index, "IndexArn": f"{TABLE_ARN}/index/TransactionRecordID", "IndexSizeBytes": 0,
                       "ItemCount": 0, "ProvisionedThroughput": {"NumberOfDecreasesToday": 0, **index_throughput}}
    description = {
        "AttributeDefinitions": [{"AttributeName": "TID", "AttributeType": "S"},
                                 {"AttributeName": "TRID", "AttributeType": "S"}],
        "CreationDateTime": "datetime", "DeletionProtectionEnabled": False, "ItemCount": 0,
        "KeySchema": [{"AttributeName": "TID", "KeyType": "HASH"}],
        "ProvisionedThroughput": {"NumberOfDecreasesToday": 0, **throughput}, "TableArn": TABLE_ARN,
        "TableId": "<uuid>", "TableName": "orders", "TableSizeBytes": 0}
    on_demand = billing_mode == "PAY_PER_REQUEST"
    assert placeholders(created) == {"TableDescription": {
        **description, "TableStatus": "CREATING",
        "GlobalSecondaryIndexes": [{**described_index, "IndexStatus": "CREATING"}],
        **({"BillingModeSummary": {"BillingMode": "PAY_PER_REQUEST"}} if on_demand else {})}}
    assert placeholders(dynamodb.describe_table(TableName="orders")) == {"Table": {
        **description, "TableStatus": "ACTIVE", "WarmThroughput": warm,
        "GlobalSecondaryIndexes": [{**described_index, "IndexStatus": "ACTIVE", "WarmThroughput": index_warm}],
        **({"BillingModeSummary": {"BillingMode": "PAY_PER_REQUEST", "LastUpdateToPayPerRequestDateTime": "datetime"}}
           if on_demand else {})}}


def test_update_table_answers_updating_and_when_the_table_went_on_demand(door):
    """An UpdateTable answers UPDATING (the ESM snapshots' update_table_response); a switch to on demand is dated."""
    dynamodb = door.client("dynamodb")
    create_provisioned(dynamodb)
    before = door.now()
    updated = dynamodb.update_table(TableName="orders", BillingMode="PAY_PER_REQUEST")["TableDescription"]
    assert updated["TableStatus"] == "UPDATING"
    summary = updated["BillingModeSummary"]
    assert summary["BillingMode"] == "PAY_PER_REQUEST"
    after = door.now()
    assert math.floor(before) <= summary["LastUpdateToPayPerRequestDateTime"].timestamp() <= after
    assert dynamodb.describe_table(TableName="orders")["Table"]["TableStatus"] == "ACTIVE"
    back = dynamodb.update_table(TableName="orders", BillingMode="PROVISIONED", ProvisionedThroughput=PROVISIONED)
    assert back["TableDescription"]["BillingModeSummary"] == {"BillingMode": "PROVISIONED",
                                                              "LastUpdateToPayPerRequestDateTime": summary[
                                                                  "LastUpdateToPayPerRequestDateTime"]}
    assert back["TableDescription"]["ProvisionedThroughput"] == {"NumberOfDecreasesToday": 0, **PROVISIONED}


def test_writes_answer_capacity_and_metrics_only_when_asked(door):
    """test_batch_write_items: `{"UnprocessedItems": {}}` and nothing else; the same for the other writes."""
    dynamodb = door.client("dynamodb")
    dynamodb.create_table(TableName="orders", BillingMode="PAY_PER_REQUEST", **KEY)
    key = {"id": {"S": "a"}}
    batch = {"orders": [{"PutRequest": {"Item": key}}]}
    assert placeholders(dynamodb.batch_write_item(RequestItems=batch)) == {"UnprocessedItems": {}}
    assert placeholders(dynamodb.transact_write_items(
        TransactItems=[{"Put": {"TableName": "orders", "Item": key}}])) == {}
    assert placeholders(dynamodb.update_item(TableName="orders", Key=key, UpdateExpression="SET n = :n",
                                             ExpressionAttributeValues={":n": {"N": "1"}})) == {}
    assert placeholders(dynamodb.batch_get_item(RequestItems={"orders": {"Keys": [key]}})) == {
        "Responses": {"orders": [{"id": {"S": "a"}, "n": {"N": "1"}}]}, "UnprocessedKeys": {}}
    asked = dynamodb.batch_write_item(RequestItems=batch, ReturnConsumedCapacity="TOTAL")
    assert placeholders(asked) == {"UnprocessedItems": {},
                                   "ConsumedCapacity": [{"TableName": "orders", "CapacityUnits": 1.0}]}
    indexes = dynamodb.batch_write_item(RequestItems=batch, ReturnConsumedCapacity="INDEXES",
                                        ReturnItemCollectionMetrics="SIZE")
    assert placeholders(indexes) == {  # no ItemCollectionMetrics: the table has no local secondary index, so no
        # item collection was affected (API reference, BatchWriteItem; Dynoxide's DynamoDB captures leave it out)
        "UnprocessedItems": {},
        "ConsumedCapacity": [{"TableName": "orders", "CapacityUnits": 1.0, "Table": {"CapacityUnits": 1.0}}]}


def test_batch_write_item_writes_in_the_request_order(door):
    """test_batch_write_items_streaming: [Delete NewKey, Put Fred] is REMOVE NewKey, then MODIFY Fred."""
    dynamodb, streams = door.client("dynamodb"), door.client("dynamodbstreams")
    arn = dynamodb.create_table(TableName="orders", ProvisionedThroughput=PROVISIONED, **KEY, StreamSpecification={
        "StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"})["TableDescription"]["LatestStreamArn"]
    dynamodb.put_item(TableName="orders", Item={"id": {"S": "Fred"}})
    dynamodb.batch_write_item(RequestItems={"orders": [{"PutRequest": {"Item": {"id": {"S": "NewKey"}}}}]})
    dynamodb.batch_write_item(RequestItems={"orders": [
        {"DeleteRequest": {"Key": {"id": {"S": "NewKey"}}}},
        {"PutRequest": {"Item": {"id": {"S": "Fred"}, "name": {"S": "Fred"}}}}]})
    records = [(record["eventName"], record["dynamodb"]["Keys"]["id"]["S"], record["dynamodb"]["SizeBytes"])
               for record in read_stream(streams, arn)]
    assert records == [("INSERT", "Fred", 12), ("INSERT", "NewKey", 16), ("REMOVE", "NewKey", 16),
                       ("MODIFY", "Fred", 26)]

"""Change capture: exactly one record per item actually changed, for every DynamoDB write path."""

from __future__ import annotations

import json

import pytest
from botocore.exceptions import ClientError

from tests.emulator.helpers import create_table, events, read_stream


@pytest.fixture
def table(door):
    dynamodb = door.client("dynamodb")
    description = create_table(dynamodb, "orders")
    return dynamodb, door.client("dynamodbstreams"), description["LatestStreamArn"]


def S(value):
    return {"S": value}


def test_put_item_insert_modify_and_no_op(table):
    dynamodb, streams, arn = table
    dynamodb.put_item(TableName="orders", Item={"pk": S("a"), "v": {"N": "1"}})
    dynamodb.put_item(TableName="orders", Item={"pk": S("a"), "v": {"N": "1"}})  # changes nothing
    dynamodb.put_item(TableName="orders", Item={"pk": S("a"), "v": {"N": "2"}})
    records = read_stream(streams, arn)
    assert events(records) == [("INSERT", "a"), ("MODIFY", "a")]
    modify = records[1]["dynamodb"]
    assert modify["OldImage"] == {"pk": S("a"), "v": {"N": "1"}}
    assert modify["NewImage"] == {"pk": S("a"), "v": {"N": "2"}}


def test_update_item_on_a_new_key_is_one_insert(table):
    dynamodb, streams, arn = table
    dynamodb.update_item(TableName="orders", Key={"pk": S("b")}, UpdateExpression="SET n = :n",
                         ExpressionAttributeValues={":n": {"N": "5"}})
    dynamodb.update_item(TableName="orders", Key={"pk": S("b")}, UpdateExpression="SET n = :n",
                         ExpressionAttributeValues={":n": {"N": "5"}})  # no change
    dynamodb.update_item(TableName="orders", Key={"pk": S("b")}, UpdateExpression="ADD n :one",
                         ExpressionAttributeValues={":one": {"N": "1"}})
    records = read_stream(streams, arn)
    assert events(records) == [("INSERT", "b"), ("MODIFY", "b")]
    assert records[0]["dynamodb"]["NewImage"] == {"pk": S("b"), "n": {"N": "5"}}
    assert "OldImage" not in records[0]["dynamodb"]
    assert records[1]["dynamodb"]["NewImage"]["n"] == {"N": "6"}


def test_failed_condition_and_delete_of_missing_item_write_nothing(table):
    dynamodb, streams, arn = table
    dynamodb.put_item(TableName="orders", Item={"pk": S("a")})
    with pytest.raises(ClientError) as failed:
        dynamodb.put_item(TableName="orders", Item={"pk": S("a"), "x": S("y")},
                          ConditionExpression="attribute_not_exists(pk)")
    assert failed.value.response["Error"]["Code"] == "ConditionalCheckFailedException"
    with pytest.raises(ClientError):
        dynamodb.update_item(TableName="orders", Key={"pk": S("a")}, UpdateExpression="SET x = :x",
                             ConditionExpression="attribute_exists(nope)", ExpressionAttributeValues={":x": S("y")})
    dynamodb.delete_item(TableName="orders", Key={"pk": S("missing")})
    dynamodb.delete_item(TableName="orders", Key={"pk": S("a")})
    assert events(read_stream(streams, arn)) == [("INSERT", "a"), ("REMOVE", "a")]


def test_batch_write_item(table):
    dynamodb, streams, arn = table
    dynamodb.put_item(TableName="orders", Item={"pk": S("old")})
    dynamodb.batch_write_item(RequestItems={"orders": [
        {"PutRequest": {"Item": {"pk": S("n1")}}},
        {"PutRequest": {"Item": {"pk": S("n2")}}},
        {"DeleteRequest": {"Key": {"pk": S("old")}}},
        {"DeleteRequest": {"Key": {"pk": S("never-there")}}},
    ]})
    assert sorted(events(read_stream(streams, arn))[1:]) == [("INSERT", "n1"), ("INSERT", "n2"), ("REMOVE", "old")]


def test_one_item_written_twice_in_a_batch_is_refused_and_streams_nothing(door):
    """N "1" and "1.00" are one key, so the batch names one item twice: AWS refuses the whole batch ("You try to
    perform multiple operations on the same item in the same BatchWriteItem request", BatchWriteItem in the DynamoDB
    API Reference), and nothing of it is written or streamed."""
    dynamodb, streams = door.client("dynamodb"), door.client("dynamodbstreams")
    arn = dynamodb.create_table(
        TableName="counts", BillingMode="PAY_PER_REQUEST",
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "sk", "AttributeType": "N"}],
        StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"})["TableDescription"]["LatestStreamArn"]
    dynamodb.put_item(TableName="counts", Item={"pk": S("a"), "sk": {"N": "1"}, "v": S("before")})
    with pytest.raises(ClientError) as refused:
        dynamodb.batch_write_item(RequestItems={"counts": [
            {"PutRequest": {"Item": {"pk": S("a"), "sk": {"N": "1"}, "v": S("first")}}},
            {"PutRequest": {"Item": {"pk": S("a"), "sk": {"N": "1.00"}, "v": S("second")}}},
            {"PutRequest": {"Item": {"pk": S("b"), "sk": {"N": "2"}}}},
        ]})
    assert refused.value.response["Error"] == {"Code": "ValidationException",
                                               "Message": "Provided list of item keys contains duplicates"}
    assert events(read_stream(streams, arn)) == [("INSERT", "a")]
    assert dynamodb.scan(TableName="counts")["Items"] == [{"pk": S("a"), "sk": {"N": "1"}, "v": S("before")}]


def test_transact_write_items_commits_all_or_nothing(table):
    dynamodb, streams, arn = table
    dynamodb.put_item(TableName="orders", Item={"pk": S("a"), "v": {"N": "1"}})
    dynamodb.transact_write_items(TransactItems=[
        {"Put": {"TableName": "orders", "Item": {"pk": S("t1")}}},
        {"Update": {"TableName": "orders", "Key": {"pk": S("a")}, "UpdateExpression": "SET v = :v",
                    "ExpressionAttributeValues": {":v": {"N": "2"}}}},
        {"Delete": {"TableName": "orders", "Key": {"pk": S("none")}}},
    ])
    with pytest.raises(ClientError) as cancelled:
        dynamodb.transact_write_items(TransactItems=[
            {"Put": {"TableName": "orders", "Item": {"pk": S("t2")}}},
            {"ConditionCheck": {"TableName": "orders", "Key": {"pk": S("a")},
                                "ConditionExpression": "attribute_not_exists(pk)"}},
        ])
    assert cancelled.value.response["Error"]["Code"] == "TransactionCanceledException"
    assert events(read_stream(streams, arn)) == [("INSERT", "a"), ("INSERT", "t1"), ("MODIFY", "a")]


def test_partiql_statements_batches_and_transactions(table):
    dynamodb, streams, arn = table
    dynamodb.execute_statement(Statement="INSERT INTO orders VALUE {'pk': 'p1', 'v': 1}")
    dynamodb.execute_statement(Statement="UPDATE orders SET v = ? WHERE pk = 'p1'", Parameters=[{"N": "2"}])
    dynamodb.batch_execute_statement(Statements=[
        {"Statement": "INSERT INTO orders VALUE {'pk': 'p2'}"},
        {"Statement": "INSERT INTO orders VALUE {'pk': 'p3'}"},
    ])
    dynamodb.execute_transaction(TransactStatements=[
        {"Statement": "DELETE FROM orders WHERE pk = 'p2'"},
        {"Statement": "INSERT INTO orders VALUE {'pk': 'p4'}"},
    ])
    dynamodb.execute_statement(Statement="SELECT * FROM orders")  # a read writes nothing
    assert events(read_stream(streams, arn)) == [
        ("INSERT", "p1"), ("MODIFY", "p1"), ("INSERT", "p2"), ("INSERT", "p3"), ("REMOVE", "p2"), ("INSERT", "p4"),
    ]


def test_reads_and_tables_without_a_stream_write_nothing(door):
    dynamodb = door.client("dynamodb")
    create_table(dynamodb, "plain", view_type=None)
    streamed = create_table(dynamodb, "streamed")
    dynamodb.put_item(TableName="plain", Item={"pk": S("x")})
    dynamodb.get_item(TableName="plain", Key={"pk": S("x")})
    dynamodb.scan(TableName="plain")
    assert read_stream(door.client("dynamodbstreams"), streamed["LatestStreamArn"]) == []
    assert "LatestStreamArn" not in dynamodb.describe_table(TableName="plain")["Table"]


def test_commit_versions_one_per_operation_shared_by_a_transaction(emu):
    import boto3

    dynamodb = boto3.client("dynamodb", region_name="us-east-1")
    create_table(dynamodb, "orders")
    dynamodb.put_item(TableName="orders", Item={"pk": S("a")})
    dynamodb.transact_write_items(TransactItems=[
        {"Put": {"TableName": "orders", "Item": {"pk": S("b")}}},
        {"Put": {"TableName": "orders", "Item": {"pk": S("c")}}},
    ])
    dynamodb.put_item(TableName="orders", Item={"pk": S("a"), "x": S("1")})
    lines = [json.loads(line) for path in sorted(emu.state_dir.rglob("*.jsonl")) for line in path.read_text().splitlines()]
    assert [(line["keys"]["pk"]["S"], line["commit_version"]) for line in lines] == [("a", 3), ("b", 4), ("c", 4), ("a", 5)]
    assert lines[1]["commit_timestamp"] == lines[2]["commit_timestamp"]
    assert lines[3]["old_image"] == {"pk": S("a")} and lines[3]["new_image"] == {"pk": S("a"), "x": S("1")}

"""The engine's one DynamoDB call (emulator/dynamodb/operations.py): a write committed before it answers, a composed
write's operations each committed or put back, and no request through the door more than once."""

from __future__ import annotations

import json

import boto3
import pytest

from eddy import emulate
from eddy.emulator.api.dynamodb import door as dynamodb_door
from eddy.emulator.aws_requests import Request
from tests.emulator.helpers import create_table

URL = "https://dynamodb.us-east-1.amazonaws.com/"
AUTH = (
    "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20260101/us-east-1/dynamodb/aws4_request, "
    "SignedHeaders=host, Signature=0"
)


def _request(operation: str, params: dict) -> Request:
    headers = {
        "X-Amz-Target": f"DynamoDB_20120810.{operation}",
        "Content-Type": "application/x-amz-json-1.0",
        "Authorization": AUTH,
    }
    return Request("POST", URL, headers, json.dumps(params).encode())


def _records(emu, table: str) -> list[tuple]:
    return [
        (record.event_name.value, record.keys, record.old_image, record.new_image, record.commit_version)
        for stream in emu.streams.list("123456789012", "us-east-1", table)
        for shard in stream.shards.values()
        for record in shard.records
    ]


@pytest.fixture
def emu():
    with emulate(housekeeping_interval=None) as emu:
        create_table(boto3.client("dynamodb", region_name="us-east-1"), "orders")
        yield emu


def test_a_put_is_committed_and_shown_before_execute_answers(emu):
    params = {"TableName": "orders", "Item": {"pk": {"S": "a"}, "n": {"N": "1"}}, "ReturnValues": "ALL_OLD"}
    response = emu.dynamodb.execute("PutItem", _request("PutItem", params), params)
    assert (response.status, json.loads(response.body)) == (200, {})
    version = emu.commit_versions[("123456789012", "us-east-1", "orders")]
    assert _records(emu, "orders") == [
        ("INSERT", {"pk": {"S": "a"}}, None, {"pk": {"S": "a"}, "n": {"N": "1"}}, version)
    ]


def test_a_refused_write_commits_nothing(emu):
    params = {"TableName": "orders", "Item": {"pk": {"S": "a"}}, "ConditionExpression": "attribute_exists(pk)"}
    response = emu.dynamodb.execute("PutItem", _request("PutItem", params), params)
    assert response.status == 400
    assert json.loads(response.body)["__type"].endswith("ConditionalCheckFailedException")
    assert _records(emu, "orders") == []


def test_a_composed_write_commits_each_operation_or_puts_it_back(emu):
    """The operation before `next_operation` is committed on its own; the one after, which raised, is put back."""

    def work(session):
        assert session.run("PutItem", {"TableName": "orders", "Item": {"pk": {"S": "a"}}}) == (200, {})
        session.next_operation()
        assert session.run("PutItem", {"TableName": "orders", "Item": {"pk": {"S": "b"}}}) == (200, {})
        assert [(table[2], old, new) for table, old, new in session.written()] == [("orders", None, {"pk": {"S": "b"}})]
        raise RuntimeError("the door's work failed")

    with pytest.raises(RuntimeError, match="the door's work failed"):
        emu.dynamodb.write(_request("ExecuteStatement", {}), {}, work)
    assert [record[:4] for record in _records(emu, "orders")] == [
        ("INSERT", {"pk": {"S": "a"}}, None, {"pk": {"S": "a"}})
    ]
    client = boto3.client("dynamodb", region_name="us-east-1")
    assert client.scan(TableName="orders")["Items"] == [{"pk": {"S": "a"}}]


@pytest.fixture
def seen(monkeypatch):
    """The operations of each request the DynamoDB door handles, in order."""
    seen = []
    door = dynamodb_door.handle

    def counted(emulator, operation, request):
        seen.append(operation)
        return door(emulator, operation, request)

    monkeypatch.setattr(dynamodb_door, "handle", counted)
    return seen


def test_no_request_goes_through_the_door_twice(emu, seen):
    """A table named by its ARN, PartiQL's statements and a transaction each pass the door once (they were answered
    by the door calling itself again)."""
    client = boto3.client("dynamodb", region_name="us-east-1")
    arn = client.describe_table(TableName="orders")["Table"]["TableArn"]
    client.batch_write_item(RequestItems={arn: [{"PutRequest": {"Item": {"pk": {"S": "a"}}}}]})
    client.batch_execute_statement(
        Statements=[
            {"Statement": "INSERT INTO orders VALUE {'pk': 'b'}"},
            {"Statement": "UPDATE orders SET n = 1 WHERE pk = 'a'"},
        ]
    )
    client.transact_write_items(TransactItems=[{"Put": {"TableName": arn, "Item": {"pk": {"S": "c"}}}}])
    assert seen == ["DescribeTable", "BatchWriteItem", "BatchExecuteStatement", "TransactWriteItems"]
    assert sorted(item["pk"]["S"] for item in client.scan(TableName="orders")["Items"]) == ["a", "b", "c"]


def test_a_global_table_s_requests_in_other_regions_do_not_pass_the_door(emu, seen):
    """A replica made in its region (its table, its stream, its items) and a group setting made in every replica are
    run by the engine (emulator.dynamodb.run), not by the door calling itself for the other region."""
    east, west = (boto3.client("dynamodb", region_name=region) for region in ("us-east-1", "eu-west-1"))
    east.update_table(TableName="orders", ReplicaUpdates=[{"Create": {"RegionName": "eu-west-1"}}])
    east.update_time_to_live(TableName="orders", TimeToLiveSpecification={"Enabled": True, "AttributeName": "expires"})
    assert seen == ["UpdateTable", "UpdateTimeToLive"]
    described = west.describe_time_to_live(TableName="orders")
    described.pop("ResponseMetadata")
    assert described == {"TimeToLiveDescription": {"TimeToLiveStatus": "ENABLED", "AttributeName": "expires"}}
    assert [
        (table["Table"]["TableName"], table["Table"]["StreamSpecification"])
        for table in (east.describe_table(TableName="orders"), west.describe_table(TableName="orders"))
    ] == [("orders", {"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"})] * 2

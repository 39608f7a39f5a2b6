"""StreamSpecification on CreateTable and UpdateTable: enable, disable, re-enable, and the AWS errors."""

from __future__ import annotations

import re

import pytest
from botocore.exceptions import ClientError

from tests.emulator.helpers import create_table, events, read_stream, shards

LABEL = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}$")


def error_of(excinfo) -> tuple[str, str, int]:
    error = excinfo.value.response["Error"]
    return error["Code"], error["Message"], excinfo.value.response["ResponseMetadata"]["HTTPStatusCode"]


def test_create_table_with_a_stream_describes_it(door):
    dynamodb = door.client("dynamodb", region="eu-west-1")
    created = create_table(dynamodb, "orders", "NEW_IMAGE")
    label = created["LatestStreamLabel"]
    assert LABEL.match(label)
    assert created["LatestStreamArn"] == f"arn:aws:dynamodb:eu-west-1:123456789012:table/orders/stream/{label}"
    assert created["StreamSpecification"] == {"StreamEnabled": True, "StreamViewType": "NEW_IMAGE"}
    described = dynamodb.describe_table(TableName="orders")["Table"]
    assert (described["LatestStreamArn"], described["LatestStreamLabel"]) == (created["LatestStreamArn"], label)
    streams = door.client("dynamodbstreams", region="eu-west-1")
    description = streams.describe_stream(StreamArn=created["LatestStreamArn"])["StreamDescription"]
    assert description["StreamStatus"] == "ENABLED"
    assert description["StreamViewType"] == "NEW_IMAGE"
    assert description["TableName"] == "orders"
    assert description["KeySchema"] == [{"AttributeName": "pk", "KeyType": "HASH"}]
    assert len(description["Shards"]) == 1 and "ParentShardId" not in description["Shards"][0]


def test_disable_then_re_enable_makes_a_new_stream(door):
    dynamodb, streams = door.client("dynamodb"), door.client("dynamodbstreams")
    first = create_table(dynamodb, "orders")["LatestStreamArn"]
    dynamodb.put_item(TableName="orders", Item={"pk": {"S": "before"}})
    disabled = dynamodb.update_table(TableName="orders", StreamSpecification={"StreamEnabled": False})["TableDescription"]
    assert "StreamSpecification" not in disabled
    assert disabled["LatestStreamArn"] == first
    dynamodb.put_item(TableName="orders", Item={"pk": {"S": "while-disabled"}})  # writes keep working
    description = streams.describe_stream(StreamArn=first)["StreamDescription"]
    assert description["StreamStatus"] == "DISABLED"
    assert all("EndingSequenceNumber" in shard["SequenceNumberRange"] for shard in description["Shards"])
    assert events(read_stream(streams, first)) == [("INSERT", "before")]  # closed, still readable

    door.advance(0.01)
    enabled = dynamodb.update_table(
        TableName="orders", StreamSpecification={"StreamEnabled": True, "StreamViewType": "KEYS_ONLY"}
    )["TableDescription"]
    second = enabled["LatestStreamArn"]
    assert second != first and enabled["LatestStreamLabel"] != first.rsplit("/", 1)[1]
    assert enabled["StreamSpecification"] == {"StreamEnabled": True, "StreamViewType": "KEYS_ONLY"}
    dynamodb.put_item(TableName="orders", Item={"pk": {"S": "after"}})
    assert events(read_stream(streams, second)) == [("INSERT", "after")]
    assert events(read_stream(streams, first)) == [("INSERT", "before")]
    listed = streams.list_streams(TableName="orders")["Streams"]
    assert [s["StreamArn"] for s in listed] == [first, second]


def test_enabling_twice_and_disabling_none_are_validation_errors(door):
    dynamodb = door.client("dynamodb")
    create_table(dynamodb, "orders")
    create_table(dynamodb, "plain", view_type=None)
    with pytest.raises(ClientError) as twice:
        dynamodb.update_table(TableName="orders", StreamSpecification={"StreamEnabled": True, "StreamViewType": "KEYS_ONLY"})
    assert error_of(twice) == ("ValidationException", "Table already has an enabled stream: TableName: orders", 400)
    with pytest.raises(ClientError) as none:
        dynamodb.update_table(TableName="plain", StreamSpecification={"StreamEnabled": False})
    assert error_of(none) == ("ValidationException", "Table has no stream to disable: TableName: plain", 400)


@pytest.mark.parametrize("spec, message", [
    ({"StreamEnabled": True}, "One or more parameter values were invalid: If stream is being enabled then UpdateViewType is required"),
    ({"StreamEnabled": False, "StreamViewType": "KEYS_ONLY"},
     "One or more parameter values were invalid: If stream is being disabled, then UpdateViewType must not be specified"),
])
def test_update_table_stream_specification_is_validated(door, spec, message):
    dynamodb = door.client("dynamodb")
    create_table(dynamodb, "orders")
    with pytest.raises(ClientError) as invalid:
        dynamodb.update_table(TableName="orders", StreamSpecification=spec)
    assert error_of(invalid) == ("ValidationException", message, 400)


def test_create_table_stream_specification_is_validated(door):
    dynamodb = door.client("dynamodb")
    with pytest.raises(ClientError) as invalid:
        dynamodb.create_table(TableName="ttt", KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                              AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                              BillingMode="PAY_PER_REQUEST", StreamSpecification={"StreamEnabled": True})
    assert error_of(invalid) == ("ValidationException", "One or more parameter values were invalid: Table is being "
                                 "created with a stream enabled, UpdateViewType is required", 400)
    assert dynamodb.list_tables()["TableNames"] == []  # nothing half-created


def test_deleted_table_stream_stays_readable_and_a_new_table_gets_a_new_stream(door):
    dynamodb, streams = door.client("dynamodb"), door.client("dynamodbstreams")
    first = create_table(dynamodb, "orders")["LatestStreamArn"]
    dynamodb.put_item(TableName="orders", Item={"pk": {"S": "a"}})
    dynamodb.delete_table(TableName="orders")
    assert streams.describe_stream(StreamArn=first)["StreamDescription"]["StreamStatus"] == "DISABLED"
    assert events(read_stream(streams, first)) == [("INSERT", "a")]
    door.advance(0.01)
    second = create_table(dynamodb, "orders")["LatestStreamArn"]
    assert second != first


def test_list_streams_pages_and_filters(door):
    dynamodb, streams = door.client("dynamodb"), door.client("dynamodbstreams")
    arns = [create_table(dynamodb, f"table{i}")["LatestStreamArn"] for i in range(5)]
    create_table(door.client("dynamodb", region="eu-west-1"), "elsewhere")
    seen, start = [], None
    while True:
        params = {"Limit": 2}
        if start:
            params["ExclusiveStartStreamArn"] = start
        page = streams.list_streams(**params)
        assert len(page["Streams"]) <= 2
        seen += [s["StreamArn"] for s in page["Streams"]]
        start = page.get("LastEvaluatedStreamArn")
        if not start:
            break
    assert seen == arns
    only = streams.list_streams(TableName="table3")["Streams"]
    assert only == [{"StreamArn": arns[3], "TableName": "table3", "StreamLabel": arns[3].rsplit("/", 1)[1]}]
    assert streams.list_streams(TableName="missing")["Streams"] == []


def test_shard_list_of_a_new_stream(door):
    dynamodb, streams = door.client("dynamodb"), door.client("dynamodbstreams")
    arn = create_table(dynamodb, "orders")["LatestStreamArn"]
    [shard] = shards(streams, arn)
    assert re.match(r"^shardId-\d{20}-[0-9a-f]{8}$", shard["ShardId"])
    assert 28 <= len(shard["ShardId"]) <= 65
    assert "EndingSequenceNumber" not in shard["SequenceNumberRange"]


def test_creating_an_existing_table_is_resource_in_use(door):
    dynamodb = door.client("dynamodb")
    create_table(dynamodb, "orders")
    with pytest.raises(ClientError) as twice:
        create_table(dynamodb, "orders")
    code, message, status = error_of(twice)
    assert (code, status) == ("ResourceInUseException", 400) and "orders" in message


def test_an_invalid_stream_specification_leaves_no_table_behind(door):
    dynamodb = door.client("dynamodb")
    with pytest.raises(ClientError) as invalid:
        dynamodb.create_table(TableName="ttt", KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                              AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                              BillingMode="PAY_PER_REQUEST",
                              StreamSpecification={"StreamEnabled": False, "StreamViewType": "KEYS_ONLY"})
    assert error_of(invalid)[1] == ("One or more parameter values were invalid: Table is being created with a "
                                    "stream disabled, UpdateViewType should not be specified")
    assert dynamodb.list_tables()["TableNames"] == []


def test_the_registry_finds_a_stream_by_its_arn_or_none(tmp_path):
    """StreamRegistry.find: the one lookup of an event source's ARN that may name a DynamoDB stream (mappings, pipes and
    the dashboard fall back to a Kinesis data stream on None); get() is DescribeStream's, with AWS's errors."""
    from eddy.emulator.settings import Settings
    from eddy.emulator.streams.shards import SequenceNumbers
    from eddy.emulator.streams.stream_registry import StreamRegistry
    from eddy.emulator.streams.records import StreamViewType

    registry = StreamRegistry(Settings(), SequenceNumbers(), tmp_path)
    stream = registry.enable(account_id="123456789012", region="us-east-1", table_name="orders",
                             table_arn="arn:aws:dynamodb:us-east-1:123456789012:table/orders",
                             view_type=StreamViewType("NEW_IMAGE"),
                             key_schema=[{"AttributeName": "pk", "KeyType": "HASH"}], now=1_700_000_000.0)
    kinesis = "arn:aws:kinesis:us-east-1:123456789012:stream/orders"
    absent = "arn:aws:dynamodb:us-east-1:123456789012:table/orders/stream/2020-01-01T00:00:00.000"
    assert [registry.find(arn) for arn in (stream.arn, kinesis, absent)] == [stream, None, None]
    with pytest.raises(Exception) as invalid:
        registry.get(kinesis)
    assert (type(invalid.value).__name__, str(invalid.value)) == ("ValidationException", f"Invalid StreamArn: {kinesis}")

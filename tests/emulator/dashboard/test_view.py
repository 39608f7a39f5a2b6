"""The dashboard's model (emulator/dashboard/view.py), in-process: tables and streams, a split's lineage, a
mapping's figures after a failing batch, functions' recent invocations and a stream's tail."""

from __future__ import annotations

import re

import boto3
import pytest

from eddy.emulator.dashboard.view import dashboard, stream_tail
from eddy.emulator.errors import ResourceNotFoundException
from eddy.emulator.streams.write_rates import WriteRates
from tests.emulator.helpers import create_table
from tests.emulator.trigger_helpers import put

REGION = "us-east-1"


@pytest.fixture
def dynamodb(emu):
    return boto3.client("dynamodb", region_name=REGION)


def table(model: dict, name: str) -> dict:
    return next(t for t in model["Tables"] if t["TableName"] == name)


def test_tables_their_streams_records_retained_and_writes_per_second(emu, dynamodb):
    create_table(dynamodb, "orders")
    create_table(dynamodb, "customers", "KEYS_ONLY")
    create_table(dynamodb, "audit", None)
    for key in ("a", "b", "c"):
        put(dynamodb, key)
    put(dynamodb, "x", table="customers")
    dynamodb.update_table(TableName="customers", StreamSpecification={"StreamEnabled": False})

    model = dashboard(emu)
    assert [t["TableName"] for t in model["Tables"]] == ["audit", "customers", "orders"]
    orders = table(model, "orders")
    assert (orders["TableStatus"], orders["ItemCount"], orders["WritesPerSecond"]) == ("ACTIVE", 3, 0.3)
    [stream] = orders["Streams"]
    assert (stream["StreamViewType"], stream["StreamStatus"], stream["RecordsRetained"]) == ("NEW_AND_OLD_IMAGES", "ENABLED", 3)
    assert stream["StreamArn"].endswith("/stream/" + stream["StreamLabel"])
    [customers_stream] = table(model, "customers")["Streams"]
    assert (customers_stream["StreamViewType"], customers_stream["StreamStatus"]) == ("KEYS_ONLY", "DISABLED")
    assert table(model, "audit")["Streams"] == []

    emu.clock.advance(11)  # the writes leave the ten-second window
    assert table(dashboard(emu), "orders")["WritesPerSecond"] == 0.0


def test_a_split_and_a_rollover_are_a_tree_of_shards(emu, dynamodb):
    arn = create_table(dynamodb, "orders")["LatestStreamArn"]
    before = emu.clock.now()
    put(dynamodb, "before")
    [root_id] = [s["ShardId"] for s in dashboard(emu)["Tables"][0]["Streams"][0]["Shards"]]
    left, right = emu.split_shard(arn, root_id)
    for i in range(20):
        put(dynamodb, f"after-{i}")
    grandchild = emu.rollover(arn)[0]
    emu.clock.advance(5)

    [root] = table(dashboard(emu), "orders")["Streams"][0]["Shards"]
    since = emu.clock.now() - before  # the 5 s advanced and the real time the puts took (seconds on a busy machine)
    assert (root["ShardId"], root["Open"], root["Records"]) == (root_id, False, 1)
    assert int(root["EndingSequenceNumber"]) >= int(root["StartingSequenceNumber"])
    assert 5 <= root["OldestRecordAgeSeconds"] <= since + 0.1
    assert [child["ShardId"] for child in root["Children"]] == [left, right]
    assert [child["Open"] for child in root["Children"]] == [False, False]  # both rolled over since
    assert sum(child["Records"] for child in root["Children"]) == 20
    assert all(child["ParentShardId"] == root_id for child in root["Children"])
    grandchildren = [g for child in root["Children"] for g in child["Children"]]
    assert grandchild in [g["ShardId"] for g in grandchildren]
    assert all(g["Open"] and g["Records"] == 0 and g["OldestRecordAgeSeconds"] is None for g in grandchildren)


def test_a_mappings_figures_and_positions_after_a_failing_batch(emu, dynamodb):
    arn = create_table(dynamodb, "orders")["LatestStreamArn"]
    sqs = boto3.client("sqs", region_name=REGION)
    queue_url = sqs.create_queue(QueueName="failures")["QueueUrl"]
    queue_arn = sqs.get_queue_attributes(QueueUrl=queue_url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]

    def ship(event, context):
        print(f"shipping {len(event['Records'])} orders")
        if any(r["dynamodb"]["Keys"]["pk"]["S"] == "bad" for r in event["Records"]):
            raise ValueError("cannot ship order bad")

    emu.register_function("ship", ship, timeout=5)
    put(dynamodb, "good")
    put(dynamodb, "bad")
    uuid = boto3.client("lambda", region_name=REGION).create_event_source_mapping(
        EventSourceArn=arn, FunctionName="ship", StartingPosition="TRIM_HORIZON", BatchSize=10,
        MaximumRetryAttempts=1, DestinationConfig={"OnFailure": {"Destination": queue_arn}})["UUID"]
    assert emu.wait_idle(120)["Idle"]

    [mapping] = dashboard(emu)["EventSourceMappings"]
    assert (mapping["UUID"], mapping["FunctionName"], mapping["State"], mapping["BatchSize"]) == (uuid, "ship", "Enabled", 10)
    figures = {name: mapping[name] for name in ("Invocations", "Errors", "Retries", "RecordsSentToOnFailureDestination",
                                                "LastError")}
    assert figures == {"Invocations": 2, "Errors": 2, "Retries": 1, "RecordsSentToOnFailureDestination": 2,
                       "LastError": "ValueError: cannot ship order bad"}
    last = emu.streams.get(arn).open_shards[0].records[-1].sequence_number
    [position] = mapping["Shards"]
    assert (position["State"], position["SequenceNumber"], position["RecordsBehind"]) == ("Processing", str(last), 0)
    assert position["IteratorAgeMilliseconds"] == 0

    put(dynamodb, "later")
    assert emu.wait_idle(120)["Idle"]
    [function] = dashboard(emu)["Functions"]
    assert (function["FunctionName"], function["Runtime"], function["PackageType"]) == ("ship", "python3.11", "Registered callable")
    newest, *failed = function["RecentInvocations"]
    assert newest["Outcome"] == "Succeeded" and "Error" not in newest
    assert [i["Outcome"] for i in failed] == ["Failed", "Failed"]
    for invocation in function["RecentInvocations"]:
        assert invocation["Source"] == uuid and invocation["DurationMs"] >= 0
        assert invocation["LogTail"][0] == f"START RequestId: {invocation['RequestId']} Version: $LATEST"
        assert invocation["LogTail"][-1].startswith(f"REPORT RequestId: {invocation['RequestId']}\tDuration: ")
    assert failed[0]["Error"] == "ValueError: cannot ship order bad"
    log = failed[0]["LogTail"]  # what the registered callable printed, then its error, as Lambda's runtime logs them
    assert log[1:4] == ["shipping 2 orders", "[ERROR] ValueError: cannot ship order bad",
                        "Traceback (most recent call last):"]
    assert log[-3].strip() == 'raise ValueError("cannot ship order bad")' and log[-2].startswith("END RequestId: ")
    assert abs(failed[0]["Started"] - emu.clock.now()) < 60


def test_a_zip_functions_log_tail_holds_what_it_printed(emu):
    from tests.emulator.functions.test_functions import create_function

    lam = boto3.client("lambda", region_name=REGION)
    create_function(lam, "greeter", "def handler(event, context):\n    print('hello', event['name'])\n    return 1\n")
    lam.invoke(FunctionName="greeter", Payload=b'{"name": "eddy"}')
    [function] = dashboard(emu)["Functions"]
    [invocation] = function["RecentInvocations"]
    assert (function["PackageType"], invocation["Outcome"], invocation["Source"]) == ("Zip", "Succeeded", "Invoke")
    assert invocation["LogTail"][1] == "hello eddy"


def test_a_streams_tail_is_the_lines_eddy_tail_prints(emu, dynamodb):
    arn = create_table(dynamodb, "orders")["LatestStreamArn"]
    put(dynamodb, "a", 1)
    put(dynamodb, "a", 2)
    emu.split_shard(arn, emu.streams.get(arn).open_shards[0].shard_id)
    dynamodb.delete_item(TableName="orders", Key={"pk": {"S": "a"}})

    lines = [line["Line"] for line in stream_tail(emu, arn)["Lines"]]
    assert [re.sub(r"^\d\d:\d\d:\d\d ", "", line) for line in lines] == [
        "INSERT  pk='a'  +v=1", "MODIFY  pk='a'  v: 1 -> 2", "REMOVE  pk='a'  -v"]
    assert [line["Line"] for line in stream_tail(emu, arn, limit=1)["Lines"]] == lines[-1:]
    with pytest.raises(ResourceNotFoundException):
        stream_tail(emu, arn.replace("orders", "nothing"))


def test_write_rates_average_over_the_window():
    rates, table_key = WriteRates(window_seconds=4), ("1", "r", "t")
    rates.note(table_key, 2, 100.2)
    rates.note(table_key, 6, 101.9)
    assert rates.per_second(table_key, 102.0) == 2.0
    assert rates.per_second(table_key, 104.0) == 1.5  # second 100 has left the window
    assert rates.per_second(table_key, 106.0) == 0.0
    assert rates.per_second(("1", "r", "other"), 100.0) == 0.0


def test_a_merged_shard_sits_under_its_parent_and_names_the_adjacent_one(emu, dynamodb):
    arn = create_table(dynamodb, "orders")["LatestStreamArn"]
    left, right = emu.split_shard(arn, emu.streams.get(arn).open_shards[0].shard_id)
    merged = emu.merge_shards(arn, left, right)

    [root] = table(dashboard(emu), "orders")["Streams"][0]["Shards"]
    first, second = root["Children"]
    assert (first["ShardId"], second["ShardId"]) == (left, right)
    [child] = first["Children"]
    assert (child["ShardId"], child["ParentShardId"], child["AdjacentParentShardId"]) == (merged, left, right)
    assert second["Children"] == []


def test_a_kinesis_mappings_positions_and_a_disabled_mappings_checkpoints(emu):
    kinesis = boto3.client("kinesis", region_name=REGION)
    kinesis.create_stream(StreamName="events", ShardCount=2)
    arn = kinesis.describe_stream_summary(StreamName="events")["StreamDescriptionSummary"]["StreamARN"]
    emu.register_function("count", lambda event, context: None)
    lam = boto3.client("lambda", region_name=REGION)
    uuid = lam.create_event_source_mapping(EventSourceArn=arn, FunctionName="count", StartingPosition="TRIM_HORIZON",
                                           BatchSize=5)["UUID"]
    delivered = [kinesis.put_record(StreamName="events", Data=b"{}", PartitionKey=f"key-{i}") for i in range(4)]
    assert emu.wait_idle(120)["Idle"]
    lam.update_event_source_mapping(UUID=uuid, Enabled=False)
    waiting = [kinesis.put_record(StreamName="events", Data=b"{}", PartitionKey=f"key-{i}") for i in range(3)]

    [mapping] = dashboard(emu)["EventSourceMappings"]
    assert (mapping["State"], mapping["FunctionName"], mapping["RecordsDelivered"]) == ("Disabled", "count", 4)
    shard_ids = sorted(s["ShardId"] for s in kinesis.list_shards(StreamName="events")["Shards"])
    assert [p["ShardId"] for p in mapping["Shards"]] == shard_ids
    for position in mapping["Shards"]:
        shard_id = position["ShardId"]
        done = [int(r["SequenceNumber"]) for r in delivered if r["ShardId"] == shard_id]
        assert position["State"] == "Waiting"  # disabled: no lanes run, the checkpoints say where it stands
        assert position["SequenceNumber"] == (str(max(done)) if done else None)
        assert position["RecordsBehind"] == sum(r["ShardId"] == shard_id for r in waiting)


def test_a_global_tables_replicas_and_the_writes_on_their_way(emu, dynamodb):
    create_table(dynamodb, "scores")
    dynamodb.update_table(TableName="scores", ReplicaUpdates=[{"Create": {"RegionName": "eu-west-1"}}])
    emu.replication.pause("eu-west-1")
    put(dynamodb, "a", table="scores")
    put(dynamodb, "b", table="scores")
    assert dashboard(emu)["GlobalTables"] == [{"TableName": "scores", "AccountId": "123456789012", "Replicas": [
        {"RegionName": REGION, "ReplicaStatus": "ACTIVE", "PendingWrites": 0, "Paused": False},
        {"RegionName": "eu-west-1", "ReplicaStatus": "CREATING", "PendingWrites": 2, "Paused": True}]}]
    emu.clock.advance(31)
    emu.replication.resume("eu-west-1")
    assert emu.replication.wait_replicated(30)["Converged"]
    assert [replica["PendingWrites"] for replica in dashboard(emu)["GlobalTables"][0]["Replicas"]] == [0, 0]


def test_a_queue_mappings_figures_with_its_queue_in_flight_and_dead_letter_counts(emu):
    sqs, lam = boto3.client("sqs", region_name="us-east-1"), boto3.client("lambda", region_name="us-east-1")
    dlq = sqs.create_queue(QueueName="jobs-dlq")["QueueUrl"]
    dlq_arn = sqs.get_queue_attributes(QueueUrl=dlq, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    url = sqs.create_queue(QueueName="jobs", Attributes={"VisibilityTimeout": "300", "RedrivePolicy": (
        '{"deadLetterTargetArn": "%s", "maxReceiveCount": "1"}' % dlq_arn)})["QueueUrl"]
    arn = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]

    def handler(event, context):
        raise RuntimeError("cannot do " + event["Records"][0]["body"])

    emu.register_function("jobs", handler)
    uuid = lam.create_event_source_mapping(EventSourceArn=arn, FunctionName="jobs", BatchSize=1)["UUID"]
    sqs.send_message(QueueUrl=url, MessageBody="first")
    assert emu.wait_idle(30)["Idle"]
    [mapping] = [m for m in dashboard(emu)["EventSourceMappings"] if m["UUID"] == uuid]
    assert (mapping["Invocations"], mapping["Errors"], mapping["LastError"]) == (1, 1, "RuntimeError: cannot do first")
    assert mapping["Shards"] == []
    assert mapping["Queue"] == {"QueueArn": arn, "ApproximateNumberOfMessages": 0,
                                "ApproximateNumberOfMessagesNotVisible": 1, "ApproximateNumberOfMessagesDelayed": 0,
                                "DeadLetterQueue": {"QueueArn": dlq_arn, "Messages": 0}}
    emu.clock.advance(301)  # received once = maxReceiveCount: the next receive moves it to the dead-letter queue
    assert emu.wait_idle(30)["Idle"]
    [mapping] = [m for m in dashboard(emu)["EventSourceMappings"] if m["UUID"] == uuid]
    assert mapping["Queue"]["ApproximateNumberOfMessagesNotVisible"] == 0
    assert mapping["Queue"]["DeadLetterQueue"] == {"QueueArn": dlq_arn, "Messages": 1}

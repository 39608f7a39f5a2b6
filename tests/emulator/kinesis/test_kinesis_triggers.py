"""Event source mappings on Kinesis data streams: the Kinesis event, starting positions, filters, failures, and
lineage across SplitShard / MergeShards (children only after all their parents, per-key order kept)."""

from __future__ import annotations

import json
import random

import pytest

from tests.emulator.functions.test_functions import create_function
from tests.emulator.trigger_helpers import delivered_batches, wait_idle

REPORTER = '''
import base64, json, os, boto3
sqs = boto3.client("sqs")
def handler(event, context):
    batch = [[r["kinesis"]["partitionKey"], json.loads(base64.b64decode(r["kinesis"]["data"])), r["eventID"],
              r["eventSourceARN"], r["eventSource"], r["eventName"]] for r in event["Records"]]
    sqs.send_message(QueueUrl=os.environ["QUEUE_URL"], MessageBody=json.dumps(batch))
    fail = os.environ.get("FAIL_KEY")
    if fail and any(key == fail for key, *_ in batch):
        raise RuntimeError("failing on " + fail)
'''


def kinesis_with_reporter(door, shards: int = 1, fail_key: str | None = None):
    kinesis, lam, sqs = door.client("kinesis"), door.client("lambda"), door.client("sqs")
    kinesis.create_stream(StreamName="events", ShardCount=shards)
    arn = kinesis.describe_stream_summary(StreamName="events")["StreamDescriptionSummary"]["StreamARN"]
    queue_url = sqs.create_queue(QueueName="deliveries")["QueueUrl"]
    variables = {"QUEUE_URL": queue_url, **({"FAIL_KEY": fail_key} if fail_key else {})}
    create_function(lam, "reporter", REPORTER, Environment={"Variables": variables}, Timeout=10)
    return kinesis, lam, sqs, arn, queue_url


def put(kinesis, key: str, value: int) -> None:
    kinesis.put_record(StreamName="events", PartitionKey=key, Data=json.dumps({"key": key, "n": value}).encode())


def test_a_mapping_delivers_the_kinesis_event(door):
    kinesis, lam, sqs, arn, queue_url = kinesis_with_reporter(door, shards=2)
    mapping = lam.create_event_source_mapping(EventSourceArn=arn, FunctionName="reporter",
                                              StartingPosition="TRIM_HORIZON", BatchSize=10000)
    assert (mapping["EventSourceArn"], mapping["BatchSize"], mapping["StartingPosition"]) == (arn, 10000, "TRIM_HORIZON")
    for n in range(5):
        put(kinesis, "a", n)
    assert wait_idle(door)["Idle"]
    records = [r for batch in delivered_batches(sqs, queue_url) for r in batch]
    assert [r[1]["n"] for r in records] == [0, 1, 2, 3, 4]
    key, data, event_id, source_arn, source, name = records[0]
    assert (key, source_arn, source, name) == ("a", arn, "aws:kinesis", "aws:kinesis:record")
    assert event_id.startswith("shardId-") and ":" in event_id


@pytest.mark.parametrize("position", ["LATEST", "AT_TIMESTAMP"])
def test_latest_and_at_timestamp_skip_what_came_before(door, position):
    kinesis, lam, sqs, arn, queue_url = kinesis_with_reporter(door)
    put(kinesis, "old", 0)
    door.advance(10)
    params = {"StartingPositionTimestamp": door.now() - 1} if position == "AT_TIMESTAMP" else {}
    lam.create_event_source_mapping(EventSourceArn=arn, FunctionName="reporter", StartingPosition=position, **params)
    put(kinesis, "new", 1)
    assert wait_idle(door)["Idle"]
    assert [r[0] for batch in delivered_batches(sqs, queue_url) for r in batch] == ["new"]


def test_at_timestamp_is_for_kinesis_only_and_needs_a_timestamp(door):
    kinesis, lam, sqs, arn, queue_url = kinesis_with_reporter(door)
    with pytest.raises(lam.exceptions.InvalidParameterValueException, match="StartingPositionTimestamp"):
        lam.create_event_source_mapping(EventSourceArn=arn, FunctionName="reporter", StartingPosition="AT_TIMESTAMP")
    with pytest.raises(lam.exceptions.InvalidParameterValueException, match="Stream not found"):
        lam.create_event_source_mapping(EventSourceArn=arn.replace("events", "nope"), FunctionName="reporter",
                                        StartingPosition="LATEST")


def test_filters_match_the_decoded_data(door):
    kinesis, lam, sqs, arn, queue_url = kinesis_with_reporter(door)
    lam.create_event_source_mapping(EventSourceArn=arn, FunctionName="reporter", StartingPosition="TRIM_HORIZON",
                                    FilterCriteria={"Filters": [{"Pattern": json.dumps({"data": {"n": [{"numeric": [">", 2]}]}})}]})
    for n in range(6):
        put(kinesis, "k", n)
    assert wait_idle(door)["Idle"]
    assert [r[1]["n"] for batch in delivered_batches(sqs, queue_url) for r in batch] == [3, 4, 5]


def test_a_failing_batch_goes_to_the_destination_with_kinesis_batch_info(door):
    kinesis, lam, sqs, arn, queue_url = kinesis_with_reporter(door, fail_key="bad")
    failures = sqs.create_queue(QueueName="failures")["QueueUrl"]
    failures_arn = sqs.get_queue_attributes(QueueUrl=failures, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    lam.create_event_source_mapping(EventSourceArn=arn, FunctionName="reporter", StartingPosition="TRIM_HORIZON",
                                    MaximumRetryAttempts=1, BisectBatchOnFunctionError=True,
                                    DestinationConfig={"OnFailure": {"Destination": failures_arn}})
    for key in ["ok1", "bad", "ok2"]:
        put(kinesis, key, 0)
    assert wait_idle(door)["Idle"]
    record = json.loads(sqs.receive_message(QueueUrl=failures)["Messages"][0]["Body"])
    info = record["KinesisBatchInfo"]
    assert (info["batchSize"], info["streamArn"], info["startSequenceNumber"]) == (1, arn, info["endSequenceNumber"])
    assert record["requestContext"]["condition"] == "RetryAttemptsExhausted"
    delivered = {r[0] for batch in delivered_batches(sqs, queue_url) for r in batch}
    assert delivered == {"ok1", "bad", "ok2"}


def _open_shards(kinesis) -> list[dict]:
    shards = kinesis.list_shards(StreamName="events")["Shards"]
    return sorted((s for s in shards if "EndingSequenceNumber" not in s["SequenceNumberRange"]),
                  key=lambda s: int(s["HashKeyRange"]["StartingHashKey"]))


def test_random_splits_and_merges_under_writes_keep_lineage_and_order_per_key(door):
    kinesis, lam, sqs, arn, queue_url = kinesis_with_reporter(door, shards=2)
    lam.create_event_source_mapping(EventSourceArn=arn, FunctionName="reporter", StartingPosition="TRIM_HORIZON",
                                    BatchSize=7, ParallelizationFactor=2)
    rng = random.Random(14)
    keys = [f"key-{i}" for i in range(12)]
    sent = {key: 0 for key in keys}
    merges = splits = 0
    for _ in range(12):
        for _ in range(15):
            key = rng.choice(keys)
            put(kinesis, key, sent[key])
            sent[key] += 1
        shards = _open_shards(kinesis)
        if len(shards) > 1 and rng.random() < 0.5:
            i = rng.randrange(len(shards) - 1)
            kinesis.merge_shards(StreamName="events", ShardToMerge=shards[i]["ShardId"],
                                 AdjacentShardToMerge=shards[i + 1]["ShardId"])
            merges += 1
        else:
            shard = rng.choice(shards)
            low, high = int(shard["HashKeyRange"]["StartingHashKey"]), int(shard["HashKeyRange"]["EndingHashKey"])
            kinesis.split_shard(StreamName="events", ShardToSplit=shard["ShardId"],
                                NewStartingHashKey=str((low + high) // 2 + 1))
            splits += 1
    assert merges and splits
    kinesis.update_shard_count(StreamName="events", TargetShardCount=1, ScalingType="UNIFORM_SCALING")
    assert len(_open_shards(kinesis)) == 1
    for key in keys:
        put(kinesis, key, sent[key])
        sent[key] += 1
    assert wait_idle(door, timeout=60)["Idle"]
    deliveries = [r for batch in delivered_batches(sqs, queue_url) for r in batch]
    seen: dict[str, list[int]] = {}
    for key, data, *_ in deliveries:
        seen.setdefault(key, []).append(data["n"])
    assert seen == {key: list(range(count)) for key, count in sent.items() if count}
    # a child shard's first delivery comes after the last delivery of each of its parents
    order: dict[str, list[int]] = {}
    for index, record in enumerate(deliveries):
        order.setdefault(record[2].split(":")[0], []).append(index)
    all_shards = kinesis.list_shards(StreamName="events")["Shards"]
    assert any("AdjacentParentShardId" in s for s in all_shards)
    for shard in all_shards:
        for parent in (shard.get("ParentShardId"), shard.get("AdjacentParentShardId")):
            if parent in order and shard["ShardId"] in order:
                assert max(order[parent]) < min(order[shard["ShardId"]])


def test_disable_and_enable_resume_from_the_checkpoint_after_a_merge(door):
    kinesis, lam, sqs, arn, queue_url = kinesis_with_reporter(door, shards=2)
    uuid = lam.create_event_source_mapping(EventSourceArn=arn, FunctionName="reporter",
                                           StartingPosition="TRIM_HORIZON")["UUID"]
    put(kinesis, "a", 0)
    assert wait_idle(door)["Idle"]
    lam.update_event_source_mapping(UUID=uuid, Enabled=False)
    shards = _open_shards(kinesis)
    kinesis.merge_shards(StreamName="events", ShardToMerge=shards[0]["ShardId"], AdjacentShardToMerge=shards[1]["ShardId"])
    put(kinesis, "a", 1)
    lam.update_event_source_mapping(UUID=uuid, Enabled=True)
    assert wait_idle(door)["Idle"]
    assert [r[1]["n"] for batch in delivered_batches(sqs, queue_url) for r in batch] == [0, 1]


def test_a_tables_changes_reach_a_handler_through_its_kinesis_destination(door):
    kinesis, lam, sqs, arn, queue_url = kinesis_with_reporter(door, shards=2)
    dynamodb = door.client("dynamodb")
    dynamodb.create_table(TableName="orders", BillingMode="PAY_PER_REQUEST",
                          KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                          AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}])
    dynamodb.enable_kinesis_streaming_destination(TableName="orders", StreamArn=arn)
    lam.create_event_source_mapping(EventSourceArn=arn, FunctionName="reporter", StartingPosition="TRIM_HORIZON")
    for n in range(3):
        dynamodb.put_item(TableName="orders", Item={"pk": {"S": "a"}, "n": {"N": str(n)}})
    dynamodb.delete_item(TableName="orders", Key={"pk": {"S": "a"}})
    assert wait_idle(door)["Idle"]
    changes = [r[1] for batch in delivered_batches(sqs, queue_url) for r in batch]
    assert [c["eventName"] for c in changes] == ["INSERT", "MODIFY", "MODIFY", "REMOVE"]
    assert [c["dynamodb"]["OldImage"]["n"]["N"] for c in changes[1:]] == ["0", "1", "2"]

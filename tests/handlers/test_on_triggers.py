"""The handlers run by Eddy's event source mappings, end to end: writes in, handler effects out."""

from __future__ import annotations

import random

import boto3

from eddy.handlers import replicate, search_index, ttl_archive
from tests.emulator.helpers import create_table

REGION = "us-east-1"


def scan(dynamodb, table: str) -> dict[str, dict]:
    items = dynamodb.scan(TableName=table)["Items"]
    return {item["pk"]["S"]: {k: v for k, v in item.items() if k != replicate.SEQUENCE} for item in items}


def test_replica_converges_to_the_source_through_splits_and_retries(emu, dynamodb):
    lam = boto3.client("lambda", region_name=REGION)
    arn = create_table(dynamodb, "orders")["LatestStreamArn"]
    create_table(dynamodb, "replica", view_type=None)
    flaky = {"left": 3}

    def flaky_replicate(event, context):  # the first invocations fail: redelivery must be harmless
        if flaky["left"]:
            flaky["left"] -= 1
            replicate.handler(event, context)
            raise RuntimeError("fail after writing")
        return replicate.handler(event, context)

    emu.register_function("replicate", flaky_replicate, environment={"REPLICA_TABLE": "replica"})
    lam.create_event_source_mapping(EventSourceArn=arn, FunctionName="replicate", StartingPosition="TRIM_HORIZON",
                                    BatchSize=7, ParallelizationFactor=3)
    rng = random.Random(7)
    for step in range(300):
        key = f"k{rng.randrange(25)}"
        roll = rng.random()
        if roll < 0.5:
            dynamodb.put_item(TableName="orders", Item={"pk": {"S": key}, "n": {"N": str(step)}, "s": {"S": "x" * rng.randrange(5)}})
        elif roll < 0.8:
            dynamodb.update_item(TableName="orders", Key={"pk": {"S": key}}, UpdateExpression="ADD n :one",
                                 ExpressionAttributeValues={":one": {"N": "1"}})
        else:
            dynamodb.delete_item(TableName="orders", Key={"pk": {"S": key}})
        if step == 150:
            emu.split_shard(arn, emu.streams.get(arn).open_shards[0].shard_id)
        if step == 220:
            emu.rollover(arn)
    assert emu.wait_idle(120)["Idle"]
    assert scan(dynamodb, "replica") == scan(dynamodb, "orders")


def test_search_index_and_ttl_archive_on_their_mappings(emu, dynamodb, tmp_path):
    lam = boto3.client("lambda", region_name=REGION)
    s3 = boto3.client("s3", region_name=REGION)
    s3.create_bucket(Bucket="archive")
    arn = create_table(dynamodb, "sessions")["LatestStreamArn"]
    dynamodb.update_time_to_live(TableName="sessions", TimeToLiveSpecification={"Enabled": True, "AttributeName": "expires"})
    index = str(tmp_path / "index.sqlite")
    emu.register_function("index", search_index.handler,
                          environment={"SEARCH_INDEX_PATH": index, "SEARCH_ATTRIBUTES": "title"})
    emu.register_function("archive", ttl_archive.handler, environment={"ARCHIVE_BUCKET": "archive"})
    for name in ("index", "archive"):
        lam.create_event_source_mapping(EventSourceArn=arn, FunctionName=name, StartingPosition="TRIM_HORIZON")
    now = int(emu.clock.now())
    dynamodb.put_item(TableName="sessions", Item={"pk": {"S": "s1"}, "title": {"S": "red fox"}, "expires": {"N": str(now + 60)}})
    dynamodb.put_item(TableName="sessions", Item={"pk": {"S": "s2"}, "title": {"S": "blue fox"}})
    dynamodb.delete_item(TableName="sessions", Key={"pk": {"S": "s2"}})
    emu.clock.advance(61)
    assert emu.sweep_ttl() == 1
    assert emu.wait_idle(120)["Idle"]
    assert search_index.search(index, "fox") == []
    [archived] = s3.list_objects_v2(Bucket="archive")["Contents"]
    body = s3.get_object(Bucket="archive", Key=archived["Key"])["Body"].read().decode()
    assert '"s1"' in body and '"s2"' not in body

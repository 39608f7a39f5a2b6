"""Durable state: a clean stop and restart keeps everything, compared field by field; damage is detected."""

from __future__ import annotations

import json
from pathlib import Path

import boto3
import pytest

from eddy import emulate
from eddy.emulator.storage.wal import CorruptStateError
from tests.emulator.helpers import create_table, read_stream, shards
from tests.emulator.functions.test_functions import create_function

REGION = "us-east-1"


def clients():
    return (boto3.client("dynamodb", region_name=REGION), boto3.client("dynamodbstreams", region_name=REGION),
            boto3.client("lambda", region_name=REGION))


def build_state(emu) -> dict:
    """A bit of everything: a table with a GSI, TTL, items and a split stream, a zip function, a mapping."""
    dynamodb, streams, lam = clients()
    dynamodb.create_table(
        TableName="orders", BillingMode="PAY_PER_REQUEST",
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "sk", "AttributeType": "N"},
                              {"AttributeName": "status", "AttributeType": "S"}],
        GlobalSecondaryIndexes=[{"IndexName": "by-status", "KeySchema": [{"AttributeName": "status", "KeyType": "HASH"}],
                                 "Projection": {"ProjectionType": "ALL"}}],
        StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"})
    dynamodb.update_time_to_live(TableName="orders", TimeToLiveSpecification={"Enabled": True, "AttributeName": "expires"})
    dynamodb.tag_resource(ResourceArn=dynamodb.describe_table(TableName="orders")["Table"]["TableArn"],
                          Tags=[{"Key": "team", "Value": "streams"}])
    for i in range(6):
        dynamodb.put_item(TableName="orders", Item={"pk": {"S": f"c{i % 2}"}, "sk": {"N": str(i)},
                                                    "status": {"S": "open" if i % 3 else "done"}})
    arn = dynamodb.describe_table(TableName="orders")["Table"]["LatestStreamArn"]
    emu.split_shard(arn, shards(streams, arn)[0]["ShardId"])
    dynamodb.delete_item(TableName="orders", Key={"pk": {"S": "c0"}, "sk": {"N": "0"}})
    create_table(dynamodb, "plain", view_type=None)
    dynamodb.put_item(TableName="plain", Item={"pk": {"S": "p"}, "v": {"L": [{"N": "1"}, {"M": {"b": {"B": b"\x01"}}}]}})
    emu.clock.advance(1234)
    create_function(lam, "echo", "def handler(event, context):\n    return {'echo': event}\n",
                    Environment={"Variables": {"MODE": "kept"}}, Timeout=9)
    lam.create_event_source_mapping(EventSourceArn=arn, FunctionName="echo", StartingPosition="TRIM_HORIZON",
                                    BatchSize=3, MaximumRetryAttempts=4, Enabled=False,
                                    FilterCriteria={"Filters": [{"Pattern": json.dumps({"eventName": ["INSERT"]})}]})
    return {"arn": arn}


def observe(emu, arn: str) -> dict:
    """Everything a client can see, for comparison across a restart."""
    dynamodb, streams, lam = clients()
    table = dynamodb.describe_table(TableName="orders")["Table"]
    for volatile in ("ItemCount", "TableSizeBytes"):
        table.pop(volatile, None)
    return {
        "table": table,
        "ttl": dynamodb.describe_time_to_live(TableName="orders")["TimeToLiveDescription"],
        "tags": dynamodb.list_tags_of_resource(ResourceArn=table["TableArn"])["Tags"],
        "items": sorted(json.dumps(i, sort_keys=True) for i in dynamodb.scan(TableName="orders")["Items"]),
        "by_status": sorted(json.dumps(i, sort_keys=True) for i in dynamodb.query(
            TableName="orders", IndexName="by-status", KeyConditionExpression="#s = :s",
            ExpressionAttributeNames={"#s": "status"}, ExpressionAttributeValues={":s": {"S": "open"}})["Items"]),
        "plain": dynamodb.scan(TableName="plain")["Items"],
        "tables": dynamodb.list_tables()["TableNames"],
        "streams": streams.list_streams()["Streams"],
        "description": streams.describe_stream(StreamArn=arn)["StreamDescription"],
        "records": read_stream(streams, arn),
        "function": lam.get_function_configuration(FunctionName="echo"),
        "mappings": lam.list_event_source_mappings()["EventSourceMappings"],
        "clock_offset": emu.clock.offset,
    }


def without_metadata(view: dict) -> dict:
    view = json.loads(json.dumps(view, default=str))
    view["function"].pop("ResponseMetadata", None)
    return view


def test_a_clean_stop_and_restart_keeps_everything(tmp_path):
    with emulate(state_dir=tmp_path, housekeeping_interval=None) as emu:
        arn = build_state(emu)["arn"]
        before = without_metadata(observe(emu, arn))
        next_sequence = emu.sequence_numbers.last
    with emulate(state_dir=tmp_path, housekeeping_interval=None) as emu:
        after = without_metadata(observe(emu, arn))
        assert after == before
        dynamodb, streams, lam = clients()
        dynamodb.put_item(TableName="orders", Item={"pk": {"S": "new"}, "sk": {"N": "1"}, "status": {"S": "open"}})
        newest = max(int(r["dynamodb"]["SequenceNumber"]) for r in read_stream(streams, arn))
        assert int(newest) > next_sequence  # numbering carries on, never reused
        assert json.loads(lam.invoke(FunctionName="echo", Payload=b'{"x": 1}')["Payload"].read()) == {"echo": {"x": 1}}


def test_recovery_replays_the_log_after_the_snapshot(tmp_path):
    """With a snapshot every few entries, recovery loads the newest snapshot and replays only what follows."""
    with emulate(state_dir=tmp_path, housekeeping_interval=None, snapshot_every=7) as emu:
        dynamodb, streams, _ = clients()
        arn = create_table(dynamodb)["LatestStreamArn"]
        for i in range(40):
            dynamodb.put_item(TableName="orders", Item={"pk": {"S": f"k{i % 9}"}, "n": {"N": str(i)}})
        assert len(list((tmp_path / "wal").glob("*.log"))) == 1
        assert len(list((tmp_path / "snapshots").glob("*.snapshot"))) == 1
        before = read_stream(streams, arn)
        emu.persistence.close = lambda: None  # stop as a crash would: no final snapshot
    with emulate(state_dir=tmp_path, housekeeping_interval=None) as emu:
        dynamodb, streams, _ = clients()
        assert read_stream(streams, arn) == before
        assert sorted(int(i["n"]["N"]) for i in dynamodb.scan(TableName="orders")["Items"]) == list(range(31, 40))


def test_a_torn_segment_tail_is_cut_off(tmp_path):
    with emulate(state_dir=tmp_path, housekeeping_interval=None) as emu:
        dynamodb, streams, _ = clients()
        arn = create_table(dynamodb)["LatestStreamArn"]
        for key in ("a", "b"):
            dynamodb.put_item(TableName="orders", Item={"pk": {"S": key}})
        emu.persistence.close = lambda: None
    [segment] = list(tmp_path.rglob("*.jsonl"))
    with open(segment, "ab") as torn:
        torn.write(b'{"table": "orders", "shard": "shardId-0')  # a crash in the middle of a record
    with emulate(state_dir=tmp_path, housekeeping_interval=None):
        dynamodb, streams, _ = clients()
        assert [r["dynamodb"]["Keys"]["pk"]["S"] for r in read_stream(streams, arn)] == ["a", "b"]
        dynamodb.put_item(TableName="orders", Item={"pk": {"S": "c"}})
        assert [r["dynamodb"]["Keys"]["pk"]["S"] for r in read_stream(streams, arn)] == ["a", "b", "c"]
    assert all(line.endswith(b"}") for line in segment.read_bytes().splitlines())


def test_a_torn_log_tail_is_cut_off_and_the_unacknowledged_write_is_gone(tmp_path):
    with emulate(state_dir=tmp_path, housekeeping_interval=None, snapshot_every=10**9) as emu:
        dynamodb, streams, _ = clients()
        arn = create_table(dynamodb)["LatestStreamArn"]
        for key in ("a", "b"):
            dynamodb.put_item(TableName="orders", Item={"pk": {"S": key}})
        emu.persistence.close = lambda: None
    [log] = list((tmp_path / "wal").glob("*.log"))
    data = log.read_bytes()
    log.write_bytes(data[:-20])  # the last commit ("b") was being written when the process died
    with emulate(state_dir=tmp_path, housekeeping_interval=None):
        dynamodb, streams, _ = clients()
        assert [i["pk"]["S"] for i in dynamodb.scan(TableName="orders")["Items"]] == ["a"]
        assert [r["dynamodb"]["Keys"]["pk"]["S"] for r in read_stream(streams, arn)] == ["a"]


def test_a_corrupted_snapshot_stops_start_up_naming_the_file(tmp_path):
    with emulate(state_dir=tmp_path, housekeeping_interval=None):
        create_table(clients()[0])
    [snapshot] = list((tmp_path / "snapshots").glob("*.snapshot"))
    data = bytearray(snapshot.read_bytes())
    data[len(data) // 2] ^= 0x01
    snapshot.write_bytes(bytes(data))
    with pytest.raises(CorruptStateError) as corrupt:
        with emulate(state_dir=tmp_path, housekeeping_interval=None):
            pass
    assert str(snapshot) in str(corrupt.value)


def test_a_corrupt_line_inside_the_log_stops_start_up_naming_the_file(tmp_path):
    with emulate(state_dir=tmp_path, housekeeping_interval=None, snapshot_every=10**9) as emu:
        dynamodb = clients()[0]
        create_table(dynamodb)
        for key in ("a", "b", "c"):
            dynamodb.put_item(TableName="orders", Item={"pk": {"S": key}})
        emu.persistence.close = lambda: None
    [log] = list((tmp_path / "wal").glob("*.log"))
    lines = log.read_bytes().splitlines(keepends=True)
    index = next(i for i, line in enumerate(lines) if b'{"S":"a"}' in line)
    assert index < len(lines) - 1
    lines[index] = lines[index].replace(b'{"S":"a"}', b'{"S":"z"}')  # the checksum no longer matches
    log.write_bytes(b"".join(lines))
    with pytest.raises(CorruptStateError) as corrupt:
        with emulate(state_dir=tmp_path, housekeeping_interval=None):
            pass
    assert str(log) in str(corrupt.value) and f"line {index + 1}" in str(corrupt.value)


def test_the_state_directory_stays_bounded_under_a_steady_workload(tmp_path):
    with emulate(state_dir=tmp_path, housekeeping_interval=None, snapshot_every=50, segment_max_bytes=2000) as emu:
        dynamodb = clients()[0]
        create_table(dynamodb)

        def size() -> int:
            return sum(p.stat().st_size for p in Path(tmp_path).rglob("*") if p.is_file())

        sizes = []
        for hour in range(60):
            for i in range(20):
                dynamodb.put_item(TableName="orders", Item={"pk": {"S": f"k{i}"}, "n": {"N": str(hour)}})
            emu.clock.advance(3600)
            emu.housekeeping()
            sizes.append(size())
        assert max(sizes[30:]) <= 1.5 * max(sizes[:30])  # a day's records, not everything ever written


def test_mappings_resume_from_their_checkpoints_after_a_restart(tmp_path):
    seen: list[str] = []

    def handler(event, context):
        seen.extend(r["dynamodb"]["Keys"]["pk"]["S"] for r in event["Records"])

    with emulate(state_dir=tmp_path, housekeeping_interval=None) as emu:
        dynamodb, _, lam = clients()
        arn = create_table(dynamodb)["LatestStreamArn"]
        emu.register_function("collect", handler)
        lam.create_event_source_mapping(EventSourceArn=arn, FunctionName="collect", StartingPosition="TRIM_HORIZON")
        for key in ("a", "b"):
            dynamodb.put_item(TableName="orders", Item={"pk": {"S": key}})
        assert emu.wait_idle(120)["Idle"]
    with emulate(state_dir=tmp_path, housekeeping_interval=None) as emu:
        emu.register_function("collect", handler)  # a registered callable is registered again after a restart
        dynamodb, _, lam = clients()
        dynamodb.put_item(TableName="orders", Item={"pk": {"S": "c"}})
        assert emu.wait_idle(120)["Idle"]
        assert [m["State"] for m in lam.list_event_source_mappings()["EventSourceMappings"]] == ["Enabled"]
    assert seen == ["a", "b", "c"]


def test_tumbling_window_state_survives_a_restart(tmp_path):
    events: list[dict] = []

    def handler(event, context):
        events.append(event)
        return {"state": {"count": event["state"].get("count", 0) + len(event["Records"])}}

    with emulate(state_dir=tmp_path, housekeeping_interval=None) as emu:
        dynamodb, _, lam = clients()
        arn = create_table(dynamodb)["LatestStreamArn"]
        emu.register_function("window", handler)
        lam.create_event_source_mapping(EventSourceArn=arn, FunctionName="window", StartingPosition="TRIM_HORIZON",
                                        TumblingWindowInSeconds=600)
        emu.clock.advance(600 - emu.clock.now() % 600 + 1)
        for key in ("a", "b"):
            dynamodb.put_item(TableName="orders", Item={"pk": {"S": key}})
            assert emu.wait_idle(120)["Idle"]
    with emulate(state_dir=tmp_path, housekeeping_interval=None) as emu:
        emu.register_function("window", handler)
        dynamodb, _, _ = clients()
        dynamodb.put_item(TableName="orders", Item={"pk": {"S": "c"}})
        assert emu.wait_idle(120)["Idle"]
        emu.clock.advance(600)
        assert emu.wait_idle(120)["Idle"]
    final = events[-1]
    assert final["isFinalInvokeForWindow"] and final["state"] == {"count": 3}


def test_items_of_a_binary_keyed_table_are_found_by_their_keys_after_a_restart(tmp_path):
    """A restored item is kept as its image's text with its key as moto's parser shapes a request's (a binary key
    as bytes): GetItem by that key finds it, a filter on a binary attribute reads bytes, and a delete removes it
    (before, a restored binary key was its base64 text, which no request's key equals)."""
    dynamodb, _, _ = clients()
    item = {"pk": {"B": b"\x01\x02"}, "sk": {"B": b"\xff"}, "v": {"B": b"\x05\x06"}, "n": {"N": "1"}}
    with emulate(state_dir=tmp_path, housekeeping_interval=None):
        dynamodb.create_table(
            TableName="blobs", BillingMode="PAY_PER_REQUEST",
            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
            AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "B"},
                                  {"AttributeName": "sk", "AttributeType": "B"}])
        dynamodb.put_item(TableName="blobs", Item=item)
    key = {"pk": item["pk"], "sk": item["sk"]}
    with emulate(state_dir=tmp_path, housekeeping_interval=None):
        assert dynamodb.get_item(TableName="blobs", Key=key)["Item"] == item
        assert dynamodb.scan(TableName="blobs", FilterExpression="begins_with(v, :p)",
                             ExpressionAttributeValues={":p": {"B": b"\x05"}})["Items"] == [item]
        assert dynamodb.update_item(TableName="blobs", Key=key, UpdateExpression="SET n = n + :one",
                                    ExpressionAttributeValues={":one": {"N": "1"}}, ReturnValues="ALL_NEW",
                                    )["Attributes"] == {**item, "n": {"N": "2"}}
        dynamodb.delete_item(TableName="blobs", Key=key)
        assert dynamodb.scan(TableName="blobs")["Items"] == []
    with emulate(state_dir=tmp_path, housekeeping_interval=None):
        assert dynamodb.scan(TableName="blobs")["Items"] == []

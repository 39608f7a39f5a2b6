"""Shards with lineage: rollover on the clock, splits on load and on demand, order per item across them."""

from __future__ import annotations

import pytest
from botocore.exceptions import ClientError

from tests.conftest import ControlError
from tests.emulator.helpers import create_table, read_shard, read_stream, shards


def put(dynamodb, key: str, value: int) -> None:
    dynamodb.put_item(TableName="orders", Item={"pk": {"S": key}, "v": {"N": str(value)}})


def per_key(records: list[dict]) -> dict[str, list[int]]:
    seen: dict[str, list[int]] = {}
    for record in records:
        seen.setdefault(record["dynamodb"]["Keys"]["pk"]["S"], []).append(int(record["dynamodb"]["NewImage"]["v"]["N"]))
    return seen


def test_shards_roll_over_after_four_hours_on_the_clock(door):
    dynamodb, streams = door.client("dynamodb"), door.client("dynamodbstreams")
    arn = create_table(dynamodb)["LatestStreamArn"]
    put(dynamodb, "a", 1)
    door.advance(3 * 3600)
    assert len(shards(streams, arn)) == 1
    door.advance(3600 + 1)
    parent, child = shards(streams, arn)
    assert int(parent["SequenceNumberRange"]["EndingSequenceNumber"]) >= int(parent["SequenceNumberRange"]["StartingSequenceNumber"])
    assert child["ParentShardId"] == parent["ShardId"]
    assert "EndingSequenceNumber" not in child["SequenceNumberRange"]
    assert int(child["SequenceNumberRange"]["StartingSequenceNumber"]) > int(parent["SequenceNumberRange"]["EndingSequenceNumber"])
    put(dynamodb, "a", 2)
    assert [r["dynamodb"]["NewImage"]["v"]["N"] for r in read_shard(streams, arn, parent["ShardId"])] == ["1"]
    assert [r["dynamodb"]["NewImage"]["v"]["N"] for r in read_shard(streams, arn, child["ShardId"])] == ["2"]


def test_rollover_period_is_configurable(door_with):
    with door_with(shard_rollover_seconds=600) as door:
        dynamodb, streams = door.client("dynamodb"), door.client("dynamodbstreams")
        arn = create_table(dynamodb)["LatestStreamArn"]
        door.advance(601)
        assert len(shards(streams, arn)) == 2


def test_rollover_on_demand_closes_every_open_shard(door):
    dynamodb, streams = door.client("dynamodb"), door.client("dynamodbstreams")
    arn = create_table(dynamodb)["LatestStreamArn"]
    [first] = shards(streams, arn)
    halves = door.split(arn, first["ShardId"])
    children = door.rollover(arn)
    listed = {s["ShardId"]: s for s in shards(streams, arn)}
    assert len(listed) == 5
    assert sorted(listed[c]["ParentShardId"] for c in children) == sorted(halves)
    assert [s for s in listed.values() if "EndingSequenceNumber" not in s["SequenceNumberRange"]] == [listed[c] for c in children]


def test_split_on_demand_keeps_each_keys_order_across_lineage(door):
    dynamodb, streams = door.client("dynamodb"), door.client("dynamodbstreams")
    arn = create_table(dynamodb)["LatestStreamArn"]
    keys = [f"k{i}" for i in range(20)]
    for key in keys:
        put(dynamodb, key, 1)
    [parent] = shards(streams, arn)
    children = door.split(arn, parent["ShardId"])
    assert len(children) == 2
    for key in keys:
        put(dynamodb, key, 2)
    grandchildren = door.split(arn, children[0])
    for key in keys:
        put(dynamodb, key, 3)
    listed = {s["ShardId"]: s for s in shards(streams, arn)}
    assert [listed[c]["ParentShardId"] for c in children] == [parent["ShardId"]] * 2
    assert [listed[g]["ParentShardId"] for g in grandchildren] == [children[0]] * 2
    # every key's changes are in order, and each key lives on exactly one line of shards
    records = read_stream(streams, arn)
    assert per_key(records) == {key: [1, 2, 3] for key in keys}
    for shard_id in children + grandchildren:
        for record in read_shard(streams, arn, shard_id):
            assert record["dynamodb"]["Keys"]["pk"]["S"] in keys
    child_keys = [{r["dynamodb"]["Keys"]["pk"]["S"] for r in read_shard(streams, arn, c)} for c in children]
    assert not child_keys[0] & child_keys[1]


def test_split_errors(door):
    dynamodb, streams = door.client("dynamodb"), door.client("dynamodbstreams")
    arn = create_table(dynamodb)["LatestStreamArn"]
    [parent] = shards(streams, arn)
    door.split(arn, parent["ShardId"])
    with pytest.raises(ControlError) as closed:
        door.split(arn, parent["ShardId"])
    assert (closed.value.code, closed.value.status) == ("ValidationException", 400)
    assert closed.value.message == f"Shard {parent['ShardId']} is closed: only an open shard can be split"
    with pytest.raises(ControlError) as unknown:
        door.split(arn, "shardId-00000000000000000000-00000000")
    assert (unknown.value.code, unknown.value.message) == ("ResourceNotFoundException",
                                                           "Requested resource not found: Shard does not exist")
    with pytest.raises(ControlError) as no_stream:
        door.rollover(arn.replace("orders", "nothing"))
    assert no_stream.value.code == "ResourceNotFoundException"


def test_shards_split_under_write_load(door_with):
    with door_with(split_records_per_second=5) as door:
        dynamodb, streams = door.client("dynamodb"), door.client("dynamodbstreams")
        arn = create_table(dynamodb)["LatestStreamArn"]
        # one request, so all six land within the same second of the clock however slow the machine is
        dynamodb.batch_write_item(RequestItems={"orders": [
            {"PutRequest": {"Item": {"pk": {"S": f"k{i}"}, "v": {"N": "1"}}}} for i in range(6)]})
        listed = shards(streams, arn)
        assert len(listed) == 3
        assert [s.get("ParentShardId") for s in listed[1:]] == [listed[0]["ShardId"]] * 2


def test_sequence_numbers_are_digits_increasing_and_a_childs_are_above_its_parents(door):
    dynamodb, streams = door.client("dynamodb"), door.client("dynamodbstreams")
    arn = create_table(dynamodb)["LatestStreamArn"]
    for i in range(5):
        put(dynamodb, "a", i)
    [parent] = shards(streams, arn)
    door.rollover(arn)
    for i in range(5, 8):
        put(dynamodb, "a", i)
    numbers = [r["dynamodb"]["SequenceNumber"] for r in read_stream(streams, arn)]
    assert all(n.isdigit() and 21 <= len(n) <= 40 for n in numbers)
    assert [int(n) for n in numbers] == sorted(int(n) for n in numbers) and len(set(numbers)) == 8
    ending = int(shards(streams, arn)[0]["SequenceNumberRange"]["EndingSequenceNumber"])
    assert int(numbers[4]) <= ending < int(numbers[5])


def test_describe_stream_pages_shards_and_filters_children(door):
    dynamodb, streams = door.client("dynamodb"), door.client("dynamodbstreams")
    arn = create_table(dynamodb)["LatestStreamArn"]
    [root] = shards(streams, arn)
    children = door.split(arn, root["ShardId"])
    door.split(arn, children[0])
    door.split(arn, children[1])
    everything = streams.describe_stream(StreamArn=arn)["StreamDescription"]
    assert len(everything["Shards"]) == 7 and "LastEvaluatedShardId" not in everything
    pages, start = [], None
    while True:
        params = {"StreamArn": arn, "Limit": 3}
        if start:
            params["ExclusiveStartShardId"] = start
        page = streams.describe_stream(**params)["StreamDescription"]
        pages.append([s["ShardId"] for s in page["Shards"]])
        start = page.get("LastEvaluatedShardId")
        if not start:
            break
    assert pages == [[s["ShardId"] for s in everything["Shards"]][i:i + 3] for i in (0, 3, 6)]
    filtered = streams.describe_stream(StreamArn=arn, ShardFilter={"Type": "CHILD_SHARDS", "ShardId": root["ShardId"]})
    assert [s["ShardId"] for s in filtered["StreamDescription"]["Shards"]] == children
    unknown = streams.describe_stream(StreamArn=arn, ExclusiveStartShardId="shardId-00000000000000000000-00000000")
    assert unknown["StreamDescription"]["Shards"] == []
    with pytest.raises(ClientError) as bad_limit:
        streams.describe_stream(StreamArn=arn, Limit=101)
    assert bad_limit.value.response["Error"]["Code"] == "ValidationException"


def test_a_single_hot_key_stops_splitting_once_its_range_is_narrow(emu):
    import boto3

    emu.settings.split_records_per_second = 1
    dynamodb, streams = boto3.client("dynamodb", region_name="us-east-1"), boto3.client("dynamodbstreams", region_name="us-east-1")
    arn = create_table(dynamodb)["LatestStreamArn"]
    for i in range(200):  # every write is over the threshold; all go to one key
        put(dynamodb, "hot", i)
    listed = shards(streams, arn)
    open_shards = [s for s in listed if "EndingSequenceNumber" not in s["SequenceNumberRange"]]
    assert "ParentShardId" not in listed[0] and len({s["ShardId"] for s in listed}) == len(listed)
    assert len(listed) <= 1 + 2 * 64 and len(open_shards) <= 65
    assert [int(r["dynamodb"]["NewImage"]["v"]["N"]) for r in read_stream(streams, arn)] == list(range(200))

"""The engine's shard model knows merge (two adjacent parents, one child), so the pollers' "every parent first"
rule is the same for a DynamoDB stream as for a Kinesis stream."""

from __future__ import annotations

import boto3
import pytest

from eddy import emulate
from tests.conftest import ControlError
from tests.emulator.helpers import create_table, read_shard, shards
from tests.emulator.trigger_helpers import delivered_batches, put, stream_with_reporter, wait_idle


def _open(streams, arn) -> list[dict]:
    return [s for s in shards(streams, arn) if "EndingSequenceNumber" not in s["SequenceNumberRange"]]


def test_a_merged_child_is_delivered_after_both_parents(door):
    setup = stream_with_reporter(door)
    dynamodb, lam, sqs, arn = setup["dynamodb"], setup["lambda"], setup["sqs"], setup["stream_arn"]
    streams = door.client("dynamodbstreams")
    lam.create_event_source_mapping(EventSourceArn=arn, FunctionName="reporter", StartingPosition="TRIM_HORIZON")
    first, second = door.split(arn, _open(streams, arn)[0]["ShardId"])
    for n in range(10):
        put(dynamodb, f"k{n % 4}", n)
    child = door.merge(arn, first, second)
    for n in range(10, 20):
        put(dynamodb, f"k{n % 4}", n)
    described = next(s for s in shards(streams, arn) if s["ShardId"] == child)
    assert described["ParentShardId"] == first
    assert wait_idle(door)["Idle"]
    delivered = [int(r[2]) for batch in delivered_batches(sqs, setup["queue_url"]) for r in batch]
    in_child = {int(r["dynamodb"]["SequenceNumber"]) for r in read_shard(streams, arn, child)}
    in_parents = {int(r["dynamodb"]["SequenceNumber"]) for shard in (first, second) for r in read_shard(streams, arn, shard)}
    assert len(in_child) == len(in_parents) == 10 and sorted(delivered) == sorted(in_child | in_parents)
    positions = {sequence: index for index, sequence in enumerate(delivered)}
    assert max(positions[s] for s in in_parents) < min(positions[s] for s in in_child)


def test_merge_errors(door):
    setup = stream_with_reporter(door)
    arn = setup["stream_arn"]
    streams = door.client("dynamodbstreams")
    parent = _open(streams, arn)[0]["ShardId"]
    first, second = door.split(arn, parent)
    third, fourth = door.split(arn, first)
    with pytest.raises(ControlError, match="adjacent"):
        door.merge(arn, third, second)
    with pytest.raises(ControlError, match="closed"):
        door.merge(arn, first, second)


def test_a_merge_survives_a_restart(tmp_path):
    with emulate(state_dir=tmp_path, housekeeping_interval=None) as emu:
        arn = create_table(boto3.client("dynamodb", region_name="us-east-1"))["LatestStreamArn"]
        streams = boto3.client("dynamodbstreams", region_name="us-east-1")
        first, second = emu.split_shard(arn, _open(streams, arn)[0]["ShardId"])
        child = emu.merge_shards(arn, first, second)
    with emulate(state_dir=tmp_path, housekeeping_interval=None) as emu:
        assert emu.streams.get(arn).shard(child).parent_shard_ids == (first, second)

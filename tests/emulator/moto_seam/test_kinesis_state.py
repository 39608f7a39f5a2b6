"""moto_seam/kinesis/state.py pinned against moto's Kinesis: the constructors it rebuilds streams and shards with
take what it gives them, a shard's number is `_shard_id` behind moto's `shardId-...` name, and a stream's shape
and records written down and restored make the same stream in moto (what persistence relies on)."""

from __future__ import annotations

import inspect

import boto3
from moto import mock_aws
from moto.kinesis.models import Record, Shard, Stream, kinesis_backends

from eddy.emulator.moto_seam.kinesis import state

ACCOUNT, REGION = "123456789012", "us-east-1"


def test_moto_builds_streams_shards_and_records_as_state_py_calls_them():
    assert list(inspect.signature(Stream.__init__).parameters) == [
        "self", "stream_name", "shard_count", "stream_mode", "retention_period_hours", "account_id", "region_name"]
    assert list(inspect.signature(Shard.__init__).parameters) == [
        "self", "shard_id", "starting_hash", "ending_hash", "parent", "adjacent_parent"]
    assert list(inspect.signature(Record.__init__).parameters) == [
        "self", "partition_key", "data", "sequence_number", "explicit_hash_key"]
    assert Shard(7, 0, 1).shard_id == "shardId-000000000007"
    assert Shard(7, 0, 1)._shard_id == 7


@mock_aws
def test_a_stream_written_down_and_restored_is_the_same_stream():
    kinesis = boto3.client("kinesis", region_name=REGION)
    kinesis.create_stream(StreamName="events", ShardCount=2)
    for n in range(4):
        kinesis.put_record(StreamName="events", Data=f"record {n}".encode(), PartitionKey=f"key-{n}")
    (stream,) = state.all_streams()
    shape = state.stream_shape(stream)
    records = [state.record_state(shard, record) for shard in stream.shards.values() for record in shard.records.values()]
    shards_before = kinesis.list_shards(StreamName="events")["Shards"]
    state.delete_stream(stream.arn)
    assert list(state.all_streams()) == []
    state.restore_shape(shape)
    for record in records:
        state.restore_record(kinesis_backends[ACCOUNT][REGION].streams["events"].arn, record)
    (restored,) = state.all_streams()
    assert state.stream_shape(restored) == shape
    assert [state.record_state(shard, record) for shard in restored.shards.values()
            for record in shard.records.values()] == records
    assert kinesis.list_shards(StreamName="events")["Shards"] == shards_before

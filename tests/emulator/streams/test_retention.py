"""Retention: records older than 24 hours (configurable) are trimmed, and reading before the trim horizon fails."""

from __future__ import annotations

import pytest
from botocore.exceptions import ClientError

from tests.emulator.helpers import create_table, read_stream, shards

TRIMMED = ("TrimmedDataAccessException", "The data you are trying to access has been trimmed")


def code_and_message(excinfo):
    error = excinfo.value.response["Error"]
    return error["Code"], error["Message"]


def test_records_past_retention_are_gone(door):
    dynamodb, streams = door.client("dynamodb"), door.client("dynamodbstreams")
    arn = create_table(dynamodb)["LatestStreamArn"]
    dynamodb.put_item(TableName="orders", Item={"pk": {"S": "old"}})
    [shard] = shards(streams, arn)
    old_iterator = streams.get_shard_iterator(StreamArn=arn, ShardId=shard["ShardId"], ShardIteratorType="TRIM_HORIZON")["ShardIterator"]
    old_sequence_number = streams.get_records(ShardIterator=old_iterator)["Records"][0]["dynamodb"]["SequenceNumber"]
    door.advance(3 * 3600)
    dynamodb.put_item(TableName="orders", Item={"pk": {"S": "young"}})
    door.advance(21 * 3600 + 1)  # "old" is now past 24 hours, "young" is not; the shard has rolled over meanwhile

    assert [r["dynamodb"]["Keys"]["pk"]["S"] for r in read_stream(streams, arn)] == ["young"]
    with pytest.raises(ClientError) as at_trimmed:
        streams.get_shard_iterator(StreamArn=arn, ShardId=shard["ShardId"], ShardIteratorType="AT_SEQUENCE_NUMBER",
                                   SequenceNumber=old_sequence_number)
    assert code_and_message(at_trimmed) == TRIMMED


def test_an_iterator_whose_records_were_trimmed_meanwhile_fails(door):
    dynamodb, streams = door.client("dynamodb"), door.client("dynamodbstreams")
    arn = create_table(dynamodb)["LatestStreamArn"]
    dynamodb.put_item(TableName="orders", Item={"pk": {"S": "a"}})
    shard_id = shards(streams, arn)[0]["ShardId"]
    door.advance(24 * 3600 - 10 * 60)
    iterator = streams.get_shard_iterator(StreamArn=arn, ShardId=shard_id, ShardIteratorType="TRIM_HORIZON")["ShardIterator"]
    door.advance(11 * 60)
    with pytest.raises(ClientError) as trimmed:
        streams.get_records(ShardIterator=iterator)
    assert code_and_message(trimmed) == TRIMMED


def test_closed_shards_leave_once_past_retention(door):
    dynamodb, streams = door.client("dynamodb"), door.client("dynamodbstreams")
    arn = create_table(dynamodb)["LatestStreamArn"]
    first = shards(streams, arn)[0]["ShardId"]
    door.advance(5 * 3600)  # rolled over: first is closed
    assert first in [s["ShardId"] for s in shards(streams, arn)]
    door.advance(24 * 3600)
    listed = [s["ShardId"] for s in shards(streams, arn)]
    assert first not in listed and listed


def test_a_disabled_streams_shards_stay_readable_through_retention_then_the_stream_goes(door):
    dynamodb, streams = door.client("dynamodb"), door.client("dynamodbstreams")
    arn = create_table(dynamodb)["LatestStreamArn"]
    dynamodb.put_item(TableName="orders", Item={"pk": {"S": "a"}})
    dynamodb.update_table(TableName="orders", StreamSpecification={"StreamEnabled": False})
    door.advance(23 * 3600)
    assert len(read_stream(streams, arn)) == 1
    door.advance(2 * 3600)
    assert streams.list_streams(TableName="orders")["Streams"] == []
    with pytest.raises(ClientError) as gone:
        streams.describe_stream(StreamArn=arn)
    assert gone.value.response["Error"]["Code"] == "ResourceNotFoundException"


def test_retention_is_configurable(door_with):
    with door_with(retention_seconds=3600) as door:
        dynamodb, streams = door.client("dynamodb"), door.client("dynamodbstreams")
        arn = create_table(dynamodb)["LatestStreamArn"]
        dynamodb.put_item(TableName="orders", Item={"pk": {"S": "a"}})
        door.advance(3601)
        assert read_stream(streams, arn) == []


def test_trimming_deletes_whole_segment_files(tmp_path):
    import boto3

    from eddy import emulate

    with emulate(state_dir=tmp_path, housekeeping_interval=None, segment_max_bytes=1) as emu:
        dynamodb = boto3.client("dynamodb", region_name="us-east-1")
        create_table(dynamodb)
        for i in range(3):
            dynamodb.put_item(TableName="orders", Item={"pk": {"S": f"k{i}"}})
        segments = sorted(tmp_path.rglob("*.jsonl"))
        assert len(segments) == 3
        emu.clock.advance(3600)
        dynamodb.put_item(TableName="orders", Item={"pk": {"S": "later"}})
        emu.clock.advance(23 * 3600 + 1)
        emu.housekeeping()
        remaining = sorted(tmp_path.rglob("*.jsonl"))
        assert [p.name for p in remaining] == [max(remaining).name] and len(remaining) == 1
        assert "later" in remaining[0].read_text()

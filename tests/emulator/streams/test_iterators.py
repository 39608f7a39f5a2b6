"""Shard iterators and GetRecords: the four iterator types, expiry, forgery, limits and the end of a shard."""

from __future__ import annotations

import base64

import pytest
from botocore.exceptions import ClientError

from tests.emulator.helpers import create_table, shards


@pytest.fixture
def stream(door):
    dynamodb, streams = door.client("dynamodb"), door.client("dynamodbstreams")
    arn = create_table(dynamodb)["LatestStreamArn"]
    for i in range(5):
        dynamodb.put_item(TableName="orders", Item={"pk": {"S": f"k{i}"}})
    shard_id = shards(streams, arn)[0]["ShardId"]
    return door, dynamodb, streams, arn, shard_id


def iterator(streams, arn, shard_id, kind, sequence_number=None):
    params = dict(StreamArn=arn, ShardId=shard_id, ShardIteratorType=kind)
    if sequence_number:
        params["SequenceNumber"] = sequence_number
    return streams.get_shard_iterator(**params)["ShardIterator"]


def keys(response):
    return [r["dynamodb"]["Keys"]["pk"]["S"] for r in response["Records"]]


def code_and_message(excinfo):
    error = excinfo.value.response["Error"]
    return error["Code"], error["Message"]


def test_the_four_iterator_types(stream):
    door, dynamodb, streams, arn, shard_id = stream
    everything = streams.get_records(ShardIterator=iterator(streams, arn, shard_id, "TRIM_HORIZON"))
    assert keys(everything) == ["k0", "k1", "k2", "k3", "k4"]
    third = everything["Records"][2]["dynamodb"]["SequenceNumber"]
    at = streams.get_records(ShardIterator=iterator(streams, arn, shard_id, "AT_SEQUENCE_NUMBER", third))
    assert keys(at) == ["k2", "k3", "k4"]
    after = streams.get_records(ShardIterator=iterator(streams, arn, shard_id, "AFTER_SEQUENCE_NUMBER", third))
    assert keys(after) == ["k3", "k4"]
    latest = iterator(streams, arn, shard_id, "LATEST")
    empty = streams.get_records(ShardIterator=latest)
    assert empty["Records"] == [] and empty["NextShardIterator"]
    dynamodb.put_item(TableName="orders", Item={"pk": {"S": "new"}})
    assert keys(streams.get_records(ShardIterator=latest)) == ["new"]
    assert keys(streams.get_records(ShardIterator=empty["NextShardIterator"])) == ["new"]


def test_limit_and_next_iterator_walk_the_shard(stream):
    door, dynamodb, streams, arn, shard_id = stream
    page = streams.get_records(ShardIterator=iterator(streams, arn, shard_id, "TRIM_HORIZON"), Limit=2)
    assert keys(page) == ["k0", "k1"]
    page = streams.get_records(ShardIterator=page["NextShardIterator"], Limit=2)
    assert keys(page) == ["k2", "k3"]
    page = streams.get_records(ShardIterator=page["NextShardIterator"], Limit=1000)
    assert keys(page) == ["k4"] and page["NextShardIterator"]


@pytest.mark.parametrize("limit, constraint", [
    (0, "Member must have value greater than or equal to 1"),
    (1001, "Member must have value less than or equal to 1000"),
])
def test_get_records_limit_is_validated(stream, limit, constraint):
    door, dynamodb, streams, arn, shard_id = stream
    unvalidated = door.client("dynamodbstreams", validate=False)
    with pytest.raises(ClientError) as invalid:
        unvalidated.get_records(ShardIterator=iterator(streams, arn, shard_id, "TRIM_HORIZON"), Limit=limit)
    assert code_and_message(invalid) == (
        "ValidationException",
        f"1 validation error detected: Value '{limit}' at 'limit' failed to satisfy constraint: {constraint}",
    )


def test_iterators_expire_after_fifteen_minutes(stream):
    door, dynamodb, streams, arn, shard_id = stream
    fresh = iterator(streams, arn, shard_id, "TRIM_HORIZON")
    door.advance(14 * 60)
    assert len(streams.get_records(ShardIterator=fresh)["Records"]) == 5
    door.advance(60 + 1)
    with pytest.raises(ClientError) as expired:
        streams.get_records(ShardIterator=fresh)
    assert code_and_message(expired) == ("ExpiredIteratorException", "The provided iterator exceeds the maximum age allowed.")
    assert expired.value.response["ResponseMetadata"]["HTTPStatusCode"] == 400


def test_an_iterator_reads_stream_arn_version_opaque_as_on_aws(stream):
    """AWS's iterators (LocalStack's AWS-recorded dynamodbstreams snapshots) are `<StreamArn>|1|<opaque>`."""
    door, dynamodb, streams, arn, shard_id = stream
    for kind in ("TRIM_HORIZON", "LATEST"):
        stream_arn, version, opaque = iterator(streams, arn, shard_id, kind).split("|", 2)
        assert (stream_arn, version) == (arn, "1") and "|" not in opaque and opaque


def test_forged_and_garbled_iterators_are_refused(stream):
    door, dynamodb, streams, arn, shard_id = stream
    genuine = iterator(streams, arn, shard_id, "TRIM_HORIZON")
    prefix, opaque = genuine.rsplit("|", 1)
    payload, signature = opaque.rsplit(".", 1)
    forged_position = base64.urlsafe_b64decode(payload).decode().split("|")
    forged_position[1] = "1"  # move the position, keep the signature
    forged = prefix + "|" + base64.urlsafe_b64encode("|".join(forged_position).encode()).decode() + "." + signature
    other_stream = arn.replace("/stream/", "/stream/9") + "|1|" + opaque  # another stream's ARN, the same opaque part
    other_version = genuine.replace(f"{arn}|1|", f"{arn}|2|")
    unvalidated = door.client("dynamodbstreams", validate=False)
    for bad in (forged, other_stream, other_version, opaque, "garbage", genuine[:-2] + "AA", "x" * 2049,
                genuine + ".", ""):
        with pytest.raises(ClientError) as refused:
            unvalidated.get_records(ShardIterator=bad)
        assert refused.value.response["Error"]["Code"] == "ValidationException", bad


def test_a_closed_shard_read_to_its_end_has_no_next_iterator(stream):
    door, dynamodb, streams, arn, shard_id = stream
    door.rollover(arn)
    page = streams.get_records(ShardIterator=iterator(streams, arn, shard_id, "TRIM_HORIZON"), Limit=3)
    assert keys(page) == ["k0", "k1", "k2"] and page["NextShardIterator"]
    page = streams.get_records(ShardIterator=page["NextShardIterator"])
    assert keys(page) == ["k3", "k4"]
    assert "NextShardIterator" not in page
    latest = streams.get_records(ShardIterator=iterator(streams, arn, shard_id, "LATEST"))
    assert latest["Records"] == [] and "NextShardIterator" not in latest


def test_a_response_holds_at_most_one_megabyte(door):
    dynamodb, streams = door.client("dynamodb"), door.client("dynamodbstreams")
    arn = create_table(dynamodb, view_type="NEW_AND_OLD_IMAGES")["LatestStreamArn"]
    blob = "x" * 300_000
    for i in range(4):
        dynamodb.put_item(TableName="orders", Item={"pk": {"S": f"k{i}"}, "blob": {"S": blob}})
    first = streams.get_records(ShardIterator=iterator(streams, arn, shards(streams, arn)[0]["ShardId"], "TRIM_HORIZON"))
    assert keys(first) == ["k0", "k1", "k2"]
    assert keys(streams.get_records(ShardIterator=first["NextShardIterator"])) == ["k3"]


@pytest.mark.parametrize("params, code", [
    ({"ShardIteratorType": "AT_SEQUENCE_NUMBER"}, "ValidationException"),
    ({"ShardIteratorType": "AFTER_SEQUENCE_NUMBER"}, "ValidationException"),
    ({"ShardIteratorType": "LATEST", "SequenceNumber": "100000000000000000001"}, "ValidationException"),
    ({"ShardIteratorType": "AT_SEQUENCE_NUMBER", "SequenceNumber": "10000000000000000000x"}, "ValidationException"),
    ({"ShardIteratorType": "AT_SEQUENCE_NUMBER", "SequenceNumber": "999999999999999999999"}, "ResourceNotFoundException"),
    ({"ShardIteratorType": "BULLE"}, "ValidationException"),
])
def test_get_shard_iterator_errors(stream, params, code):
    door, dynamodb, streams, arn, shard_id = stream
    with pytest.raises(ClientError) as invalid:
        door.client("dynamodbstreams", validate=False).get_shard_iterator(StreamArn=arn, ShardId=shard_id, **params)
    assert invalid.value.response["Error"]["Code"] == code


def test_unknown_stream_and_shard(stream):
    door, dynamodb, streams, arn, shard_id = stream
    missing = arn.rsplit("/", 1)[0] + "/2000-01-01T00:00:00.000"
    with pytest.raises(ClientError) as no_stream:
        streams.get_shard_iterator(StreamArn=missing, ShardId=shard_id, ShardIteratorType="LATEST")
    assert code_and_message(no_stream) == ("ResourceNotFoundException", f"Requested resource not found: Stream: {missing} not found")
    with pytest.raises(ClientError) as no_shard:
        streams.get_shard_iterator(StreamArn=arn, ShardId="shardId-00000000000000000000-00000000", ShardIteratorType="LATEST")
    assert code_and_message(no_shard) == ("ResourceNotFoundException", "Requested resource not found: Shard does not exist")
    with pytest.raises(ClientError) as malformed:
        streams.describe_stream(StreamArn="arn:aws:dynamodb:us-east-1:123456789012:not-a-stream")
    assert malformed.value.response["Error"]["Code"] == "ValidationException"

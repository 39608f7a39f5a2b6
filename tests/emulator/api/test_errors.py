"""Error shapes: AWS's JSON error body, code and HTTP status; bad input never gets a 500 and the server stays up."""

from __future__ import annotations

import json
import urllib.error
import urllib.request

import pytest
from botocore.exceptions import ClientError

from tests.conftest import ControlError
from tests.emulator.helpers import create_table

STREAMS = "DynamoDBStreams_20120810."


def raw(url: str, target: str | None, body: bytes, path: str = "/") -> tuple[int, dict]:
    headers = {"Content-Type": "application/x-amz-json-1.0",
               "Authorization": "AWS4-HMAC-SHA256 Credential=testing/20260101/us-east-1/dynamodb/aws4_request, "
                                "SignedHeaders=host, Signature=0"}
    if target:
        headers["X-Amz-Target"] = target
    request = urllib.request.Request(url + path, data=body, headers=headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


@pytest.mark.parametrize("target, body, status, code", [
    (STREAMS + "GetRecords", b"{not json", 400, "SerializationException"),
    (STREAMS + "GetRecords", b"[1, 2]", 400, "SerializationException"),
    (STREAMS + "GetRecords", b"{}", 400, "ValidationException"),
    (STREAMS + "GetRecords", b'{"ShardIterator": 5}', 400, "SerializationException"),
    (STREAMS + "GetRecords", b'{"ShardIterator": "abc", "Limit": "ten"}', 400, "SerializationException"),
    (STREAMS + "DescribeStream", b'{"StreamArn": "arn:aws:dynamodb:us-east-1:123456789012:table/x/stream/2020-01-01T00:00:00.000"}',
     400, "ResourceNotFoundException"),
    (STREAMS + "DescribeStream", b'{"StreamArn": "short"}', 400, "ValidationException"),
    (STREAMS + "DescribeStream", b'{"StreamArn": "arn:aws:dynamodb:us-east-1:123456789012:table/x/stream/2020", "ShardFilter": {"Type": "PARENT"}}',
     400, "ValidationException"),
    (STREAMS + "ListStreams", b'{"Limit": 0}', 400, "ValidationException"),
    (STREAMS + "ListStreams", b'{"Limit": 101}', 400, "ValidationException"),
    (STREAMS + "NoSuchOperation", b"{}", 400, "UnknownOperationException"),
    ("DynamoDB_20120810.PutItem", b"{not json", 400, "SerializationException"),
    ("DynamoDB_20120810.CreateTable", b'{"TableName": "ttt", "StreamSpecification": "yes"}', 400, "SerializationException"),
    ("DynamoDB_20120810.UpdateTable", b'{"TableName": "ttt", "StreamSpecification": {"StreamEnabled": "maybe"}}', 400, "SerializationException"),
    ("DynamoDB_20120810.CreateTable", b'{"TableName": "t", "KeySchema": [], "AttributeDefinitions": []}', 400, "ValidationException"),
])
def test_malformed_requests_get_aws_errors_and_the_server_stays_up(server_url, target, body, status, code):
    got_status, got = raw(server_url, target, body)
    assert got_status == status
    assert got["__type"] == f"com.amazonaws.dynamodb.v20120810#{code}"
    assert isinstance(got["message"], str) and got["message"]
    assert raw(server_url, STREAMS + "ListStreams", b"{}")[0] == 200


def test_errors_reach_boto3_with_code_message_and_status(door):
    streams = door.client("dynamodbstreams")
    arn = "arn:aws:dynamodb:us-east-1:123456789012:table/orders/stream/2020-01-01T00:00:00.000"
    with pytest.raises(ClientError) as missing:
        streams.describe_stream(StreamArn=arn)
    assert missing.value.response["Error"] == {"Code": "ResourceNotFoundException",
                                               "Message": f"Requested resource not found: Stream: {arn} not found"}
    assert missing.value.response["ResponseMetadata"]["HTTPStatusCode"] == 400


def test_get_records_throttle_raises_limit_exceeded():
    import boto3
    from botocore.config import Config

    from eddy import Clock, emulate

    frozen = Clock(source=lambda: 1_800_000_000.0)  # one clock second throughout
    with emulate(clock=frozen, housekeeping_interval=None, get_records_per_second_per_shard=2):
        dynamodb = boto3.client("dynamodb", region_name="us-east-1")
        streams = boto3.client("dynamodbstreams", region_name="us-east-1", config=Config(retries={"total_max_attempts": 1}))
        arn = create_table(dynamodb)["LatestStreamArn"]
        shard_id = streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"][0]["ShardId"]
        iterator = streams.get_shard_iterator(StreamArn=arn, ShardId=shard_id, ShardIteratorType="LATEST")["ShardIterator"]
        streams.get_records(ShardIterator=iterator)
        streams.get_records(ShardIterator=iterator)
        with pytest.raises(ClientError) as throttled:
            streams.get_records(ShardIterator=iterator)
        assert throttled.value.response["Error"]["Code"] == "LimitExceededException"


def test_control_errors(server_url):
    from tests.conftest import ServerDoor

    door = ServerDoor(server_url)
    with pytest.raises(ControlError) as bad:
        door.control("/_eddy/clock", {"advance": -5})
    assert (bad.value.code, bad.value.status) == ("ValidationException", 400)
    with pytest.raises(ControlError) as missing:
        door.control("/_eddy/shards/split", {"StreamArn": "x"})
    assert (missing.value.code, missing.value.message) == ("ValidationException", "ShardId is required and must be a string")


def test_the_clock_only_moves_forward(emu):
    with pytest.raises(ValueError):
        emu.clock.advance(-5)


def test_unknown_control_path_and_method(server_url):
    status, body = raw(server_url, None, b"{}", path="/_eddy/nothing")
    assert status == 400 and body["__type"].endswith("ResourceNotFoundException")
    request = urllib.request.Request(server_url + "/_eddy/ttl/sweep", method="GET")
    with pytest.raises(urllib.error.HTTPError) as not_allowed:
        urllib.request.urlopen(request, timeout=30)
    assert not_allowed.value.code == 405


@pytest.mark.parametrize("body", [
    b'{"TableName":"t","Key":{"pk":{"S":"a"}}}', b'{"a":1} ', b'{"a":1}x', b'{"a":1}{"b":2}', b"{", b"{}",
    b'{"a":"\xed\xa0\x80"}', b'{"a":"\xff"}', b'{ "a" : [1, 2] }', '{"a":"é"}'.encode("utf-16-le"),
    '{"a":"é"}'.encode("utf-8-sig"), b' {"a":1}', b"[1, 2]", b"", b'{"a":NaN}', b'{"a":\x00}',
])
def test_a_body_is_read_as_json_loads_reads_it(body):
    # the door's reading of a body (streams.parse_body: an SDK's compact object by the decoder's raw_decode) accepts
    # what json.loads accepts, as the same object (UTF-16 and a BOM included), and refuses the rest as AWS does
    from eddy.emulator.api.dynamodb.streams import parse_body
    from eddy.emulator.errors import AWSError

    def read(parse):
        try:
            return "read", parse(body)
        except (ValueError, AWSError) as error:
            return "refused", getattr(error, "code", "SerializationException")

    loaded = read(lambda body: json.loads(body or b"{}"))
    if loaded[0] == "read" and not isinstance(loaded[1], dict):  # a document that is no object: refused too
        loaded = "refused", "SerializationException"
    assert repr(read(parse_body)) == repr(loaded)

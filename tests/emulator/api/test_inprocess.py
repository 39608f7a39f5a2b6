"""The in-process door: `with emulate()` and `@emulate()`, today's botocore Streams endpoint, moto's services."""

from __future__ import annotations

import boto3
import pytest

from eddy import Emulator, emulate

from tests.emulator.helpers import create_table, read_stream


def test_botocore_sends_streams_calls_to_the_account_endpoint_and_eddy_answers(emu):
    streams = boto3.client("dynamodbstreams", region_name="eu-central-1")
    assert "streams" in streams.meta.endpoint_url
    seen = []
    streams.meta.events.register("before-send", lambda request, **_: seen.append(request.url))
    assert streams.list_streams()["Streams"] == []
    assert "amazonaws.com" in seen[0]


def test_the_decorator_form():
    calls = []

    @emulate(housekeeping_interval=None)
    def uses_aws():
        dynamodb = boto3.client("dynamodb", region_name="us-east-1")
        arn = create_table(dynamodb)["LatestStreamArn"]
        dynamodb.put_item(TableName="orders", Item={"pk": {"S": "a"}})
        calls.append(len(read_stream(boto3.client("dynamodbstreams", region_name="us-east-1"), arn)))

    uses_aws()
    uses_aws()  # a fresh emulator each time
    assert calls == [1, 1]


def test_moto_services_work_inside(emu):
    s3 = boto3.client("s3", region_name="us-east-1")
    s3.create_bucket(Bucket="archive")
    s3.put_object(Bucket="archive", Key="k", Body=b"v")
    assert s3.get_object(Bucket="archive", Key="k")["Body"].read() == b"v"
    sqs = boto3.client("sqs", region_name="us-east-1")
    url = sqs.create_queue(QueueName="q")["QueueUrl"]
    sqs.send_message(QueueUrl=url, MessageBody="hi")
    assert sqs.receive_message(QueueUrl=url)["Messages"][0]["Body"] == "hi"


def test_the_resource_api_and_state_resets_between_blocks():
    with emulate(housekeeping_interval=None) as emu:
        assert isinstance(emu, Emulator)
        table = boto3.resource("dynamodb", region_name="us-east-1").create_table(
            TableName="orders", KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
            AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}], BillingMode="PAY_PER_REQUEST",
            StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_IMAGE"})
        table.put_item(Item={"pk": "a", "n": 1})
        assert table.latest_stream_arn
    with emulate(housekeeping_interval=None):
        assert boto3.client("dynamodb", region_name="us-east-1").list_tables()["TableNames"] == []
        assert boto3.client("dynamodbstreams", region_name="us-east-1").list_streams()["Streams"] == []


def test_only_one_block_at_a_time(emu):
    with pytest.raises(RuntimeError):
        with emulate():
            pass


def test_unknown_settings_are_refused():
    with pytest.raises(TypeError):
        Emulator(no_such_setting=1)

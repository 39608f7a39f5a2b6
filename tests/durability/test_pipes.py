"""kill -9 of a server in the middle of a pipe's work, from a DynamoDB stream, a Kinesis data stream and an SQS
queue: the pipe, its function and its position survive; after the restart every record is delivered, and only what
was in flight at the kill may be delivered again (at least once): the stream's batch, or the queue's batches, which
come back after the queue's visibility timeout."""

from __future__ import annotations

import os
import signal

import pytest

from tests.conftest import ServerDoor, eddy_server
from tests.emulator.functions.test_functions import create_function
from tests.emulator.helpers import create_table

BATCH = 5
#: queue pipes run at most this many batches at once (triggers/pollers/queue_pollers.py), so at most that many come back
QUEUE_BATCHES_AT_ONCE = 10
VISIBILITY_TIMEOUT = 60
KEYS = [f"k{n:03}" for n in range(200)]
ROLE_ARN = "arn:aws:iam::123456789012:role/pipes"

# counts each record it receives in the table "sink" (durable, as every table is)
COUNTER = '''
import boto3
dynamodb = boto3.client("dynamodb")
def key(record):
    if "dynamodb" in record:
        return record["dynamodb"]["Keys"]["pk"]["S"]
    return record["kinesis"]["partitionKey"] if "kinesis" in record else record["body"]
def handler(event, context):
    for record in event:
        dynamodb.update_item(TableName="sink", Key={"pk": {"S": key(record)}},
                             UpdateExpression="ADD deliveries :one", ExpressionAttributeValues={":one": {"N": "1"}})
'''


def deliveries(dynamodb) -> dict[str, int]:
    items = dynamodb.scan(TableName="sink", ConsistentRead=True)["Items"]
    return {item["pk"]["S"]: int(item["deliveries"]["N"]) for item in items}


def source(door: ServerDoor, kind: str) -> tuple[str, dict]:
    """The pipe's source of `kind`, empty: (its ARN, the pipe's SourceParameters)."""
    if kind == "dynamodb":
        return create_table(door.client("dynamodb"))["LatestStreamArn"], {
            "DynamoDBStreamParameters": {"StartingPosition": "TRIM_HORIZON", "BatchSize": BATCH}}
    if kind == "kinesis":
        kinesis = door.client("kinesis")
        kinesis.create_stream(StreamName="clicks", ShardCount=1)
        arn = kinesis.describe_stream(StreamName="clicks")["StreamDescription"]["StreamARN"]
        return arn, {"KinesisStreamParameters": {"StartingPosition": "TRIM_HORIZON", "BatchSize": BATCH}}
    sqs = door.client("sqs")
    url = sqs.create_queue(QueueName="work", Attributes={"VisibilityTimeout": str(VISIBILITY_TIMEOUT)})["QueueUrl"]
    arn = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    return arn, {"SqsQueueParameters": {"BatchSize": BATCH}}


def write(door: ServerDoor, kind: str, keys: list[str]) -> None:
    """A record for each key, in the source of `kind`."""
    if kind == "dynamodb":
        dynamodb = door.client("dynamodb")
        for key in keys:
            dynamodb.put_item(TableName="orders", Item={"pk": {"S": key}})
    elif kind == "kinesis":
        door.client("kinesis").put_records(StreamName="clicks", Records=[{"Data": key.encode(), "PartitionKey": key}
                                                                        for key in keys])
    else:
        sqs = door.client("sqs")
        url = sqs.get_queue_url(QueueName="work")["QueueUrl"]
        for start in range(0, len(keys), 10):
            sqs.send_message_batch(QueueUrl=url, Entries=[{"Id": key, "MessageBody": key}
                                                          for key in keys[start:start + 10]])


@pytest.mark.parametrize("kind", ["dynamodb", "kinesis", "sqs"])
def test_kill_9_in_the_middle_of_a_pipe_loses_nothing(tmp_path, kind):
    args = ("--state-dir", str(tmp_path / "state"), "--housekeeping-interval", "0")
    with eddy_server(*args) as (url, server):
        door = ServerDoor(url)
        dynamodb = door.client("dynamodb")
        create_table(dynamodb, "sink", view_type=None)
        function_arn = create_function(door.client("lambda"), "count", COUNTER, Timeout=30)["FunctionArn"]
        source_arn, parameters = source(door, kind)
        first, second = KEYS[:len(KEYS) // 2], KEYS[len(KEYS) // 2:]
        write(door, kind, first)
        door.client("pipes").create_pipe(Name="work-pipe", Source=source_arn, Target=function_arn, RoleArn=ROLE_ARN,
                                         SourceParameters=parameters)
        assert door.wait_idle(120)["Idle"]  # the pipe caught up with the first half, each record once
        assert deliveries(dynamodb) == dict.fromkeys(first, 1)
        write(door, kind, second)  # and the kill while the pipe handles the second
        assert len(deliveries(dynamodb)) < len(KEYS)  # the kill comes in the middle
        os.kill(server.pid, signal.SIGKILL)
        server.wait(timeout=10)
    with eddy_server(*args) as (url, _):
        door = ServerDoor(url)
        assert door.client("pipes").describe_pipe(Name="work-pipe")["CurrentState"] == "RUNNING"
        assert door.wait_idle(120)["Idle"]
        if kind == "sqs":  # the batches in flight at the kill come back after the visibility timeout
            door.advance(VISIBILITY_TIMEOUT + 1)
            assert door.wait_idle(120)["Idle"]
        counted = deliveries(door.client("dynamodb"))
        assert sorted(counted) == KEYS  # nothing lost
        in_flight = BATCH * (QUEUE_BATCHES_AT_ONCE if kind == "sqs" else 1)
        assert sum(counted.values()) - len(KEYS) <= in_flight  # again at most what was in flight at the kill

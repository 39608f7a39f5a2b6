"""kill -9 of a server in the middle of a pipe's work: the pipe, its function and its position survive; after the
restart every record is delivered, and only the batch in flight at the kill may be delivered again (at least once)."""

from __future__ import annotations

import os
import signal
import time

import boto3

from tests.conftest import eddy_server, http_json
from tests.emulator.functions.test_functions import create_function
from tests.emulator.helpers import create_table

REGION = "us-east-1"
BATCH = 5
KEYS = [f"k{n:03}" for n in range(200)]

# counts each record it receives in the table "sink" (durable, unlike the queues on this branch)
COUNTER = '''
import boto3
dynamodb = boto3.client("dynamodb")
def handler(event, context):
    for record in event:
        dynamodb.update_item(TableName="sink", Key={"pk": record["dynamodb"]["Keys"]["pk"]},
                             UpdateExpression="ADD deliveries :one", ExpressionAttributeValues={":one": {"N": "1"}})
'''


def clients(url: str) -> tuple:
    return tuple(boto3.client(service, endpoint_url=url, region_name=REGION, aws_access_key_id="k",
                              aws_secret_access_key="s") for service in ("dynamodb", "lambda", "pipes"))


def deliveries(dynamodb) -> dict[str, int]:
    items = dynamodb.scan(TableName="sink", ConsistentRead=True)["Items"]
    return {item["pk"]["S"]: int(item["deliveries"]["N"]) for item in items}


def test_kill_9_in_the_middle_of_a_pipe_loses_nothing(tmp_path):
    args = ("--state-dir", str(tmp_path / "state"), "--housekeeping-interval", "0")
    with eddy_server(*args) as (url, server):
        dynamodb, lam, pipes = clients(url)
        stream_arn = create_table(dynamodb)["LatestStreamArn"]
        create_table(dynamodb, "sink", view_type=None)
        function_arn = create_function(lam, "count", COUNTER, Timeout=30)["FunctionArn"]
        pipes.create_pipe(Name="orders-pipe", Source=stream_arn, Target=function_arn,
                          RoleArn="arn:aws:iam::123456789012:role/pipes",
                          SourceParameters={"DynamoDBStreamParameters": {"StartingPosition": "TRIM_HORIZON",
                                                                         "BatchSize": BATCH}})
        for key in KEYS:
            dynamodb.put_item(TableName="orders", Item={"pk": {"S": key}})
        deadline = time.monotonic() + 120
        while len(deliveries(dynamodb)) < BATCH and time.monotonic() < deadline:  # until the pipe is under way
            continue
        assert BATCH <= len(deliveries(dynamodb)) < len(KEYS)  # the kill comes in the middle
        os.kill(server.pid, signal.SIGKILL)
        server.wait(timeout=10)
    with eddy_server(*args) as (url, _):
        dynamodb, _, pipes = clients(url)
        assert pipes.describe_pipe(Name="orders-pipe")["CurrentState"] == "RUNNING"
        assert http_json(url + "/_eddy/idle", {"timeout": 120})["Idle"]
        counted = deliveries(dynamodb)
        assert sorted(counted) == KEYS  # nothing lost
        assert sum(counted.values()) - len(KEYS) <= BATCH  # again at most the batch in flight at the kill

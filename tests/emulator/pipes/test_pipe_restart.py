"""Pipes are durable like event source mappings: definitions and per-shard positions survive a restart, and a restart
in the middle (while the target is failing) loses nothing and repeats nothing that was delivered."""

from __future__ import annotations

import boto3

from eddy import emulate
from tests.emulator.helpers import create_table
from tests.emulator.pipes.pipe_helpers import ROLE_ARN

REGION = "us-east-1"


def test_a_restart_in_the_middle_loses_nothing_and_repeats_nothing_delivered(tmp_path):
    delivered: list[str] = []
    attempts: list[str] = []
    failing = {"on": True}

    def target(event, context):
        keys = [record["dynamodb"]["Keys"]["pk"]["S"] for record in event]
        attempts.extend(keys)
        if failing["on"] and "c" in keys:
            raise RuntimeError("the target is down")
        delivered.extend(keys)

    with emulate(state_dir=tmp_path, housekeeping_interval=None) as emu:
        emu.register_function("collect", target)
        dynamodb = boto3.client("dynamodb", region_name=REGION)
        stream_arn = create_table(dynamodb)["LatestStreamArn"]
        boto3.client("pipes", region_name=REGION).create_pipe(
            Name="orders-pipe", Source=stream_arn, Target=f"arn:aws:lambda:{REGION}:123456789012:function:collect",
            RoleArn=ROLE_ARN, SourceParameters={"DynamoDBStreamParameters": {"StartingPosition": "TRIM_HORIZON"}})
        for key in "abcd":
            dynamodb.put_item(TableName="orders", Item={"pk": {"S": key}})
        with emu.activity:  # wait until the pipe is retrying "c": a, b delivered, c failing, d waiting behind it
            assert emu.activity.wait_for(lambda: attempts.count("c") >= 2, timeout=30)
    assert delivered == ["a", "b"]
    failing["on"] = False
    with emulate(state_dir=tmp_path, housekeeping_interval=None) as emu:
        emu.register_function("collect", target)  # a registered callable is registered again after a restart
        pipes = boto3.client("pipes", region_name=REGION)
        assert pipes.describe_pipe(Name="orders-pipe")["CurrentState"] == "RUNNING"
        boto3.client("dynamodb", region_name=REGION).put_item(TableName="orders", Item={"pk": {"S": "e"}})
        assert emu.wait_idle(30)["Idle"]
    assert delivered == ["a", "b", "c", "d", "e"]


def test_a_pipe_whose_stream_is_gone_after_a_restart_fails_to_start(tmp_path):
    with emulate(state_dir=tmp_path, housekeeping_interval=None):
        kinesis = boto3.client("kinesis", region_name=REGION)
        kinesis.create_stream(StreamName="clicks", ShardCount=1)
        stream_arn = kinesis.describe_stream(StreamName="clicks")["StreamDescription"]["StreamARN"]
        boto3.client("sqs", region_name=REGION).create_queue(QueueName="changes")
        boto3.client("pipes", region_name=REGION).create_pipe(
            Name="clicks-pipe", Source=stream_arn, Target=f"arn:aws:sqs:{REGION}:123456789012:changes",
            RoleArn=ROLE_ARN, SourceParameters={"KinesisStreamParameters": {"StartingPosition": "LATEST"}})
        kinesis.delete_stream(StreamName="clicks")
    with emulate(state_dir=tmp_path, housekeeping_interval=None):
        described = boto3.client("pipes", region_name=REGION).describe_pipe(Name="clicks-pipe")
        assert (described["CurrentState"], described.get("StateReason")) == (
            "START_FAILED", f"The source {stream_arn} does not exist")

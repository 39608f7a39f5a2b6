"""The EventBridge Pipes API through both doors: states as AWS reports them, ListPipes, UpdatePipe, Start/StopPipe
(a stopped pipe resumes where it stopped), DeletePipe, and the Pipes API's errors."""

from __future__ import annotations

import pytest
from botocore.exceptions import ClientError

from tests.emulator.helpers import create_table
from tests.emulator.pipes.pipe_helpers import ROLE_ARN, messages, queue
from tests.emulator.trigger_helpers import wait_idle

STREAM = {"DynamoDBStreamParameters": {"StartingPosition": "TRIM_HORIZON", "BatchSize": 10}}


def setup(door) -> dict:
    dynamodb, sqs = door.client("dynamodb"), door.client("sqs")
    stream_arn = create_table(dynamodb)["LatestStreamArn"]
    url, arn = queue(sqs, "changes")
    return {"dynamodb": dynamodb, "sqs": sqs, "pipes": door.client("pipes"), "stream_arn": stream_arn,
            "url": url, "arn": arn}


def error_of(call, **params) -> tuple[str, str, int]:
    with pytest.raises(ClientError) as raised:
        call(**params)
    error = raised.value.response
    return error["Error"]["Code"], error["Error"]["Message"], error["ResponseMetadata"]["HTTPStatusCode"]


def test_the_life_of_a_pipe(door):
    env = setup(door)
    pipes = env["pipes"]
    created = pipes.create_pipe(Name="orders-pipe", Source=env["stream_arn"], Target=env["arn"], RoleArn=ROLE_ARN,
                                SourceParameters=STREAM, Description="orders to a queue", Tags={"team": "data"})
    arn = "arn:aws:pipes:us-east-1:123456789012:pipe/orders-pipe"
    assert (created["Arn"], created["Name"], created["DesiredState"], created["CurrentState"]) == (
        arn, "orders-pipe", "RUNNING", "CREATING")
    described = pipes.describe_pipe(Name="orders-pipe")
    assert {name: described[name] for name in ("CurrentState", "DesiredState", "Source", "Target", "RoleArn",
                                               "SourceParameters", "Description", "Tags")} == {
        "CurrentState": "RUNNING", "DesiredState": "RUNNING", "Source": env["stream_arn"], "Target": env["arn"],
        "RoleArn": ROLE_ARN, "SourceParameters": STREAM, "Description": "orders to a queue", "Tags": {"team": "data"}}
    [summary] = pipes.list_pipes(NamePrefix="orders")["Pipes"]
    assert (summary["Name"], summary["Arn"], summary["CurrentState"]) == ("orders-pipe", arn, "RUNNING")
    assert pipes.list_pipes(NamePrefix="other")["Pipes"] == []

    env["dynamodb"].put_item(TableName="orders", Item={"pk": {"S": "a"}})
    assert wait_idle(door)["Idle"]
    assert [r["dynamodb"]["Keys"]["pk"]["S"] for r in messages(env["sqs"], env["url"])] == ["a"]

    stopping = pipes.stop_pipe(Name="orders-pipe")
    assert (stopping["DesiredState"], stopping["CurrentState"]) == ("STOPPED", "STOPPING")
    assert pipes.describe_pipe(Name="orders-pipe")["CurrentState"] == "STOPPED"
    env["dynamodb"].put_item(TableName="orders", Item={"pk": {"S": "b"}})
    assert wait_idle(door)["Idle"]
    assert messages(env["sqs"], env["url"]) == []  # a stopped pipe delivers nothing
    starting = pipes.start_pipe(Name="orders-pipe")
    assert (starting["DesiredState"], starting["CurrentState"]) == ("RUNNING", "STARTING")
    assert wait_idle(door)["Idle"]
    assert [r["dynamodb"]["Keys"]["pk"]["S"] for r in messages(env["sqs"], env["url"])] == ["b"]  # resumed, not replayed

    updated = pipes.update_pipe(Name="orders-pipe", RoleArn=ROLE_ARN, SourceParameters={
        "FilterCriteria": {"Filters": [{"Pattern": '{"eventName": ["REMOVE"]}'}]}})
    assert updated["CurrentState"] == "UPDATING"
    described = pipes.describe_pipe(Name="orders-pipe")
    assert described["CurrentState"] == "RUNNING"
    assert described["SourceParameters"]["DynamoDBStreamParameters"] == STREAM["DynamoDBStreamParameters"]
    env["dynamodb"].put_item(TableName="orders", Item={"pk": {"S": "c"}})
    env["dynamodb"].delete_item(TableName="orders", Key={"pk": {"S": "a"}})
    assert wait_idle(door)["Idle"]
    assert [r["eventName"] for r in messages(env["sqs"], env["url"])] == ["REMOVE"]

    deleted = pipes.delete_pipe(Name="orders-pipe")
    assert (deleted["DesiredState"], deleted["CurrentState"]) == ("DELETED", "DELETING")
    assert pipes.list_pipes()["Pipes"] == []
    assert error_of(pipes.describe_pipe, Name="orders-pipe") == ("NotFoundException", "Pipe orders-pipe does not exist.", 404)


def test_a_pipe_created_stopped_does_not_run_until_started(door):
    env = setup(door)
    env["pipes"].create_pipe(Name="later", Source=env["stream_arn"], Target=env["arn"], RoleArn=ROLE_ARN,
                             SourceParameters=STREAM, DesiredState="STOPPED")
    env["dynamodb"].put_item(TableName="orders", Item={"pk": {"S": "a"}})
    assert wait_idle(door)["Idle"]
    assert env["pipes"].describe_pipe(Name="later")["CurrentState"] == "STOPPED"
    assert messages(env["sqs"], env["url"]) == []
    env["pipes"].start_pipe(Name="later")
    assert wait_idle(door)["Idle"]
    assert [r["dynamodb"]["Keys"]["pk"]["S"] for r in messages(env["sqs"], env["url"])] == ["a"]


def test_the_pipes_apis_errors(door):
    env = setup(door)
    pipes = env["pipes"]
    base = dict(Source=env["stream_arn"], Target=env["arn"], RoleArn=ROLE_ARN)
    pipes.create_pipe(Name="one", SourceParameters=STREAM, **base)
    code, message, status = error_of(pipes.create_pipe, Name="one", SourceParameters=STREAM, **base)
    assert (code, message, status) == ("ConflictException", "Pipe one already exists.", 409)
    code, message, status = error_of(pipes.create_pipe, Name="two", **base)
    assert (code, status) == ("ValidationException", 400) and "StartingPosition is required" in message
    code, message, status = error_of(pipes.create_pipe, Name="two", SourceParameters={
        "DynamoDBStreamParameters": {"StartingPosition": "LATEST", "BatchSize": 11}}, **base)
    assert (code, status) == ("ValidationException", 400) and "at most 10 records a batch" in message
    code, message, status = error_of(door.client("pipes", validate=False).create_pipe, Name="two", SourceParameters={
        "DynamoDBStreamParameters": {"StartingPosition": "LATEST", "BatchSize": 0}}, **base)
    assert (code, status) == ("ValidationException", 400) and "greater than or equal to 1" in message
    code, message, status = error_of(pipes.create_pipe, Name="two", SourceParameters={
        "DynamoDBStreamParameters": {"StartingPosition": "LATEST"},
        "FilterCriteria": {"Filters": [{"Pattern": "not json"}]}}, **base)
    assert (code, status) == ("ValidationException", 400)
    code, message, status = error_of(pipes.create_pipe, Name="two", SourceParameters=STREAM,
                                     TargetParameters={"InputTemplate": '{"key": <$.dynamodb.Keys>}'}, **base)
    assert (code, status) == ("NotImplemented", 501) and "InputTemplate" in message
    code, message, status = error_of(pipes.create_pipe, Name="two", SourceParameters=STREAM,
                                     TargetParameters={"LambdaFunctionParameters": {"InvocationType": "FIRE_AND_FORGET"}},
                                     **base)
    assert (code, status) == ("ValidationException", 400) and "do not apply to a sqs target" in message
    for call in (pipes.start_pipe, pipes.stop_pipe, pipes.delete_pipe):
        assert error_of(call, Name="missing")[0::2] == ("NotFoundException", 404)
    assert error_of(pipes.update_pipe, Name="missing", RoleArn=ROLE_ARN)[0::2] == ("NotFoundException", 404)


def test_a_pipe_whose_source_does_not_exist_fails_to_create(door):
    env = setup(door)
    missing = env["stream_arn"].replace("table/orders", "table/nothing")
    created = env["pipes"].create_pipe(Name="broken", Source=missing, Target=env["arn"], RoleArn=ROLE_ARN,
                                       SourceParameters=STREAM)
    assert created["CurrentState"] == "CREATE_FAILED"
    described = env["pipes"].describe_pipe(Name="broken")
    assert (described["CurrentState"], described["StateReason"]) == (
        "CREATE_FAILED", f"The source {missing} does not exist")


def test_latest_starts_after_what_the_stream_holds_and_list_pipes_pages(door):
    env = setup(door)
    env["dynamodb"].put_item(TableName="orders", Item={"pk": {"S": "before"}})
    for name in ("p1", "p2", "p3"):
        env["pipes"].create_pipe(Name=name, Source=env["stream_arn"], Target=env["arn"], RoleArn=ROLE_ARN,
                                 SourceParameters={"DynamoDBStreamParameters": {"StartingPosition": "LATEST"}},
                                 DesiredState="STOPPED" if name != "p1" else "RUNNING")
    env["dynamodb"].put_item(TableName="orders", Item={"pk": {"S": "after"}})
    assert wait_idle(door)["Idle"]
    assert [r["dynamodb"]["Keys"]["pk"]["S"] for r in messages(env["sqs"], env["url"])] == ["after"]
    first = env["pipes"].list_pipes(Limit=2)
    assert [p["Name"] for p in first["Pipes"]] == ["p1", "p2"]
    rest = env["pipes"].list_pipes(Limit=2, NextToken=first["NextToken"])
    assert [p["Name"] for p in rest["Pipes"]] == ["p3"] and "NextToken" not in rest
    assert [p["Name"] for p in env["pipes"].list_pipes(CurrentState="STOPPED")["Pipes"]] == ["p2", "p3"]


def test_a_pipes_tags(door):
    env = setup(door)
    arn = env["pipes"].create_pipe(Name="tagged", Source=env["stream_arn"], Target=env["arn"], RoleArn=ROLE_ARN,
                                   SourceParameters=STREAM, Tags={"team": "data"})["Arn"]
    pipes = env["pipes"]
    pipes.tag_resource(resourceArn=arn, tags={"stage": "test"})
    assert pipes.list_tags_for_resource(resourceArn=arn)["tags"] == {"team": "data", "stage": "test"}
    pipes.untag_resource(resourceArn=arn, tagKeys=["team"])
    assert pipes.list_tags_for_resource(resourceArn=arn)["tags"] == {"stage": "test"}
    assert pipes.describe_pipe(Name="tagged")["Tags"] == {"stage": "test"}
    missing = arn.replace("pipe/tagged", "pipe/missing")
    assert error_of(pipes.list_tags_for_resource, resourceArn=missing)[0::2] == ("NotFoundException", 404)

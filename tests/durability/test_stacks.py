"""CloudFormation stacks are durable (emulator/cloudformation/stack_store.py): after a restart, in-process or a
kill -9 of `eddy serve`, a stack is described as it was (status, parameters, outputs, resources, events, change
sets, exports), and deleting it then deletes the resources it made, which are durable as any."""

import os
import signal

import boto3

from eddy import emulate
from tests.conftest import ServerDoor, eddy_server

TEMPLATE = """
Parameters:
  Timeout: {Type: Number, Default: 40}
Resources:
  Queue:
    Type: AWS::SQS::Queue
    Properties: {VisibilityTimeout: !Ref Timeout}
  Table:
    Type: AWS::DynamoDB::Table
    Properties:
      AttributeDefinitions: [{AttributeName: pk, AttributeType: S}]
      KeySchema: [{AttributeName: pk, KeyType: HASH}]
      BillingMode: PAY_PER_REQUEST
Outputs:
  Queue: {Value: !Ref Queue, Export: {Name: kept-queue}}
"""


def _seen(cloudformation) -> dict:
    stack = cloudformation.describe_stacks(StackName="kept")["Stacks"][0]
    return {"stack": stack, "events": cloudformation.describe_stack_events(StackName="kept")["StackEvents"],
            "resources": cloudformation.describe_stack_resources(StackName="kept")["StackResources"],
            "change sets": cloudformation.list_change_sets(StackName="kept")["Summaries"],
            "exports": cloudformation.list_exports()["Exports"]}


def _make(cloudformation) -> None:
    cloudformation.create_stack(StackName="kept", TemplateBody=TEMPLATE)
    cloudformation.create_change_set(StackName="kept", ChangeSetName="later", TemplateBody=TEMPLATE,
                                     Parameters=[{"ParameterKey": "Timeout", "ParameterValue": "50"}])


def _delete_and_check(cloudformation, sqs, dynamodb) -> None:
    cloudformation.execute_change_set(ChangeSetName="later", StackName="kept")
    url = cloudformation.describe_stacks(StackName="kept")["Stacks"][0]["Outputs"][0]["OutputValue"]
    assert sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["VisibilityTimeout"])["Attributes"] == {
        "VisibilityTimeout": "50"}
    cloudformation.delete_stack(StackName="kept")
    assert sqs.list_queues().get("QueueUrls", []) == []
    assert dynamodb.list_tables()["TableNames"] == []


def test_stacks_outlive_a_restart_in_process(tmp_path):
    with emulate(state_dir=tmp_path / "state"):
        cloudformation = boto3.client("cloudformation")
        _make(cloudformation)
        before = _seen(cloudformation)
    with emulate(state_dir=tmp_path / "state"):
        cloudformation = boto3.client("cloudformation")
        after = _seen(cloudformation)
        for seen in (before, after):
            seen["stack"].pop("ResponseMetadata", None)
        assert after == before
        _delete_and_check(cloudformation, boto3.client("sqs"), boto3.client("dynamodb"))


def test_stacks_outlive_a_kill_9_of_eddy_serve(tmp_path):
    args = ("--state-dir", str(tmp_path / "state"), "--housekeeping-interval", "0")
    with eddy_server(*args) as (url, server):
        cloudformation = ServerDoor(url).client("cloudformation")
        _make(cloudformation)
        before = _seen(cloudformation)
        os.kill(server.pid, signal.SIGKILL)
        server.wait(timeout=10)
    with eddy_server(*args) as (url, _):
        door = ServerDoor(url)
        cloudformation = door.client("cloudformation")
        assert _seen(cloudformation) == before
        _delete_and_check(cloudformation, door.client("sqs"), door.client("dynamodb"))

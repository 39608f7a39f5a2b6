"""A stack operation the disk refuses is taken back whole (emulator/cloudformation/stack_commits.py).

CloudFormation's stacks are kept in `cloudformation/stacks.json`, swapped in whole; the resources a stack makes are
made through Eddy's APIs, each durable on its own. Before, the file was written after the whole operation and a
refusal left the stack and its resources applied in memory (answered with a generic 500), until a restart that lost
the stack and kept its resources. Now writing the file is the operation's commit point (a create's end, an update's
before its cleanup, a delete's before any deletion); refused, every resource it made is deleted, every one it
changed in place is changed back, the stack is put back as the file holds it, and the answer is CloudFormation's
500 `InternalFailure` (query protocol's error document, Type Receiver), which the SDKs retry: botocore's standard
and legacy retry modes retry any HTTP 500 (botocore/retries/standard.py's RetryableStatusCodes... and
_retry.json's "general_server_error": {"applies_when": {"response": {"http_status_code": 500}}}).

The fault is injected at the file alone (EDDY_TEST_DISK_FULL naming the point `stacks`): the resources' own requests
are written, so what the test sees is the stack operation taking them back through their own APIs.
"""

from __future__ import annotations

import json
import threading
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from botocore.config import Config
from botocore.exceptions import ClientError

from tests.durability.test_disk_full import Eddy, disk, running  # noqa: F401 (the disk fixture)
from tests.durability.test_units_of_work import door  # noqa: F401 (the door fixture)

pytestmark = pytest.mark.slow

TEMPLATE = """
Parameters:
  Timeout: {Type: Number, Default: 40}
  News: {Type: String, Default: stack-news}
Resources:
  Queue:
    Type: AWS::SQS::Queue
    Properties: {QueueName: stack-jobs, VisibilityTimeout: !Ref Timeout}
  Topic:
    Type: AWS::SNS::Topic
    Properties: {TopicName: !Ref News}
  Setting:
    Type: AWS::SSM::Parameter
    Properties: {Name: /stack/setting, Type: String, Value: !Ref Timeout}
Outputs:
  Queue: {Value: !Ref Queue, Export: {Name: stack-queue}}
"""
ADDED = TEMPLATE.replace("Outputs:", """  Extra:
    Type: AWS::SQS::Queue
    Properties: {QueueName: stack-extra}
Outputs:""")
CHANGED = [{"ParameterKey": "Timeout", "ParameterValue": "50"}, {"ParameterKey": "News", "ParameterValue": "renamed"}]


def held(eddy: Eddy) -> dict[str, Any]:
    """The stack as CloudFormation describes it, and its resources through their own APIs."""
    cloudformation, sqs, sns, ssm = (eddy.client(name) for name in ("cloudformation", "sqs", "sns", "ssm"))
    try:
        stacks = cloudformation.describe_stacks(StackName="kept")["Stacks"]
        events = cloudformation.describe_stack_events(StackName="kept")["StackEvents"]
        resources = cloudformation.describe_stack_resources(StackName="kept")["StackResources"]
        change_sets = cloudformation.list_change_sets(StackName="kept")["Summaries"]
    except ClientError as error:
        stacks, events, resources, change_sets = error.response["Error"]["Message"], [], [], []
    queues = sorted(url.rsplit("/", 1)[1] for url in sqs.list_queues().get("QueueUrls", []))
    try:
        setting = ssm.get_parameter(Name="/stack/setting")["Parameter"]
        setting = (setting["Value"], setting["Version"])
    except ClientError as error:
        setting = error.response["Error"]["Code"]
    return {
        "stacks": stacks, "events": events, "resources": resources, "change sets": change_sets,
        "exports": cloudformation.list_exports()["Exports"],
        "queues": {name: sqs.get_queue_attributes(QueueUrl=sqs.get_queue_url(QueueName=name)["QueueUrl"],
                                                  AttributeNames=["VisibilityTimeout"])["Attributes"]
                   for name in queues},
        "topics": sorted(topic["TopicArn"].rsplit(":", 1)[1] for topic in sns.list_topics()["Topics"]),
        "setting": setting,
    }


def refused(call: Any) -> None:
    with pytest.raises(ClientError) as refusal:
        call()
    assert (refusal.value.response["ResponseMetadata"]["HTTPStatusCode"], refusal.value.response["Error"]["Code"],
            refusal.value.response["Error"]["Type"]) == (500, "InternalFailure", "Receiver")


def test_stack_operations_the_disk_refuses_are_taken_back_whole(door: str, tmp_path: Path, disk: Path) -> None:
    state = tmp_path / "state"
    with running(door, state) as eddy:
        cloudformation = eddy.client("cloudformation")
        nothing = held(eddy)
        assert (nothing["stacks"], nothing["queues"], nothing["topics"], nothing["setting"]) == \
            ("Stack with id kept does not exist", {}, [], "ParameterNotFound")
        disk.write_text("stacks")
        refused(lambda: cloudformation.create_stack(StackName="kept", TemplateBody=TEMPLATE))
        assert held(eddy) == nothing  # the queue, topic and parameter it made deleted again
        disk.write_text("stacks 1")  # the first attempt refused, then the disk takes the file again
        retrying = eddy.client("cloudformation", Config(retries={"mode": "standard", "total_max_attempts": 3}))
        answer = retrying.create_stack(StackName="kept", TemplateBody=TEMPLATE)
        assert (answer["ResponseMetadata"]["HTTPStatusCode"], answer["ResponseMetadata"]["RetryAttempts"]) == (200, 1)
        before = held(eddy)
        assert (before["stacks"][0]["StackStatus"], before["queues"], before["topics"], before["setting"]) == \
            ("CREATE_COMPLETE", {"stack-jobs": {"VisibilityTimeout": "40"}}, ["stack-news"], ("40", 1))
        disk.write_text("stacks")
        for name, call in [
            # in place (the queue's timeout, the parameter's value), a replacement (the renamed topic), an addition
            ("UpdateStack", lambda: cloudformation.update_stack(StackName="kept", TemplateBody=ADDED,
                                                                Parameters=CHANGED)),
            ("DeleteStack", lambda: cloudformation.delete_stack(StackName="kept")),
            ("CreateChangeSet", lambda: cloudformation.create_change_set(
                StackName="kept", ChangeSetName="later", TemplateBody=ADDED, Parameters=CHANGED)),
        ]:
            refused(call)
            assert held(eddy) == {**before, "setting": held(eddy)["setting"]}, name
            # SSM keeps each value as a version: the one changed back is the stack's value again, a version later
            assert held(eddy)["setting"][0] == "40", name
        disk.unlink()
        cloudformation.create_change_set(StackName="kept", ChangeSetName="later", TemplateBody=ADDED,
                                         Parameters=CHANGED)
        with_change_set = held(eddy)
        assert [c["Status"] for c in with_change_set["change sets"]] == ["CREATE_COMPLETE"]
        disk.write_text("stacks")
        refused(lambda: cloudformation.execute_change_set(StackName="kept", ChangeSetName="later"))
        assert held(eddy) == {**with_change_set, "setting": held(eddy)["setting"]}
        assert held(eddy)["setting"][0] == "40"
        disk.unlink()
        kept = held(eddy)
    with running(door, state, kill=False) as eddy:  # after kill -9 (server) or the block's end (in-process)
        assert held(eddy) == kept
        cloudformation = eddy.client("cloudformation")
        cloudformation.update_stack(StackName="kept", TemplateBody=ADDED, Parameters=CHANGED)
        updated = held(eddy)
        assert (updated["stacks"][0]["StackStatus"], updated["queues"], updated["topics"], updated["setting"][0]) == \
            ("UPDATE_COMPLETE", {"stack-extra": {"VisibilityTimeout": "30"}, "stack-jobs": {"VisibilityTimeout": "50"}},
             ["renamed"], "50")
        cloudformation.delete_stack(StackName="kept")
        gone = held(eddy)
        assert (gone["queues"], gone["topics"], gone["setting"]) == ({}, [], "ParameterNotFound")


WAITING = """
Resources:
  Jobs:
    Type: AWS::SQS::Queue
    Properties: {QueueName: waiting-jobs}
  Thing:
    Type: Custom::Thing
    DependsOn: Jobs
    Properties: {ServiceToken: %s, ServiceTimeout: 600}
"""
OTHER = """
Resources:
  Jobs:
    Type: AWS::SQS::Queue
    Properties: {QueueName: refused-jobs}
"""


def test_a_refused_operation_takes_back_its_own_stack_not_one_another_request_is_making(
    door: str, tmp_path: Path, disk: Path
) -> None:
    """Two stack operations at once (two clients): one waits for its custom resource's provider, the other's commit
    the disk refuses. Only the refused one is taken back: the waiting stack keeps the queue it made, and ends
    CREATE_COMPLETE and kept once its provider answers (before, the refusal deleted its queue and dropped the stack,
    so the CreateStack answered 200 for a stack that did not exist)."""
    with running(door, tmp_path / "state") as eddy:
        sns, sqs = eddy.client("sns"), eddy.client("sqs")
        topic = sns.create_topic(Name="provider")["TopicArn"]
        inbox = sqs.create_queue(QueueName="provider-requests")["QueueUrl"]
        inbox_arn = sqs.get_queue_attributes(QueueUrl=inbox, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
        sns.subscribe(TopicArn=topic, Protocol="sqs", Endpoint=inbox_arn, Attributes={"RawMessageDelivery": "true"})
        answers: list[Any] = []
        waiting = threading.Thread(target=lambda: answers.append(eddy.client("cloudformation").create_stack(
            StackName="waiting", TemplateBody=WAITING % topic)))
        waiting.start()
        try:
            request = None
            for _ in range(30):  # long polls: the provider's request arrives once the stack has made its queue
                messages = sqs.receive_message(QueueUrl=inbox, WaitTimeSeconds=10).get("Messages", [])
                if messages:
                    request = json.loads(messages[0]["Body"])
                    break
            assert request is not None and request["RequestType"] == "Create"
            disk.write_text("stacks")
            refused(lambda: eddy.client("cloudformation").create_stack(StackName="refused", TemplateBody=OTHER))
            disk.unlink()
            response = json.dumps({"Status": "SUCCESS", "PhysicalResourceId": "thing-1", "StackId": request["StackId"],
                                   "RequestId": request["RequestId"], "LogicalResourceId": "Thing", "Data": {}})
            put = urllib.request.Request(request["ResponseURL"], data=response.encode(), method="PUT")
            with urllib.request.urlopen(put, timeout=60) as answered:
                assert answered.status == 200
        finally:
            waiting.join(timeout=120)
        assert [answer["ResponseMetadata"]["HTTPStatusCode"] for answer in answers] == [200]
        cloudformation = eddy.client("cloudformation")
        stacks = cloudformation.describe_stacks()["Stacks"]
        resources = cloudformation.describe_stack_resources(StackName="waiting")["StackResources"]
        queues = sorted(url.rsplit("/", 1)[1] for url in sqs.list_queues()["QueueUrls"])
        assert ([(stack["StackName"], stack["StackStatus"]) for stack in stacks],
                sorted((resource["LogicalResourceId"], resource["ResourceStatus"]) for resource in resources),
                queues) == ([("waiting", "CREATE_COMPLETE")], [("Jobs", "CREATE_COMPLETE"), ("Thing", "CREATE_COMPLETE")],
                            ["provider-requests", "waiting-jobs"])

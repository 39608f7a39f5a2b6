"""A stack operation the disk refuses is taken back whole, its nested stacks and its custom resources included
(emulator/cloudformation/stack_commits.py).

Nested stacks. A parent's AWS::CloudFormation::Stack makes its child through CloudFormation's API, an operation of
its own, which wrote `cloudformation/stacks.json` at its own commit point. If the disk then refused the parent's
commit, the parent was taken back but the child stayed: after a restart, a stack whose parent never existed, and
the queue it made. Now a child made or changed while its parent's operation has not reached its commit point is
part of that operation: the parent's commit writes it, a refusal takes it back with the parent (its resources
deleted), and an update's cleanup inside the child waits for the parent's commit, as AWS runs the cleanup of
nested stacks in the root stack's cleanup phase ("UPDATE_COMPLETE_CLEANUP_IN_PROGRESS ... in the cleanup phase of
the root stack", CloudFormation User Guide, "Nested stacks"; the child reads UPDATE_COMPLETE_CLEANUP_IN_PROGRESS
until the parent's cleanup).

Custom resources. AWS does not roll back what a custom resource's function did: on a rollback it sends the
function a Delete request for the resource (PhysicalResourceId the one its Create answered), and the function
undoes what it chooses to (CloudFormation User Guide, "Custom resources": "CloudFormation ... sends a Delete request
... during a rollback"; LocalStack's AWS-validated test_custom_resources snapshot records the Delete a failed
stack's rollback sends). A refused commit is taken back as a rollback: the provider gets its Delete, what its
Delete handler removes is gone, and what it keeps (the requests it recorded) stays.

The fault is injected by the provider itself: its first Create writes `stacks 1` into the flag file
(EDDY_TEST_DISK_FULL), so the next write of stacks.json, the parent's commit, is refused once, after the child was
made; the SDK's retry then succeeds.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from botocore.config import Config

from tests.durability.test_disk_full import Eddy, disk, running  # noqa: F401 (the disk fixture)
from tests.durability.test_refused_stacks import refused
from tests.durability.test_units_of_work import KEY, door  # noqa: F401 (the door fixture)
from tests.emulator.cloudformation.test_nested_stacks import CHILD  # a queue, its name and DelaySeconds given
from tests.emulator.functions.test_functions import create_function

pytestmark = pytest.mark.slow

PROVIDER = '''
import json, os, urllib.request, boto3
ddb = boto3.client("dynamodb")
def handler(event, context):
    ddb.put_item(TableName="provider-requests", Item={
        "pk": {"S": event["RequestId"]}, "type": {"S": event["RequestType"]},
        "resource": {"S": event.get("PhysicalResourceId", "")}})
    thing = "thing-" + event["LogicalResourceId"]
    if event["RequestType"] == "Create":
        ddb.put_item(TableName="things", Item={"pk": {"S": thing}})
        flag = event["ResourceProperties"].get("RefuseNextCommit")
        if flag and not os.path.exists(flag + ".done"):  # once: a retry's Create finds the disk taking writes
            with open(flag + ".done", "w"), open(flag, "w") as refusing:
                refusing.write("stacks 1")
    elif event["RequestType"] == "Delete":
        ddb.delete_item(TableName="things", Key={"pk": {"S": thing}})
    failing = event["RequestType"] == "Create" and event["ResourceProperties"].get("Fail") == "true"
    response = {"Status": "FAILED" if failing else "SUCCESS", "Reason": "refused", "PhysicalResourceId": thing, "StackId": event["StackId"],
                "RequestId": event["RequestId"], "LogicalResourceId": event["LogicalResourceId"], "Data": {}}
    urllib.request.urlopen(urllib.request.Request(event["ResponseURL"], data=json.dumps(response).encode(),
                                                  method="PUT"), timeout=60).read()
'''

PARENT = """
Parameters:
  Flag: {Type: String, Default: ""}
  Delay: {Type: Number, Default: 0}
  Fail: {Type: String, Default: "false"}
Resources:
  Child:
    Type: AWS::CloudFormation::Stack
    Properties:
      TemplateURL: https://s3.amazonaws.com/deployments/child.yaml
      Parameters: {QueueName: child-jobs, Delay: !Ref Delay}
  Thing:
    Type: Custom::Thing
    DependsOn: Child
    Properties: {ServiceToken: %(provider)s, RefuseNextCommit: !Ref Flag, Delay: !Ref Delay, Fail: !Ref Fail}
"""


def held(eddy: Eddy) -> dict[str, Any]:
    """The stacks as CloudFormation lists them (a child's random name part set apart), the queues, and the items the
    provider keeps (`things`, which its Delete removes)."""
    cloudformation, sqs, ddb = eddy.client("cloudformation"), eddy.client("sqs"), eddy.client("dynamodb")
    stacks = []
    for stack in cloudformation.describe_stacks()["Stacks"]:
        resources = cloudformation.describe_stack_resources(StackName=stack["StackId"])["StackResources"]
        stacks.append((re.sub(r"-[A-Z0-9]{13}$", "-*", stack["StackName"]), stack["StackStatus"],
                       "ParentId" in stack, sorted((r["LogicalResourceId"], r["ResourceStatus"]) for r in resources),
                       [(p["ParameterKey"], p["ParameterValue"]) for p in stack.get("Parameters", [])
                        if p["ParameterKey"] == "Delay"]))
    queues = sorted(url.rsplit("/", 1)[1] for url in sqs.list_queues().get("QueueUrls", []))
    return {"stacks": sorted(stacks),
            "queues": {name: sqs.get_queue_attributes(QueueUrl=sqs.get_queue_url(QueueName=name)["QueueUrl"],
                                                      AttributeNames=["DelaySeconds"])["Attributes"]
                       for name in queues},
            "things": sorted(item["pk"]["S"] for item in ddb.scan(TableName="things")["Items"])}


def provider_requests(eddy: Eddy) -> list[tuple[str, str]]:
    """The requests the provider got (in no particular order: a scan): (RequestType, PhysicalResourceId)."""
    items = eddy.client("dynamodb").scan(TableName="provider-requests")["Items"]
    return sorted((item["type"]["S"], item["resource"]["S"]) for item in items)


def set_up(eddy: Eddy) -> str:
    ddb, s3 = eddy.client("dynamodb"), eddy.client("s3")
    for table in ("provider-requests", "things"):
        ddb.create_table(TableName=table, BillingMode="PAY_PER_REQUEST", **KEY)
    s3.create_bucket(Bucket="deployments")
    s3.put_object(Bucket="deployments", Key="child.yaml", Body=CHILD.encode())
    return create_function(eddy.client("lambda"), "provider", PROVIDER, Timeout=120)["FunctionArn"]


def test_a_refused_parent_stack_takes_back_its_nested_stack_and_sends_its_custom_resource_delete(
    door: str, tmp_path: Path, disk: Path
) -> None:
    state = tmp_path / "state"
    with running(door, state) as eddy:
        provider = set_up(eddy)
        cloudformation = eddy.client("cloudformation")
        nothing = held(eddy)
        assert nothing == {"stacks": [], "queues": {}, "things": []}
        refused(lambda: cloudformation.create_stack(
            StackName="parent", TemplateBody=PARENT % {"provider": provider},
            Parameters=[{"ParameterKey": "Flag", "ParameterValue": str(disk)}]))
        assert held(eddy) == nothing  # no parent, no child, no child's queue; the thing the provider made removed
        # the provider was sent its Delete, as a rollback sends it; what it recorded of its requests stays
        assert provider_requests(eddy) == [("Create", ""), ("Delete", "thing-Thing")]
    with running(door, state) as eddy:  # after kill -9 (server) or the block's end (in-process)
        assert held(eddy) == nothing
        Path(f"{disk}.done").unlink()  # the next Create refuses the next commit once more
        retrying = eddy.client("cloudformation", Config(retries={"mode": "standard", "total_max_attempts": 3}))
        answer = retrying.create_stack(StackName="parent", TemplateBody=PARENT % {"provider": provider},
                                       Parameters=[{"ParameterKey": "Flag", "ParameterValue": str(disk)}])
        assert (answer["ResponseMetadata"]["HTTPStatusCode"], answer["ResponseMetadata"]["RetryAttempts"]) == (200, 1)
        made = held(eddy)
        assert made == {
            "stacks": [("parent", "CREATE_COMPLETE", False, [("Child", "CREATE_COMPLETE"), ("Thing", "CREATE_COMPLETE")],
                        [("Delay", "0")]),
                       ("parent-Child-*", "CREATE_COMPLETE", True, [("Queue", "CREATE_COMPLETE")], [("Delay", "0")])],
            "queues": {"child-jobs": {"DelaySeconds": "0"}}, "things": ["thing-Thing"]}
        changed = [{"ParameterKey": "Flag", "UsePreviousValue": True}, {"ParameterKey": "Delay", "ParameterValue": "5"}]
        disk.write_text("stacks 1")  # an update of the child in place, then the parent's commit refused
        refused(lambda: eddy.client("cloudformation").update_stack(
            StackName="parent", TemplateBody=PARENT % {"provider": provider}, Parameters=changed))
        assert held(eddy) == made  # the child's queue changed back, both stacks as they were
        eddy.client("cloudformation").update_stack(StackName="parent", TemplateBody=PARENT % {"provider": provider},
                                                   Parameters=changed)
        updated = held(eddy)
        assert updated == {
            "stacks": [("parent", "UPDATE_COMPLETE", False, [("Child", "UPDATE_COMPLETE"), ("Thing", "UPDATE_COMPLETE")],
                        [("Delay", "5")]),
                       ("parent-Child-*", "UPDATE_COMPLETE", True, [("Queue", "UPDATE_COMPLETE")], [("Delay", "5")])],
            "queues": {"child-jobs": {"DelaySeconds": "5"}}, "things": ["thing-Thing"]}
    with running(door, state, kill=False) as eddy:
        assert held(eddy) == updated


def test_a_refused_parent_stack_whose_rollback_deleted_its_nested_stack_leaves_no_stack(
    door: str, tmp_path: Path, disk: Path
) -> None:
    """A parent's resource fails after its child was made: the rollback deletes the child, in a DeleteStack of its
    own, which wrote stacks.json with the parent half rolled back; the parent's end (ROLLBACK_COMPLETE) then refused
    put the parent back as that file held it: after a restart a stack ROLLBACK_IN_PROGRESS forever. The child's
    deletion before the parent's commit is part of the parent's operation too: nothing of it is left."""
    state = tmp_path / "state"
    with running(door, state) as eddy:
        provider = set_up(eddy)
        nothing = held(eddy)
        refused(lambda: eddy.client("cloudformation").create_stack(
            StackName="parent", TemplateBody=PARENT % {"provider": provider},
            Parameters=[{"ParameterKey": "Flag", "ParameterValue": str(disk)},
                        {"ParameterKey": "Fail", "ParameterValue": "true"}]))
        assert held(eddy) == nothing == {"stacks": [], "queues": {}, "things": []}
        assert provider_requests(eddy) == [("Create", ""), ("Delete", "thing-Thing")]  # the rollback's Delete
    with running(door, state, kill=False) as eddy:  # after kill -9 (server) or the block's end (in-process)
        assert held(eddy) == nothing

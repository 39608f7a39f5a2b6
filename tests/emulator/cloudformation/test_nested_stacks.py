"""AWS::CloudFormation::Stack, in both doors, as the CloudFormation User Guide documents nested stacks: the child's
template from TemplateURL in the deployment bucket (path-style and virtual-hosted URLs), its Parameters, Ref the
child's stack id, Fn::GetAtt Outputs.<name>, the child named <parent>-<logical id>-<13 characters>; an update passes
new parameters on; a child that fails fails its resource ("Embedded stack <arn> was not successfully created: ...")
and the parent rolls back, leaving no child; deleting the parent deletes the child."""

from __future__ import annotations

import re

from tests.emulator.cloudformation.helpers import outputs

CHILD = """
Parameters:
  QueueName: {Type: String}
  Delay: {Type: Number, Default: 0}
Resources:
  Queue:
    Type: AWS::SQS::Queue
    Properties: {QueueName: !Ref QueueName, DelaySeconds: !Ref Delay}
Outputs:
  QueueArn: {Value: !GetAtt Queue.Arn}
  QueueUrl: {Value: !Ref Queue}
"""
PARENT = """
Parameters:
  Delay: {Type: Number, Default: 0}
Resources:
  Child:
    Type: AWS::CloudFormation::Stack
    Properties:
      TemplateURL: %(url)s
      Parameters: {QueueName: nested-inbox, Delay: !Ref Delay}
  Topic:
    Type: AWS::SNS::Topic
    Properties:
      Subscription: [{Protocol: sqs, Endpoint: !GetAtt Child.Outputs.QueueArn}]
Outputs:
  ChildId: {Value: !Ref Child}
  QueueUrl: {Value: !GetAtt Child.Outputs.QueueUrl}
"""


def upload(door, template: str, key: str) -> None:
    s3 = door.client("s3")
    s3.create_bucket(Bucket="deployments")
    s3.put_object(Bucket="deployments", Key=key, Body=template.encode())


def test_a_nested_stack_is_made_updated_and_deleted_with_its_parent(door):
    cloudformation, sqs = door.client("cloudformation"), door.client("sqs")
    upload(door, CHILD, "child.yaml")
    url = "https://s3.amazonaws.com/deployments/child.yaml"
    cloudformation.create_stack(StackName="parent", TemplateBody=PARENT % {"url": url})
    assert cloudformation.describe_stacks(StackName="parent")["Stacks"][0]["StackStatus"] == "CREATE_COMPLETE"
    found = outputs(cloudformation, "parent")
    child = cloudformation.describe_stacks(StackName=found["ChildId"])["Stacks"][0]
    assert re.fullmatch(r"parent-Child-[A-Z0-9]{13}", child["StackName"])
    assert (child["StackStatus"], child["StackId"]) == ("CREATE_COMPLETE", found["ChildId"])
    assert found["QueueUrl"] == sqs.get_queue_url(QueueName="nested-inbox")["QueueUrl"]
    [resource] = cloudformation.describe_stack_resources(StackName="parent", LogicalResourceId="Child")[
        "StackResources"]
    assert (resource["ResourceType"], resource["PhysicalResourceId"]) == ("AWS::CloudFormation::Stack",
                                                                         found["ChildId"])
    topic = cloudformation.describe_stack_resource(StackName="parent", LogicalResourceId="Topic")[
        "StackResourceDetail"]["PhysicalResourceId"]
    door.client("sns").publish(TopicArn=topic, Message="through the nested queue")
    message = sqs.receive_message(QueueUrl=found["QueueUrl"], WaitTimeSeconds=5)["Messages"][0]
    assert "through the nested queue" in message["Body"]

    virtual_hosted = "https://deployments.s3.us-east-1.amazonaws.com/child.yaml"
    cloudformation.update_stack(StackName="parent", TemplateBody=PARENT % {"url": virtual_hosted},
                                Parameters=[{"ParameterKey": "Delay", "ParameterValue": "5"}])
    assert cloudformation.describe_stacks(StackName="parent")["Stacks"][0]["StackStatus"] == "UPDATE_COMPLETE"
    assert sqs.get_queue_attributes(QueueUrl=found["QueueUrl"], AttributeNames=["DelaySeconds"])["Attributes"] == {
        "DelaySeconds": "5"}
    assert cloudformation.describe_stacks(StackName=found["ChildId"])["Stacks"][0]["StackStatus"] == "UPDATE_COMPLETE"

    cloudformation.delete_stack(StackName="parent")
    assert cloudformation.describe_stacks(StackName=found["ChildId"])["Stacks"][0]["StackStatus"] == "DELETE_COMPLETE"
    assert sqs.list_queues().get("QueueUrls", []) == []


def test_a_child_that_fails_fails_its_resource_and_the_parent_rolls_back(door):
    cloudformation = door.client("cloudformation")
    upload(door, CHILD.replace("AWS::SQS::Queue", "AWS::Nothing::Here"), "broken.yaml")
    cloudformation.create_stack(StackName="parent", TemplateBody=PARENT % {
        "url": "https://s3.amazonaws.com/deployments/broken.yaml"})
    assert cloudformation.describe_stacks(StackName="parent")["Stacks"][0]["StackStatus"] == "ROLLBACK_COMPLETE"
    [failed] = [event for event in cloudformation.describe_stack_events(StackName="parent")["StackEvents"]
                if event["ResourceStatus"] == "CREATE_FAILED"]
    assert failed["LogicalResourceId"] == "Child"
    assert re.fullmatch(r"Embedded stack arn:aws:cloudformation:us-east-1:123456789012:stack/parent-Child-[A-Z0-9]{13}"
                        r"/[0-9a-f-]{36} was not successfully created: The following resource\(s\) failed to create: "
                        r"\[Queue\]\.", failed["ResourceStatusReason"])
    live = [s["StackName"] for s in cloudformation.list_stacks()["StackSummaries"] if s["StackStatus"] != "DELETE_COMPLETE"]
    assert live == ["parent"]
    cloudformation.delete_stack(StackName="parent")
    assert cloudformation.create_stack(StackName="missing", TemplateBody=PARENT % {
        "url": "https://s3.amazonaws.com/deployments/nothing.yaml"})["StackId"]
    [failed] = [event for event in cloudformation.describe_stack_events(StackName="missing")["StackEvents"]
                if event["ResourceStatus"] == "CREATE_FAILED"]
    assert failed["ResourceStatusReason"] == (
        "S3 error: Access Denied or the object does not exist: https://s3.amazonaws.com/deployments/nothing.yaml")


def test_nested_stacks_name_their_parent_and_root_in_describe_stacks_and_list_stacks(door):
    """ParentId is a nested stack's direct parent, RootId the top-level stack it belongs to ("For the first level of
    nested stacks, the root stack is also the parent stack": the Stack and StackSummary shapes of botocore's
    CloudFormation model, from AWS's API reference); a top-level stack has neither."""
    cloudformation = door.client("cloudformation")
    upload(door, CHILD, "child.yaml")
    upload(door, PARENT % {"url": "https://s3.amazonaws.com/deployments/child.yaml"}, "parent.yaml")
    cloudformation.create_stack(StackName="root", TemplateBody="""
Resources:
  Middle:
    Type: AWS::CloudFormation::Stack
    Properties: {TemplateURL: "https://s3.amazonaws.com/deployments/parent.yaml"}
Outputs:
  MiddleId: {Value: !Ref Middle}
""")
    root = cloudformation.describe_stacks(StackName="root")["Stacks"][0]
    assert root["StackStatus"] == "CREATE_COMPLETE" and "ParentId" not in root and "RootId" not in root
    middle_id = outputs(cloudformation, "root")["MiddleId"]
    child_id = outputs(cloudformation, middle_id)["ChildId"]
    middle = cloudformation.describe_stacks(StackName=middle_id)["Stacks"][0]
    child = cloudformation.describe_stacks(StackName=child_id)["Stacks"][0]
    assert (middle["ParentId"], middle["RootId"]) == (root["StackId"], root["StackId"])
    assert (child["ParentId"], child["RootId"]) == (middle_id, root["StackId"])
    summaries = {s["StackId"]: s for s in cloudformation.list_stacks()["StackSummaries"]}
    assert {(s.get("ParentId"), s.get("RootId")) for s in summaries.values()} == {
        (None, None), (root["StackId"], root["StackId"]), (middle_id, root["StackId"])}
    assert (summaries[child_id]["ParentId"], summaries[child_id]["RootId"]) == (middle_id, root["StackId"])
    cloudformation.delete_stack(StackName="root")
    gone = cloudformation.describe_stacks(StackName=child_id)["Stacks"][0]
    assert (gone["StackStatus"], gone["ParentId"], gone["RootId"]) == ("DELETE_COMPLETE", middle_id, root["StackId"])

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

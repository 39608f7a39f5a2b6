"""Change sets (both doors), as `aws cloudformation deploy`, sam and cdk use them: a CREATE change set holds a new
stack in REVIEW_IN_PROGRESS until it is executed; an UPDATE one lists what it adds, modifies (replacing or not) and
removes; one with nothing to change FAILS with AWS's reason, which `aws cloudformation deploy` reads
("The submitted information didn't contain changes...", awscli's customizations/cloudformation/deployer.py)."""

import pytest
from botocore.exceptions import ClientError

from tests.emulator.cloudformation.helpers import STACK, created, events

TEMPLATE = """
Resources:
  Queue:
    Type: AWS::SQS::Queue
    Properties: {QueueName: %(name)s, VisibilityTimeout: %(timeout)s}
%(more)s"""


def _described(cloudformation, name, stack):
    answer = cloudformation.describe_change_set(ChangeSetName=name, StackName=stack)
    return {key: answer[key] for key in ("ChangeSetName", "StackName", "ExecutionStatus", "Status", "Changes")}


def test_a_create_change_set_reviews_then_executes_a_new_stack(door):
    cloudformation = door.client("cloudformation")
    made = cloudformation.create_change_set(StackName="reviewed", ChangeSetName="first", ChangeSetType="CREATE",
                                            TemplateBody=TEMPLATE % {"name": "q1", "timeout": 30, "more": ""})
    assert made["Id"].startswith("arn:aws:cloudformation:us-east-1:123456789012:changeSet/first/")
    assert _described(cloudformation, "first", "reviewed") == {
        "ChangeSetName": "first", "StackName": "reviewed", "ExecutionStatus": "AVAILABLE", "Status": "CREATE_COMPLETE",
        "Changes": [{"Type": "Resource", "ResourceChange": {"Action": "Add", "LogicalResourceId": "Queue",
                                                            "ResourceType": "AWS::SQS::Queue", "Scope": [],
                                                            "Details": []}}]}
    stack = cloudformation.describe_stacks(StackName="reviewed")["Stacks"][0]
    assert stack["StackStatus"] == "REVIEW_IN_PROGRESS"
    assert cloudformation.list_stacks()["StackSummaries"] == []
    assert door.client("sqs").list_queues().get("QueueUrls", []) == []
    cloudformation.execute_change_set(ChangeSetName=made["Id"])
    assert events(cloudformation, "reviewed") == [
        ("reviewed", STACK, "REVIEW_IN_PROGRESS", "User Initiated"),
        ("reviewed", STACK, "CREATE_IN_PROGRESS", "User Initiated"), *created("Queue", "AWS::SQS::Queue"),
        ("reviewed", STACK, "CREATE_COMPLETE", None)]
    stack = cloudformation.describe_stacks(StackName="reviewed")["Stacks"][0]
    assert (stack["StackStatus"], stack["ChangeSetId"]) == ("CREATE_COMPLETE", made["Id"])
    assert [(summary["ChangeSetName"], summary["ExecutionStatus"], summary["Status"]) for summary in
            cloudformation.list_change_sets(StackName="reviewed")["Summaries"]] == [
        ("first", "EXECUTE_COMPLETE", "CREATE_COMPLETE")]
    with pytest.raises(ClientError) as raised:
        cloudformation.execute_change_set(ChangeSetName=made["Id"])
    assert raised.value.response["Error"]["Code"] == "InvalidChangeSetStatus"


def test_an_update_change_set_lists_additions_modifications_replacements_and_removals(door):
    cloudformation = door.client("cloudformation")
    cloudformation.create_stack(StackName="changing", TemplateBody=TEMPLATE % {"name": "q1", "timeout": 30, "more": """
  Old: {Type: AWS::SNS::Topic}"""})
    queue = cloudformation.describe_stack_resource(StackName="changing", LogicalResourceId="Queue")[
        "StackResourceDetail"]["PhysicalResourceId"]
    topic = cloudformation.describe_stack_resource(StackName="changing", LogicalResourceId="Old")[
        "StackResourceDetail"]["PhysicalResourceId"]
    cloudformation.create_change_set(StackName="changing", ChangeSetName="rename",
                                     TemplateBody=TEMPLATE % {"name": "q2", "timeout": 60, "more": """
  New: {Type: AWS::SNS::Topic}"""})
    assert _described(cloudformation, "rename", "changing")["Changes"] == [
        {"Type": "Resource", "ResourceChange": {
            "Action": "Modify", "LogicalResourceId": "Queue", "PhysicalResourceId": queue,
            "ResourceType": "AWS::SQS::Queue", "Replacement": "True", "Scope": ["Properties"], "Details": [
                {"Target": {"Attribute": "Properties", "Name": "QueueName", "RequiresRecreation": "Always"},
                 "Evaluation": "Static", "ChangeSource": "DirectModification"},
                {"Target": {"Attribute": "Properties", "Name": "VisibilityTimeout", "RequiresRecreation": "Never"},
                 "Evaluation": "Static", "ChangeSource": "DirectModification"}]}},
        {"Type": "Resource", "ResourceChange": {"Action": "Add", "LogicalResourceId": "New",
                                                "ResourceType": "AWS::SNS::Topic", "Scope": [], "Details": []}},
        {"Type": "Resource", "ResourceChange": {"Action": "Remove", "LogicalResourceId": "Old",
                                                "PhysicalResourceId": topic, "ResourceType": "AWS::SNS::Topic",
                                                "Scope": [], "Details": []}}]
    assert door.client("sqs").list_queues()["QueueUrls"] == [queue]  # nothing changes before it is executed
    cloudformation.execute_change_set(ChangeSetName="rename", StackName="changing")
    assert cloudformation.describe_stacks(StackName="changing")["Stacks"][0]["StackStatus"] == "UPDATE_COMPLETE"
    assert [url.rsplit("/", 1)[1] for url in door.client("sqs").list_queues()["QueueUrls"]] == ["q2"]
    assert [topic["TopicArn"].rsplit(":", 1)[1].split("-")[1] for topic in
            door.client("sns").list_topics()["Topics"]] == ["New"]


def test_a_change_set_without_changes_fails_with_awss_reason_and_can_be_deleted(door):
    cloudformation = door.client("cloudformation")
    template = TEMPLATE % {"name": "same", "timeout": 30, "more": ""}
    cloudformation.create_stack(StackName="same", TemplateBody=template)
    cloudformation.create_change_set(StackName="same", ChangeSetName="nothing", TemplateBody=template)
    described = cloudformation.describe_change_set(ChangeSetName="nothing", StackName="same")
    assert (described["Status"], described["ExecutionStatus"], described["StatusReason"], described["Changes"]) == (
        "FAILED", "UNAVAILABLE", "The submitted information didn't contain changes. Submit different information "
        "to create a change set.", [])
    cloudformation.delete_change_set(ChangeSetName="nothing", StackName="same")
    with pytest.raises(ClientError) as raised:
        cloudformation.describe_change_set(ChangeSetName="nothing", StackName="same")
    assert raised.value.response["Error"] == {"Type": "Sender", "Code": "ChangeSetNotFound",
                                              "Message": "ChangeSet [nothing] does not exist"}
    with pytest.raises(ClientError) as raised:
        cloudformation.create_change_set(StackName="absent", ChangeSetName="x", TemplateBody=template)
    assert raised.value.response["Error"]["Message"] == "Stack [absent] does not exist"


def test_a_resource_referring_to_a_replaced_one_is_listed_as_a_dynamic_change(door):
    """A resource the template leaves as it was, whose properties refer to one being replaced, is listed too: a
    Modify whose details are Dynamic, from a ResourceReference (Ref) or a ResourceAttribute (Fn::GetAtt, ${X.Attr})
    naming the replaced resource as CausingEntity, Replacement Conditional where such a property requires
    recreation (botocore's cloudformation model, ResourceChange.Replacement: "If the RequiresRecreation field is
    Always and the Evaluation field is Dynamic, Replacement is Conditional"; ResourceChangeDetail.CausingEntity: "the
    logical ID of the referenced resource ... MyBucket.Arn" for an attribute). A resource referring to nothing
    replaced is not listed."""
    cloudformation = door.client("cloudformation")
    more = """
  Url:
    Type: AWS::SSM::Parameter
    Properties: {Type: String, Value: !Ref Queue}
  Arn:
    Type: AWS::SSM::Parameter
    Properties: {Name: !Sub '/queues/${Queue.QueueName}', Type: String, Value: !GetAtt Queue.Arn}
  Alone:
    Type: AWS::SSM::Parameter
    Properties: {Type: String, Value: alone}"""
    cloudformation.create_stack(StackName="referring", TemplateBody=TEMPLATE % {"name": "q1", "timeout": 30,
                                                                                   "more": more})
    physical = {resource["LogicalResourceId"]: resource["PhysicalResourceId"] for resource in
                cloudformation.list_stack_resources(StackName="referring")["StackResourceSummaries"]}
    cloudformation.create_change_set(StackName="referring", ChangeSetName="rename",
                                     TemplateBody=TEMPLATE % {"name": "q2", "timeout": 30, "more": more})

    def dynamic(name: str, recreation: str, source: str, entity: str) -> dict:
        return {"Target": {"Attribute": "Properties", "Name": name, "RequiresRecreation": recreation},
                "Evaluation": "Dynamic", "ChangeSource": source, "CausingEntity": entity}

    assert _described(cloudformation, "rename", "referring")["Changes"] == [
        {"Type": "Resource", "ResourceChange": {
            "Action": "Modify", "LogicalResourceId": "Queue", "PhysicalResourceId": physical["Queue"],
            "ResourceType": "AWS::SQS::Queue", "Replacement": "True", "Scope": ["Properties"], "Details": [
                {"Target": {"Attribute": "Properties", "Name": "QueueName", "RequiresRecreation": "Always"},
                 "Evaluation": "Static", "ChangeSource": "DirectModification"}]}},
        {"Type": "Resource", "ResourceChange": {
            "Action": "Modify", "LogicalResourceId": "Url", "PhysicalResourceId": physical["Url"],
            "ResourceType": "AWS::SSM::Parameter", "Replacement": "False", "Scope": ["Properties"],
            "Details": [dynamic("Value", "Never", "ResourceReference", "Queue")]}},
        {"Type": "Resource", "ResourceChange": {
            "Action": "Modify", "LogicalResourceId": "Arn", "PhysicalResourceId": physical["Arn"],
            "ResourceType": "AWS::SSM::Parameter", "Replacement": "Conditional", "Scope": ["Properties"],
            "Details": [dynamic("Name", "Always", "ResourceAttribute", "Queue.QueueName"),
                        dynamic("Value", "Never", "ResourceAttribute", "Queue.Arn")]}}]
    cloudformation.execute_change_set(ChangeSetName="rename", StackName="referring")
    assert cloudformation.describe_stacks(StackName="referring")["Stacks"][0]["StackStatus"] == "UPDATE_COMPLETE"
    ssm = door.client("ssm")
    assert ssm.get_parameter(Name="/queues/q2")["Parameter"]["Value"].endswith(":q2")
    assert ssm.get_parameter(Name=physical["Url"])["Parameter"]["Value"].endswith("/q2")

"""CloudFormation answered by Eddy (both doors): a stack's resources are Eddy's own (a function Eddy runs, a mapping
its pollers serve), its events are AWS's in AWS's order and words, a failure rolls everything back.

The events' words are AWS's: "User Initiated", "Resource creation Initiated", "The following resource(s) failed
to create: [X]. Rollback requested by user.", "Resource creation cancelled" (as AWS's describe-stack-events prints
them in public reports, e.g. eksctl's troubleshooting output and awsdocs' user guide examples)."""

import pytest
from botocore.exceptions import ClientError

from tests.emulator.cloudformation.helpers import STACK, created, deleted, events, outputs
from tests.emulator.cloudformation.templates import pipeline, queue_and


def test_a_stack_makes_a_table_function_and_mapping_eddy_runs(door):
    cloudformation = door.client("cloudformation")
    stack_id = cloudformation.create_stack(StackName="orders", TemplateBody=pipeline(),
                                           Capabilities=["CAPABILITY_IAM"])["StackId"]
    assert stack_id.startswith("arn:aws:cloudformation:us-east-1:123456789012:stack/orders/")
    assert events(cloudformation, "orders") == [
        ("orders", STACK, "CREATE_IN_PROGRESS", "User Initiated"),
        *created("Orders", "AWS::DynamoDB::Table"), *created("Copies", "AWS::DynamoDB::Table"),
        *created("Role", "AWS::IAM::Role"), *created("Copier", "AWS::Lambda::Function"),
        *created("Mapping", "AWS::Lambda::EventSourceMapping"),
        ("orders", STACK, "CREATE_COMPLETE", None)]
    names = outputs(cloudformation, "orders")
    assert names["Orders"].startswith("orders-Orders-") and names["Copies"].startswith("orders-Copies-")
    awslambda = door.client("lambda")
    function = awslambda.get_function_configuration(FunctionName=names["Copier"])
    assert function["FunctionArn"] == names["Copier"]
    mappings = awslambda.list_event_source_mappings(FunctionName=names["Copier"])["EventSourceMappings"]
    assert [(mapping["BatchSize"], mapping["FunctionResponseTypes"]) for mapping in mappings] == \
        [(10, ["ReportBatchItemFailures"])]
    resources = cloudformation.describe_stack_resources(StackName="orders")["StackResources"]
    assert {resource["LogicalResourceId"]: resource["PhysicalResourceId"] for resource in resources} == {
        "Orders": names["Orders"], "Copies": names["Copies"], "Role": resources[2]["PhysicalResourceId"],
        "Copier": function["FunctionName"], "Mapping": mappings[0]["UUID"]}
    dynamodb = door.client("dynamodb")
    dynamodb.put_item(TableName=names["Orders"], Item={"pk": {"S": "o-1"}, "total": {"N": "12"}})
    door.assert_delivered(timeout=120)
    assert dynamodb.get_item(TableName=names["Copies"], Key={"pk": {"S": "o-1"}})["Item"] == {
        "pk": {"S": "o-1"}, "total": {"N": "12"}, "mark": {"S": "one"}}
    summary = cloudformation.describe_stacks(StackName="orders")["Stacks"][0]
    assert {key: summary[key] for key in ("StackName", "StackStatus", "Description", "Parameters",
                                          "DisableRollback", "Capabilities")} == {
        "StackName": "orders", "StackStatus": "CREATE_COMPLETE", "Description": "orders and their copies",
        "Parameters": [{"ParameterKey": "BatchSize", "ParameterValue": "10"}], "DisableRollback": False,
        "Capabilities": ["CAPABILITY_IAM"]}


def test_deleting_a_stack_removes_everything_it_made_in_reverse_order(door):
    cloudformation = door.client("cloudformation")
    stack_id = cloudformation.create_stack(StackName="orders", TemplateBody=pipeline(),
                                           Capabilities=["CAPABILITY_IAM"])["StackId"]
    cloudformation.delete_stack(StackName="orders")
    assert events(cloudformation, stack_id)[-12:] == [
        ("orders", STACK, "DELETE_IN_PROGRESS", "User Initiated"),
        *deleted("Mapping", "AWS::Lambda::EventSourceMapping"), *deleted("Copier", "AWS::Lambda::Function"),
        *deleted("Role", "AWS::IAM::Role"), *deleted("Copies", "AWS::DynamoDB::Table"),
        *deleted("Orders", "AWS::DynamoDB::Table"), ("orders", STACK, "DELETE_COMPLETE", None)]
    assert door.client("lambda").list_functions()["Functions"] == []
    assert door.client("lambda").list_event_source_mappings()["EventSourceMappings"] == []
    assert door.client("dynamodb").list_tables()["TableNames"] == []
    assert door.client("iam").list_roles()["Roles"] == []
    with pytest.raises(ClientError) as raised:
        cloudformation.describe_stacks(StackName="orders")
    assert raised.value.response["Error"] == {"Type": "Sender", "Code": "ValidationError",
                                              "Message": "Stack with id orders does not exist"}
    assert cloudformation.describe_stacks(StackName=stack_id)["Stacks"][0]["StackStatus"] == "DELETE_COMPLETE"
    assert [(summary["StackName"], summary["StackStatus"]) for summary in
            cloudformation.list_stacks()["StackSummaries"]] == [("orders", "DELETE_COMPLETE")]


def test_a_type_eddy_does_not_serve_fails_its_resource_and_the_stack_rolls_back(door):
    cloudformation = door.client("cloudformation")
    template = queue_and("""
  Network:
    Type: AWS::EC2::VPC
    DependsOn: Queue
    Properties: {CidrBlock: 10.0.0.0/16}
""")
    cloudformation.create_stack(StackName="net", TemplateBody=template)
    reason = ("Resource type AWS::EC2::VPC is not served by Eddy: no resource of this type can be created "
              "(docs/guides/deploy.md lists the types served)")
    assert events(cloudformation, "net") == [
        ("net", STACK, "CREATE_IN_PROGRESS", "User Initiated"), *created("Queue", "AWS::SQS::Queue"),
        ("Network", "AWS::EC2::VPC", "CREATE_FAILED", reason),
        ("net", STACK, "ROLLBACK_IN_PROGRESS",
         "The following resource(s) failed to create: [Network]. Rollback requested by user."),
        ("Network", "AWS::EC2::VPC", "DELETE_COMPLETE", None), *deleted("Queue", "AWS::SQS::Queue"),
        ("net", STACK, "ROLLBACK_COMPLETE", None)]
    assert door.client("sqs").list_queues().get("QueueUrls", []) == []
    with pytest.raises(ClientError) as raised:
        cloudformation.update_stack(StackName="net", TemplateBody=template)
    assert raised.value.response["Error"]["Message"].endswith(" is in ROLLBACK_COMPLETE state and can not be updated.")


def test_a_service_refusal_fails_the_resource_in_cloudformations_words_and_rolls_back(door):
    cloudformation = door.client("cloudformation")
    cloudformation.create_stack(StackName="bad", TemplateBody=queue_and("""
  Function:
    Type: AWS::Lambda::Function
    Properties:
      Runtime: python3.12
      Handler: index.handler
      Role: !GetAtt Queue.Arn
      Code: {S3Bucket: no-such-bucket, S3Key: code.zip}
"""))
    failed = [event for event in events(cloudformation, "bad") if event[2] == "CREATE_FAILED"]
    assert [(logical_id, status) for logical_id, _, status, _ in failed] == [("Function", "CREATE_FAILED")]
    assert failed[0][3].startswith('Resource handler returned message: "')
    assert cloudformation.describe_stacks(StackName="bad")["Stacks"][0]["StackStatus"] == "ROLLBACK_COMPLETE"
    assert door.client("sqs").list_queues().get("QueueUrls", []) == []


def test_disable_rollback_keeps_what_was_made_and_the_stack_is_create_failed(door):
    cloudformation = door.client("cloudformation")
    cloudformation.create_stack(StackName="kept", DisableRollback=True, TemplateBody=queue_and("""
  Network:
    Type: AWS::EC2::VPC
    DependsOn: Queue
"""))
    stack = cloudformation.describe_stacks(StackName="kept")["Stacks"][0]
    assert (stack["StackStatus"], stack["StackStatusReason"], stack["DisableRollback"]) == (
        "CREATE_FAILED", "The following resource(s) failed to create: [Network]. ", True)
    queue = cloudformation.describe_stack_resource(StackName="kept", LogicalResourceId="Queue")["StackResourceDetail"]
    assert queue["ResourceStatus"] == "CREATE_COMPLETE"
    assert door.client("sqs").list_queues()["QueueUrls"] == [queue["PhysicalResourceId"]]


def test_deletion_policy_retain_keeps_the_resource_and_skips_it(door):
    cloudformation = door.client("cloudformation")
    cloudformation.create_stack(StackName="keep", TemplateBody="""
Resources:
  Queue: {Type: AWS::SQS::Queue, DeletionPolicy: Retain}
  Topic: {Type: AWS::SNS::Topic}
""")
    url = cloudformation.describe_stack_resource(StackName="keep", LogicalResourceId="Queue")[
        "StackResourceDetail"]["PhysicalResourceId"]
    cloudformation.delete_stack(StackName="keep")
    stack_id = cloudformation.list_stacks()["StackSummaries"][0]["StackId"]
    assert events(cloudformation, stack_id)[-5:] == [
        ("keep", STACK, "DELETE_IN_PROGRESS", "User Initiated"), *deleted("Topic", "AWS::SNS::Topic"),
        ("Queue", "AWS::SQS::Queue", "DELETE_SKIPPED", None), ("keep", STACK, "DELETE_COMPLETE", None)]
    assert door.client("sqs").list_queues()["QueueUrls"] == [url]
    assert door.client("sns").list_topics()["Topics"] == []


def test_a_second_stack_of_the_same_name_and_iam_without_capabilities_are_refused(door):
    cloudformation = door.client("cloudformation")
    cloudformation.create_stack(StackName="one", TemplateBody=queue_and(""))
    with pytest.raises(ClientError) as raised:
        cloudformation.create_stack(StackName="one", TemplateBody=queue_and(""))
    assert raised.value.response["Error"] == {"Type": "Sender", "Code": "AlreadyExistsException",
                                              "Message": "Stack [one] already exists"}
    with pytest.raises(ClientError) as raised:
        cloudformation.create_stack(StackName="two", TemplateBody=pipeline())
    assert raised.value.response["Error"] == {"Type": "Sender", "Code": "InsufficientCapabilitiesException",
                                              "Message": "Requires capabilities : [CAPABILITY_IAM]"}
    assert [summary["StackName"] for summary in cloudformation.list_stacks()["StackSummaries"]] == ["one"]

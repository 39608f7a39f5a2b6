"""Stack updates (both doors): in place where AWS's resource reference says "No interruption", by replacement where
it says "Replacement" (the new resource made first, the old one deleted in the cleanup), a failure rolled back to
the stack as it was, and AWS's "No updates are to be performed." when nothing changed."""

import pytest
from botocore.exceptions import ClientError

from tests.emulator.cloudformation.helpers import STACK, created, deleted, deploy, events, outputs
from tests.emulator.cloudformation.templates import ROLE, pipeline

REPLACING = "Requested update requires the creation of a new physical resource; hence creating one."


def test_new_code_and_batch_size_are_updated_in_place_and_the_new_code_runs(door):
    cloudformation = door.client("cloudformation")
    stack_id = cloudformation.create_stack(StackName="orders", TemplateBody=pipeline("one"),
                                           Capabilities=["CAPABILITY_IAM"])["StackId"]
    before = outputs(cloudformation, "orders")
    mapping = cloudformation.describe_stack_resource(StackName="orders", LogicalResourceId="Mapping")[
        "StackResourceDetail"]["PhysicalResourceId"]
    count = len(events(cloudformation, "orders"))
    cloudformation.update_stack(StackName="orders", TemplateBody=pipeline("two"), Capabilities=["CAPABILITY_IAM"],
                                Parameters=[{"ParameterKey": "BatchSize", "ParameterValue": "5"}])
    assert events(cloudformation, "orders")[count:] == [
        ("orders", STACK, "UPDATE_IN_PROGRESS", "User Initiated"),
        ("Copier", "AWS::Lambda::Function", "UPDATE_IN_PROGRESS", None),
        ("Copier", "AWS::Lambda::Function", "UPDATE_COMPLETE", None),
        ("Mapping", "AWS::Lambda::EventSourceMapping", "UPDATE_IN_PROGRESS", None),
        ("Mapping", "AWS::Lambda::EventSourceMapping", "UPDATE_COMPLETE", None),
        ("orders", STACK, "UPDATE_COMPLETE_CLEANUP_IN_PROGRESS", None),
        ("orders", STACK, "UPDATE_COMPLETE", None)]
    assert outputs(cloudformation, "orders") == before
    awslambda = door.client("lambda")
    assert awslambda.get_event_source_mapping(UUID=mapping)["BatchSize"] == 5
    dynamodb = door.client("dynamodb")
    dynamodb.put_item(TableName=before["Orders"], Item={"pk": {"S": "o-2"}})
    door.assert_delivered(timeout=120)
    assert dynamodb.get_item(TableName=before["Copies"], Key={"pk": {"S": "o-2"}})["Item"]["mark"] == {"S": "two"}
    stack = cloudformation.describe_stacks(StackName=stack_id)["Stacks"][0]
    assert (stack["StackStatus"], stack["Parameters"]) == (
        "UPDATE_COMPLETE", [{"ParameterKey": "BatchSize", "ParameterValue": "5"}])
    with pytest.raises(ClientError) as raised:
        cloudformation.update_stack(StackName="orders", TemplateBody=pipeline("two"), Capabilities=["CAPABILITY_IAM"],
                                    Parameters=[{"ParameterKey": "BatchSize", "UsePreviousValue": True}])
    assert raised.value.response["Error"] == {"Type": "Sender", "Code": "ValidationError",
                                              "Message": "No updates are to be performed."}


NAMED = """
Resources:
  Queue:
    Type: AWS::SQS::Queue
    Properties: {QueueName: %(name)s}
  Pointer:
    Type: AWS::SSM::Parameter
    Properties: {Type: String, Value: !GetAtt Queue.Arn}
%(more)s"""


def test_a_changed_name_replaces_the_resource_and_what_refers_to_it_follows(door):
    cloudformation = door.client("cloudformation")
    cloudformation.create_stack(StackName="named", TemplateBody=NAMED % {"name": "first", "more": """
  Spare: {Type: AWS::SNS::Topic}"""})
    pointer = cloudformation.describe_stack_resource(StackName="named", LogicalResourceId="Pointer")[
        "StackResourceDetail"]["PhysicalResourceId"]
    count = len(events(cloudformation, "named"))
    cloudformation.update_stack(StackName="named", TemplateBody=NAMED % {"name": "second", "more": ""})
    sqs = door.client("sqs")
    found = events(cloudformation, "named")[count:]
    assert [(logical_id, status, reason) for logical_id, _, status, reason in found] == [
        ("named", "UPDATE_IN_PROGRESS", "User Initiated"),
        ("Queue", "UPDATE_IN_PROGRESS", REPLACING),
        ("Queue", "UPDATE_IN_PROGRESS", "Resource creation Initiated"),
        ("Queue", "UPDATE_COMPLETE", None),
        ("Pointer", "UPDATE_IN_PROGRESS", None), ("Pointer", "UPDATE_COMPLETE", None),
        ("named", "UPDATE_COMPLETE_CLEANUP_IN_PROGRESS", None),
        # the cleanup in the old template's reverse order, dependents first (CloudFormation deletes independent
        # resources concurrently: Spare and the old Queue in either order)
        ("Spare", "DELETE_IN_PROGRESS", None), ("Spare", "DELETE_COMPLETE", None),
        ("Queue", "DELETE_IN_PROGRESS", None), ("Queue", "DELETE_COMPLETE", None),
        ("named", "UPDATE_COMPLETE", None)]
    described = cloudformation.describe_stack_events(StackName="named")["StackEvents"]
    replaced = [event["PhysicalResourceId"] for event in described if event["LogicalResourceId"] == "Queue"][:2]
    assert [url.rsplit("/", 1)[1] for url in replaced] == ["first", "first"]  # the cleanup deletes the old one
    assert [url.rsplit("/", 1)[1] for url in sqs.list_queues()["QueueUrls"]] == ["second"]
    assert door.client("ssm").get_parameter(Name=pointer)["Parameter"]["Value"] == \
        "arn:aws:sqs:us-east-1:123456789012:second"
    assert door.client("sns").list_topics()["Topics"] == []
    # the replaced resource stays UPDATE_COMPLETE under its new physical id: the cleanup's events are the old one's
    resources = cloudformation.list_stack_resources(StackName="named")["StackResourceSummaries"]
    assert [(r["LogicalResourceId"], r["PhysicalResourceId"].rsplit("/", 1)[-1], r["ResourceStatus"])
            for r in resources] == [("Queue", "second", "UPDATE_COMPLETE"), ("Pointer", pointer, "UPDATE_COMPLETE")]
    cloudformation.update_stack(StackName="named", TemplateBody=NAMED % {"name": "second", "more": """
  Spare: {Type: AWS::SNS::Topic}"""})  # a later update makes only what it adds
    assert [url.rsplit("/", 1)[1] for url in sqs.list_queues()["QueueUrls"]] == ["second"]


def test_a_custom_named_resource_cannot_be_replaced_under_the_same_name(door):
    cloudformation = door.client("cloudformation")
    template = """
Resources:
  Table:
    Type: AWS::DynamoDB::Table
    Properties:
      TableName: fixed
      AttributeDefinitions: [{AttributeName: %(key)s, AttributeType: S}]
      KeySchema: [{AttributeName: %(key)s, KeyType: HASH}]
"""
    cloudformation.create_stack(StackName="fixed", TemplateBody=template % {"key": "pk"})
    cloudformation.update_stack(StackName="fixed", TemplateBody=template % {"key": "id"})
    assert cloudformation.describe_stacks(StackName="fixed")["Stacks"][0]["StackStatus"] == "UPDATE_ROLLBACK_COMPLETE"
    assert events(cloudformation, "fixed")[-5:] == [
        ("fixed", STACK, "UPDATE_IN_PROGRESS", "User Initiated"),
        ("Table", "AWS::DynamoDB::Table", "UPDATE_FAILED",
         "CloudFormation cannot update a stack when a custom-named resource requires replacing. "
         "Rename fixed and update the stack again."),
        ("fixed", STACK, "UPDATE_ROLLBACK_IN_PROGRESS", "The following resource(s) failed to update: [Table]. "),
        ("fixed", STACK, "UPDATE_ROLLBACK_COMPLETE_CLEANUP_IN_PROGRESS", None),
        ("fixed", STACK, "UPDATE_ROLLBACK_COMPLETE", None)]
    table = door.client("dynamodb").describe_table(TableName="fixed")["Table"]
    assert table["KeySchema"] == [{"AttributeName": "pk", "KeyType": "HASH"}]


def test_a_generated_name_table_is_replaced_when_its_key_changes(door):
    cloudformation = door.client("cloudformation")
    template = """
Resources:
  Table:
    Type: AWS::DynamoDB::Table
    Properties:
      AttributeDefinitions: [{AttributeName: %(key)s, AttributeType: S}]
      KeySchema: [{AttributeName: %(key)s, KeyType: HASH}]
      BillingMode: PAY_PER_REQUEST
Outputs:
  Name: {Value: !Ref Table}
"""
    cloudformation.create_stack(StackName="keys", TemplateBody=template % {"key": "pk"})
    old = outputs(cloudformation, "keys")["Name"]
    cloudformation.update_stack(StackName="keys", TemplateBody=template % {"key": "id"})
    new = outputs(cloudformation, "keys")["Name"]
    assert new != old and new.startswith("keys-Table-")
    dynamodb = door.client("dynamodb")
    assert dynamodb.list_tables()["TableNames"] == [new]
    assert dynamodb.describe_table(TableName=new)["Table"]["KeySchema"] == [{"AttributeName": "id",
                                                                             "KeyType": "HASH"}]


def test_a_failed_update_rolls_back_what_it_changed_and_deletes_what_it_made(door):
    cloudformation = door.client("cloudformation")
    template = """
Resources:
  Queue:
    Type: AWS::SQS::Queue
    Properties: {VisibilityTimeout: %(timeout)s}
%(more)s"""
    cloudformation.create_stack(StackName="undo", TemplateBody=template % {"timeout": 30, "more": ""})
    url = outputs_or_url(cloudformation)
    count = len(events(cloudformation, "undo"))
    cloudformation.update_stack(StackName="undo", TemplateBody=template % {"timeout": 90, "more": """
  Extra:
    Type: AWS::SNS::Topic
    DependsOn: Queue
  Network:
    Type: AWS::EC2::VPC
    DependsOn: Extra
"""})
    found = events(cloudformation, "undo")[count:]
    reason = ("Resource type AWS::EC2::VPC is not served by Eddy: no resource of this type can be created "
              "(docs/guides/deploy.md lists the types served)")
    assert found == [
        ("undo", STACK, "UPDATE_IN_PROGRESS", "User Initiated"),
        ("Queue", "AWS::SQS::Queue", "UPDATE_IN_PROGRESS", None), ("Queue", "AWS::SQS::Queue", "UPDATE_COMPLETE", None),
        *created("Extra", "AWS::SNS::Topic"), ("Network", "AWS::EC2::VPC", "CREATE_FAILED", reason),
        ("undo", STACK, "UPDATE_ROLLBACK_IN_PROGRESS", "The following resource(s) failed to create: [Network]. "),
        ("Queue", "AWS::SQS::Queue", "UPDATE_IN_PROGRESS", None), ("Queue", "AWS::SQS::Queue", "UPDATE_COMPLETE", None),
        ("undo", STACK, "UPDATE_ROLLBACK_COMPLETE_CLEANUP_IN_PROGRESS", None),
        ("Network", "AWS::EC2::VPC", "DELETE_COMPLETE", None), *deleted("Extra", "AWS::SNS::Topic"),
        ("undo", STACK, "UPDATE_ROLLBACK_COMPLETE", None)]
    attributes = door.client("sqs").get_queue_attributes(QueueUrl=url, AttributeNames=["VisibilityTimeout"])
    assert attributes["Attributes"] == {"VisibilityTimeout": "30"}
    assert door.client("sns").list_topics()["Topics"] == []
    assert [resource["LogicalResourceId"] for resource in
            cloudformation.describe_stack_resources(StackName="undo")["StackResources"]] == ["Queue"]
    assert "Extra" not in cloudformation.get_template(StackName="undo")["TemplateBody"]


def outputs_or_url(cloudformation):
    return cloudformation.describe_stack_resource(StackName="undo", LogicalResourceId="Queue")[
        "StackResourceDetail"]["PhysicalResourceId"]


UPDATED_FUNCTION = """
Resources:%(role)s
  Greeter:
    Type: AWS::Lambda::Function
    Properties:
      FunctionName: greeter
      Runtime: python3.12
      Handler: index.handler
      Role: !GetAtt Role.Arn
      Timeout: %(timeout)s
      Code:
        ZipFile: |
          def handler(event, context):
              return %(says)r
"""


def test_a_function_whose_code_and_configuration_change_is_updated_once_each_update_completes(door):
    """AWS::Lambda::Function's Code and Timeout changed in one stack update: CloudFormation updates the code, waits for
    that update to complete (Lambda refuses a second update while one is in progress: ResourceConflictException), then
    the configuration, and waits again; once UPDATE_COMPLETE the function is Successful and may be updated at once."""
    cloudformation, lam = door.client("cloudformation"), door.client("lambda")
    deploy(cloudformation, "create", "greeting", UPDATED_FUNCTION % {"role": ROLE, "timeout": 3, "says": "hello"})
    count = len(events(cloudformation, "greeting"))
    deploy(cloudformation, "update", "greeting", UPDATED_FUNCTION % {"role": ROLE, "timeout": 9, "says": "bye"})
    assert events(cloudformation, "greeting")[count:] == [
        ("greeting", STACK, "UPDATE_IN_PROGRESS", "User Initiated"),
        ("Greeter", "AWS::Lambda::Function", "UPDATE_IN_PROGRESS", None),
        ("Greeter", "AWS::Lambda::Function", "UPDATE_COMPLETE", None),
        ("greeting", STACK, "UPDATE_COMPLETE_CLEANUP_IN_PROGRESS", None),
        ("greeting", STACK, "UPDATE_COMPLETE", None)]
    configuration = lam.get_function_configuration(FunctionName="greeter")
    assert {key: configuration.get(key) for key in ("Timeout", "State", "LastUpdateStatus")} == {
        "Timeout": 9, "State": "Active", "LastUpdateStatus": "Successful"}
    assert lam.invoke(FunctionName="greeter")["Payload"].read() == b'"bye"'
    assert lam.update_function_configuration(FunctionName="greeter", Timeout=10)["LastUpdateStatus"] == "InProgress"

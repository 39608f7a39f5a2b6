"""SAM templates (Transform: AWS::Serverless-2016-10-31) expanded by AWS's aws-sam-translator and deployed through
the same engine, in both doors, as `sam deploy` deploys them (a change set): a function with a DynamoDB stream
event and an SQS event, and the function's role, mappings and permissions SAM makes for them."""

import json

import pytest
from botocore.exceptions import ClientError

from tests.emulator.cloudformation.helpers import outputs
from tests.emulator.cloudformation.templates import ORDERS

SAM = """
AWSTemplateFormatVersion: '2010-09-09'
Transform: AWS::Serverless-2016-10-31
Parameters:
  Mark: {Type: String, Default: one}
Resources:""" + ORDERS + """  Copies:
    Type: AWS::Serverless::SimpleTable
  Inbox:
    Type: AWS::SQS::Queue
  Copier:
    Type: AWS::Serverless::Function
    Properties:
      Runtime: python3.12
      Handler: index.handler
      Timeout: 30
      Environment: {Variables: {COPIES: !Ref Copies, MARK: !Ref Mark}}
      Policies: [{DynamoDBCrudPolicy: {TableName: !Ref Copies}}]
      InlineCode: |
        import json, os, boto3
        table = boto3.client("dynamodb")
        def handler(event, context):
            for record in event["Records"]:
                if "dynamodb" in record:
                    key = record["dynamodb"]["NewImage"]["pk"]["S"]
                else:
                    key = json.loads(record["body"])["pk"]
                table.put_item(TableName=os.environ["COPIES"],
                               Item={"id": {"S": key}, "mark": {"S": os.environ["MARK"]}})
      Events:
        Stream:
          Type: DynamoDB
          Properties: {Stream: !GetAtt Orders.StreamArn, StartingPosition: TRIM_HORIZON, BatchSize: 10}
        Queue:
          Type: SQS
          Properties: {Queue: !GetAtt Inbox.Arn, BatchSize: 5}
Outputs:
  Orders: {Value: !Ref Orders}
  Copies: {Value: !Ref Copies}
  Inbox: {Value: !Ref Inbox}
  Copier: {Value: !Ref Copier}
"""


def test_a_sam_template_deployed_by_change_set_runs_on_eddy(door):
    cloudformation = door.client("cloudformation")
    made = cloudformation.create_change_set(StackName="sam-app", ChangeSetName="deploy-1", ChangeSetType="CREATE",
                                            TemplateBody=SAM, Capabilities=["CAPABILITY_IAM"])
    changes = cloudformation.describe_change_set(ChangeSetName=made["Id"])["Changes"]
    assert sorted((change["ResourceChange"]["LogicalResourceId"], change["ResourceChange"]["ResourceType"])
                  for change in changes) == [
        ("Copier", "AWS::Lambda::Function"), ("CopierQueue", "AWS::Lambda::EventSourceMapping"),
        ("CopierRole", "AWS::IAM::Role"), ("CopierStream", "AWS::Lambda::EventSourceMapping"),
        ("Copies", "AWS::DynamoDB::Table"), ("Inbox", "AWS::SQS::Queue"), ("Orders", "AWS::DynamoDB::Table")]
    cloudformation.execute_change_set(ChangeSetName=made["Id"])
    assert cloudformation.describe_stacks(StackName="sam-app")["Stacks"][0]["StackStatus"] == "CREATE_COMPLETE"
    found = outputs(cloudformation, "sam-app")
    mappings = door.client("lambda").list_event_source_mappings(FunctionName=found["Copier"])["EventSourceMappings"]
    assert sorted(mapping["BatchSize"] for mapping in mappings) == [5, 10]
    dynamodb = door.client("dynamodb")
    dynamodb.put_item(TableName=found["Orders"], Item={"pk": {"S": "from-stream"}})
    door.client("sqs").send_message(QueueUrl=found["Inbox"], MessageBody=json.dumps({"pk": "from-queue"}))
    door.assert_delivered(timeout=120)
    door.wait_idle(timeout=120)
    copies = dynamodb.scan(TableName=found["Copies"])["Items"]
    assert sorted((item["id"]["S"], item["mark"]["S"]) for item in copies) == [("from-queue", "one"),
                                                                               ("from-stream", "one")]
    original = cloudformation.get_template(StackName="sam-app")["TemplateBody"]
    # (botocore hands a JSON TemplateBody back decoded: botocore/handlers.py json_decode_template_body)
    processed = cloudformation.get_template(StackName="sam-app", TemplateStage="Processed")["TemplateBody"]
    assert original == SAM
    assert processed["Resources"]["Copier"]["Type"] == "AWS::Lambda::Function"
    summary = cloudformation.get_template_summary(TemplateBody=SAM)
    assert summary["DeclaredTransforms"] == ["AWS::Serverless-2016-10-31"]


def test_a_sam_stack_needs_auto_expand_and_a_bad_sam_resource_is_the_transforms_error(door):
    cloudformation = door.client("cloudformation")
    with pytest.raises(ClientError) as raised:
        cloudformation.create_stack(StackName="sam-app", TemplateBody=SAM, Capabilities=["CAPABILITY_IAM"])
    assert raised.value.response["Error"] == {"Type": "Sender", "Code": "InsufficientCapabilitiesException",
                                              "Message": "Requires capabilities : [CAPABILITY_AUTO_EXPAND]"}
    with pytest.raises(ClientError) as raised:
        cloudformation.create_stack(StackName="sam-app", TemplateBody=SAM,
                                    Capabilities=["CAPABILITY_AUTO_EXPAND"])
    assert raised.value.response["Error"]["Message"] == "Requires capabilities : [CAPABILITY_IAM]"
    broken = SAM.replace("Type: DynamoDB", "Type: Nowhere")
    with pytest.raises(ClientError) as raised:
        cloudformation.create_stack(StackName="sam-app", TemplateBody=broken,
                                    Capabilities=["CAPABILITY_AUTO_EXPAND", "CAPABILITY_IAM"])
    message = raised.value.response["Error"]["Message"]
    assert message.startswith("Transform AWS::Serverless-2016-10-31 failed with: Invalid Serverless Application "
                              "Specification document. Number of errors found: 1. Resource with id [Copier] is "
                              "invalid.")
    assert cloudformation.list_stacks()["StackSummaries"] == []
    cloudformation.create_stack(StackName="sam-app", TemplateBody=SAM,
                                Capabilities=["CAPABILITY_AUTO_EXPAND", "CAPABILITY_IAM"],
                                Parameters=[{"ParameterKey": "Mark", "ParameterValue": "two"}])
    assert cloudformation.describe_stacks(StackName="sam-app")["Stacks"][0]["StackStatus"] == "CREATE_COMPLETE"


def test_without_the_sam_extra_a_sam_template_says_what_to_install(emu, monkeypatch):
    """A plain install leaves aws-sam-translator out (it is the `sam` extra): the template is refused in one line that
    names the command, and nothing is made. (tests/test_guest_project.py sees it in a real plain install.)"""
    import sys

    import boto3

    for name in [name for name in sys.modules if name == "samtranslator" or name.startswith("samtranslator.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "samtranslator", None)  # import samtranslator: ModuleNotFoundError
    cloudformation = boto3.client("cloudformation", region_name="us-east-1")
    with pytest.raises(ClientError) as raised:
        cloudformation.create_stack(StackName="sam-app", TemplateBody=SAM,
                                    Capabilities=["CAPABILITY_AUTO_EXPAND", "CAPABILITY_IAM"])
    assert raised.value.response["Error"] == {"Type": "Sender", "Code": "ValidationError", "Message": (
        'Transform AWS::Serverless-2016-10-31 needs aws-sam-translator, which a plain install of Eddy leaves out: '
        'pip install "eddy[sam]"')}
    assert cloudformation.list_stacks()["StackSummaries"] == []

"""SAM and CloudFormation templates deployed by `eddy up` (infra/templates.py): local code packaged and uploaded as
`sam deploy` does it, the template deployed whole by Eddy's CloudFormation (SAM by aws-sam-translator), in both
doors; a code change redeployed updates only the function's code, and the new code runs."""

from __future__ import annotations

from pathlib import Path

import pytest

from eddy.infra.apply import Action, down, summary, up
from eddy.infra.load import load_stack
from eddy.infra.stack import StackError
from eddy.infra.templates import Template, packaged
from tests.infra.test_stack import clients_of

EXAMPLES = Path(__file__).resolve().parents[2] / "infra" / "examples"

SAM = """
AWSTemplateFormatVersion: '2010-09-09'
Transform: AWS::Serverless-2016-10-31
Globals:
  Function: {Runtime: python3.12, Timeout: 30}
Resources:
  Orders:
    Type: AWS::DynamoDB::Table
    Properties:
      TableName: orders
      AttributeDefinitions: [{AttributeName: pk, AttributeType: S}]
      KeySchema: [{AttributeName: pk, KeyType: HASH}]
      BillingMode: PAY_PER_REQUEST
      StreamSpecification: {StreamViewType: NEW_IMAGE}
  Copies:
    Type: AWS::Serverless::SimpleTable
    Properties: {TableName: copies}
  Copier:
    Type: AWS::Serverless::Function
    Properties:
      CodeUri: src/
      Handler: app.handler
      Environment: {Variables: {COPIES: !Ref Copies}}
      Events:
        Stream:
          Type: DynamoDB
          Properties: {Stream: !GetAtt Orders.StreamArn, StartingPosition: TRIM_HORIZON, BatchSize: 10}
"""

APP = """
import os, boto3
table = boto3.client("dynamodb")
def handler(event, context):
    for record in event["Records"]:
        table.put_item(TableName=os.environ["COPIES"],
                       Item={"id": record["dynamodb"]["Keys"]["pk"], "mark": {"S": "%s"}})
"""


def test_a_sam_template_with_local_code_deploys_and_a_code_change_redeploys(door, tmp_path):
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "app.py").write_text(APP % "one")
    (tmp_path / "template.yaml").write_text(SAM)
    clients, dynamodb = clients_of(door), door.client("dynamodb")
    created = up(load_stack(tmp_path / "template.yaml"), clients, echo=lambda line: None)
    # what aws-sam-translator makes of the template: the function, its role and its stream's mapping
    assert sorted((a.logical_id, a.resource_type) for a in created) == [
        ("Copier", "AWS::Lambda::Function"), ("CopierRole", "AWS::IAM::Role"),
        ("CopierStream", "AWS::Lambda::EventSourceMapping"), ("Copies", "AWS::DynamoDB::Table"),
        ("Orders", "AWS::DynamoDB::Table")]
    dynamodb.put_item(TableName="orders", Item={"pk": {"S": "o-1"}})
    door.assert_delivered()
    assert dynamodb.get_item(TableName="copies", Key={"id": {"S": "o-1"}})["Item"] == {"id": {"S": "o-1"}, "mark": {"S": "one"}}
    # the code uploaded where `sam deploy --resolve-s3` would put it: the deployment bucket, by its content
    listed = door.client("s3").list_objects_v2(Bucket="eddy-deployments-123456789012-us-east-1")["Contents"]
    assert [item["Key"].split("/")[0] for item in listed] == ["template"]

    assert summary(up(load_stack(tmp_path / "template.yaml"), clients, echo=lambda line: None)) == "5 left alone"
    (tmp_path / "src" / "app.py").write_text(APP % "two")
    changed = [a for a in up(load_stack(tmp_path / "template.yaml"), clients, echo=lambda line: None)
               if a.verb != "unchanged"]
    assert changed == [Action("update", "AWS::Lambda::Function", "Copier", "Code")]
    dynamodb.put_item(TableName="orders", Item={"pk": {"S": "o-2"}})
    door.assert_delivered()
    assert dynamodb.get_item(TableName="copies", Key={"id": {"S": "o-2"}})["Item"]["mark"] == {"S": "two"}

    assert summary(down(load_stack(tmp_path / "template.yaml"), clients, echo=lambda line: None)) == "5 deleted"
    assert dynamodb.list_tables()["TableNames"] == []
    assert door.client("lambda").list_functions()["Functions"] == []


CLOUDFORMATION = """
Resources:
  Role:
    Type: AWS::IAM::Role
    Properties:
      AssumeRolePolicyDocument:
        Statement: [{Effect: Allow, Principal: {Service: lambda.amazonaws.com}, Action: sts:AssumeRole}]
  Greeter:
    Type: AWS::Lambda::Function
    Properties:
      Runtime: python3.12
      Handler: greet.handler
      Role: !GetAtt Role.Arn
      Code: ./greeter
Outputs:
  Name: {Value: !Ref Greeter}
"""


def test_a_cloudformation_templates_code_path_is_packaged(door, tmp_path):
    (tmp_path / "greeter").mkdir()
    (tmp_path / "greeter" / "greet.py").write_text("def handler(event, context):\n    return 'hello ' + event['name']\n")
    (tmp_path / "greet.yaml").write_text(CLOUDFORMATION)
    assert summary(up(load_stack(tmp_path / "greet.yaml"), clients_of(door), echo=lambda line: None)) == "2 created"
    stack = door.client("cloudformation").describe_stacks(StackName="greet")["Stacks"][0]
    name = stack["Outputs"][0]["OutputValue"]
    answer = door.client("lambda").invoke(FunctionName=name, Payload=b'{"name": "Ada"}')
    assert answer["Payload"].read() == b'"hello Ada"'


LAYERED = """
Resources:
  Role:
    Type: AWS::IAM::Role
    Properties:
      AssumeRolePolicyDocument:
        Statement: [{Effect: Allow, Principal: {Service: lambda.amazonaws.com}, Action: sts:AssumeRole}]
  Shared:
    Type: AWS::Lambda::LayerVersion
    Properties: {LayerName: shared, Content: ./shared, CompatibleRuntimes: [python3.12]}
  Greeter:
    Type: AWS::Lambda::Function
    Properties:
      Runtime: python3.12
      Handler: greet.handler
      Role: !GetAtt Role.Arn
      Layers: [!Ref Shared]
      Code: ./greeter
Outputs:
  Name: {Value: !Ref Greeter}
"""


def test_a_layers_local_content_is_packaged_and_a_change_publishes_a_new_version(door, tmp_path):
    """AWS::Lambda::LayerVersion's Content as a local folder (as `aws cloudformation package` takes it): uploaded,
    published, used by the function; a change in the folder publishes a new version (every property is create-only)
    and the function follows it; `eddy down` deletes both."""
    (tmp_path / "greeter").mkdir()
    (tmp_path / "greeter" / "greet.py").write_text("import words\ndef handler(event, context):\n    return words.HELLO\n")
    (tmp_path / "shared" / "python").mkdir(parents=True)
    (tmp_path / "shared" / "python" / "words.py").write_text("HELLO = 'hello from layer 1'\n")
    (tmp_path / "layered.yaml").write_text(LAYERED)
    clients, lam = clients_of(door), door.client("lambda")
    assert summary(up(load_stack(tmp_path / "layered.yaml"), clients, echo=lambda line: None)) == "3 created"
    name = door.client("cloudformation").describe_stacks(StackName="layered")["Stacks"][0]["Outputs"][0]["OutputValue"]
    assert lam.invoke(FunctionName=name)["Payload"].read() == b'"hello from layer 1"'

    (tmp_path / "shared" / "python" / "words.py").write_text("HELLO = 'hello from layer 2'\n")
    changed = [a for a in up(load_stack(tmp_path / "layered.yaml"), clients, echo=lambda line: None)
               if a.verb != "unchanged"]
    # the layer changed directly; the function, whose Layers refer to it, as a Dynamic change of its Layers
    assert changed == [Action("update", "AWS::Lambda::LayerVersion", "Shared", "replacing: Content"),
                       Action("update", "AWS::Lambda::Function", "Greeter", "Layers")]
    assert [v["Version"] for v in lam.list_layer_versions(LayerName="shared")["LayerVersions"]] == [2]
    assert lam.invoke(FunctionName=name)["Payload"].read() == b'"hello from layer 2"'

    assert summary(down(load_stack(tmp_path / "layered.yaml"), clients, echo=lambda line: None)) == "3 deleted"
    assert lam.list_layer_versions(LayerName="shared")["LayerVersions"] == []


def test_the_example_template_is_the_example_stack(door):
    clients = clients_of(door)
    lam = door.client("lambda")

    def deployed() -> tuple[list, list]:
        functions = sorted((f["FunctionName"], f["Handler"].rsplit(".", 2)[-2], f["Runtime"], f.get("Timeout"),
                            f.get("Environment", {}).get("Variables", {}).get("SEARCH_ATTRIBUTES"))
                           for f in lam.list_functions()["Functions"])
        mappings = sorted((m["FunctionArn"].rsplit(":", 1)[1], m["EventSourceArn"].split("/")[1], m["BatchSize"],
                           m["MaximumRetryAttempts"], str(m.get("FilterCriteria")), m["FunctionResponseTypes"])
                          for m in lam.list_event_source_mappings()["EventSourceMappings"])
        return functions, mappings

    up(load_stack(EXAMPLES / "stack.yaml"), clients, echo=lambda line: None)
    from_stack_file = deployed()
    down(load_stack(EXAMPLES / "stack.yaml"), clients, echo=lambda line: None)
    up(load_stack(EXAMPLES / "template.yaml"), clients, echo=lambda line: None)
    assert deployed() == from_stack_file and len(from_stack_file[1]) == 6


def test_template_mistakes_name_the_file_and_the_place(tmp_path):
    (tmp_path / "t.yaml").write_text("Resources:\n  Q: {Type: AWS::SQS::Queue}\nSurprise: 1\n")
    with pytest.raises(StackError) as refused:
        load_stack(tmp_path / "t.yaml")
    assert str(refused.value) == f"{tmp_path / 't.yaml'}: Template format error: Invalid template property or properties [Surprise]"
    template = Template({"Resources": {"Fn": {"Type": "AWS::Serverless::Function", "Properties": {"CodeUri": "gone/"}}}},
                        "t.yaml", tmp_path, "t")
    with pytest.raises(StackError) as missing:
        packaged(template, lambda data: ("bucket", "key"))
    assert str(missing.value) == f"t.yaml: Resources.Fn.Properties.CodeUri: gone/ does not exist (from {tmp_path})"

"""A template's parameters, conditions, mappings, intrinsic functions and pseudo parameters as CloudFormation
resolves them (both doors), and the templates and parameters it refuses, in its words, before anything is made."""

import base64
import json

import pytest
from botocore.exceptions import ClientError

from tests.emulator.cloudformation.helpers import outputs

VALUES = """
Parameters:
  Stage: {Type: String, AllowedValues: [dev, prod], Default: dev}
  Size: {Type: Number, Default: 3, MinValue: 1, MaxValue: 10}
  Names: {Type: CommaDelimitedList, Default: 'a,b,c'}
  Greeting: {Type: 'AWS::SSM::Parameter::Value<String>', Default: /app/greeting}
  Secret: {Type: String, NoEcho: true, Default: hush}
Mappings:
  Sizes:
    dev: {Memory: 128}
    prod: {Memory: 1024}
Conditions:
  IsProd: !Equals [!Ref Stage, prod]
  IsDev: !Not [!Condition IsProd]
  Both: !And [!Condition IsDev, !Or [!Equals [!Ref Size, 3], !Condition IsProd]]
Resources:
  Queue:
    Type: AWS::SQS::Queue
    Properties:
      DelaySeconds: !Ref Size
      VisibilityTimeout: !If [IsProd, 60, !Ref AWS::NoValue]
  ProdOnly:
    Type: AWS::SQS::Queue
    Condition: IsProd
Outputs:
  Url: {Value: !Ref Queue}
  Name: {Value: !GetAtt Queue.QueueName}
  Sub: {Value: !Sub '${AWS::StackName}/${AWS::Region}/${AWS::AccountId}/${Stage}/${Queue.Arn}/${!Literal}'}
  SubMap: {Value: !Sub ['${Name}-${Stage}', {Name: !Select [1, !Ref Names]}]}
  Join: {Value: !Join ['+', !Split [',', 'x,y,z']]}
  Memory: {Value: !FindInMap [Sizes, !Ref Stage, Memory]}
  Greeting: {Value: !Ref Greeting}
  Zone: {Value: !Select [0, !GetAZs '']}
  Encoded: {Value: !Base64 hello}
  Cidr: {Value: !Join [' ', !Cidr [10.0.0.0/24, 3, 6]]}
  If: {Value: !If [Both, small, big]}
  Partition: {Value: !Sub '${AWS::Partition}.${AWS::URLSuffix}'}
  ProdQueue: {Condition: IsProd, Value: !Ref ProdOnly}
  Names: {Value: !Join [',', !Ref Names], Description: the names}
"""


def test_parameters_conditions_mappings_and_every_intrinsic_function(door):
    door.client("ssm").put_parameter(Name="/app/greeting", Type="String", Value="hi there")
    cloudformation = door.client("cloudformation")
    stack_id = cloudformation.create_stack(StackName="values", TemplateBody=VALUES)["StackId"]
    found = outputs(cloudformation, "values")
    url = found["Url"]
    name = url.rsplit("/", 1)[1]
    arn = f"arn:aws:sqs:us-east-1:123456789012:{name}"
    assert found == {
        "Url": url, "Name": name,
        "Sub": f"values/us-east-1/123456789012/dev/{arn}/${{Literal}}",
        "SubMap": "b-dev", "Join": "x+y+z", "Memory": "128", "Greeting": "hi there", "Zone": "us-east-1a",
        "Encoded": base64.b64encode(b"hello").decode(), "Cidr": "10.0.0.0/26 10.0.0.64/26 10.0.0.128/26",
        "If": "small", "Partition": "aws.amazonaws.com", "Names": "a,b,c"}
    assert name.startswith("values-Queue-")
    attributes = door.client("sqs").get_queue_attributes(QueueUrl=url, AttributeNames=["All"])["Attributes"]
    assert (attributes["DelaySeconds"], attributes["VisibilityTimeout"]) == ("3", "30")
    assert [resource["LogicalResourceId"] for resource in
            cloudformation.list_stack_resources(StackName=stack_id)["StackResourceSummaries"]] == ["Queue"]
    assert cloudformation.describe_stacks(StackName="values")["Stacks"][0]["Parameters"] == [
        {"ParameterKey": "Stage", "ParameterValue": "dev"}, {"ParameterKey": "Size", "ParameterValue": "3"},
        {"ParameterKey": "Names", "ParameterValue": "a,b,c"},
        {"ParameterKey": "Greeting", "ParameterValue": "/app/greeting", "ResolvedValue": "hi there"},
        {"ParameterKey": "Secret", "ParameterValue": "****"}]


def test_a_condition_that_holds_makes_its_resources_and_outputs(door):
    door.client("ssm").put_parameter(Name="/app/greeting", Type="String", Value="hello")
    cloudformation = door.client("cloudformation")
    cloudformation.create_stack(StackName="prod", TemplateBody=VALUES, Parameters=[
        {"ParameterKey": "Stage", "ParameterValue": "prod"}, {"ParameterKey": "Size", "ParameterValue": "5"}])
    found = outputs(cloudformation, "prod")
    assert (found["Memory"], found["If"], found["ProdQueue"].rsplit("/", 1)[1].startswith("prod-ProdOnly-")) == \
        ("1024", "big", True)
    queue = door.client("sqs").get_queue_attributes(QueueUrl=found["Url"], AttributeNames=["All"])["Attributes"]
    assert (queue["DelaySeconds"], queue["VisibilityTimeout"]) == ("5", "60")


@pytest.mark.parametrize("parameters, message", [
    ([{"ParameterKey": "Stage", "ParameterValue": "test"}], "Parameter 'Stage' must be one of AllowedValues"),
    ([{"ParameterKey": "Size", "ParameterValue": "11"}], "Parameter 'Size' must be a number not greater than 10"),
    ([{"ParameterKey": "Size", "ParameterValue": "many"}], "Parameter 'Size' must be a number."),
    ([{"ParameterKey": "Colour", "ParameterValue": "red"}], "Parameters: [Colour] do not exist in the template"),
    ([{"ParameterKey": "Greeting", "ParameterValue": "/no/such"}], "Parameters: [ssm:/no/such] cannot be found."),
    ([{"ParameterKey": "Secret", "UsePreviousValue": True}],
     "Invalid input for parameter key Secret. Cannot specify usePreviousValue as true for a parameter key not in "
     "the previous template"),
])
def test_parameters_cloudformation_refuses_make_nothing(door, parameters, message):
    door.client("ssm").put_parameter(Name="/app/greeting", Type="String", Value="hello")
    cloudformation = door.client("cloudformation")
    with pytest.raises(ClientError) as raised:
        cloudformation.create_stack(StackName="refused", TemplateBody=VALUES, Parameters=parameters)
    assert raised.value.response["Error"] == {"Type": "Sender", "Code": "ValidationError", "Message": message}
    assert cloudformation.list_stacks()["StackSummaries"] == []
    assert door.client("sqs").list_queues().get("QueueUrls", []) == []


@pytest.mark.parametrize("template, message", [
    ("Resources: [", "Template format error: YAML not well-formed. (line 1, column 13)"),
    ('{"Resources": ', "Template format error: JSON not well-formed."),
    ("Outputs: {}", "Template format error: At least one Resources member must be defined."),
    ("Resources: {Queue: {Properties: {}}}",
     "Template format error: [/Resources/Queue] Every Resources object must contain a Type member."),
    ("Resources: {Queue: {Type: AWS::SQS::Queue, Properties: {QueueName: !Ref Nowhere}}}",
     "Template format error: Unresolved resource dependencies [Nowhere] in the Resources block of the template"),
    ("AWSTemplateFormatVersion: '2011-01-01'\nResources: {Queue: {Type: AWS::SQS::Queue}}",
     "Template format error: Unsupported template version: 2011-01-01"),
    ("Resources:\n  A: {Type: AWS::SQS::Queue, DependsOn: B}\n  B: {Type: AWS::SQS::Queue, DependsOn: A}",
     "Circular dependency between resources: [A, B]"),
    ("Resorces: {}\nResources: {Queue: {Type: AWS::SQS::Queue}}",
     "Template format error: Invalid template property or properties [Resorces]"),
])
def test_templates_cloudformation_refuses(door, template, message):
    cloudformation = door.client("cloudformation")
    with pytest.raises(ClientError) as raised:
        cloudformation.create_stack(StackName="refused", TemplateBody=template)
    assert raised.value.response["Error"] == {"Type": "Sender", "Code": "ValidationError", "Message": message}
    assert cloudformation.list_stacks()["StackSummaries"] == []


def test_validate_template_get_template_summary_and_get_template(door):
    cloudformation = door.client("cloudformation")
    template = "Description: one queue\n" + VALUES
    validated = cloudformation.validate_template(TemplateBody=template)
    del validated["ResponseMetadata"]
    assert validated == {"Description": "one queue", "Parameters": [
        {"ParameterKey": "Stage", "DefaultValue": "dev", "NoEcho": False},
        {"ParameterKey": "Size", "DefaultValue": "3", "NoEcho": False},
        {"ParameterKey": "Names", "DefaultValue": "a,b,c", "NoEcho": False},
        {"ParameterKey": "Greeting", "DefaultValue": "/app/greeting", "NoEcho": False},
        {"ParameterKey": "Secret", "DefaultValue": "hush", "NoEcho": True}]}
    summary = cloudformation.get_template_summary(TemplateBody=template)
    del summary["ResponseMetadata"]
    assert summary == {
        "Description": "one queue", "ResourceTypes": ["AWS::SQS::Queue"], "Version": "2010-09-09",
        "ResourceIdentifierSummaries": [], "Parameters": [
            {"ParameterKey": "Stage", "DefaultValue": "dev", "ParameterType": "String", "NoEcho": False,
             "ParameterConstraints": {"AllowedValues": ["dev", "prod"]}},
            {"ParameterKey": "Size", "DefaultValue": "3", "ParameterType": "Number", "NoEcho": False,
             "ParameterConstraints": {}},
            {"ParameterKey": "Names", "DefaultValue": "a,b,c", "ParameterType": "CommaDelimitedList",
             "NoEcho": False, "ParameterConstraints": {}},
            {"ParameterKey": "Greeting", "DefaultValue": "/app/greeting",
             "ParameterType": "AWS::SSM::Parameter::Value<String>", "NoEcho": False, "ParameterConstraints": {}},
            {"ParameterKey": "Secret", "DefaultValue": "hush", "ParameterType": "String", "NoEcho": True,
             "ParameterConstraints": {}}]}
    door.client("ssm").put_parameter(Name="/app/greeting", Type="String", Value="hello")
    cloudformation.create_stack(StackName="kept", TemplateBody=template)
    assert cloudformation.get_template(StackName="kept")["TemplateBody"] == template
    iam = json.dumps({"Resources": {"Role": {"Type": "AWS::IAM::Role", "Properties": {
        "RoleName": "named", "AssumeRolePolicyDocument": {}}}}})
    named = cloudformation.validate_template(TemplateBody=iam)
    assert (named["Capabilities"], named["CapabilitiesReason"]) == (
        ["CAPABILITY_NAMED_IAM"], "The following resource(s) require capabilities: [AWS::IAM::Role]")


def test_a_template_from_a_url_in_eddys_s3(door):
    s3 = door.client("s3")
    s3.create_bucket(Bucket="templates")
    s3.put_object(Bucket="templates", Key="queue.yaml", Body=b"Resources: {Queue: {Type: AWS::SQS::Queue}}")
    cloudformation = door.client("cloudformation")
    for url in ("https://templates.s3.amazonaws.com/queue.yaml",
                "https://s3.us-east-1.amazonaws.com/templates/queue.yaml"):
        summary = cloudformation.get_template_summary(TemplateURL=url)
        assert summary["ResourceTypes"] == ["AWS::SQS::Queue"]
    with pytest.raises(ClientError) as raised:
        cloudformation.validate_template(TemplateURL="https://templates.s3.amazonaws.com/missing.yaml")
    assert raised.value.response["Error"]["Message"] == (
        "S3 error: Access Denied or the object does not exist: https://templates.s3.amazonaws.com/missing.yaml")

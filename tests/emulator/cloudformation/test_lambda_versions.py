"""AWS::Lambda::Version and AWS::Lambda::Alias in stacks, in both doors, with Ref and Fn::GetAtt as the CloudFormation
User Guide documents them (Version: Ref the version's ARN, GetAtt FunctionArn and Version; Alias: Ref and GetAtt
AliasArn; RoutingConfig's AdditionalVersionWeights a list of FunctionVersion/FunctionWeight), an event source
mapping, a permission and an event invoke config on the alias; and SAM's AutoPublishAlias through aws-sam-translator:
a new version and the alias moved to it when the code changes, the old version kept (SAM retains it)."""

from __future__ import annotations

import json

from tests.emulator.cloudformation.helpers import created, events, outputs
from tests.emulator.cloudformation.templates import ORDERS, ROLE

ARN = "arn:aws:lambda:us-east-1:123456789012:function"
TEMPLATE = """
Resources:""" + ROLE.replace("%", "%%") + ORDERS + """
  Seen:
    Type: AWS::SQS::Queue
  Worker:
    Type: AWS::Lambda::Function
    Properties:
      FunctionName: worker
      Runtime: python3.12
      Handler: index.handler
      Role: !GetAtt Role.Arn
      Environment: {Variables: {QUEUE_URL: !Ref Seen}}
      Code:
        ZipFile: |
          import json, os, boto3
          def handler(event, context):
              boto3.client("sqs").send_message(QueueUrl=os.environ["QUEUE_URL"], MessageBody=json.dumps(
                  {"version": context.function_version, "arn": context.invoked_function_arn}))
  WorkerVersion:
    Type: AWS::Lambda::Version
    Properties: {FunctionName: !Ref Worker, Description: first}
  Live:
    Type: AWS::Lambda::Alias
    Properties:
      FunctionName: !Ref Worker
      Name: live
      FunctionVersion: !GetAtt WorkerVersion.Version
      %(routing)s
  Trigger:
    Type: AWS::Lambda::EventSourceMapping
    Properties: {FunctionName: !Ref Live, EventSourceArn: !GetAtt Orders.StreamArn, StartingPosition: TRIM_HORIZON}
  FromS3:
    Type: AWS::Lambda::Permission
    Properties: {FunctionName: !Ref Live, Action: lambda:InvokeFunction, Principal: s3.amazonaws.com}
  Retries:
    Type: AWS::Lambda::EventInvokeConfig
    DependsOn: Live
    Properties: {FunctionName: !Ref Worker, Qualifier: live, MaximumRetryAttempts: 0}
Outputs:
  VersionRef: {Value: !Ref WorkerVersion}
  VersionArn: {Value: !GetAtt WorkerVersion.FunctionArn}
  VersionNumber: {Value: !GetAtt WorkerVersion.Version}
  AliasRef: {Value: !Ref Live}
  AliasArn: {Value: !GetAtt Live.AliasArn}
  Orders: {Value: !Ref Orders}
  Seen: {Value: !Ref Seen}
"""


def test_a_version_and_an_alias_with_a_mapping_a_permission_and_an_event_invoke_config(door):
    cloudformation, lam = door.client("cloudformation"), door.client("lambda")
    cloudformation.create_stack(StackName="versions", TemplateBody=TEMPLATE % {"routing": ""},
                                Capabilities=["CAPABILITY_IAM"])
    assert cloudformation.describe_stacks(StackName="versions")["Stacks"][0]["StackStatus"] == "CREATE_COMPLETE"
    found = outputs(cloudformation, "versions")
    assert {key: found[key] for key in ("VersionRef", "VersionArn", "VersionNumber", "AliasRef", "AliasArn")} == {
        "VersionRef": f"{ARN}:worker:1", "VersionArn": f"{ARN}:worker:1", "VersionNumber": "1",
        "AliasRef": f"{ARN}:worker:live", "AliasArn": f"{ARN}:worker:live"}
    assert [e for e in events(cloudformation, "versions") if e[0] in ("WorkerVersion", "Live")] == [
        *created("WorkerVersion", "AWS::Lambda::Version"), *created("Live", "AWS::Lambda::Alias")]
    assert lam.get_function_configuration(FunctionName="worker", Qualifier="1")["Description"] == "first"
    [mapping] = lam.list_event_source_mappings(FunctionName="worker")["EventSourceMappings"]
    assert mapping["FunctionArn"] == f"{ARN}:worker:live"
    statement = json.loads(lam.get_policy(FunctionName="worker", Qualifier="live")["Policy"])["Statement"]
    assert [(s["Principal"], s["Resource"]) for s in statement] == [({"Service": "s3.amazonaws.com"},
                                                                      f"{ARN}:worker:live")]
    assert lam.get_function_event_invoke_config(FunctionName="worker", Qualifier="live")["MaximumRetryAttempts"] == 0
    door.client("dynamodb").put_item(TableName=found["Orders"], Item={"pk": {"S": "a"}})
    door.assert_delivered(timeout=120)
    sqs = door.client("sqs")
    [message] = sqs.receive_message(QueueUrl=found["Seen"], WaitTimeSeconds=5)["Messages"]
    assert json.loads(message["Body"]) == {"version": "1", "arn": f"{ARN}:worker:live"}

    unchanged = (TEMPLATE % {"routing": "RoutingConfig: {AdditionalVersionWeights: [{FunctionVersion: '1', "
                                        "FunctionWeight: 0}]}"}).replace("Description: first", "Description: second")
    cloudformation.update_stack(StackName="versions", Capabilities=["CAPABILITY_IAM"], TemplateBody=unchanged)
    assert cloudformation.describe_stacks(StackName="versions")["Stacks"][0]["StackStatus"] == (
        "UPDATE_ROLLBACK_COMPLETE")  # a new Version of a function that did not change
    assert ("WorkerVersion", "AWS::Lambda::Version", "UPDATE_FAILED", "A version for this Lambda function exists ( 1 ). "
            "Modify the function to create a new version.") in events(cloudformation, "versions")
    cloudformation.update_stack(StackName="versions", Capabilities=["CAPABILITY_IAM"],
                                TemplateBody=unchanged.replace("Handler: index.handler", "Handler: index.handler\n"
                                                               "      Timeout: 9"))
    assert cloudformation.describe_stacks(StackName="versions")["Stacks"][0]["StackStatus"] == "UPDATE_COMPLETE"
    found = outputs(cloudformation, "versions")
    assert (found["VersionRef"], found["VersionNumber"], found["AliasRef"]) == (
        f"{ARN}:worker:2", "2", f"{ARN}:worker:live")
    alias = lam.get_alias(FunctionName="worker", Name="live")
    assert (alias["FunctionVersion"], alias["RoutingConfig"]) == ("2", {"AdditionalVersionWeights": {"1": 0.0}})
    assert [v["Version"] for v in lam.list_versions_by_function(FunctionName="worker")["Versions"]] == [
        "$LATEST", "1", "2"]  # version 1 is kept while the alias's weights name it

    cloudformation.delete_stack(StackName="versions")
    assert lam.list_functions()["Functions"] == []


SAM = """
Transform: AWS::Serverless-2016-10-31
Resources:
  Seen:
    Type: AWS::SQS::Queue
  Greeter:
    Type: AWS::Serverless::Function
    Properties:
      FunctionName: greeter
      Runtime: python3.12
      Handler: index.handler
      AutoPublishAlias: live
      Environment: {Variables: {QUEUE_URL: !Ref Seen}}
      InlineCode: |
        import json, os, boto3
        def handler(event, context):
            boto3.client("sqs").send_message(QueueUrl=os.environ["QUEUE_URL"], MessageBody=json.dumps(
                {"says": "%(says)s", "version": context.function_version}))
      Events:
        Queue:
          Type: SQS
          Properties: {Queue: !GetAtt Inbox.Arn, BatchSize: 1}
  Inbox:
    Type: AWS::SQS::Queue
Outputs:
  Inbox: {Value: !Ref Inbox}
  Seen: {Value: !Ref Seen}
  Alias: {Value: !Ref GreeterAliaslive}
"""


def test_sam_auto_publish_alias_publishes_a_version_per_code_change_and_moves_the_alias(door):
    cloudformation, lam, sqs = door.client("cloudformation"), door.client("lambda"), door.client("sqs")

    def deploy(says: str, verb: str) -> dict:
        call = cloudformation.create_stack if verb == "create" else cloudformation.update_stack
        call(StackName="sam-alias", TemplateBody=SAM % {"says": says},
             Capabilities=["CAPABILITY_IAM", "CAPABILITY_AUTO_EXPAND"])
        status = cloudformation.describe_stacks(StackName="sam-alias")["Stacks"][0]["StackStatus"]
        assert status == f"{verb.upper()}_COMPLETE"
        return outputs(cloudformation, "sam-alias")

    def runs(found: dict) -> dict:
        sqs.send_message(QueueUrl=found["Inbox"], MessageBody="{}")
        door.assert_delivered(timeout=120)
        [message] = sqs.receive_message(QueueUrl=found["Seen"], WaitTimeSeconds=5)["Messages"]
        sqs.delete_message(QueueUrl=found["Seen"], ReceiptHandle=message["ReceiptHandle"])
        return json.loads(message["Body"])

    found = deploy("one", "create")
    assert found["Alias"] == f"{ARN}:greeter:live"
    [mapping] = lam.list_event_source_mappings(FunctionName="greeter")["EventSourceMappings"]
    assert mapping["FunctionArn"] == f"{ARN}:greeter:live"  # SAM's event sources invoke the alias
    assert runs(found) == {"says": "one", "version": "1"}
    found = deploy("two", "update")
    assert lam.get_alias(FunctionName="greeter", Name="live")["FunctionVersion"] == "2"
    assert runs(found) == {"says": "two", "version": "2"}
    assert [v["Version"] for v in lam.list_versions_by_function(FunctionName="greeter")["Versions"]] == [
        "$LATEST", "1", "2"]  # SAM's versions are retained (DeletionPolicy: Retain)
    assert json.loads(lam.invoke(FunctionName="greeter", Qualifier="1")["Payload"].read()) is None


PROVISIONED = """
Resources:""" + ROLE.replace("%", "%%") + """
  Worker:
    Type: AWS::Lambda::Function
    Properties: {FunctionName: warm, Runtime: python3.12, Handler: index.handler, Role: !GetAtt Role.Arn,
                 Code: {ZipFile: "def handler(event, context):\\n    return context.function_version\\n"}}
  WorkerVersion:
    Type: AWS::Lambda::Version
    Properties: {FunctionName: !Ref Worker, %(version)s}
  Live:
    Type: AWS::Lambda::Alias
    Properties: {FunctionName: !Ref Worker, Name: live, FunctionVersion: !GetAtt WorkerVersion.Version, %(alias)s}
"""


def test_provisioned_concurrency_config_on_a_version_and_an_alias_is_put_changed_and_deleted(door):
    """ProvisionedConcurrencyConfig of AWS::Lambda::Alias and AWS::Lambda::Version (CloudFormation User Guide: an
    update of it needs no replacement) is the alias's or version's configuration in the Lambda API; the same code path
    as PutProvisionedConcurrencyConfig, so its refusals fail the resource (an alias on a provisioned version)."""
    cloudformation, lam = door.client("cloudformation"), door.client("lambda")

    def deploy(verb: str, version: str = "", alias: str = "") -> str:
        call = cloudformation.create_stack if verb == "create" else cloudformation.update_stack
        call(StackName="warm", Capabilities=["CAPABILITY_IAM"],
             TemplateBody=PROVISIONED % {"version": version, "alias": alias})
        return cloudformation.describe_stacks(StackName="warm")["Stacks"][0]["StackStatus"]

    def configured() -> list[tuple[str, int]]:
        return [(c["FunctionArn"], c["RequestedProvisionedConcurrentExecutions"]) for c in
                lam.list_provisioned_concurrency_configs(FunctionName="warm")["ProvisionedConcurrencyConfigs"]]

    config = "ProvisionedConcurrencyConfig: {ProvisionedConcurrentExecutions: %d}"
    assert deploy("create", alias=config % 2) == "CREATE_COMPLETE"
    assert configured() == [(f"{ARN}:warm:live", 2)]
    assert lam.get_provisioned_concurrency_config(FunctionName="warm", Qualifier="live")["Status"] == "IN_PROGRESS"
    assert deploy("update", alias=config % 5) == "UPDATE_COMPLETE"
    assert configured() == [(f"{ARN}:warm:live", 5)]
    live = lam.get_alias(FunctionName="warm", Name="live")
    assert deploy("update", version=config % 1, alias=config % 5) == "UPDATE_ROLLBACK_COMPLETE"
    [failed] = [e for e in events(cloudformation, "warm") if e[2] == "UPDATE_FAILED"]
    assert failed[:3] == ("WorkerVersion", "AWS::Lambda::Version", "UPDATE_FAILED")
    assert failed[3].startswith('Resource handler returned message: "Version is pointed by a Provisioned Concurrency '
                                'alias" (RequestToken: ')
    assert configured() == [(f"{ARN}:warm:live", 5)]
    assert lam.get_alias(FunctionName="warm", Name="live")["RevisionId"] == live["RevisionId"]
    assert deploy("update") == "UPDATE_COMPLETE"  # removed from the template: deleted
    assert configured() == []
    assert deploy("update", version=config % 1) == "UPDATE_COMPLETE"
    assert configured() == [(f"{ARN}:warm:1", 1)]
    cloudformation.delete_stack(StackName="warm")
    assert lam.list_functions()["Functions"] == []

"""Replacement updates re-verified against CloudFormation (both doors): a renamed function and a renamed table (the
mapping between them following in place, then by replacement); a pipe's source parameters that UpdatePipe
cannot change (botocore's pipes model: UpdatePipeSourceDynamoDBStreamParameters has no StartingPosition; the
AWS::Pipes::Pipe reference: "Update requires: Replacement") replace the pipe, the others change it in place; a
Kinesis stream, an event bus and its rule; a renamed role, log group, parameter and bucket with its policy; a topic
policy removed."""

from __future__ import annotations

import json

from tests.emulator.cloudformation.helpers import events, outputs
from tests.emulator.cloudformation.templates import ROLE, inline_function, service_role, table

PIPE = """
Parameters:
  Position: {Type: String, Default: LATEST}
  Batch: {Type: Number, Default: 10}
Resources:""" + table("Orders", "NEW_IMAGE") + """
  Seen: {Type: AWS::SQS::Queue}""" + service_role("PipeRole", "pipes.amazonaws.com") + """
  Pipe:
    Type: AWS::Pipes::Pipe
    Properties:
      RoleArn: !GetAtt PipeRole.Arn
      Source: !GetAtt Orders.StreamArn
      SourceParameters:
        DynamoDBStreamParameters: {StartingPosition: !Ref Position, BatchSize: !Ref Batch}
      Target: !GetAtt Seen.Arn
"""


def _deploy(cloudformation, verb: str, **parameters: str) -> str:
    getattr(cloudformation, f"{verb}_stack")(
        StackName="piped", TemplateBody=PIPE, Capabilities=["CAPABILITY_IAM"],
        Parameters=[{"ParameterKey": key, "ParameterValue": value} for key, value in parameters.items()])
    status = cloudformation.describe_stacks(StackName="piped")["Stacks"][0]["StackStatus"]
    assert status == f"{verb.upper()}_COMPLETE", events(cloudformation, "piped")
    return cloudformation.describe_stack_resource(StackName="piped", LogicalResourceId="Pipe")[
        "StackResourceDetail"]["PhysicalResourceId"]


def test_a_pipe_is_updated_in_place_or_replaced_as_its_source_parameters_say(door):
    cloudformation, pipes = door.client("cloudformation"), door.client("pipes")
    first = _deploy(cloudformation, "create")
    assert _deploy(cloudformation, "update", Batch="5") == first  # BatchSize: in place
    source = pipes.describe_pipe(Name=first)["SourceParameters"]["DynamoDBStreamParameters"]
    assert (source["BatchSize"], source["StartingPosition"]) == (5, "LATEST")
    second = _deploy(cloudformation, "update", Batch="5", Position="TRIM_HORIZON")  # StartingPosition: replaced
    assert second != first
    assert [pipe["Name"] for pipe in pipes.list_pipes()["Pipes"]] == [second]
    source = pipes.describe_pipe(Name=second)["SourceParameters"]["DynamoDBStreamParameters"]
    assert (source["BatchSize"], source["StartingPosition"]) == (5, "TRIM_HORIZON")
    replaced = [(status, reason) for logical_id, _, status, reason in events(cloudformation, "piped")
                if logical_id == "Pipe"][-5:]
    assert replaced == [
        ("UPDATE_IN_PROGRESS", "Requested update requires the creation of a new physical resource; hence creating one."),
        ("UPDATE_IN_PROGRESS", "Resource creation Initiated"), ("UPDATE_COMPLETE", None),
        ("DELETE_IN_PROGRESS", None), ("DELETE_COMPLETE", None)]


NAMED_PIPELINE = """
Parameters:
  OrdersName: {Type: String, Default: orders-1}
  CopierName: {Type: String, Default: copier-1}
Resources:""" + ROLE + table("Copies") + """
  Orders:
    Type: AWS::DynamoDB::Table
    Properties:
      TableName: !Ref OrdersName
      AttributeDefinitions: [{AttributeName: pk, AttributeType: S}]
      KeySchema: [{AttributeName: pk, KeyType: HASH}]
      BillingMode: PAY_PER_REQUEST
      StreamSpecification: {StreamViewType: NEW_IMAGE}""" + inline_function("Copier", """
import os, boto3
table = boto3.client("dynamodb")
def handler(event, context):
    for record in event["Records"]:
        item = dict(record["dynamodb"]["NewImage"], copier={"S": context.function_name})
        table.put_item(TableName=os.environ["COPIES"], Item=item)
""", "{COPIES: !Ref Copies}", name="!Ref CopierName") + """
  Mapping:
    Type: AWS::Lambda::EventSourceMapping
    Properties:
      FunctionName: !Ref Copier
      EventSourceArn: !GetAtt Orders.StreamArn
      StartingPosition: TRIM_HORIZON
Outputs:
  Copies: {Value: !Ref Copies}
"""


def _copied(door, table_name: str, key: str) -> str:
    """Which function copied the item written now under `key` into the stack's copies table."""
    dynamodb, cloudformation = door.client("dynamodb"), door.client("cloudformation")
    dynamodb.put_item(TableName=table_name, Item={"pk": {"S": key}})
    door.assert_delivered(timeout=120)
    copies = outputs(cloudformation, "named")["Copies"]
    return dynamodb.get_item(TableName=copies, Key={"pk": {"S": key}})["Item"]["copier"]["S"]


def _physical(cloudformation, logical_id: str) -> str:
    return cloudformation.describe_stack_resource(StackName="named", LogicalResourceId=logical_id)[
        "StackResourceDetail"]["PhysicalResourceId"]


def test_a_renamed_function_and_a_renamed_table_are_replaced_and_the_mapping_follows(door):
    """A changed FunctionName replaces the function and updates the mapping in place (its FunctionName: "No
    interruption", the same UUID); a changed TableName replaces the table, and the mapping, whose EventSourceArn
    changes, is replaced ("Replacement"); the old function and table are deleted in the cleanup; records flow to
    the new function from the new table (AWS::Lambda::Function, AWS::DynamoDB::Table and
    AWS::Lambda::EventSourceMapping references)."""
    cloudformation, lam, dynamodb = door.client("cloudformation"), door.client("lambda"), door.client("dynamodb")
    parameters = {"OrdersName": "orders-1", "CopierName": "copier-1"}

    def deploy(verb: str) -> None:
        getattr(cloudformation, f"{verb}_stack")(
            StackName="named", TemplateBody=NAMED_PIPELINE, Capabilities=["CAPABILITY_IAM"],
            Parameters=[{"ParameterKey": key, "ParameterValue": value} for key, value in parameters.items()])
        status = cloudformation.describe_stacks(StackName="named")["Stacks"][0]["StackStatus"]
        assert status == f"{verb.upper()}_COMPLETE", events(cloudformation, "named")

    deploy("create")
    mapping = _physical(cloudformation, "Mapping")
    assert _copied(door, "orders-1", "a") == "copier-1"

    parameters["CopierName"] = "copier-2"
    deploy("update")
    assert _physical(cloudformation, "Mapping") == mapping
    assert lam.get_event_source_mapping(UUID=mapping)["FunctionArn"].endswith(":function:copier-2")
    assert sorted(f["FunctionName"] for f in lam.list_functions()["Functions"]) == ["copier-2"]
    assert _copied(door, "orders-1", "b") == "copier-2"

    parameters["OrdersName"] = "orders-2"
    deploy("update")
    replaced = _physical(cloudformation, "Mapping")
    assert replaced != mapping
    assert [m["UUID"] for m in lam.list_event_source_mappings()["EventSourceMappings"]] == [replaced]
    assert sorted(dynamodb.list_tables()["TableNames"]) == sorted([outputs(cloudformation, "named")["Copies"],
                                                                   "orders-2"])
    assert _copied(door, "orders-2", "c") == "copier-2"


STREAM_AND_RULE = """
Parameters:
  StreamName: {Type: String, Default: clicks-1}
  Shards: {Type: Number, Default: 1}
  Mode: {Type: String, Default: PROVISIONED}
  BusName: {Type: String, Default: bus-1}
  Source: {Type: String, Default: shop}
Conditions:
  Provisioned: !Equals [!Ref Mode, PROVISIONED]
Resources:
  Clicks:
    Type: AWS::Kinesis::Stream
    Properties:
      Name: !Ref StreamName
      ShardCount: !If [Provisioned, !Ref Shards, !Ref AWS::NoValue]
      StreamModeDetails: {StreamMode: !Ref Mode}
  Bus:
    Type: AWS::Events::EventBus
    Properties: {Name: !Ref BusName}
  Inbox: {Type: AWS::SQS::Queue}
  Orders:
    Type: AWS::Events::Rule
    Properties:
      EventBusName: !Ref Bus
      EventPattern: {source: [!Ref Source]}
      Targets: [{Id: inbox, Arn: !GetAtt Inbox.Arn}]
Outputs:
  Rule: {Value: !Ref Orders}
"""


def test_a_stream_bus_and_rule_change_in_place_or_are_replaced(door):
    """AWS::Kinesis::Stream: ShardCount and StreamModeDetails in place ("No interruption"), Name by replacement;
    AWS::Events::EventBus: Name by replacement, and the rule on it, whose EventBusName changes, replaced too; the
    rule's EventPattern in place (the AWS::Kinesis::Stream, AWS::Events::EventBus and AWS::Events::Rule
    references)."""
    cloudformation, kinesis, events_api = (door.client(name) for name in ("cloudformation", "kinesis", "events"))
    parameters = {}

    def deploy(verb: str, **changes: str) -> dict[str, str]:
        parameters.update(changes)
        getattr(cloudformation, f"{verb}_stack")(
            StackName="flows", TemplateBody=STREAM_AND_RULE,
            Parameters=[{"ParameterKey": key, "ParameterValue": value} for key, value in parameters.items()])
        status = cloudformation.describe_stacks(StackName="flows")["Stacks"][0]["StackStatus"]
        assert status == f"{verb.upper()}_COMPLETE", events(cloudformation, "flows")
        return outputs(cloudformation, "flows")

    def summary(name: str) -> tuple:
        found = kinesis.describe_stream_summary(StreamName=name)["StreamDescriptionSummary"]
        return found["StreamModeDetails"]["StreamMode"], found["OpenShardCount"]

    rule = deploy("create")["Rule"]
    assert rule.startswith("bus-1|flows-Orders-")  # a rule on a custom bus: Ref is <bus>|<rule name>
    deploy("update", Shards="2")
    assert summary("clicks-1") == ("PROVISIONED", 2)
    deploy("update", Mode="ON_DEMAND")
    assert (summary("clicks-1")[0], kinesis.list_streams()["StreamNames"]) == ("ON_DEMAND", ["clicks-1"])
    deploy("update", StreamName="clicks-2")
    assert kinesis.list_streams()["StreamNames"] == ["clicks-2"]

    assert deploy("update", Source="store")["Rule"] == rule  # the pattern: in place
    name = rule.split("|")[1]
    assert events_api.describe_rule(Name=name, EventBusName="bus-1")["EventPattern"] == '{"source": ["store"]}'
    moved = deploy("update", BusName="bus-2")["Rule"]
    assert moved.startswith("bus-2|flows-Orders-") and moved != rule.replace("bus-1", "bus-2")
    assert sorted(bus["Name"] for bus in events_api.list_event_buses()["EventBuses"]) == ["bus-2", "default"]
    targets = events_api.list_targets_by_rule(Rule=moved.split("|")[1], EventBusName="bus-2")["Targets"]
    assert [target["Id"] for target in targets] == ["inbox"]


NAMED_THINGS = """
Parameters:
  Suffix: {Type: String, Default: one}
Resources:
  Role:
    Type: AWS::IAM::Role
    Properties:
      RoleName: !Sub "worker-${Suffix}"
      AssumeRolePolicyDocument:
        Statement: [{Effect: Allow, Principal: {Service: lambda.amazonaws.com}, Action: sts:AssumeRole}]
  Logs:
    Type: AWS::Logs::LogGroup
    Properties: {LogGroupName: !Sub "/app/${Suffix}", RetentionInDays: 7}
  Setting:
    Type: AWS::SSM::Parameter
    Properties: {Name: !Sub "/app/${Suffix}/mode", Type: String, Value: !GetAtt Role.Arn}
  Uploads:
    Type: AWS::S3::Bucket
    Properties: {BucketName: !Sub "uploads-${Suffix}"}
  UploadsPolicy:
    Type: AWS::S3::BucketPolicy
    Properties:
      Bucket: !Ref Uploads
      PolicyDocument:
        Statement: [{Effect: Allow, Principal: {AWS: !GetAtt Role.Arn}, Action: "s3:GetObject",
                     Resource: !Sub "${Uploads.Arn}/*"}]
"""


def test_renamed_role_log_group_parameter_bucket_and_its_policy_are_replaced(door):
    """A changed RoleName, LogGroupName, a parameter's Name and a BucketName each replace their resource (their
    references: "Update requires: Replacement"), the bucket policy follows its Bucket by replacement; the old ones
    are gone after the cleanup and the new ones hold what the template says."""
    cloudformation, iam, logs, ssm, s3 = (door.client(name) for name in ("cloudformation", "iam", "logs", "ssm", "s3"))

    def deploy(verb: str, suffix: str) -> None:
        getattr(cloudformation, f"{verb}_stack")(StackName="things", TemplateBody=NAMED_THINGS,
                                                 Capabilities=["CAPABILITY_NAMED_IAM"],
                                                 Parameters=[{"ParameterKey": "Suffix", "ParameterValue": suffix}])
        status = cloudformation.describe_stacks(StackName="things")["Stacks"][0]["StackStatus"]
        assert status == f"{verb.upper()}_COMPLETE", events(cloudformation, "things")

    deploy("create", "one")
    deploy("update", "two")
    assert [role["RoleName"] for role in iam.list_roles()["Roles"] if role["RoleName"].startswith("worker-")] == [
        "worker-two"]
    assert [(group["logGroupName"], group["retentionInDays"]) for group in logs.describe_log_groups(
        logGroupNamePrefix="/app/")["logGroups"]] == [("/app/two", 7)]
    assert [p["Name"] for p in ssm.describe_parameters()["Parameters"]] == ["/app/two/mode"]
    assert ssm.get_parameter(Name="/app/two/mode")["Parameter"]["Value"] == iam.get_role(RoleName="worker-two")[
        "Role"]["Arn"]
    assert [bucket["Name"] for bucket in s3.list_buckets()["Buckets"]] == ["uploads-two"]
    assert '"arn:aws:s3:::uploads-two/*"' in s3.get_bucket_policy(Bucket="uploads-two")["Policy"]
    replaced = [logical_id for logical_id, _, status, reason in events(cloudformation, "things")
                if status == "UPDATE_IN_PROGRESS" and reason and reason.startswith("Requested update requires")]
    assert sorted(replaced) == ["Logs", "Role", "Setting", "Uploads", "UploadsPolicy"]  # (AWS: in parallel)


TOPIC_POLICY = """
Resources:
  Alerts: {Type: AWS::SNS::Topic}
%(policy)s
Outputs:
  Alerts: {Value: !Ref Alerts}
"""
POLICY = """
  AlertsPolicy:
    Type: AWS::SNS::TopicPolicy
    Properties:
      Topics: [!Ref Alerts]
      PolicyDocument:
        Statement: [{Sid: s3, Effect: Allow, Principal: {Service: s3.amazonaws.com}, Action: "sns:Publish",
                     Resource: !Ref Alerts}]
"""


def test_a_topic_policy_removed_by_an_update_gives_the_topic_its_default_policy(door):
    """AWS::SNS::TopicPolicy deleted (an update that leaves it out): the topic's policy is SNS's default again, the
    one a topic is made with (LocalStack #12831 for the handler; the default's statement as AWS writes it)."""
    cloudformation, sns = door.client("cloudformation"), door.client("sns")
    cloudformation.create_stack(StackName="alerts", TemplateBody=TOPIC_POLICY % {"policy": POLICY})
    topic = outputs(cloudformation, "alerts")["Alerts"]
    policy = json.loads(sns.get_topic_attributes(TopicArn=topic)["Attributes"]["Policy"])
    assert [statement["Sid"] for statement in policy["Statement"]] == ["s3"]
    cloudformation.update_stack(StackName="alerts", TemplateBody=TOPIC_POLICY % {"policy": ""})
    assert cloudformation.describe_stacks(StackName="alerts")["Stacks"][0]["StackStatus"] == "UPDATE_COMPLETE"
    assert json.loads(sns.get_topic_attributes(TopicArn=topic)["Attributes"]["Policy"]) == {
        "Version": "2008-10-17", "Id": "__default_policy_ID",
        "Statement": [{"Sid": "__default_statement_ID", "Effect": "Allow", "Principal": {"AWS": "*"},
                       "Action": ["SNS:GetTopicAttributes", "SNS:SetTopicAttributes", "SNS:AddPermission",
                                  "SNS:RemovePermission", "SNS:DeleteTopic", "SNS:Subscribe",
                                  "SNS:ListSubscriptionsByTopic", "SNS:Publish"],
                       "Resource": topic, "Condition": {"StringEquals": {"AWS:SourceOwner": "123456789012"}}}]}


RENAMED_GLOBAL = """
Parameters:
  Name: {Type: String, Default: carts-1}
Resources:
  Carts:
    Type: AWS::DynamoDB::GlobalTable
    Properties:
      TableName: !Ref Name
      BillingMode: PAY_PER_REQUEST
      AttributeDefinitions: [{AttributeName: pk, AttributeType: S}]
      KeySchema: [{AttributeName: pk, KeyType: HASH}]
      StreamSpecification: {StreamViewType: NEW_AND_OLD_IMAGES}
      Replicas: [{Region: us-east-1}, {Region: eu-west-1}]
"""


def test_a_renamed_global_table_is_replaced_in_every_region(door):
    """AWS::DynamoDB::GlobalTable's TableName: "Update requires: Replacement": the new table and its replica are made,
    then the old one is deleted in each region."""
    cloudformation = door.client("cloudformation")
    here, europe = door.client("dynamodb"), door.client("dynamodb", "eu-west-1")
    cloudformation.create_stack(StackName="carts", TemplateBody=RENAMED_GLOBAL)
    door.advance(31)  # the replica ACTIVE (Settings.replica_transition_seconds on Eddy's clock)
    cloudformation.update_stack(StackName="carts", TemplateBody=RENAMED_GLOBAL,
                                Parameters=[{"ParameterKey": "Name", "ParameterValue": "carts-2"}])
    assert cloudformation.describe_stacks(StackName="carts")["Stacks"][0]["StackStatus"] == "UPDATE_COMPLETE", (
        events(cloudformation, "carts"))
    door.advance(31)
    assert (here.list_tables()["TableNames"], europe.list_tables()["TableNames"]) == (["carts-2"], ["carts-2"])
    assert here.describe_table(TableName="carts-2")["Table"]["Replicas"] == [
        {"RegionName": "eu-west-1", "ReplicaStatus": "ACTIVE"}]

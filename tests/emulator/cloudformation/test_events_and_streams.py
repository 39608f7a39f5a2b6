"""Kinesis streams, EventBridge buses and rules, Pipes and asynchronous invocation settings made by a stack (both
doors): a Kinesis mapping the stack makes delivers, a rule the stack makes delivers to its queue, a pipe the stack
makes runs, and a function's event invoke config is the one Lambda's API shows."""

import json

from tests.emulator.cloudformation.helpers import outputs
from tests.emulator.cloudformation.templates import ROLE, inline_function

TEMPLATE = """
Resources:
""" + ROLE + """
  Stream:
    Type: AWS::Kinesis::Stream
    Properties: {ShardCount: 1, RetentionPeriodHours: 48}
  Seen:
    Type: AWS::SQS::Queue
  Failures:
    Type: AWS::SQS::Queue
""" + inline_function(
    "Reader",
    """
import base64, os, boto3
sqs = boto3.client("sqs")
def handler(event, context):
    for record in event["Records"]:
        sqs.send_message(QueueUrl=os.environ["SEEN"], MessageBody=base64.b64decode(record["kinesis"]["data"]).decode())
""",
    "{SEEN: !Ref Seen}",
) + """  ReaderMapping:
    Type: AWS::Lambda::EventSourceMapping
    Properties: {FunctionName: !Ref Reader, EventSourceArn: !GetAtt Stream.Arn, StartingPosition: TRIM_HORIZON}
  ReaderAsync:
    Type: AWS::Lambda::EventInvokeConfig
    Properties:
      FunctionName: !Ref Reader
      Qualifier: $LATEST
      MaximumRetryAttempts: 0
      DestinationConfig: {OnFailure: {Destination: !GetAtt Failures.Arn}}
  Bus:
    Type: AWS::Events::EventBus
    Properties: {Name: orders}
  Routed:
    Type: AWS::SQS::Queue
  Route:
    Type: AWS::Events::Rule
    Properties:
      EventBusName: !Ref Bus
      EventPattern: {source: [shop], detail-type: [placed]}
      Targets: [{Id: routed, Arn: !GetAtt Routed.Arn}]
  PipeSource:
    Type: AWS::SQS::Queue
  PipeTarget:
    Type: AWS::SQS::Queue
  Pipe:
    Type: AWS::Pipes::Pipe
    Properties:
      RoleArn: !GetAtt Role.Arn
      Source: !GetAtt PipeSource.Arn
      Target: !GetAtt PipeTarget.Arn
      SourceParameters: {SqsQueueParameters: {BatchSize: 1}}
Outputs:
  Stream: {Value: !Ref Stream}
  Reader: {Value: !Ref Reader}
  Seen: {Value: !Ref Seen}
  Failures: {Value: !GetAtt Failures.Arn}
  Routed: {Value: !Ref Routed}
  Rule: {Value: !Ref Route}
  PipeSource: {Value: !Ref PipeSource}
  PipeTarget: {Value: !Ref PipeTarget}
  PipeState: {Value: !GetAtt Pipe.CurrentState}
"""


def _bodies(sqs, url):
    return [message["Body"] for message in
            sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10, WaitTimeSeconds=20)["Messages"]]


def test_kinesis_mappings_rules_pipes_and_invoke_configs_made_by_a_stack_run(door):
    cloudformation = door.client("cloudformation")
    cloudformation.create_stack(StackName="flows", TemplateBody=TEMPLATE, Capabilities=["CAPABILITY_IAM"])
    stack = cloudformation.describe_stacks(StackName="flows")["Stacks"][0]
    assert (stack["StackStatus"], stack.get("StackStatusReason")) == ("CREATE_COMPLETE", None)
    found = outputs(cloudformation, "flows")
    sqs = door.client("sqs")
    kinesis = door.client("kinesis")
    summary = kinesis.describe_stream_summary(StreamName=found["Stream"])["StreamDescriptionSummary"]
    assert (summary["OpenShardCount"], summary["RetentionPeriodHours"]) == (1, 48)
    kinesis.put_record(StreamName=found["Stream"], Data=b"from kinesis", PartitionKey="k")
    door.assert_delivered(timeout=120)
    assert _bodies(sqs, found["Seen"]) == ["from kinesis"]
    config = door.client("lambda").get_function_event_invoke_config(FunctionName=found["Reader"], Qualifier="$LATEST")
    assert (config["MaximumRetryAttempts"], config["DestinationConfig"]) == (
        0, {"OnSuccess": {}, "OnFailure": {"Destination": found["Failures"]}})
    assert found["Rule"].startswith("orders|flows-Route-")
    door.client("events").put_events(Entries=[{"EventBusName": "orders", "Source": "shop", "DetailType": "placed",
                                               "Detail": json.dumps({"id": 7})}])
    routed = json.loads(_bodies(sqs, found["Routed"])[0])
    assert (routed["source"], routed["detail-type"], routed["detail"]) == ("shop", "placed", {"id": 7})
    assert found["PipeState"] in ("CREATING", "RUNNING")
    sqs.send_message(QueueUrl=found["PipeSource"], MessageBody="through the pipe")
    piped = json.loads(_bodies(sqs, found["PipeTarget"])[0])
    assert piped["body"] == "through the pipe"
    cloudformation.delete_stack(StackName="flows")
    assert kinesis.list_streams()["StreamNames"] == []
    assert door.client("pipes").list_pipes()["Pipes"] == []
    assert [bus["Name"] for bus in door.client("events").list_event_buses()["EventBuses"]] == ["default"]
    assert sqs.list_queues().get("QueueUrls", []) == []

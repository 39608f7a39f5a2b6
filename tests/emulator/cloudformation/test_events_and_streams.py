"""Kinesis streams, EventBridge buses and rules, Pipes and asynchronous invocation settings made by a stack (both
doors): a Kinesis mapping the stack makes delivers, a rule the stack makes delivers to its queue, a pipe the stack
makes runs, and a function's event invoke config is the one Lambda's API shows."""

import json

from tests.emulator.cloudformation.helpers import deploy, outputs
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


def service_role(logical_id: str, service: str) -> str:
    """An AWS::IAM::Role `service` (states, events) may assume, for a template's Resources."""
    return f"""  {logical_id}:
    Type: AWS::IAM::Role
    Properties:
      AssumeRolePolicyDocument:
        Version: '2012-10-17'
        Statement: [{{Effect: Allow, Principal: {{Service: {service}.amazonaws.com}}, Action: 'sts:AssumeRole'}}]
"""


#: LocalStack's AWS-validated TestEventsTargetStepFunctions::test_put_events_with_target_statefunction_machine (at
#: 8b9a79f05846) as its CDK app synthesizes it: a queue, a state machine sending each input to it (its definition a
#: Fn::Join holding the queue's URL), its role, a bus, and a rule whose target is the machine (with the events role)
MACHINE_TEMPLATE = """
Resources:
  MyEventBus:
    Type: AWS::Events::EventBus
    Properties: {Name: MyEventBus}
  MyQueue:
    Type: AWS::SQS::Queue
    Properties: {QueueName: MyQueue}
""" + service_role("MachineRole", "states") + """  MyStateMachine:
    Type: AWS::StepFunctions::StateMachine
    Properties:
      StateMachineName: MyStateMachine
      RoleArn: !GetAtt MachineRole.Arn
      DefinitionString: !Join ['', ['{"StartAt":"SendToQueue","States":{"SendToQueue":{"End":true,"Type":"Task",',
        '"Resource":"arn:aws:states:::sqs:sendMessage","Parameters":{"QueueUrl":"', !Ref MyQueue,
        '","MessageBody":{"message.$":"$"}}}}}']]
""" + service_role("EventsRole", "events") + """  MyRule:
    Type: AWS::Events::Rule
    Properties:
      EventBusName: !Ref MyEventBus
      EventPattern: {detail-type: [myDetailType]}
      State: ENABLED
      Targets: [{Id: Target0, Arn: !Ref MyStateMachine, RoleArn: !GetAtt EventsRole.Arn}]
Outputs:
  MachineArn: {Value: !Ref MyStateMachine}
  MachineName: {Value: !GetAtt MyStateMachine.Name}
  QueueUrl: {Value: !Ref MyQueue}
"""


def test_a_state_machine_a_stack_makes_is_a_rule_target_each_event_an_execution(door):
    """The machine is created through Step Functions' API with the template's definition (its Join resolved); each
    event the rule matches starts an execution, named after the event's id (LocalStack's test finds them so) with the
    event as its input; moto's Step Functions runs no state, so the executions stay RUNNING (aws-differences.md)."""
    cloudformation, stepfunctions = door.client("cloudformation"), door.client("stepfunctions")
    found = deploy(cloudformation, "create", "stack-events-target-stepfunctions", MACHINE_TEMPLATE)
    assert found["MachineArn"] == f"arn:aws:states:us-east-1:123456789012:stateMachine:{found['MachineName']}"
    assert found["MachineName"] == "MyStateMachine"
    machine = stepfunctions.describe_state_machine(stateMachineArn=found["MachineArn"])
    assert json.loads(machine["definition"])["States"]["SendToQueue"]["Parameters"] == {
        "QueueUrl": found["QueueUrl"], "MessageBody": {"message.$": "$"}}
    entries = [{"Source": "com.sample.resource", "DetailType": "myDetailType", "Detail": json.dumps({"Key1": "Value"}),
                "EventBusName": "MyEventBus"} for _ in range(5)]
    put = door.client("events").put_events(Entries=entries)
    assert put["FailedEntryCount"] == 0
    assert door.wait_idle(60)["Failures"] == []
    executions = stepfunctions.list_executions(stateMachineArn=found["MachineArn"])["executions"]
    by_event = {entry["EventId"]: [e for e in executions if e["name"].startswith(entry["EventId"] + "_")]
                for entry in put["Entries"]}
    assert sorted(len(started) for started in by_event.values()) == [1] * 5 and len(executions) == 5
    for event_id, [execution] in by_event.items():
        described = stepfunctions.describe_execution(executionArn=execution["executionArn"])
        event = json.loads(described["input"])
        assert (event["id"], event["source"], event["detail-type"], event["detail"], described["status"]) == (
            event_id, "com.sample.resource", "myDetailType", {"Key1": "Value"}, "RUNNING")
    cloudformation.delete_stack(StackName="stack-events-target-stepfunctions")
    assert stepfunctions.list_state_machines()["stateMachines"] == []


SUBSTITUTED_MACHINE = """
Parameters:
  Greeting: {Type: String}
Resources:
""" + service_role("MachineRole", "states") + """  Machine:
    Type: AWS::StepFunctions::StateMachine
    Properties:
      RoleArn: !GetAtt MachineRole.Arn
      Definition: {StartAt: Greet, States: {Greet: {Type: Pass, Result: '${greeting}', End: true}}}
      DefinitionSubstitutions: {greeting: !Ref Greeting}
      TracingConfiguration: {Enabled: true}
Outputs:
  MachineArn: {Value: !GetAtt Machine.Arn}
"""


def test_a_state_machines_definition_object_and_substitutions_are_applied_and_updated_in_place(door):
    cloudformation, stepfunctions = door.client("cloudformation"), door.client("stepfunctions")
    created = deploy(cloudformation, "create", "greeter", SUBSTITUTED_MACHINE, Greeting="hello")["MachineArn"]
    machine = stepfunctions.describe_state_machine(stateMachineArn=created)
    assert machine["name"].startswith("greeter-Machine-") and len(machine["name"]) <= 80
    assert json.loads(machine["definition"]) == {
        "StartAt": "Greet", "States": {"Greet": {"Type": "Pass", "Result": "hello", "End": True}}}
    updated = deploy(cloudformation, "update", "greeter", SUBSTITUTED_MACHINE, Greeting="goodbye")["MachineArn"]
    assert updated == created  # in place: the same machine
    assert json.loads(stepfunctions.describe_state_machine(stateMachineArn=created)["definition"])["States"][
        "Greet"]["Result"] == "goodbye"

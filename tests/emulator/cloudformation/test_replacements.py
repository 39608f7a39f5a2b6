"""Replacement updates re-verified against CloudFormation (both doors): a pipe's source parameters that UpdatePipe
cannot change (botocore's pipes model: UpdatePipeSourceDynamoDBStreamParameters has no StartingPosition; the
AWS::Pipes::Pipe reference: "Update requires: Replacement") replace the pipe, the others change it in place."""

from __future__ import annotations

from tests.emulator.cloudformation.helpers import events
from tests.emulator.cloudformation.templates import service_role, table

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

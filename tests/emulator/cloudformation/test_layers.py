"""AWS::Lambda::LayerVersion and AWS::Lambda::LayerVersionPermission (both doors): a layer published from S3, a
function using it, a grant on it. Every property of both types is create-only (their registry schemas, cfn-lint's
src/cfnlint/data/schemas/providers/us_east_1/aws-lambda-layerversion.json and
aws-lambda-layerversionpermission.json): a changed Description publishes a new version, the function follows it in
place, the grant is made again on the new version and the old version is deleted in the cleanup. SAM's
AWS::Serverless::LayerVersion, through AWS's transform, is one (RetentionPolicy Delete here: SAM's default, Retain,
keeps old versions)."""

from __future__ import annotations

import io
import json
import zipfile

from tests.emulator.cloudformation.helpers import deploy, events, outputs
from tests.emulator.cloudformation.templates import ROLE

TEMPLATE = """
Parameters:
  Note: {Type: String, Default: first}
Resources:
  Layer:
    Type: AWS::Lambda::LayerVersion
    Properties:
      LayerName: shared
      Description: !Ref Note
      CompatibleRuntimes: [python3.12]
      Content: {S3Bucket: layers, S3Key: shared.zip}
  Everyone:
    Type: AWS::Lambda::LayerVersionPermission
    Properties: {LayerVersionArn: !Ref Layer, Action: 'lambda:GetLayerVersion', Principal: '*'}""" + ROLE + """
  Reader:
    Type: AWS::Lambda::Function
    Properties:
      Runtime: python3.12
      Handler: index.handler
      Role: !GetAtt Role.Arn
      Layers: [!Ref Layer]
      Code:
        ZipFile: |
          import shared
          def handler(event, context):
              return shared.VALUE
Outputs:
  Layer: {Value: !GetAtt Layer.LayerVersionArn}
  Reader: {Value: !Ref Reader}
  Grant: {Value: !Ref Everyone}
"""


def _upload_layer(door, value: str) -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("python/shared.py", f"VALUE = {value!r}\n")
    s3 = door.client("s3")
    if not s3.list_buckets()["Buckets"]:
        s3.create_bucket(Bucket="layers")
    s3.put_object(Bucket="layers", Key="shared.zip", Body=buffer.getvalue())


def _deploy(cloudformation, verb: str, note: str) -> dict[str, str]:
    return deploy(cloudformation, verb, "layered", TEMPLATE, Note=note)


def _invoke(lam, name: str) -> object:
    return json.loads(lam.invoke(FunctionName=name)["Payload"].read())


def _policy(lam, version: int) -> dict:
    policy = json.loads(lam.get_layer_version_policy(LayerName="shared", VersionNumber=version)["Policy"])
    [statement] = policy["Statement"]
    return {key: statement[key] for key in ("Effect", "Principal", "Action", "Resource")}


def test_a_layer_version_is_published_used_granted_replaced_and_deleted(door):
    cloudformation, lam = door.client("cloudformation"), door.client("lambda")
    _upload_layer(door, "from layer 1")
    found = _deploy(cloudformation, "create", "first")
    arn = "arn:aws:lambda:us-east-1:123456789012:layer:shared:1"
    assert found["Layer"] == arn and found["Grant"].startswith(f"{arn}#")
    assert _invoke(lam, found["Reader"]) == "from layer 1"
    version = lam.get_layer_version(LayerName="shared", VersionNumber=1)
    assert (version["Description"], version["CompatibleRuntimes"]) == ("first", ["python3.12"])
    assert _policy(lam, 1) == {"Effect": "Allow", "Principal": "*", "Action": "lambda:GetLayerVersion",
                               "Resource": arn}

    _upload_layer(door, "from layer 2")
    found = _deploy(cloudformation, "update", "second")  # Description is create-only: a new version
    assert found["Layer"] == "arn:aws:lambda:us-east-1:123456789012:layer:shared:2"
    assert [(entry["Version"], entry["Description"]) for entry in
            lam.list_layer_versions(LayerName="shared")["LayerVersions"]] == [(2, "second")]  # version 1 deleted
    assert lam.get_function_configuration(FunctionName=found["Reader"])["Layers"][0]["Arn"] == found["Layer"]
    assert _invoke(lam, found["Reader"]) == "from layer 2"
    assert _policy(lam, 2)["Resource"] == found["Layer"]
    happened = [(logical_id, status, reason) for logical_id, _, status, reason in events(cloudformation, "layered")]
    replacing = "Requested update requires the creation of a new physical resource; hence creating one."
    assert happened[happened.index(("layered", "UPDATE_IN_PROGRESS", "User Initiated")) + 1:] == [
        ("Layer", "UPDATE_IN_PROGRESS", replacing), ("Layer", "UPDATE_IN_PROGRESS", "Resource creation Initiated"),
        ("Layer", "UPDATE_COMPLETE", None),
        ("Everyone", "UPDATE_IN_PROGRESS", replacing), ("Everyone", "UPDATE_IN_PROGRESS", "Resource creation Initiated"),
        ("Everyone", "UPDATE_COMPLETE", None),
        ("Reader", "UPDATE_IN_PROGRESS", None), ("Reader", "UPDATE_COMPLETE", None),  # in place: its Layers changed
        ("layered", "UPDATE_COMPLETE_CLEANUP_IN_PROGRESS", None),
        ("Everyone", "DELETE_IN_PROGRESS", None), ("Everyone", "DELETE_COMPLETE", None),
        ("Layer", "DELETE_IN_PROGRESS", None), ("Layer", "DELETE_COMPLETE", None),
        ("layered", "UPDATE_COMPLETE", None)]

    cloudformation.delete_stack(StackName="layered")
    assert lam.list_layer_versions(LayerName="shared")["LayerVersions"] == []
    assert lam.list_functions()["Functions"] == []


SAM_LAYER = """
Transform: AWS::Serverless-2016-10-31
Resources:
  Shared:
    Type: AWS::Serverless::LayerVersion
    Properties:
      LayerName: shared
      ContentUri: s3://layers/shared.zip
      CompatibleRuntimes: [python3.12]
      RetentionPolicy: Delete
  Reader:
    Type: AWS::Serverless::Function
    Properties:
      Runtime: python3.12
      Handler: index.handler
      Layers: [!Ref Shared]
      InlineCode: |
        import shared
        def handler(event, context):
            return shared.VALUE
Outputs:
  Reader: {Value: !Ref Reader}
"""


def test_a_sam_layer_version_reaches_its_function(door):
    cloudformation, lam = door.client("cloudformation"), door.client("lambda")
    _upload_layer(door, "from a SAM layer")
    cloudformation.create_stack(StackName="sam-layered", TemplateBody=SAM_LAYER,
                                Capabilities=["CAPABILITY_IAM", "CAPABILITY_AUTO_EXPAND"])
    assert cloudformation.describe_stacks(StackName="sam-layered")["Stacks"][0]["StackStatus"] == "CREATE_COMPLETE", (
        events(cloudformation, "sam-layered"))
    assert _invoke(lam, outputs(cloudformation, "sam-layered")["Reader"]) == "from a SAM layer"
    cloudformation.delete_stack(StackName="sam-layered")
    assert lam.list_layer_versions(LayerName="shared")["LayerVersions"] == []

"""AWS::IAM::ManagedPolicy (both doors): a customer managed policy attached to the roles its Roles names (and to a
role naming it in ManagedPolicyArns); a new document is a new default version and Roles changes in place (its
registry schema, cfn-lint's src/cfnlint/data/schemas/providers/us_east_1/aws-iam-managedpolicy.json: only
ManagedPolicyName, Description and Path are create-only), IAM's limit of five versions kept; deleted with its
stack."""

from __future__ import annotations

import json

import pytest
from botocore.exceptions import ClientError

from tests.emulator.cloudformation.helpers import deploy

TEMPLATE = """
Parameters:
  Action: {Type: String, Default: 'sqs:SendMessage'}
  Attached: {Type: String, Default: 'yes', AllowedValues: ['yes', 'no']}
Conditions:
  IsAttached: !Equals [!Ref Attached, 'yes']
Resources:
  Writer:
    Type: AWS::IAM::Role
    Properties:
      AssumeRolePolicyDocument:
        Statement: [{Effect: Allow, Principal: {Service: lambda.amazonaws.com}, Action: 'sts:AssumeRole'}]
  Reader:
    Type: AWS::IAM::Role
    Properties:
      AssumeRolePolicyDocument:
        Statement: [{Effect: Allow, Principal: {Service: lambda.amazonaws.com}, Action: 'sts:AssumeRole'}]
      ManagedPolicyArns: [!Ref Sending]
  Sending:
    Type: AWS::IAM::ManagedPolicy
    Properties:
      Description: what the app sends
      Roles: !If [IsAttached, [!Ref Writer], !Ref AWS::NoValue]
      PolicyDocument:
        Version: '2012-10-17'
        Statement: [{Effect: Allow, Action: !Ref Action, Resource: '*'}]
Outputs:
  Policy: {Value: !Ref Sending}
  PolicyId: {Value: !GetAtt Sending.PolicyId}
  Writer: {Value: !Ref Writer}
  Reader: {Value: !Ref Reader}
"""


def _deploy(cloudformation, verb: str, **parameters: str) -> dict[str, str]:
    return deploy(cloudformation, verb, "policies", TEMPLATE, **parameters)


def _attached(iam, role: str) -> list[str]:
    return [policy["PolicyArn"] for policy in iam.list_attached_role_policies(RoleName=role)["AttachedPolicies"]]


def _default_document(iam, arn: str) -> dict:
    version = iam.get_policy(PolicyArn=arn)["Policy"]["DefaultVersionId"]
    document = iam.get_policy_version(PolicyArn=arn, VersionId=version)["PolicyVersion"]["Document"]
    return json.loads(document) if isinstance(document, str) else document


def test_a_managed_policy_is_attached_versioned_in_place_and_deleted(door):
    cloudformation, iam = door.client("cloudformation"), door.client("iam")
    found = _deploy(cloudformation, "create")
    arn = found["Policy"]
    assert arn.startswith("arn:aws:iam::123456789012:policy/policies-Sending-")
    policy = iam.get_policy(PolicyArn=arn)["Policy"]
    assert (policy["PolicyId"], policy["Description"], policy["DefaultVersionId"], policy["AttachmentCount"]) == (
        found["PolicyId"], "what the app sends", "v1", 2)
    assert (_attached(iam, found["Writer"]), _attached(iam, found["Reader"])) == ([arn], [arn])

    found = _deploy(cloudformation, "update", Action="sqs:ReceiveMessage", Attached="no")
    assert found["Policy"] == arn  # in place
    assert _default_document(iam, arn)["Statement"] == [
        {"Effect": "Allow", "Action": "sqs:ReceiveMessage", "Resource": "*"}]
    assert (_attached(iam, found["Writer"]), _attached(iam, found["Reader"])) == ([], [arn])

    for action in ("sqs:DeleteMessage", "sqs:PurgeQueue", "sqs:TagQueue", "sqs:ListQueues"):  # versions 3 to 6
        _deploy(cloudformation, "update", Action=action, Attached="no")
    versions = iam.list_policy_versions(PolicyArn=arn)["Versions"]
    assert sorted((version["VersionId"], version["IsDefaultVersion"]) for version in versions) == [
        ("v2", False), ("v3", False), ("v4", False), ("v5", False), ("v6", True)]  # v1, the oldest, made room
    assert _default_document(iam, arn)["Statement"][0]["Action"] == "sqs:ListQueues"

    cloudformation.delete_stack(StackName="policies")
    with pytest.raises(ClientError) as gone:
        iam.get_policy(PolicyArn=arn)
    assert gone.value.response["Error"]["Code"] == "NoSuchEntity"
    assert iam.list_roles()["Roles"] == []

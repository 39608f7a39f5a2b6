"""AWS managed IAM policies, made in an account when first named (moto_seam/services/aws_managed_policies.py), in both
doors: AttachRolePolicy of arn:aws:iam::aws:policy/AWSLambdaExecute works as on AWS, where moto answered
NoSuchEntity unless told to load all of them (LocalStack's AWS-validated
tests/aws/services/s3/test_s3_notifications_lambda.py attaches it, localstack/localstack at 8b9a79f05846); a policy
that does not exist is still refused in AWS's words (test_iam.snapshot.json, valid_arn_not_existent: "Policy <arn>
does not exist or is not attachable.")."""

from __future__ import annotations

import json

import pytest
from botocore.exceptions import ClientError

LAMBDA_EXECUTE = "arn:aws:iam::aws:policy/AWSLambdaExecute"
TRUST = json.dumps({"Version": "2012-10-17", "Statement": [
    {"Effect": "Allow", "Principal": {"Service": "lambda.amazonaws.com"}, "Action": "sts:AssumeRole"}]})


def test_an_aws_managed_policy_is_there_to_attach_and_read(door):
    iam = door.client("iam")
    iam.create_role(RoleName="s3-handler", AssumeRolePolicyDocument=TRUST)
    iam.attach_role_policy(RoleName="s3-handler", PolicyArn=LAMBDA_EXECUTE)
    attached = iam.list_attached_role_policies(RoleName="s3-handler")["AttachedPolicies"]
    assert attached == [{"PolicyName": "AWSLambdaExecute", "PolicyArn": LAMBDA_EXECUTE}]
    policy = iam.get_policy(PolicyArn=LAMBDA_EXECUTE)["Policy"]
    assert (policy["PolicyName"], policy["Arn"], policy["Path"], policy["DefaultVersionId"], policy["IsAttachable"],
            policy["AttachmentCount"]) == ("AWSLambdaExecute", LAMBDA_EXECUTE, "/", "v1", True, 1)
    document = iam.get_policy_version(PolicyArn=LAMBDA_EXECUTE, VersionId="v1")["PolicyVersion"]["Document"]
    document = json.loads(document) if isinstance(document, str) else document
    assert document["Statement"][0] == {"Action": ["logs:*"], "Effect": "Allow", "Resource": "arn:aws:logs:*:*:*"}


def test_a_policy_aws_does_not_have_is_still_refused(door):
    iam = door.client("iam")
    iam.create_role(RoleName="s3-handler", AssumeRolePolicyDocument=TRUST)
    missing = "arn:aws:iam::aws:policy/NoSuchManagedPolicy123"
    with pytest.raises(ClientError) as refused:
        iam.attach_role_policy(RoleName="s3-handler", PolicyArn=missing)
    error = refused.value.response["Error"]
    assert (error["Code"], error["Message"]) == (
        "NoSuchEntity", f"Policy {missing} does not exist or is not attachable.")

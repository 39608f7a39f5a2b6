"""A function's code calls AWS as its execution role: Lambda gives it the role's session credentials ("Lambda
generates an ephemeral set of credentials by assuming your function's execution role. These credentials are available
as environment variables": the Lambda Developer Guide, "Using source function ARN to control function access
behavior"), the session named after the function, so STS's GetCallerIdentity answers the assumed role
(arn:aws:sts::ACCOUNT:assumed-role/ROLE/FUNCTION_NAME; UserId ROLE_ID:FUNCTION_NAME, as the STS API Reference's
GetCallerIdentity documents it for an assumed role's caller). Before, the code signed with Eddy's fixed key and moto
answered its default user, arn:aws:sts::123456789012:user/moto."""

from __future__ import annotations

import json

import pytest

from tests.emulator.functions.test_functions import zip_of
from tests.emulator.functions.test_node_functions import call
from tests.lambda_functions import created_function

TRUST = {"Version": "2012-10-17", "Statement": [
    {"Effect": "Allow", "Principal": {"Service": "lambda.amazonaws.com"}, "Action": "sts:AssumeRole"}]}

PYTHON = """
import boto3
def handler(event, context):
    return boto3.client("sts").get_caller_identity()
"""

NODE = """
const { STSClient, GetCallerIdentityCommand } = require('@aws-sdk/client-sts');
exports.handler = async () => {
  const { UserId, Account, Arn } = await new STSClient({}).send(new GetCallerIdentityCommand({}));
  return { UserId, Account, Arn };
};
"""


@pytest.mark.parametrize("runtime, files", [("python3.12", {"app.py": PYTHON}), ("nodejs20.x", {"app.js": NODE})])
def test_a_functions_own_calls_are_its_execution_roles_session(door, runtime, files):
    role = door.client("iam").create_role(RoleName="order-handler", AssumeRolePolicyDocument=json.dumps(TRUST))["Role"]
    lam = door.client("lambda")
    created_function(lam, FunctionName="whoami", Runtime=runtime, Role=role["Arn"], Handler="app.handler",
                        Code={"ZipFile": zip_of(files)}, Timeout=60)
    response, answer = call(lam, "whoami")
    assert "FunctionError" not in response, answer
    answer.pop("ResponseMetadata", None)  # boto3's, in the Python function's answer
    assert answer == {"UserId": f"{role['RoleId']}:whoami", "Account": "123456789012",
                      "Arn": "arn:aws:sts::123456789012:assumed-role/order-handler/whoami"}


@pytest.mark.parametrize("name", ["e", "ee"])
def test_a_one_character_functions_session_is_suffixed(door, name):
    """LocalStack's test_lambda.py, TestLambdaBaseFeatures::test_assume_role[1] and [2] (recorded against AWS): a
    one-character function's session is "<name>@lambda_function" (AssumeRole needs two characters), a longer one's the
    name itself."""
    role = door.client("iam").create_role(RoleName="tiny", AssumeRolePolicyDocument=json.dumps(TRUST))["Role"]
    lam = door.client("lambda")
    created_function(lam, FunctionName=name, Runtime="python3.12", Role=role["Arn"], Handler="app.handler",
                        Code={"ZipFile": zip_of({"app.py": PYTHON})}, Timeout=60)
    response, answer = call(lam, name)
    session = name if len(name) > 1 else f"{name}@lambda_function"
    assert {key: answer[key] for key in ("UserId", "Account", "Arn")} == {
        "UserId": f"{role['RoleId']}:{session}", "Account": "123456789012",
        "Arn": f"arn:aws:sts::123456789012:assumed-role/tiny/{session}"}


KEYS = """
import os
def handler(event, context):
    return {name: os.environ[name] for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN")}
"""


def test_each_environment_of_a_function_has_a_session_of_its_own(door):
    """LocalStack's test_lambda.py, TestLambdaBaseFeatures::test_lambda_different_iam_keys_environment (recorded
    against AWS, localstack/localstack 8b9a79f05846): two execution environments of one function have different
    access keys, secret keys and session tokens. A configuration change retires the function's environment, so the
    next invocation is another's; an idle environment invoked again keeps its own."""
    role = door.client("iam").create_role(RoleName="keys", AssumeRolePolicyDocument=json.dumps(TRUST))["Role"]
    lam = door.client("lambda")
    created_function(lam, FunctionName="keys", Runtime="python3.12", Role=role["Arn"], Handler="app.handler",
                        Code={"ZipFile": zip_of({"app.py": KEYS})}, Timeout=60)
    first = call(lam, "keys")[1]
    again = call(lam, "keys")[1]
    lam.update_function_configuration(FunctionName="keys", Description="a new environment")
    lam.get_waiter("function_updated_v2").wait(FunctionName="keys")
    other = call(lam, "keys")[1]
    assert again == first
    assert [first[name] != other[name] for name in first] == [True, True, True]
    assert first["AWS_ACCESS_KEY_ID"].startswith("ASIA") and other["AWS_ACCESS_KEY_ID"].startswith("ASIA")

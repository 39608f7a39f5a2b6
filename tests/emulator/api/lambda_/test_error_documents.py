"""Lambda's error documents as AWS answers them, whole (what boto3 parses of them: Error, the modeled members Type and
Message or message, the status), in both doors. The expected answers are AWS's recorded ones, from LocalStack's
AWS-validated snapshot github.com/localstack/localstack@8b9a79f05846835cf4dff63ab7eefdde9df83783
tests/aws/services/lambda_/test_lambda_api.snapshot.json: TestLambdaFunction::test_ops_on_nonexisting_fn[...]
("not_found_exception"), test_get_function_wrong_region[...] ("wrong_region_exception"),
TestLambdaReservedConcurrency::test_function_concurrency_exceptions and test_function_concurrency_limits,
TestLambdaAlias::test_notfound_and_invalid_routingconfigs ("target_version_exc_version_latest"); the names and
region put back in place of the recording's placeholders."""

from __future__ import annotations

import pytest
from botocore.exceptions import ClientError

from tests.emulator.functions.test_functions import create_function

ARN = "arn:aws:lambda:{region}:123456789012:function:{name}"


def refused(call, **params) -> dict:
    with pytest.raises(ClientError) as error:
        call(**params)
    response = error.value.response
    return {key: value for key, value in response.items() if key != "ResponseMetadata"} | {
        "Status": response["ResponseMetadata"]["HTTPStatusCode"]}


def not_found(message: str) -> dict:
    return {"Error": {"Code": "ResourceNotFoundException", "Message": message}, "Message": message, "Type": "User",
            "Status": 404}


@pytest.mark.parametrize("operation", ["delete_function", "get_function", "get_function_configuration",
                                       "get_function_concurrency"])
def test_a_missing_function_is_resource_not_found_with_message(door, operation):
    """not_found_exception: the modeled member is Message (capital M), and GetFunctionConcurrency names no $LATEST."""
    lam = door.client("lambda")
    assert refused(getattr(lam, operation), FunctionName="i-dont-exist") == not_found(
        f"Function not found: {ARN.format(region='us-east-1', name='i-dont-exist')}")


def test_a_missing_functions_concurrency_is_put_on_latest(door):
    lam = door.client("lambda")
    assert refused(lam.put_function_concurrency, FunctionName="doesnotexist", ReservedConcurrentExecutions=1) == \
        not_found(f"Function not found: {ARN.format(region='us-east-1', name='doesnotexist')}:$LATEST")


@pytest.mark.parametrize("operation", ["get_function", "get_function_configuration", "get_function_url_config",
                                       "get_function_event_invoke_config", "get_function_concurrency",
                                       "delete_function", "invoke"])
def test_a_function_of_another_region_is_not_reachable(door, operation):
    """wrong_region_exception: an ARN of eu-central-1 asked in us-east-1, whatever the operation (the function exists
    in us-east-1 under that name)."""
    lam = door.client("lambda")
    create_function(lam, "i-exist", "def handler(event, context):\n    return event\n")
    other = ARN.format(region="eu-central-1", name="i-exist")
    assert refused(getattr(lam, operation), FunctionName=other) == not_found(
        "Functions from 'eu-central-1' are not reachable in this region ('us-east-1')")
    assert lam.get_function(FunctionName="i-exist")["Configuration"]["FunctionName"] == "i-exist"


def test_some_refusals_have_no_type(door):
    """put_function_concurrency_account_limit_exceeded and target_version_exc_version_latest: no Type member."""
    lam = door.client("lambda")
    create_function(lam, "limited", "def handler(event, context):\n    return event\n")
    message = ("Specified ReservedConcurrentExecutions for function decreases account's UnreservedConcurrentExecution "
               "below its minimum value of [100].")
    assert refused(lam.put_function_concurrency, FunctionName="limited", ReservedConcurrentExecutions=901) == {
        "Error": {"Code": "InvalidParameterValueException", "Message": message}, "message": message, "Status": 400}
    version = lam.publish_version(FunctionName="limited")["Version"]
    message = "$LATEST is not supported for an alias pointing to more than 1 version"
    assert refused(lam.create_alias, FunctionName="limited", Name="weighted", FunctionVersion="$LATEST",
                   RoutingConfig={"AdditionalVersionWeights": {version: 0.5}}) == {
        "Error": {"Code": "InvalidParameterValueException", "Message": message}, "message": message, "Status": 400}


def test_a_missing_alias_or_version_in_a_permission_request(door):
    """TestLambdaPermissions::test_permission_exceptions: "add_permission_fn_alias_doesnotexist",
    "remove_permission_fn_alias_doesnotexist" (an alias's name: Cannot find alias arn), "add_permission_fn_version_
    doesnotexist" (a version: Function not found), "get_policy_fn_version_doesnotexist"."""
    lam = door.client("lambda")
    create_function(lam, "guarded", "def handler(event, context):\n    return event\n")
    arn = ARN.format(region="us-east-1", name="guarded")
    add = dict(FunctionName="guarded", StatementId="s3", Action="lambda:InvokeFunction", Principal="s3.amazonaws.com")
    assert refused(lam.add_permission, **add, Qualifier="alias-doesnotexist") == not_found(
        f"Cannot find alias arn: {arn}:alias-doesnotexist")
    assert refused(lam.remove_permission, FunctionName="guarded", StatementId="s3",
                   Qualifier="alias-doesnotexist") == not_found(f"Cannot find alias arn: {arn}:alias-doesnotexist")
    assert refused(lam.add_permission, **add, Qualifier="42") == not_found(f"Function not found: {arn}:42")
    assert refused(lam.get_policy, FunctionName="guarded", Qualifier="77") == not_found(
        "The resource you requested does not exist.")

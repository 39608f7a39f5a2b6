"""CreateFunction's FunctionName in each of its forms, accepted and refused as AWS answered, whole, in both doors.
The expected answers are AWS's recorded ones, from LocalStack's AWS-validated snapshot
github.com/localstack/localstack@8b9a79f05846835cf4dff63ab7eefdde9df83783
tests/aws/services/lambda_/test_lambda_api.snapshot.json: TestLambdaFunction::test_function_arns (recorded 2025)
and TestLambdaFunction::test_function_name_and_qualifier_validation[...-create_function], put in the same form by
tests/emulator/functions/recorded.py."""

from __future__ import annotations

import pytest
from botocore.exceptions import ClientError

from tests.emulator.functions.recorded import Recorded
from tests.emulator.functions.test_function_configurations import status
from tests.emulator.functions.test_functions import ROLE, zip_of
from tests.lambda_functions import created_function

ECHO = {"handler.py": "def handler(event, context):\n    return event\n"}
PATTERN = (
    "(arn:(aws[a-zA-Z-]*)?:lambda:)?((eusc-)?[a-z]{2}((-gov)|(-iso([a-z]?)))?-[a-z]+-\\d{1}:)?(\\d{12}:)?(function:)?"
    "([a-zA-Z0-9-_]+)(:(\\$LATEST|[a-zA-Z0-9-_]+))?"
)
PREFIX = "arn:aws:lambda:us-east-1:123456789012:function:"


def create(lam, name: str, code: dict[str, str] = ECHO) -> dict:
    return created_function(lam, FunctionName=name, Runtime="python3.12", Role=ROLE, Handler="handler.handler",
                               Code={"ZipFile": zip_of(code)})


def refused(lam, name: str) -> dict:
    with pytest.raises(ClientError) as error:
        create(lam, name)
    return error.value.response


def created_answer(number: int) -> dict:
    """test_function_arns' "create-function-arn-response" (number 1) and "create-function-partial-arn-response" (2)
    (the recording's fixture named Environment without variables and a 30 s Timeout: these requests name neither)."""
    return {
        "Architectures": ["x86_64"], "CodeSha256": f"<code-sha256:{number}>", "CodeSize": "<code-size>",
        "Description": "", "EphemeralStorage": {"Size": 512},
        "FunctionArn": f"arn:<partition>:lambda:<region>:111111111111:function:<function-name:{number}>",
        "FunctionName": f"<function-name:{number}>", "Handler": "handler.handler", "LastModified": "date",
        "LoggingConfig": {"LogFormat": "Text", "LogGroup": f"/aws/lambda/<function-name:{number}>"},
        "MemorySize": 128, "PackageType": "Zip", "RevisionId": f"<uuid:{number}>",
        "Role": "arn:<partition>:iam::111111111111:role/<resource:1>", "Runtime": "python3.12",
        "RuntimeVersionConfig": {"RuntimeVersionArn": "arn:<partition>:lambda:<region>::runtime:<resource:2>"},
        "SnapStart": {"ApplyOn": "None", "OptimizationStatus": "Off"}, "State": "Pending",
        "StateReason": "The function is being created.", "StateReasonCode": "Creating", "Timeout": 3,
        "TracingConfig": {"Mode": "PassThrough"}, "Version": "$LATEST", **status(201),
    }  # fmt: skip


def test_a_function_created_by_its_arn_or_partial_arn_has_the_name_in_it(door):
    """test_function_arns: a full ARN and a partial ARN (<account>:function:<name>) of the caller's account and
    region make the function they name, answered as any CreateFunction is; the function is then found by its name."""
    lam = door.client("lambda")
    recorded = Recorded(function_names=("by-arn", "by-partial-arn"))
    assert recorded(create(lam, PREFIX + "by-arn")) == created_answer(1)
    other_package = {"handler.py": ECHO["handler.py"] + "# another package, as the recording's had another CodeSha256\n"}
    assert recorded(create(lam, "123456789012:function:by-partial-arn", other_package)) == created_answer(2)
    assert sorted(f["FunctionName"] for f in lam.list_functions()["Functions"]) == ["by-arn", "by-partial-arn"]
    assert lam.get_function(FunctionName="by-arn")["Configuration"]["FunctionArn"] == PREFIX + "by-arn"


def test_function_names_refused_as_aws_answered(door):
    """test_function_arns' refusals ("invalid_function_name_exc", "long_function_name_exc", "long_function_arn_exc",
    "function_arn_other_region_exc", "function_arn_other_account_exc": AccessDeniedException without a message) and
    test_function_name_and_qualifier_validation[function_name_too_long_and_invalid_region-create_function] (length
    and pattern both, length first); each whole, and no function made by any of them."""
    lam = door.client("lambda")
    recorded = Recorded()

    def validation(value: str, *constraints: str) -> dict:
        errors = "; ".join(f"Value '{value}' at 'functionName' failed to satisfy constraint: {c}" for c in constraints)
        count = f"{len(constraints)} validation error{'s' if len(constraints) > 1 else ''} detected"
        return {"Error": {"Code": "ValidationException", "Message": f"{count}: {errors}"}, **status(400)}

    assert recorded(refused(lam, "invalid:function:name")) == validation(
        "invalid:function:name", f"Member must satisfy regular expression pattern: {PATTERN}")
    long_name = "a" * 65
    too_long = (f"1 validation error detected: Value '{long_name}' at 'functionName' failed to satisfy constraint: "
                "Member must have length less than or equal to 64")
    assert recorded(refused(lam, long_name)) == {
        "Error": {"Code": "InvalidParameterValueException", "Message": too_long}, "Type": "User",
        "message": too_long, **status(400)}
    long_arn = PREFIX + "a" * (140 - len(PREFIX) + 1)
    assert recorded(refused(lam, long_arn)) == recorded(validation(
        long_arn, "Member must have length less than or equal to 140"))
    long_and_invalid = "arn:aws:lambda:invalid-region:123456789012:function:my-function" + "a" * 170
    assert recorded(refused(lam, long_and_invalid)) == recorded(validation(
        long_and_invalid, "Member must have length less than or equal to 140",
        f"Member must satisfy regular expression pattern: {PATTERN}"))
    # the recording's "('<region>')" is the request's region
    unreachable = "Functions from 'ap-southeast-1' are not reachable in this region ('<region>')".replace(
        "<region>", "us-east-1")
    assert recorded(refused(lam, "arn:aws:lambda:ap-southeast-1:123456789012:function:other-region")) == {
        "Error": {"Code": "ResourceNotFoundException", "Message": unreachable}, "Message": unreachable,
        "Type": "User", **status(404)}
    assert refused(lam, "arn:aws:lambda:us-east-1:210987654321:function:other-account")["Error"] == {
        "Code": "AccessDeniedException", "Message": None}
    assert lam.list_functions()["Functions"] == []

"""A function's Runtime refused in Lambda's words, whole answers, in both doors. The expected answers are AWS's recorded
ones, from LocalStack's AWS-validated snapshot github.com/localstack/localstack@8b9a79f05846835cf4dff63ab7eefdde9df83783
tests/aws/services/lambda_/test_lambda_api.snapshot.json: TestLambdaFunction::test_create_lambda_exceptions and
test_update_lambda_exceptions ("invalid_runtime_exc", "uppercase_runtime_exc": not a runtime Lambda creates functions
with, listed in Lambda's own order), TestRuntimeValidation::test_create_deprecated_function_runtime_with_validation_
enabled[...] ("deprecation_error", recorded 12-01-2026). nodejs16.x and python3.8 are in the list Lambda still creates
functions with: they run, on the machine's node and Eddy's own interpreter."""

from __future__ import annotations

import json

import pytest
from botocore.exceptions import ClientError

from tests.emulator.functions.test_functions import ROLE, zip_of
from tests.lambda_functions import created_function

ENUM = ("nodejs20.x, python3.14, provided.al2023, python3.12, python3.13, nodejs24.x, nodejs22.x, java25, python3.10, "
        "python3.11, java21, ruby3.3, ruby3.4, ruby3.2, python3.8, python3.9, java17, nodejs16.x, dotnet10, dotnet8, "
        "java11, dotnet6, nodejs18.x, provided.al2, java8.al2")
PYTHON = {"handler.py": "def handler(event, context):\n    return event\n"}
NODE = {"index.js": "exports.handler = async (event) => event;\n"}


def refused(call, **params) -> dict:
    with pytest.raises(ClientError) as error:
        call(**params)
    response = error.value.response
    return {key: value for key, value in response.items() if key != "ResponseMetadata"} | {
        "ResponseMetadata": {"HTTPHeaders": {}, "HTTPStatusCode": response["ResponseMetadata"]["HTTPStatusCode"]}}


def invalid_parameter(message: str) -> dict:
    return {"Error": {"Code": "InvalidParameterValueException", "Message": message}, "Type": "User",
            "message": message, "ResponseMetadata": {"HTTPHeaders": {}, "HTTPStatusCode": 400}}


def not_a_runtime(name: str) -> dict:
    return invalid_parameter(f"Value {name} at 'runtime' failed to satisfy constraint: Member must satisfy enum value "
                             f"set: [{ENUM}] or be a valid ARN")


def create(lam, runtime: str, name: str = "runtimes", files: dict | None = None, handler: str = "handler.handler"):
    return created_function(lam, FunctionName=name, Runtime=runtime, Role=ROLE, Handler=handler,
                               Code={"ZipFile": zip_of(files or PYTHON)})


def test_a_runtime_lambda_does_not_have_is_refused_with_its_list(door):
    """invalid_runtime_exc and uppercase_runtime_exc, on CreateFunction and UpdateFunctionConfiguration (not the
    model's enum: AWS lists the runtimes it creates functions with)."""
    lam = door.client("lambda")
    for runtime in ("non-existent-runtime", "PYTHON3.9"):
        assert refused(create, lam=lam, runtime=runtime) == not_a_runtime(runtime)
    create(lam, "python3.12")
    for runtime in ("non-existent-runtime", "PYTHON3.9"):
        assert refused(lam.update_function_configuration, FunctionName="runtimes", Runtime=runtime) == \
            not_a_runtime(runtime)
    assert lam.get_function_configuration(FunctionName="runtimes")["Runtime"] == "python3.12"


@pytest.mark.parametrize("runtime", ["dotnetcore3.1", "go1.x", "java8", "nodejs12.x", "nodejs14.x", "provided",
                                     "python3.7", "ruby2.7"])
def test_a_deprecated_runtime_is_refused(door, runtime):
    """deprecation_error, for each runtime the recording tried."""
    lam = door.client("lambda")
    assert refused(create, lam=lam, runtime=runtime) == invalid_parameter(
        f"The runtime parameter of {runtime} is no longer supported for creating or updating AWS Lambda functions. We "
        "recommend you use a supported runtime while creating or updating functions.")


def test_python3_8_and_nodejs16_x_run(door):
    lam = door.client("lambda")
    create(lam, "python3.8", name="py38")
    create(lam, "nodejs16.x", name="node16", files=NODE, handler="index.handler")
    for name in ("py38", "node16"):
        response = lam.invoke(FunctionName=name, Payload=b'{"from": "event"}')
        assert (response["StatusCode"], "FunctionError" in response, json.loads(response["Payload"].read())) == (
            200, False, {"from": "event"})

"""A function's parameters as CreateFunction, UpdateFunctionConfiguration and UpdateFunctionCode give them, read and
refused in Lambda's words before the function is made or changed (api/lambda_/door.py): Timeout and MemorySize within
their bounds, Environment's variables, the settings kept as given (Architectures, EphemeralStorage, TracingConfig,
SnapStart), a RevisionId that must be the latest, DeadLetterConfig's target, and the code's zip (inline, or from S3).

    timeout = bounded(params, "Timeout", 1, 900, 3)     # ValidationException "... Member must have value ..."
"""

from __future__ import annotations

import base64
import binascii
import json
from typing import TYPE_CHECKING, Any

from botocore.exceptions import ClientError
from eddy.emulator.errors import (
    InvalidParameterValueException,
    PreconditionFailedException,
    RequestEntityTooLargeException,
    ValidationException,
    constraint_violation,
)

if TYPE_CHECKING:
    from eddy.emulator.engine import Emulator


def bounded(params: dict[str, Any], name: str, low: int, high: int, default: int | None) -> int | None:
    value = params.get(name, default)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValidationException(f"{name} must be an integer")
    field = name[0].lower() + name[1:]
    if value < low:
        raise constraint_violation(field, value, f"Member must have value greater than or equal to {low}")
    if value > high:
        raise constraint_violation(field, value, f"Member must have value less than or equal to {high}")
    return value


#: Lambda's limits on a function's environment variables (their compact JSON) and code (the Lambda Developer Guide's
#: quotas), refused in AWS's words (AWS-recorded: LocalStack's test_lambda_api.snapshot.json, TestLambdaSizeLimits)
ENVIRONMENT_BYTES = 4096
ZIPPED_BYTES = 52_428_800
CREATE_FUNCTION_REQUEST_BYTES = 70_167_211


def environment(params: dict[str, Any]) -> dict[str, str] | None:
    if "Environment" not in params:
        return None
    variables = (params.get("Environment") or {}).get("Variables") or {}
    if not isinstance(variables, dict) or not all(isinstance(v, str) for v in variables.values()):
        raise InvalidParameterValueException("Environment.Variables must map names to strings")
    measured = json.dumps(variables, separators=(",", ":"), ensure_ascii=False)
    if len(measured.encode()) > ENVIRONMENT_BYTES:
        raise InvalidParameterValueException(
            "Lambda was unable to configure your environment variables because the environment variables you have "
            f"provided exceeded the 4KB limit. String measured: {measured}"
        )
    return dict(variables)


def request_size(body: bytes | None) -> None:
    """A CreateFunction request within Lambda's limit (checked after the zip's own: test_oversized_request_create_lambda)."""
    if len(body or b"") > CREATE_FUNCTION_REQUEST_BYTES:
        raise RequestEntityTooLargeException(
            f"Request must be smaller than {CREATE_FUNCTION_REQUEST_BYTES} bytes for the CreateFunction operation"
        )


#: FunctionConfiguration's members kept as given (their values checked against botocore's model first): the request's
#: member, the one value in it, the Function's field
SETTINGS = (
    ("EphemeralStorage", "Size", "ephemeral_storage"),
    ("TracingConfig", "Mode", "tracing_mode"),
    ("SnapStart", "ApplyOn", "snap_start"),
)


def settings(params: dict[str, Any]) -> dict[str, Any]:
    """The Function's fields a CreateFunction, UpdateFunctionConfiguration or UpdateFunctionCode request sets of
    Architectures, EphemeralStorage, TracingConfig, SnapStart, and whether it gave Environment."""
    given: dict[str, Any] = {}
    if isinstance(params.get("Architectures"), list):
        given["architectures"] = list(params["Architectures"])
    for member, value, name in SETTINGS:
        if isinstance(params.get(member), dict) and params[member].get(value) is not None:
            given[name] = params[member][value]
    if "Environment" in params:
        given["environment_given"] = True
    return given


def check_revision(current: str, given: str | None) -> None:
    """A RevisionId given is the resource's latest, or the request is refused in Lambda's words (AWS-recorded:
    test_lambda_api.snapshot.json, TestLambdaRevisions::test_function_revisions_basic)."""
    if given is not None and given != current:
        raise PreconditionFailedException(
            "The Revision Id provided does not match the latest Revision Id. "
            "Call the GetFunction/GetAlias API to retrieve the latest Revision Id"
        )


def dead_letter_target(params: dict[str, Any]) -> str | None:
    """DeadLetterConfig.TargetArn: an SQS queue's or SNS topic's ARN, or "" to remove it (None: not given). A
    DeadLetterConfig without TargetArn changes nothing: AWS answered UpdateFunctionConfiguration(DeadLetterConfig={})
    with the target still set (LocalStack's AWS-validated TestLambdaDLQ::test_dead_letter_queue, "delete_dlq")."""
    if "TargetArn" not in (params.get("DeadLetterConfig") or {}):
        return None
    target = (params.get("DeadLetterConfig") or {}).get("TargetArn") or ""
    if target and target.split(":")[2:3] not in (["sqs"], ["sns"]):
        raise InvalidParameterValueException(
            f"The target ARN of a DeadLetterConfig must be an SQS queue or SNS topic: {target}"
        )
    return target


def zip_file(emulator: Emulator, code: Any, region: str) -> bytes:
    if not isinstance(code, dict):
        raise InvalidParameterValueException("Code is required")
    if code.get("ZipFile"):
        try:
            package = base64.b64decode(code["ZipFile"], validate=True)
        except (binascii.Error, ValueError, TypeError):
            raise InvalidParameterValueException("Code.ZipFile is not valid base64") from None
        if len(package) > ZIPPED_BYTES:  # AWS-recorded test_oversized_zipped_create_lambda
            raise RequestEntityTooLargeException(f"Zipped size must be smaller than {ZIPPED_BYTES} bytes")
        return package
    if code.get("S3Bucket") and code.get("S3Key"):
        s3 = emulator.aws_client("s3", region)
        try:
            return s3.get_object(Bucket=code["S3Bucket"], Key=code["S3Key"])["Body"].read()
        except ClientError as error:  # S3's refusal in Lambda's words; any other failure is Eddy's own (a 500)
            s3_error = error.response["Error"]
            raise InvalidParameterValueException(
                f"Error occurred while GetObject. S3 Error Code: {s3_error.get('Code')}. "
                f"S3 Error Message: {s3_error.get('Message')}"
            ) from None
    if code.get("ImageUri"):
        raise InvalidParameterValueException("Container image functions are not supported by Eddy: use a zip package")
    raise InvalidParameterValueException("Code must have a ZipFile, or an S3Bucket and S3Key")

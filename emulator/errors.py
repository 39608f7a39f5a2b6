"""AWS errors as classes carrying their exact code, HTTP status and message.

The front doors turn any AWSError into the AWS JSON error shape:
    {"__type": "com.amazonaws.dynamodb.v20120810#<Code>", "message": "<message>"}
Eddy's own failures (a handler crashed, retries exhausted) are EddyError, a separate hierarchy.
"""

from __future__ import annotations

import json
from typing import Any

ERROR_TYPE_PREFIX = "com.amazonaws.dynamodb.v20120810#"


class AWSError(Exception):
    code = "InternalServerError"
    status = 400

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def to_body(self) -> bytes:
        return json.dumps({"__type": ERROR_TYPE_PREFIX + self.code, "message": self.message}).encode()


class ValidationException(AWSError):
    code = "ValidationException"


class TransactionCanceledException(AWSError):
    """DynamoDB's cancelled transaction: each action's reason ({"Code": "None"} for one that was not the cause), and
    the message naming every code in order."""

    code = "TransactionCanceledException"

    def __init__(self, reasons: list[dict[str, Any]]) -> None:
        codes = ", ".join(reason["Code"] for reason in reasons)
        super().__init__(f"Transaction cancelled, please refer cancellation reasons for specific reasons [{codes}]")
        self.reasons = reasons

    def to_body(self) -> bytes:
        return json.dumps(
            {"__type": ERROR_TYPE_PREFIX + self.code, "message": self.message, "CancellationReasons": self.reasons}
        ).encode()


class SerializationException(AWSError):
    code = "SerializationException"


class UnknownOperationException(AWSError):
    code = "UnknownOperationException"


def no_such_path(method: str, path: str) -> UnknownOperationException:
    """A REST request to a path no operation has: 404, as AWS answers it."""
    error = UnknownOperationException(f"{method} {path} is not an operation Eddy serves")
    error.status = 404
    return error


class ResourceNotFoundException(AWSError):
    code = "ResourceNotFoundException"


class DuplicateItemException(AWSError):
    """A PartiQL INSERT of a key that is already in the table."""

    code = "DuplicateItemException"


class ResourceInUseException(AWSError):
    code = "ResourceInUseException"


class ExpiredIteratorException(AWSError):
    code = "ExpiredIteratorException"


class TrimmedDataAccessException(AWSError):
    code = "TrimmedDataAccessException"


class LimitExceededException(AWSError):
    code = "LimitExceededException"


class GlobalTableNotFoundException(AWSError):
    code = "GlobalTableNotFoundException"


class ExportNotFoundException(AWSError):
    code = "ExportNotFoundException"


class ImportNotFoundException(AWSError):
    code = "ImportNotFoundException"


class NotEmulated(AWSError):
    """An operation of the service that Eddy does not emulate: AWS's common NotImplemented error (HTTP 501,
    which botocore does not retry)."""

    code = "NotImplemented"
    status = 501

    def __init__(self, service: str, operation: str) -> None:
        super().__init__(f"Eddy does not emulate {service}'s {operation}")


class InternalServerError(AWSError):
    code = "InternalServerError"
    status = 500


#: DynamoDB's words for a :value or #name an expression uses that the request does not define (after "Invalid
#: <Member>: "), wherever the expression is
UNDEFINED_VALUE = "An expression attribute value used in expression is not defined; attribute value: {}"
UNDEFINED_NAME = "An expression attribute name used in the document path is not defined; attribute name: {}"


def constraint_violation(field: str, value: object, constraint: str) -> ValidationException:
    """The one-error form of AWS's request validation message."""
    shown = "null" if value is None else f"'{value}'"
    return ValidationException(
        f"1 validation error detected: Value {shown} at '{field}' failed to satisfy constraint: {constraint}"
    )


# -- Lambda's errors (REST-JSON: the code travels in the x-amzn-ErrorType header) ----------------------


class InvalidParameterValueException(AWSError):
    code = "InvalidParameterValueException"


def without_type(error: AWSError) -> AWSError:
    """An error Lambda answers without its Type member, as it answers a few (AWS-recorded: LocalStack's
    test_lambda_api.snapshot.json, test_function_concurrency_limits and test_notfound_and_invalid_routingconfigs'
    "target_version_exc_version_latest")."""
    error.untyped = True  # type: ignore[attr-defined]
    return error


class RequestEntityTooLargeException(AWSError):
    """Lambda's 413 for a request or package over its limit (AWS's code on the wire: botocore's model names the shape
    RequestTooLargeException)."""

    code = "RequestEntityTooLargeException"
    status = 413


class InvalidEventPatternException(AWSError):
    """EventBridge's refusal of an event pattern ("Event pattern is not valid. Reason: ...")."""

    code = "InvalidEventPatternException"


class ResourceConflictException(AWSError):
    code = "ResourceConflictException"
    status = 409


class FunctionNotFoundException(AWSError):
    """Lambda's ResourceNotFoundException (HTTP 404, unlike DynamoDB's 400)."""

    code = "ResourceNotFoundException"
    status = 404


class UnreachableRegionException(FunctionNotFoundException):
    """A function named by an ARN of another region than the request's: Lambda's ResourceNotFoundException in its own
    words, whatever the operation (AWS-recorded: LocalStack's test_lambda_api.snapshot.json,
    TestLambdaFunction::test_get_function_wrong_region)."""

    def __init__(self, named: str, region: str) -> None:
        super().__init__(f"Functions from '{named}' are not reachable in this region ('{region}')")


def reachable(named: str | None, region: str) -> None:
    """A FunctionName's region (None: it names none) is the request's, or the function is not reachable."""
    if named is not None and named != region:
        raise UnreachableRegionException(named, region)


class ProvisionedConcurrencyConfigNotFoundException(AWSError):
    """Lambda's answer for a version or alias without provisioned concurrency (HTTP 404)."""

    code = "ProvisionedConcurrencyConfigNotFoundException"
    status = 404


class PreconditionFailedException(AWSError):
    """A RevisionId that is not the resource's latest (HTTP 412)."""

    code = "PreconditionFailedException"
    status = 412


class TooManyRequestsException(AWSError):
    """Lambda's throttle (HTTP 429); `reason` says which limit (the body's Reason)."""

    code = "TooManyRequestsException"
    status = 429

    def __init__(self, message: str, reason: str) -> None:
        super().__init__(message)
        self.reason = reason


class AccessDeniedException(AWSError):
    """Lambda's answer to a resource another account has not shared (HTTP 403)."""

    code = "AccessDeniedException"
    status = 403


class EddyError(Exception):
    """A failure of Eddy's own machinery (not a client's mistake), kept with its cause."""


class FunctionError(EddyError):
    """A handler raised, timed out or crashed; keeps the handler's error type, message and stack trace."""

    def __init__(self, error_type: str, message: str, stack_trace: list[str] | None = None) -> None:
        super().__init__(f"{error_type}: {message}")
        self.error_type = error_type
        self.message = message
        self.stack_trace = stack_trace or []

"""The Lambda API's invocations, in both doors, as Lambda answers them:

    POST /2015-03-31/functions/{FunctionName}/invocations   Invoke (RequestResponse, Event, DryRun; LogType Tail)
    POST /2014-11-13/functions/{FunctionName}/invoke-async  InvokeAsync (deprecated, still served by Lambda: HTTP 202,
                                                            boto3's Status; the event queued as Invoke's Event is)

Before anything runs: the request's parameters against botocore's model (FunctionName's pattern, Qualifier's,
InvocationType's enum: AWS's ValidationException words), a qualifier derived from the name that differs from the
Qualifier given (InvalidParameterValueException), the function and qualifier ($LATEST, a version, or an alias: the
version it runs picked by the alias's weights, answered as X-Amz-Executed-Version; a missing function, version or
alias is ResourceNotFoundException "Function not found: <arn>:<qualifier>", with ":$LATEST" when none was given, as
recorded in LocalStack's AWS-validated snapshot of
TestLambdaFeatures::test_invoke_exceptions), then the payload (payloads.py: its size, its JSON).

A synchronous invocation answers 200 with the handler's result, or its error document with X-Amz-Function-Error
"Unhandled" (the runtime's: Python's errorMessage/errorType/requestId/stackTrace, Node.js's errorType/errorMessage/
trace; the platform's: functions/platform_errors.py); LogType Tail adds X-Amz-Log-Result, the base64 of the log's
last 4 KB as the function's log group has it (START, the output, END, REPORT).
"""

from __future__ import annotations

import base64
import decimal
import json
import re
import uuid
from typing import Any
from urllib.parse import unquote, urlsplit

from eddy.emulator.api import validation
from eddy.emulator.api.rest_json import json_response, query_parameters
from eddy.emulator.api.lambda_.door import error_response
from eddy.emulator.api.lambda_.invoke.payloads import InvalidRequestContentException, checked_size, event_of
from eddy.emulator.aws_requests import Request, Response
from eddy.emulator.engine import Emulator
from eddy.emulator.errors import (
    AWSError,
    FunctionNotFoundException,
    InvalidParameterValueException,
    TooManyRequestsException,
    reachable,
)
from eddy.emulator.functions.function import Function

INVOKE = re.compile(r"^/2015-03-31/functions/(?P<name>[^/]+)/invocations/?$")
INVOKE_ASYNC = re.compile(r"^/2014-11-13/functions/(?P<name>[^/]+)/invoke-async/?$")
#: a FunctionName in any of its forms (name, name:qualifier, partial ARN, ARN), as the API model's pattern reads it
FUNCTION_NAME = re.compile(
    r"^(?:arn:aws[a-zA-Z-]*:lambda:)?(?:(?P<region>[a-z]{2}[a-z0-9-]*-\d):)?"
    r"(?:(?P<account>\d{12}):)?(?:function:)?(?P<name>[a-zA-Z0-9-_.]+)(?::(?P<qualifier>.+))?$"
)
LATEST = "$LATEST"
TAIL_BYTES = 4096


def _route(request: Request) -> tuple[str, str] | None:
    if request.method.upper() != "POST":
        return None
    path = urlsplit(request.url).path
    for operation, pattern in (("Invoke", INVOKE), ("InvokeAsync", INVOKE_ASYNC)):
        if match := pattern.match(path):
            return operation, unquote(match.group("name"))
    return None


def claims(request: Request) -> bool:
    return _route(request) is not None


def handle(emulator: Emulator, request: Request, caller: tuple[str, str]) -> Response | None:
    route = _route(request)
    if route is None:
        return None
    operation, name = route
    try:
        if operation == "InvokeAsync":
            return invoke_async(emulator, request, caller, name)
        return invoke(emulator, request, caller, name)
    except AWSError as error:
        return error_response(error)


def function_name(name: str, qualifier: str | None, caller: tuple[str, str]) -> tuple[str, str | None]:
    """(the function's unqualified ARN, the qualifier named) from a FunctionName that passed the model's pattern (a
    name, name:qualifier, a partial ARN or an ARN) and a Qualifier; a qualifier derived from the name that differs
    from the one given is refused, as Lambda refuses it."""
    match = FUNCTION_NAME.match(name)
    assert match is not None  # the model's pattern passed
    derived = match.group("qualifier")
    if derived is not None and qualifier is not None and derived != qualifier:
        raise InvalidParameterValueException(
            "The derived qualifier from the function name does not match the specified qualifier."
        )
    reachable(match.group("region"), caller[1])
    region, account_id = match.group("region") or caller[1], match.group("account") or caller[0]
    return f"arn:aws:lambda:{region}:{account_id}:function:{match.group('name')}", qualifier or derived


def target(emulator: Emulator, name: str, qualifier: str | None, caller: tuple[str, str]) -> tuple[Function, str]:
    """The version an invocation of a FunctionName and Qualifier runs (an alias's: picked by its weights), and the
    ARN it was invoked by (qualified when a qualifier was named), as Lambda resolves them."""
    arn, qualifier = function_name(name, qualifier, caller)
    with emulator.lock:
        function = emulator.functions.functions.get(arn)
        version = None if function is None else emulator.functions.version_of(function, qualifier, weighted=True)
    if version is None:
        raise FunctionNotFoundException(f"Function not found: {arn}:{qualifier or LATEST}")
    return version, f"{arn}:{qualifier}" if qualifier else arn


def invoke(emulator: Emulator, request: Request, caller: tuple[str, str], name: str) -> Response:
    query = query_parameters(request)
    invocation_type = request.header("X-Amz-Invocation-Type") or "RequestResponse"
    parameters = {
        "FunctionName": name,
        "InvocationType": invocation_type,
        "Qualifier": query.get("Qualifier"),
        "LogType": request.header("X-Amz-Log-Type"),
    }
    validation.validate("lambda", "Invoke", {key: value for key, value in parameters.items() if value is not None})
    function, invoked_arn = target(emulator, name, query.get("Qualifier"), caller)
    function.check_active()  # refused while Pending, whatever the InvocationType (Function.check_active)
    body = request.body or b""
    checked_size(body, invocation_type)
    event = event_of(body)
    if invocation_type == "DryRun":
        return Response(204, {"x-amzn-RequestId": str(uuid.uuid4())}, b"")
    if invocation_type == "Event":
        request_id = emulator.notifications.async_invocations.submit(function, event, "Invoke", invoked_arn)
        return Response(202, {"x-amzn-RequestId": request_id}, b"")
    result = emulator.invoker.invoke(function, event, client_context=_client_context(request), invoked_arn=invoked_arn)
    if result.throttled:
        raise TooManyRequestsException("Rate Exceeded.", "ReservedFunctionConcurrentInvocationLimitExceeded")
    headers = {"X-Amz-Executed-Version": function.version, "x-amzn-RequestId": result.request_id}
    if parameters["LogType"] == "Tail":
        log = emulator.invoker.logs.text(function, result).encode()
        headers["X-Amz-Log-Result"] = base64.b64encode(log[-TAIL_BYTES:]).decode()
    if not result.ok:
        headers["X-Amz-Function-Error"] = "Unhandled"
        return json_response(result.error_payload(), 200, headers)
    try:
        body = result.payload.encode() if result.raw else json.dumps(result.payload, default=_number).encode()
        return Response(200, {"Content-Type": "application/json", **headers}, body)
    except (TypeError, ValueError) as error:
        headers["X-Amz-Function-Error"] = "Unhandled"
        return json_response(
            {
                "errorMessage": f"Unable to marshal response: {error}",
                "errorType": "Runtime.MarshalError",
                "requestId": result.request_id,
                "stackTrace": [],
            },
            200,
            headers,
        )


def _number(value: Any) -> Any:
    """A registered callable's Decimal as Lambda's Python runtime writes it: a number (its encoder's Decimal support);
    anything else JSON cannot carry, json's own TypeError (the door's Runtime.MarshalError)."""
    if isinstance(value, decimal.Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def _client_context(request: Request) -> dict[str, Any] | None:
    """X-Amz-Client-Context: base64 of a JSON object, or refused in Lambda's words (as SDKs have reported them)."""
    sent = request.header("X-Amz-Client-Context")
    if not sent:
        return None
    try:
        context = json.loads(base64.b64decode(sent, validate=True))
    except (ValueError, UnicodeDecodeError):
        context = None
    if not isinstance(context, dict):
        raise InvalidRequestContentException("Client context must be a valid Base64-encoded JSON object.")
    return context


def invoke_async(emulator: Emulator, request: Request, caller: tuple[str, str], name: str) -> Response:
    """InvokeAsync: the event queued for asynchronous invocation (its 256 KB limit), answered HTTP 202."""
    validation.validate("lambda", "Invoke", {"FunctionName": name})  # InvokeAsync's FunctionName is Invoke's
    function, invoked_arn = target(emulator, name, None, caller)
    function.check_active()
    body = request.body or b""
    checked_size(body, "InvokeAsync")
    request_id = emulator.notifications.async_invocations.submit(function, event_of(body), "InvokeAsync", invoked_arn)
    return Response(202, {"x-amzn-RequestId": request_id}, b"")

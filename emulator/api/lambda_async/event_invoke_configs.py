"""The Lambda API's event invoke configurations (REST-JSON, /2019-09-25/...): how a function's asynchronous
invocations are retried and where their records go (functions/async_invocations.py runs them).

    PUT    /2019-09-25/functions/{name}/event-invoke-config        PutFunctionEventInvokeConfig (replaces)
    POST   /2019-09-25/functions/{name}/event-invoke-config        UpdateFunctionEventInvokeConfig (merges)
    GET    /2019-09-25/functions/{name}/event-invoke-config        GetFunctionEventInvokeConfig
    DELETE /2019-09-25/functions/{name}/event-invoke-config        DeleteFunctionEventInvokeConfig
    GET    /2019-09-25/functions/{name}/event-invoke-config/list   ListFunctionEventInvokeConfigs
Ranges (MaximumRetryAttempts 0..2, MaximumEventAgeInSeconds 60..21600) are checked against botocore's model first.
"""

from __future__ import annotations

import re
import uuid
from typing import Any
from urllib.parse import unquote, urlsplit

from eddy.emulator.api import validation
from eddy.emulator.api.lambda_api import _body, _function, error_response, json_response
from eddy.emulator.engine import Emulator
from eddy.emulator.errors import AWSError, FunctionNotFoundException, InvalidParameterValueException
from eddy.emulator.functions.registry import Function
from eddy.emulator.aws_requests import Request, Response

PATH = re.compile(r"^/2019-09-25/functions/(?P<name>[^/]+)/event-invoke-config(?P<list>/list)?/?$")
OPERATIONS = {("PUT", False): "PutFunctionEventInvokeConfig", ("POST", False): "UpdateFunctionEventInvokeConfig",
              ("GET", False): "GetFunctionEventInvokeConfig", ("DELETE", False): "DeleteFunctionEventInvokeConfig",
              ("GET", True): "ListFunctionEventInvokeConfigs"}
DESTINATION_SERVICES = ("sqs", "sns", "lambda", "events")


def claims(request: Request) -> bool:
    return PATH.match(urlsplit(request.url).path) is not None


def handle(emulator: Emulator, request: Request, caller: tuple[str, str]) -> Response | None:
    match = PATH.match(urlsplit(request.url).path)
    operation = OPERATIONS.get((request.method.upper(), bool(match["list"]))) if match else None
    if operation is None:
        return None
    try:
        function = _function(emulator, unquote(match["name"]), caller)
        if operation in ("PutFunctionEventInvokeConfig", "UpdateFunctionEventInvokeConfig"):
            params = _body(request)
            validation.validate("lambda", operation, params, body_only=True)
            _check_destinations(params.get("DestinationConfig"))
            settings = {} if operation.startswith("Put") else dict(function.event_invoke_config or {})
            settings.update({name: params[name] for name in
                             ("MaximumRetryAttempts", "MaximumEventAgeInSeconds", "DestinationConfig") if name in params})
            with emulator.lock:
                function.event_invoke_config = dict(settings, LastModified=emulator.clock.now())
                emulator.functions.saved(function)
            return json_response(_configuration(function))
        if operation == "ListFunctionEventInvokeConfigs":
            configs = [_configuration(function)] if function.event_invoke_config else []
            return json_response({"FunctionEventInvokeConfigs": configs})
        if function.event_invoke_config is None:
            raise FunctionNotFoundException(f"The function {function.arn}:$LATEST doesn't have an EventInvokeConfig")
        if operation == "GetFunctionEventInvokeConfig":
            return json_response(_configuration(function))
        with emulator.lock:
            function.event_invoke_config = None
            emulator.functions.saved(function)
        return Response(204, {"x-amzn-RequestId": str(uuid.uuid4())}, b"")
    except AWSError as error:
        return error_response(error)


def _check_destinations(config: Any) -> None:
    for kind in ("OnSuccess", "OnFailure"):
        destination = ((config or {}).get(kind) or {}).get("Destination")
        if destination and str(destination).split(":")[2:3] not in [[service] for service in DESTINATION_SERVICES]:
            raise InvalidParameterValueException(
                f"The destination ARN {destination} is invalid: a destination is an SQS queue, SNS topic, Lambda "
                "function or EventBridge event bus")


def _configuration(function: Function) -> dict[str, Any]:
    settings = function.event_invoke_config or {}
    configuration: dict[str, Any] = {"LastModified": settings.get("LastModified"), "FunctionArn": f"{function.arn}:$LATEST"}
    for name in ("MaximumRetryAttempts", "MaximumEventAgeInSeconds"):
        if name in settings:
            configuration[name] = settings[name]
    destinations = settings.get("DestinationConfig") or {}
    configuration["DestinationConfig"] = {kind: dict(destinations.get(kind) or {}) for kind in ("OnSuccess", "OnFailure")}
    return configuration

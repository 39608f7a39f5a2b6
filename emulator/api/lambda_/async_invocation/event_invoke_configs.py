"""The Lambda API's event invoke configurations (REST-JSON, /2019-09-25/...): how a function's asynchronous
invocations are retried and where their records go (functions/async_invocation/queue.py runs them).

    PUT    /2019-09-25/functions/{name}/event-invoke-config        PutFunctionEventInvokeConfig (replaces)
    POST   /2019-09-25/functions/{name}/event-invoke-config        UpdateFunctionEventInvokeConfig (merges)
    GET    /2019-09-25/functions/{name}/event-invoke-config        GetFunctionEventInvokeConfig
    DELETE /2019-09-25/functions/{name}/event-invoke-config        DeleteFunctionEventInvokeConfig
    GET    /2019-09-25/functions/{name}/event-invoke-config/list   ListFunctionEventInvokeConfigs
Ranges (MaximumRetryAttempts 0..2, MaximumEventAgeInSeconds 60..21600), FunctionName's, Qualifier's and a
destination's patterns are checked against botocore's model first; then Lambda's own refusals, in its words and
order (LocalStack's AWS-validated snapshot, test_lambda_api.snapshot.json TestLambdaEventInvokeConfig::
test_lambda_eventinvokeconfig_exceptions): a qualifier derived from the name that differs from Qualifier; a Put with
neither retry settings nor destinations; a function (or version, or alias: each has its own configuration) that does
not exist ("The function doesn't exist." for Put, Update and List; "The function <arn>:<qualifier> doesn't have an
EventInvokeConfig" for Get and Delete, and for an Update with nothing to update); a destination that is not an SQS
queue, SNS topic, Lambda function or event bus, a function that does not exist, or the function itself.
"""

from __future__ import annotations

import re
import uuid
from typing import Any
from urllib.parse import unquote, urlsplit

from eddy.emulator.api import validation
from eddy.emulator.api.rest_json import json_body, json_response, query_parameters
from eddy.emulator.api.lambda_.door import error_response
from eddy.emulator.api.lambda_.invoke import LATEST, function_name
from eddy.emulator.api.lambda_.resources.versions import page_of
from eddy.emulator.engine import Emulator
from eddy.emulator.errors import AWSError, FunctionNotFoundException, InvalidParameterValueException
from eddy.emulator.functions.function import Function
from eddy.emulator.aws_requests import Request, Response

PATH = re.compile(r"^/2019-09-25/functions/(?P<name>[^/]+)/event-invoke-config(?P<list>/list)?/?$")
OPERATIONS = {
    ("PUT", False): "PutFunctionEventInvokeConfig",
    ("POST", False): "UpdateFunctionEventInvokeConfig",
    ("GET", False): "GetFunctionEventInvokeConfig",
    ("DELETE", False): "DeleteFunctionEventInvokeConfig",
    ("GET", True): "ListFunctionEventInvokeConfigs",
}
DESTINATION_SERVICES = ("sqs", "sns", "lambda", "events")


def claims(request: Request) -> bool:
    return PATH.match(urlsplit(request.url).path) is not None


def handle(emulator: Emulator, request: Request, caller: tuple[str, str]) -> Response | None:
    match = PATH.match(urlsplit(request.url).path)
    operation = OPERATIONS.get((request.method.upper(), bool(match["list"]))) if match else None
    if operation is None:
        return None
    try:
        name, qualifier = unquote(match["name"]), query_parameters(request).get("Qualifier")
        params = (
            json_body(request) if operation in ("PutFunctionEventInvokeConfig", "UpdateFunctionEventInvokeConfig") else {}
        )
        validation.validate(
            "lambda", operation, {"FunctionName": name, **({"Qualifier": qualifier} if qualifier else {}), **params}
        )
        arn, qualifier = function_name(name, qualifier, caller)
        if operation == "PutFunctionEventInvokeConfig" and not any(
            setting in params for setting in ("MaximumRetryAttempts", "MaximumEventAgeInSeconds", "DestinationConfig")
        ):
            raise InvalidParameterValueException(
                "You must specify at least one of error handling or destination setting."
            )
        with emulator.lock:
            function = emulator.functions.functions.get(arn)
            holder = None if function is None else emulator.functions.qualified(function, qualifier)
        if holder is None:
            if operation in ("GetFunctionEventInvokeConfig", "DeleteFunctionEventInvokeConfig"):
                raise _no_config(arn, qualifier)
            raise FunctionNotFoundException("The function doesn't exist.")
        shown = f"{arn}:{qualifier or LATEST}"
        if operation in ("PutFunctionEventInvokeConfig", "UpdateFunctionEventInvokeConfig"):
            if operation.startswith("Update") and holder.event_invoke_config is None:
                raise _no_config(arn, qualifier)
            _check_destinations(emulator, function, params.get("DestinationConfig"))
            settings = {} if operation.startswith("Put") else dict(holder.event_invoke_config or {})
            settings.update(
                {
                    name: params[name]
                    for name in ("MaximumRetryAttempts", "MaximumEventAgeInSeconds", "DestinationConfig")
                    if name in params
                }
            )
            with emulator.lock:
                holder.event_invoke_config = dict(settings, LastModified=emulator.clock.now())
                _saved(emulator, function, holder)
            return json_response(_configuration(holder.event_invoke_config, shown))
        if operation == "ListFunctionEventInvokeConfigs":
            with emulator.lock:
                configs = [
                    _configuration(each.event_invoke_config, f"{arn}:{name}")
                    for name, each in (
                        (LATEST, function),
                        *function.versions.items(),
                        *sorted(function.aliases.items()),
                    )
                    if each.event_invoke_config
                ]
            return json_response(page_of(configs, query_parameters(request), "FunctionEventInvokeConfigs"))
        if holder.event_invoke_config is None:
            raise _no_config(arn, qualifier)
        if operation == "GetFunctionEventInvokeConfig":
            return json_response(_configuration(holder.event_invoke_config, shown))
        with emulator.lock:
            holder.event_invoke_config = None
            _saved(emulator, function, holder)
        return Response(204, {"x-amzn-RequestId": str(uuid.uuid4())}, b"")
    except AWSError as error:
        return error_response(error)


def _saved(emulator: Emulator, function: Function, holder: Any) -> None:
    """Made durable: the function's or a version's own settings change its configuration (a new revision, as
    before); an alias's are written down with its function."""
    if isinstance(holder, Function):
        emulator.functions.saved(holder)
    else:
        emulator.functions.recorded(function)


def _no_config(arn: str, qualifier: str | None) -> FunctionNotFoundException:
    return FunctionNotFoundException(f"The function {arn}:{qualifier or LATEST} doesn't have an EventInvokeConfig")


def _check_destinations(emulator: Emulator, function: Function, config: Any) -> None:
    destinations = {kind: ((config or {}).get(kind) or {}).get("Destination") for kind in ("OnSuccess", "OnFailure")}
    for destination in filter(None, destinations.values()):
        if destination.split(":")[2:3] not in [[service] for service in DESTINATION_SERVICES]:
            shown = {
                kind: "null"
                if kind not in (config or {})
                else f"{kind}(destination={destinations[kind]})".replace("destination=None", "destination=null")
                for kind in destinations
            }
            raise InvalidParameterValueException(
                f"The provided destination config DestinationConfig(onSuccess={shown['OnSuccess']}, "
                f"onFailure={shown['OnFailure']}) is invalid."
            )
        if destination.split(":")[2] == "lambda":
            base = ":".join(destination.split(":")[:7])
            if base == function.arn:
                raise InvalidParameterValueException("You can't specify the function as a destination for itself.")
            with emulator.lock:
                if base not in emulator.functions.functions:
                    raise InvalidParameterValueException(f"The destination ARN {destination} is invalid.")


def _configuration(settings: dict[str, Any] | None, function_arn: str) -> dict[str, Any]:
    """FunctionEventInvokeConfig as the API answers it, FunctionArn qualified ($LATEST when none was named)."""
    settings = settings or {}
    configuration: dict[str, Any] = {"LastModified": settings.get("LastModified"), "FunctionArn": function_arn}
    for name in ("MaximumRetryAttempts", "MaximumEventAgeInSeconds"):
        if name in settings:
            configuration[name] = settings[name]
    destinations = settings.get("DestinationConfig") or {}
    configuration["DestinationConfig"] = {
        kind: dict(destinations.get(kind) or {}) for kind in ("OnSuccess", "OnFailure")
    }
    return configuration

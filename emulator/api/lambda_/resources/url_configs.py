"""Function URLs' configurations: the function's own and its aliases' (Qualifier).

    POST   /2021-10-31/functions/{name}/url[?Qualifier=alias]   CreateFunctionUrlConfig (201)
    GET    /2021-10-31/functions/{name}/url[?Qualifier=alias]   GetFunctionUrlConfig
    PUT    /2021-10-31/functions/{name}/url[?Qualifier=alias]   UpdateFunctionUrlConfig
    DELETE /2021-10-31/functions/{name}/url[?Qualifier=alias]   DeleteFunctionUrlConfig (204)
    GET    /2021-10-31/functions/{name}/urls                    ListFunctionUrlConfigs

A configuration is kept on the function's $LATEST (`url_configs`, by alias name, "" for the function's own), durable
with it; deleting the alias or the function deletes it. Its URL id never changes; its FunctionUrl is where Eddy serves
it (api/lambda_/function_urls/: `<endpoint>/lambda-url/<url id>/`). Every answer and refusal in AWS's words, as LocalStack's
AWS-validated snapshots recorded them (tests/aws/services/lambda_/test_lambda_api.snapshot.json, TestLambdaUrl:
test_url_config_exceptions, test_url_config_lifecycle, test_url_config_list_paging,
test_url_config_deletion_without_qualifier; test_lambda.snapshot.json, test_lambda_update_function_url_config): a
Qualifier must name an alias (the model's pattern refuses a version and $LATEST first), Create's and Update's answers
carry InvokeMode only once it was given, Get's and List's always (BUFFERED by default).
"""

from __future__ import annotations

import uuid
from datetime import datetime, timezone
from typing import Any, Callable

from eddy.emulator.api import validation
from eddy.emulator.api.lambda_.door import json_response
from eddy.emulator.api.lambda_.resources.versions import page_of
from eddy.emulator.aws_requests import Response
from eddy.emulator.engine import Emulator
from eddy.emulator.errors import FunctionNotFoundException, ResourceConflictException, UnreachableRegionException
from eddy.emulator.functions.function import Function

OPERATIONS = frozenset(
    {
        "CreateFunctionUrlConfig",
        "GetFunctionUrlConfig",
        "UpdateFunctionUrlConfig",
        "DeleteFunctionUrlConfig",
        "ListFunctionUrlConfigs",
    }
)
#: what Create, Update and List say of a function that is not there; Get and Delete say RESOURCE_MISSING
FUNCTION_MISSING = "Function does not exist"
RESOURCE_MISSING = "The resource you requested does not exist."
#: the path a URL is served under on Eddy's endpoint (api/lambda_/function_urls/)
URL_PATH = "/lambda-url/"


def function_url(endpoint: str, url_id: str) -> str:
    """The URL a configuration is served at: a path on Eddy's endpoint (AWS's is https://<url id>.lambda-url.<region>.
    on.aws/, a host name no local resolver knows)."""
    return f"{endpoint.rstrip('/')}{URL_PATH}{url_id}/"


def _now(emulator: Emulator) -> str:
    return datetime.fromtimestamp(emulator.clock.now(), timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _answer(endpoint: str, function: Function, alias: str, config: dict[str, Any], full: bool) -> dict[str, Any]:
    """The configuration as the API answers it; `full`: Get's and List's (LastModifiedTime, InvokeMode always)."""
    answer: dict[str, Any] = {
        "FunctionUrl": function_url(endpoint, config["UrlId"]),
        "FunctionArn": f"{function.arn}:{alias}" if alias else function.arn,
        "AuthType": config["AuthType"],
    }
    if "Cors" in config:
        answer["Cors"] = config["Cors"]
    answer["CreationTime"] = config["CreationTime"]
    if full or "LastModifiedTime" in config:
        answer["LastModifiedTime"] = config.get("LastModifiedTime", config["CreationTime"])
    if full or "InvokeMode" in config:
        answer["InvokeMode"] = config.get("InvokeMode", "BUFFERED")
    return answer


def _alias(function: Function, qualifier: str | None, missing: str) -> str:
    if qualifier and qualifier not in function.aliases:
        raise FunctionNotFoundException(missing)
    return qualifier or ""


def create(emulator: Emulator, function: Function, alias: str, params: dict[str, Any]) -> Response:
    with emulator.lock:
        configs = function.url_configs
        if alias in configs:
            arn = f"{function.arn}:{alias}" if alias else function.arn
            raise ResourceConflictException(
                f"Failed to create function url config for [functionArn = {arn}]. Error message:  "
                "FunctionUrlConfig exists for this Lambda function"
            )
        config = {"UrlId": uuid.uuid4().hex, "AuthType": params["AuthType"], "CreationTime": _now(emulator)}
        config.update({key: params[key] for key in ("Cors", "InvokeMode") if key in params})
        configs[alias] = config
        emulator.functions.recorded(function)
        config = dict(config)
    return json_response(_answer(_endpoint(emulator), function, alias, config, full=False), 201)


def update(emulator: Emulator, function: Function, alias: str, params: dict[str, Any]) -> Response:
    """The parameters given replace theirs; the others stay (test_lambda_update_function_url_config); an empty Cors
    leaves none."""
    with emulator.lock:
        config = function.url_configs.get(alias)
        if config is None:
            raise FunctionNotFoundException(RESOURCE_MISSING)
        config.update({key: params[key] for key in ("AuthType", "Cors", "InvokeMode") if key in params})
        if config.get("Cors") == {}:
            del config["Cors"]
        config["LastModifiedTime"] = _now(emulator)
        emulator.functions.recorded(function)
        config = dict(config)
    return json_response(_answer(_endpoint(emulator), function, alias, config, full=False))


def get(emulator: Emulator, function: Function, alias: str) -> Response:
    with emulator.lock:
        config = function.url_configs.get(alias)
        if config is None:
            raise FunctionNotFoundException(RESOURCE_MISSING)
        config = dict(config)
    return json_response(_answer(_endpoint(emulator), function, alias, config, full=True))


def delete(emulator: Emulator, function: Function, alias: str) -> Response:
    """Only the configuration named: the function's own leaves its aliases' (test_url_config_deletion_without_qualifier)."""
    with emulator.lock:
        if function.url_configs.pop(alias, None) is None:
            raise FunctionNotFoundException(RESOURCE_MISSING)
        emulator.functions.recorded(function)
    return Response(204, {"x-amzn-RequestId": str(uuid.uuid4())}, b"")


def list_configs(emulator: Emulator, function: Function, query: dict[str, str]) -> Response:
    with emulator.lock:
        configs = [(alias, dict(config)) for alias, config in sorted(function.url_configs.items())]
    endpoint = _endpoint(emulator) if configs else ""
    items = [_answer(endpoint, function, alias, config, full=True) for alias, config in configs]
    return json_response(page_of(items, query, "FunctionUrlConfigs"))


def _endpoint(emulator: Emulator) -> str:
    """Where the URLs are served: asked only to answer a configuration, outside the lock (in-process, the loopback
    server that serves them starts here: a refusal, or a list without any, starts nothing)."""
    return emulator.functions_endpoint()


def handle(
    emulator: Emulator,
    operation: str,
    name: str,
    query: dict[str, str],
    params: dict[str, Any],
    target: Callable[[], tuple[Function, str | None]],
    qualifier_of: Callable[[str | None, dict[str, str]], str | None],
) -> Response:
    """`target()` finds the function (FunctionNotFoundException when it is not there) and the qualifier its name
    carries; `qualifier_of` checks that against the Qualifier given."""
    request = {"FunctionName": name, **params}
    if operation == "ListFunctionUrlConfigs":
        request.update({key: int(v) if key == "MaxItems" and v.isdigit() else v for key, v in query.items()})
    elif "Qualifier" in query:
        request["Qualifier"] = query["Qualifier"]
    validation.validate("lambda", operation, request)
    missing = RESOURCE_MISSING if operation in ("GetFunctionUrlConfig", "DeleteFunctionUrlConfig") else FUNCTION_MISSING
    try:
        function, from_name = target()
    except UnreachableRegionException:
        raise
    except FunctionNotFoundException:
        raise FunctionNotFoundException(missing) from None
    if operation == "ListFunctionUrlConfigs":
        return list_configs(emulator, function, query)
    if from_name is not None and "Qualifier" not in query:
        validation.validate("lambda", operation, dict(request, FunctionName=function.name, Qualifier=from_name))
    alias = _alias(function, qualifier_of(from_name, query), missing)
    if operation == "DeleteFunctionUrlConfig":
        return delete(emulator, function, alias)
    if operation == "GetFunctionUrlConfig":
        return get(emulator, function, alias)
    changing = create if operation == "CreateFunctionUrlConfig" else update
    return changing(emulator, function, alias, params)

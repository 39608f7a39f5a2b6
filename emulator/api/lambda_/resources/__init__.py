"""The Lambda API's operations on a function's other resources, and honest answers for the rest.

Eddy owns the functions (api/lambda_/door.py), so every Lambda operation whose path names a function is Eddy's to
answer, never moto's (moto does not know Eddy's functions and would answer ResourceNotFoundException for one that
exists). Served here: qualified.py (GetFunction, GetFunctionConfiguration, DeleteFunction: of a function, a version
or an alias), versions.py (PublishVersion, ListVersionsByFunction, Create/Get/Update/Delete/ListAliases),
permissions.py (AddPermission, RemovePermission, GetPolicy), tags.py (TagResource, UntagResource, ListTags on a
function's ARN) and concurrency.py (Put/Get/DeleteFunctionConcurrency, GetAccountSettings: the account's limits and
what Eddy's functions use of them), provisioned_concurrency.py (Put/Get/Delete/ListProvisionedConcurrencyConfig(s)
of versions and aliases), recursion.py (Put/GetFunctionRecursionConfig), url_configs.py (Create/Get/Update/Delete/ListFunctionUrlConfig(s): function URLs, which
api/lambda_/function_urls/ serves). Every other operation on a function (code signing, ...: the list is
botocore's Lambda model, read here) answers ResourceNotFoundException when the function does not exist and
HTTP 501 NotImplemented "Eddy does not emulate Lambda's <Operation>" when it does (docs/guides/functions-and-layers.md).
Tags of event source mappings are Eddy's too (tags.py), and a capacity provider's (never found: Eddy makes none);
those of other resources (code signing configs, ...) stay moto's.
"""

from __future__ import annotations

import re
from functools import cache
from urllib.parse import parse_qs, unquote, urlsplit

from eddy.emulator.api import validation
from eddy.emulator.api.rest_json import json_body
from eddy.emulator.api.lambda_.door import error_response
from eddy.emulator.api.lambda_.resources import (
    concurrency,
    permissions,
    provisioned_concurrency,
    qualified,
    recursion,
    tags,
    url_configs,
    versions,
)
from eddy.emulator.engine import Emulator
from eddy.emulator.errors import (
    AWSError,
    FunctionNotFoundException,
    InvalidParameterValueException,
    NotEmulated,
    reachable,
)
from eddy.emulator.functions.function import FUNCTION_ARN, Function
from eddy.emulator.aws_requests import Request, Response

#: the operations on a function's path that other modules answer (api/lambda_/door.py, api/lambda_/invoke/,
#: api/lambda_/async_invocation/)
SERVED_ELSEWHERE = frozenset(
    {
        "UpdateFunctionConfiguration",
        "UpdateFunctionCode",
        "Invoke",
        "InvokeAsync",
        "PutFunctionEventInvokeConfig",
        "UpdateFunctionEventInvokeConfig",
        "GetFunctionEventInvokeConfig",
        "DeleteFunctionEventInvokeConfig",
        "ListFunctionEventInvokeConfigs",
    }
)
TAGS = ("TagResource", "UntagResource", "ListTags")
#: the account-wide operations answered here: they count Eddy's functions
ACCOUNT = ("GetAccountSettings",)


@cache
def _routes() -> list[tuple[str, re.Pattern[str], dict[str, str], str]]:
    """(method, path pattern, query the operation's URI fixes, operation) for every Lambda operation on a function's
    path or on tags, from botocore's model; those whose URI fixes a query first."""
    model = validation.operation_model("lambda", "GetFunction").service_model
    routes = []
    for name in model.operation_names:
        http = model.operation_model(name).http
        path, _, query = http["requestUri"].partition("?")
        if name in SERVED_ELSEWHERE or ("{FunctionName}" not in path and name not in TAGS + ACCOUNT):
            continue
        pattern = re.compile("^" + re.sub(r"\\\{(\w+)\\\}", r"(?P<\1>[^/]+)", re.escape(path.rstrip("/"))) + "/?$")
        fixed = {key: values[0] for key, values in parse_qs(query).items()}
        routes.append((http["method"], pattern, fixed, name))
    return sorted(routes, key=lambda route: not route[2])


def _route(request: Request) -> tuple[str, dict[str, str]] | None:
    parts = urlsplit(request.url)
    if not any(part in parts.path for part in ("/functions/", "/tags/", "/account-settings")):  # S3, SQS, ...
        return None
    query = parse_qs(parts.query)
    for method, pattern, fixed, operation in _routes():
        match = pattern.match(parts.path)
        if match and request.method.upper() == method and all(query.get(k, [None])[0] == v for k, v in fixed.items()):
            return operation, {key: unquote(value) for key, value in match.groupdict().items()}
    return None


def claims(request: Request) -> bool:
    return _route(request) is not None


def _target(
    emulator: Emulator, name: str, caller: tuple[str, str], operation: str, suffix: str = ""
) -> tuple[Function, str | None]:
    """The function a FunctionName names, and the qualifier it carries (name:qualifier or a qualified ARN)."""
    match = FUNCTION_ARN.match(name)
    base, qualifier = (
        (match.group(3), match.group(4)) if match else (name.partition(":")[0], name.partition(":")[2] or None)
    )
    reachable(match.group(1) if match else None, caller[1])
    account_id, region = (match.group(2), match.group(1)) if match else caller
    arn = f"arn:aws:lambda:{region}:{account_id}:function:{base}"
    with emulator.lock:
        function = emulator.functions.functions.get(arn)
    if function is None:
        if operation == "RemovePermission":
            raise FunctionNotFoundException(f"No policy found for: {arn}")
        if operation in provisioned_concurrency.OPERATIONS:
            raise provisioned_concurrency.missing_function(arn, qualifier or suffix.lstrip(":") or None)
        # Put's and Delete's name $LATEST, Get's does not (AWS-recorded: test_function_concurrency_exceptions,
        # test_ops_on_nonexisting_fn[get_function_concurrency])
        concurrency = operation.endswith("FunctionConcurrency") and operation != "GetFunctionConcurrency"
        suffix = ":$LATEST" if concurrency else (f":{qualifier}" if qualifier else suffix)
        raise FunctionNotFoundException(f"Function not found: {arn}{suffix}")
    return function, qualifier


def _qualifier(from_name: str | None, query: dict[str, str]) -> str | None:
    given = query.get("Qualifier")
    if from_name and given and from_name != given:
        raise InvalidParameterValueException(
            "The derived qualifier from the function name does not match the specified qualifier."
        )
    return given or from_name


def handle(emulator: Emulator, request: Request, caller: tuple[str, str]) -> Response | None:
    route = _route(request)
    if route is None:
        return None
    operation, path = route
    query = {key: values[0] for key, values in parse_qs(urlsplit(request.url).query).items()}
    try:
        if operation == "GetAccountSettings":
            return concurrency.account_settings(emulator, caller)
        if operation in TAGS:
            arn = path["Resource"]
            validation.validate("lambda", "ListTags", {"Resource": arn})
            if not FUNCTION_ARN.match(arn) and not any(f":{kind}:" in arn for kind in tags.NOT_FUNCTIONS):
                return None  # code signing configs, ...: moto's
            if operation == "TagResource":
                return tags.tag_resource(emulator, arn, json_body(request))
            if operation == "UntagResource":
                return tags.untag_resource(emulator, arn, parse_qs(urlsplit(request.url).query).get("tagKeys", []))
            return tags.list_tags(emulator, arn)
        name = path["FunctionName"]
        if operation in url_configs.OPERATIONS:
            params = json_body(request) if request.method.upper() in ("POST", "PUT") else {}
            return url_configs.handle(
                emulator, operation, name, query, params, lambda: _target(emulator, name, caller, operation), _qualifier
            )
        if operation in qualified.OPERATIONS:
            return qualified.handle(emulator, operation, request, caller, name)
        if operation.endswith("FunctionConcurrency"):
            concurrency._unqualified(name)
        params = json_body(request) if request.method.upper() in ("POST", "PUT") else {}
        # CreateAlias on a missing function names the version it would point to (AWS-recorded
        # test_notfound_and_invalid_routingconfigs, "routing_config_exc_fn_doesnotexist")
        # (a provisioned concurrency operation's names its Qualifier: provisioned_concurrency.missing_function)
        wanted = params.get("FunctionVersion") if operation == "CreateAlias" else None
        if operation in provisioned_concurrency.OPERATIONS:
            wanted = query.get("Qualifier")
        function, from_name = _target(
            emulator, name, caller, operation, f":{wanted}" if isinstance(wanted, str) else ""
        )
        if operation in versions.OPERATIONS:
            return versions.handle(emulator, operation, function, path, query, params)
        if operation in provisioned_concurrency.OPERATIONS:
            qualifier = _qualifier(from_name, query)
            return provisioned_concurrency.handle(emulator, operation, function, qualifier, query, params)
        if operation == "AddPermission":
            return permissions.add_permission(emulator, function, params, _qualifier(from_name, query))
        if operation == "GetPolicy":
            return permissions.get_policy(emulator, function, _qualifier(from_name, query))
        if operation == "RemovePermission":
            return permissions.remove_permission(
                emulator, function, path["StatementId"], _qualifier(from_name, query), query.get("RevisionId")
            )
        if operation in recursion.OPERATIONS:
            return recursion.handle(emulator, operation, function, name, params)
        if operation == "PutFunctionConcurrency":
            return concurrency.put_function_concurrency(emulator, function, name, params)
        if operation == "GetFunctionConcurrency":
            return concurrency.get_function_concurrency(emulator, function, name)
        if operation == "DeleteFunctionConcurrency":
            return concurrency.delete_function_concurrency(emulator, function, name)
        raise NotEmulated("Lambda", operation)
    except AWSError as error:
        return error_response(error)

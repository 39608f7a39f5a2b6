"""The Lambda API (REST-JSON, /2015-03-31/...) for functions and event source mappings.

Eddy answers these itself, in both doors:
    POST   /2015-03-31/functions                       CreateFunction (python3.x, Code.ZipFile or S3)
    GET    /2015-03-31/functions/                      ListFunctions
    PUT    /2015-03-31/functions/{name}/configuration  UpdateFunctionConfiguration
    PUT    /2015-03-31/functions/{name}/code           UpdateFunctionCode
    POST/GET       /2015-03-31/event-source-mappings/  CreateEventSourceMapping, ListEventSourceMappings
    GET/PUT/DELETE /2015-03-31/event-source-mappings/{uuid}
    GET    /2018-10-31/layers?find=LayerVersion&Arn=   GetLayerVersionByArn
CreateFunction and UpdateFunctionConfiguration take Layers (functions/layers.py); CreateFunction and
UpdateFunctionCode take Publish (functions/versions.py). GetFunction, GetFunctionConfiguration and DeleteFunction, which
take a qualifier, a function's policy, tags, concurrency, versions, aliases and every other operation on a function's
path are api/lambda_/resources/'s; Invoke and InvokeAsync api/lambda_/invoke/'s; layer
operations (PublishLayerVersion) moto's.
"""

from __future__ import annotations

import re
from typing import Any, Callable
from urllib.parse import unquote, urlsplit

from eddy.emulator.api import validation
from eddy.emulator.api.rest_json import json_body, json_response, query_parameters
from eddy.emulator.api.lambda_.functions import parameters as function_parameters
from eddy.emulator.engine import Emulator
from eddy.emulator.errors import (
    AWSError,
    FunctionNotFoundException,
    InvalidParameterValueException,
    ValidationException,
    constraint_violation,
    no_such_path,
)
from eddy.emulator.functions.layers import LAYER_VERSION_ARN, resolve_layers
from eddy.emulator.functions.logs.logging_configs import logging_config
from eddy.emulator.moto_seam.layers import layer_version_configuration
from eddy.emulator.api.lambda_.functions.names import created_name
from eddy.emulator.functions.function import Function, checked_tags
from eddy.emulator.functions.versions import listed
from eddy.emulator.functions.runtimes import runtime_of
from eddy.emulator.aws_requests import Request, Response
from eddy.emulator.functions.configuration import function_configuration

PREFIX = "/2015-03-31/"
ROUTES = [
    ("POST", re.compile(r"^/2015-03-31/functions/?$"), "create_function"),
    ("GET", re.compile(r"^/2015-03-31/functions/?$"), "list_functions"),
    ("PUT", re.compile(r"^/2015-03-31/functions/(?P<name>[^/]+)/configuration/?$"), "update_function_configuration"),
    ("PUT", re.compile(r"^/2015-03-31/functions/(?P<name>[^/]+)/code/?$"), "update_function_code"),
    ("POST", re.compile(r"^/2015-03-31/event-source-mappings/?$"), "create_event_source_mapping"),
    ("GET", re.compile(r"^/2015-03-31/event-source-mappings/?$"), "list_event_source_mappings"),
    ("GET", re.compile(r"^/2015-03-31/event-source-mappings/(?P<uuid>[^/]+)/?$"), "get_event_source_mapping"),
    ("PUT", re.compile(r"^/2015-03-31/event-source-mappings/(?P<uuid>[^/]+)/?$"), "update_event_source_mapping"),
    ("DELETE", re.compile(r"^/2015-03-31/event-source-mappings/(?P<uuid>[^/]+)/?$"), "delete_event_source_mapping"),
]
LAYERS = re.compile(r"^/2018-10-31/layers/?$")
#: the operations whose JSON bodies are checked against botocore's model first (by their model names)
VALIDATED = {
    name: "".join(part.title() for part in name.split("_"))
    for name in (
        "create_function",
        "update_function_configuration",
        "update_function_code",
        "create_event_source_mapping",
        "update_event_source_mapping",
    )
}
ROLE = re.compile(r"^arn:aws[a-z-]*:iam::\d{12}:role/?[A-Za-z0-9+=,.@_/-]+$")


def claims(request: Request) -> bool:
    return _route(request) is not None


def _route(request: Request) -> tuple[str, dict[str, str]] | None:
    path = urlsplit(request.url).path
    if LAYERS.match(path) and request.method.upper() == "GET" and query_parameters(request).get("find") == "LayerVersion":
        return "get_layer_version_by_arn", {}
    if not path.startswith(PREFIX):
        return None
    for method, pattern, operation in ROUTES:
        match = pattern.match(path)
        if match and request.method.upper() == method:
            return operation, {k: unquote(v) for k, v in match.groupdict().items()}
    if "invocations" in path:  # never moto's: its Lambda would run code in Docker (Invoke is api/lambda_/invoke/'s)
        return "not_served", {}
    return None


def not_served(emulator: Emulator, request: Request, caller: tuple[str, str]) -> Response:
    raise no_such_path(request.method, urlsplit(request.url).path)


def handle(emulator: Emulator, request: Request, caller: tuple[str, str]) -> Response | None:
    route = _route(request)
    if route is None:
        return None
    operation, path_params = route
    try:
        if operation in VALIDATED and request.body:
            validation.validate("lambda", VALIDATED[operation], _model_checked(json_body(request)), body_only=True)
        return OPERATIONS[operation](emulator, request, caller, **path_params)
    except AWSError as error:
        return error_response(error)


def _model_checked(params: dict[str, Any]) -> dict[str, Any]:
    """What of a request botocore's model checks: a Runtime given as a string is checked by runtimes.runtime_of in
    Lambda's own words (not the model's enum: AWS-recorded test_create_lambda_exceptions, "invalid_runtime_exc")."""
    return {key: value for key, value in params.items() if not (key == "Runtime" and isinstance(value, str))}


def error_response(error: AWSError) -> Response:
    """Lambda's error document: the message under the member name the model gives the error (Message for
    ResourceNotFoundException, message for most: AWS-recorded test_lambda_api.snapshot.json,
    test_ops_on_nonexisting_fn), Type User unless the error is one AWS answers without it (`untyped`: AWS-recorded
    test_function_concurrency_limits), and a throttle's Reason."""
    reason = {"Reason": error.reason} if getattr(error, "reason", None) else {}  # a throttle's (TooManyRequests)
    typed = {} if getattr(error, "untyped", False) else {"Type": "User"}
    message = "Message" if "Message" in validation.error_members("lambda", error.code) else "message"
    return json_response({**reason, **typed, message: error.message}, error.status, {"x-amzn-ErrorType": error.code})


# -- functions -----------------------------------------------------------------------------------------


def create_function(emulator: Emulator, request: Request, caller: tuple[str, str]) -> Response:
    params = json_body(request)
    account_id, region = caller
    name = params.get("FunctionName")
    if not isinstance(name, str):  # an empty body, which the model's check is not given
        raise constraint_violation("functionName", None, "Member must not be null")
    name = created_name(name, account_id, region)
    runtime = params.get("Runtime")
    runtime_rules = runtime_of(runtime)
    role = params.get("Role")
    if not isinstance(role, str) or not ROLE.match(role):
        raise constraint_violation(
            "role",
            role,
            "Member must satisfy regular expression pattern: "
            "arn:(aws[a-zA-Z-]*)?:iam::\\d{12}:role/?[a-zA-Z_0-9+=,.@\\-_/]+",
        )
    handler = params.get("Handler")
    if not runtime_rules.valid_handler(handler):
        raise InvalidParameterValueException(f"Handler must be {runtime_rules.handler_hint}, not {handler!r}")
    zip_file = function_parameters.zip_file(emulator, params.get("Code"), region)
    function_parameters.request_size(request.body)
    layers = resolve_layers(params["Layers"], account_id, region) if params.get("Layers") is not None else []
    dead_letter_target = function_parameters.dead_letter_target(params)
    tags = checked_tags(params["Tags"]) if params.get("Tags") is not None else {}
    # its execution role's session, kept with it: a new worker then needs no write (functions/runtimes/credentials.py)
    role_session = emulator.new_role_session(region, role, name)
    with emulator.lock:
        function = emulator.functions.create(
            name=name,
            account_id=account_id,
            region=region,
            handler=handler,
            runtime=runtime,
            zip_file=zip_file,
            now=emulator.clock.now(),
            timeout=function_parameters.bounded(params, "Timeout", 1, 900, 3),
            memory_size=function_parameters.bounded(params, "MemorySize", 128, 10240, 128),
            environment=function_parameters.environment(params) or {},
            role=role,
            description=str(params.get("Description", "")),
            layers=layers,
            logging=logging_config(params.get("LoggingConfig"), name),
            tags=tags,
            settings=function_parameters.settings(params),
            role_session=role_session,
        )
        if dead_letter_target:
            function.dead_letter_target = dead_letter_target
            emulator.functions.saved(function)
        function.creation_started()  # Pending until its state is read (Function.creation_completed)
        if params.get("Publish") is True:  # answered as version 1 under the function's ARN (AWS-recorded:
            # test_lambda_api.snapshot.json, TestLambdaVersions::test_publish_version_on_create)
            version, _ = emulator.functions.publish_version(function, None)
            return json_response(function_configuration(version, "created", arn=function.arn), 201)
    return json_response(function_configuration(function, "created"), 201)


def _function(emulator: Emulator, name: str, caller: tuple[str, str]) -> Function:
    with emulator.lock:
        return emulator.functions.get(name, *caller)


def list_functions(emulator: Emulator, request: Request, caller: tuple[str, str]) -> Response:
    """ListFunctions: each function's $LATEST, or (FunctionVersion=ALL) every version of each, under qualified ARNs;
    without State and LastUpdateStatus (AWS-recorded: LocalStack's test_lambda_api.snapshot.json,
    TestLambdaFunction::test_list_functions, "list_all", "list_default", "list_functions_invalid_functionversion")."""
    query = query_parameters(request)
    every = query.get("FunctionVersion")
    if every is not None and every != "ALL":
        raise ValidationException(
            f"1 validation error detected: Value '{every}' at 'functionVersion' failed to satisfy "
            "constraint: Member must satisfy enum value set: [ALL]"
        )
    with emulator.lock:
        functions = sorted(emulator.functions.list(*caller), key=lambda f: f.name)
        for function in functions:  # an update whose time on the clock is over answers Successful
            emulator.functions.settle(function, emulator.clock.now())
        if every:
            items = [
                listed(function_configuration(v, arn=v.version_arn))
                for f in functions
                for v in (f, *(f.versions[n] for n in sorted(f.versions, key=int)))
            ]
        else:
            items = [listed(function_configuration(f)) for f in functions]
    return json_response(_page(items, query, "Functions"))


def _page(items: list[dict[str, Any]], query: dict[str, str], key: str) -> dict[str, Any]:
    start = int(query["Marker"]) if query.get("Marker", "").isdigit() else 0
    size = int(query["MaxItems"]) if query.get("MaxItems", "").isdigit() else 50
    page: dict[str, Any] = {key: items[start : start + size]}
    if start + size < len(items):
        page["NextMarker"] = str(start + size)
    return page


def update_function_configuration(emulator: Emulator, request: Request, caller: tuple[str, str], name: str) -> Response:
    params = json_body(request)
    function = _function(emulator, name, caller)
    layers = resolve_layers(params["Layers"], *caller) if params.get("Layers") is not None else None
    runtime = params.get("Runtime", function.runtime)
    runtime_rules = runtime_of(runtime)
    handler = params.get("Handler", function.handler)
    # a registered callable's handler is its qualified name (a nested function's has <locals>): checked if given
    if ("Handler" in params or function.target is None) and not runtime_rules.valid_handler(handler):
        raise InvalidParameterValueException(f"Handler must be {runtime_rules.handler_hint}, not {handler!r}")
    if function.target is not None and runtime != function.runtime:
        raise InvalidParameterValueException(
            f"{function.name} is a registered in-process function: its runtime is this process"
        )
    logging = (
        logging_config(params["LoggingConfig"], function.name, function.logging_config)
        if "LoggingConfig" in params
        else None
    )
    with emulator.lock:
        now = emulator.clock.now()
        if emulator.functions.settle(function, now):
            emulator.invoker.retire(function)
        function.check_not_updating(now)
        function_parameters.check_revision(function.revision_id, params.get("RevisionId"))
        timeout = function_parameters.bounded(params, "Timeout", 1, 900, None) if "Timeout" in params else None
        memory_size = (
            function_parameters.bounded(params, "MemorySize", 128, 10240, None) if "MemorySize" in params else None
        )
        environment = function_parameters.environment(params)
        settings = function_parameters.settings(params)
        dead_letter_target = function_parameters.dead_letter_target(params)
        previous = function.as_before_update()  # what invocations run until the update completes
        if layers is not None:
            emulator.functions.set_layers(function, layers)
        function.runtime, function.handler = runtime, handler
        if timeout is not None:
            function.timeout = timeout
        if memory_size is not None:
            function.memory_size = memory_size
        if environment is not None:
            function.environment = environment
        if isinstance(params.get("Description"), str):
            function.description = params["Description"]
        if logging is not None:
            function.logging_config = logging
        for name, value in settings.items():
            setattr(function, name, value)
        if dead_letter_target is not None:
            function.dead_letter_target = dead_letter_target or None
        function.update_started(previous, now, emulator.settings.function_update_seconds)
        emulator.functions.saved(function)  # refused with its request: the function as it was, not updating
        answer = function_configuration(function, "updated")
    return json_response(answer)


def update_function_code(emulator: Emulator, request: Request, caller: tuple[str, str], name: str) -> Response:
    params = json_body(request)
    function = _function(emulator, name, caller)
    zip_file = function_parameters.zip_file(emulator, params, function.region)
    with emulator.lock:
        now = emulator.clock.now()
        if emulator.functions.settle(function, now):
            emulator.invoker.retire(function)
        function.check_not_updating(now)
        function_parameters.check_revision(function.revision_id, params.get("RevisionId"))
        previous = function.as_before_update()  # what invocations run until the update completes
        if isinstance(params.get("Architectures"), list) and function.target is None:
            function.architectures = list(params["Architectures"])
        emulator.functions.update_code(function, zip_file, now)
        function.update_started(previous, now, emulator.settings.function_update_seconds)
        emulator.functions.saved(function)  # refused with its request: the code it replaces runs on, not updating
        if params.get("Publish") is True:  # answered as the new version, being created (AWS-recorded:
            # TestLambdaVersions::test_publish_with_update, "update_function_code_result")
            version, published = emulator.functions.publish_version(function, None)
            if published:
                version.publishing_started()
                function.update.published = version.version  # read Active, it completes the update
                emulator.functions.recorded(function)
            answer = function_configuration(version)
        else:
            answer = function_configuration(function, "updated")
    return json_response(answer)


def get_layer_version_by_arn(emulator: Emulator, request: Request, caller: tuple[str, str]) -> Response:
    arn = query_parameters(request).get("Arn", "")
    match = LAYER_VERSION_ARN.match(arn)
    if not match:
        raise constraint_violation(
            "arn",
            arn or None,
            "Member must satisfy regular expression pattern: "  # as AWS words it (test_layer_exceptions' invalidarn)
            "(arn:(aws[a-zA-Z-]*)?:lambda:(eusc-)?[a-z]{2}((-gov)|(-iso([a-z]?)))?-[a-z]+-\\d{1}:\\d{12}:layer:"
            "[a-zA-Z0-9-_]+:[0-9]+)|(arn:[a-zA-Z0-9-]+:lambda:::awslayer:[a-zA-Z0-9-_]+)",
        )
    region, account_id, name, version = match.groups()
    configuration = layer_version_configuration(account_id, region, name, int(version))
    if configuration is None:
        raise FunctionNotFoundException("The resource you requested does not exist.")
    return json_response(configuration)


# -- event source mappings -------------------------------------------------------------------------------


def create_event_source_mapping(emulator: Emulator, request: Request, caller: tuple[str, str]) -> Response:
    return json_response(emulator.triggers.create(json_body(request), *caller), 202)


def list_event_source_mappings(emulator: Emulator, request: Request, caller: tuple[str, str]) -> Response:
    query = query_parameters(request)
    with emulator.lock:
        mappings = emulator.triggers.list(
            event_source_arn=query.get("EventSourceArn"),
            function_name=query.get("FunctionName"),
            account_id=caller[0],
            region=caller[1],
        )
        items = [m.to_dict() for m in mappings]
    return json_response(_page(items, query, "EventSourceMappings"))


def get_event_source_mapping(emulator: Emulator, request: Request, caller: tuple[str, str], uuid: str) -> Response:
    with emulator.lock:
        return json_response(emulator.triggers.get(uuid).to_dict())


def update_event_source_mapping(emulator: Emulator, request: Request, caller: tuple[str, str], uuid: str) -> Response:
    return json_response(emulator.triggers.update(uuid, json_body(request)), 202)


def delete_event_source_mapping(emulator: Emulator, request: Request, caller: tuple[str, str], uuid: str) -> Response:
    return json_response(emulator.triggers.delete(uuid), 202)


OPERATIONS: dict[str, Callable[..., Response]] = {name: globals()[name] for _, _, name in ROUTES}
OPERATIONS["get_layer_version_by_arn"] = get_layer_version_by_arn
OPERATIONS["not_served"] = not_served

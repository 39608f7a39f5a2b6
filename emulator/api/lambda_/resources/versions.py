"""A function's versions and aliases in the Lambda API (functions/versions.py keeps them):

    POST   /2015-03-31/functions/{name}/versions          PublishVersion (201: the version's configuration)
    GET    /2015-03-31/functions/{name}/versions          ListVersionsByFunction ($LATEST first, Marker/MaxItems)
    POST   /2015-03-31/functions/{name}/aliases           CreateAlias (201)
    GET    /2015-03-31/functions/{name}/aliases           ListAliases (FunctionVersion, Marker/MaxItems)
    GET/PUT/DELETE /2015-03-31/functions/{name}/aliases/{alias}   GetAlias, UpdateAlias, DeleteAlias (204)

Every answer and refusal in AWS's words, as LocalStack's AWS-validated snapshots recorded them
(tests/aws/services/lambda_/test_lambda_api.snapshot.json: TestLambdaVersions, TestLambdaAlias).
"""

from __future__ import annotations

import re
import uuid
from typing import Any

from eddy.emulator.api import validation
from eddy.emulator.api.lambda_.functions.parameters import check_revision
from eddy.emulator.api.rest_json import json_response
from eddy.emulator.aws_requests import Response
from eddy.emulator.engine import Emulator
from eddy.emulator.errors import (
    FunctionNotFoundException,
    InvalidParameterValueException,
    ResourceConflictException,
    ValidationException,
    without_type,
)
from eddy.emulator.functions.function import Function
from eddy.emulator.functions.versions import LATEST, Alias, listed
from eddy.emulator.functions.configuration import function_configuration

ALIAS_NAME = re.compile(r"^(?!^[0-9]+$)([a-zA-Z0-9-_]+)$")
WEIGHTS = "routingConfig.additionalVersionWeights"
DEFAULT_PAGE = 50


def page_of(items: list[dict[str, Any]], query: dict[str, str], key: str) -> dict[str, Any]:
    """One page of a listing: Marker is where the last page ended, MaxItems (1..10000) its size."""
    start = int(query["Marker"]) if query.get("Marker", "").isdigit() else 0
    size = int(query["MaxItems"]) if query.get("MaxItems", "").isdigit() else DEFAULT_PAGE
    page: dict[str, Any] = {key: items[start : start + size]}
    if start + size < len(items):
        page["NextMarker"] = str(start + size)
    return page


def publish_version(emulator: Emulator, function: Function, params: dict[str, Any]) -> Response:
    validation.validate("lambda", "PublishVersion", dict(params, FunctionName=function.name))
    with emulator.lock:
        emulator.functions.settle(function, emulator.clock.now())
        function.check_not_updating(emulator.clock.now())
        check_revision(function.revision_id, params.get("RevisionId"))
        sha = params.get("CodeSha256")
        if sha is not None and sha != function.code_sha256:
            raise InvalidParameterValueException(
                f"CodeSHA256 ({sha}) is different from current CodeSHA256 in $LATEST ({function.code_sha256}). "
                "Please try again with the CodeSHA256 in $LATEST."
            )
        version, _ = emulator.functions.publish_version(function, params.get("Description"))
        return json_response(function_configuration(version), 201)


def list_versions(emulator: Emulator, function: Function, query: dict[str, str]) -> Response:
    with emulator.lock:
        emulator.functions.settle(function, emulator.clock.now())  # one whose time is over answers Successful
        versions = [function, *(function.versions[n] for n in sorted(function.versions, key=int))]
        items = [listed(function_configuration(version, arn=version.version_arn)) for version in versions]
    return json_response(page_of(items, query, "Versions"))


def _weights(function: Function, target: str, config: Any) -> dict[str, float]:
    """RoutingConfig.AdditionalVersionWeights checked as Lambda checks them (AWS-recorded
    test_notfound_and_invalid_routingconfigs), in its order."""
    weights = dict(((config or {}).get("AdditionalVersionWeights") or {}))
    if len(weights) > 1:
        raise InvalidParameterValueException("Number of items in AdditionalVersionWeights cannot be greater than 1")
    for version, weight in weights.items():
        shown = f"{{{version}={float(weight)}}}" if isinstance(weight, (int, float)) else f"{{{version}={weight}}}"
        if not isinstance(weight, (int, float)) or isinstance(weight, bool) or not 0.0 <= weight <= 1.0:
            raise ValidationException(
                f"1 validation error detected: Value '{shown}' at '{WEIGHTS}' failed to satisfy constraint: Map value "
                "must satisfy constraint: [Member must have value less than or equal to 1.0, Member must have value "
                "greater than or equal to 0.0, Member must not be null]"
            )
        if version == target:
            raise InvalidParameterValueException(
                f"Invalid function version {target}. Function version {target} is "
                "already included in routing configuration."
            )
        if target == LATEST:
            raise without_type(InvalidParameterValueException(
                "$LATEST is not supported for an alias pointing to more than 1 version"
            ))
        if not version.isdigit():
            raise ValidationException(
                f"1 validation error detected: Value '{shown}' at '{WEIGHTS}' failed to satisfy constraint: Map keys "
                "must satisfy constraint: [Member must have length less than or equal to 1024, Member must have length "
                "greater than or equal to 1, Member must satisfy regular expression pattern: [0-9]+]"
            )
        if version not in function.versions:
            raise FunctionNotFoundException(f"Function not found: {function.arn}:{version}")
    return {version: float(weight) for version, weight in weights.items()}


def _version_exists(function: Function, version: str) -> None:
    if version != LATEST and version not in function.versions:
        raise FunctionNotFoundException(f"Function not found: {function.arn}:{version}")


def create_alias(emulator: Emulator, function: Function, params: dict[str, Any]) -> Response:
    name = params.get("Name")
    if isinstance(name, str) and not ALIAS_NAME.match(name):
        raise ValidationException(
            f"1 validation error detected: Value '{name}' at 'name' failed to satisfy constraint: "
            "Member must satisfy regular expression pattern: (?!^[0-9]+$)([a-zA-Z0-9-_]+)"
        )
    validation.validate("lambda", "CreateAlias", dict(_without_weights(params), FunctionName=function.name))
    with emulator.lock:
        _version_exists(function, params["FunctionVersion"])
        if name in function.aliases:
            raise ResourceConflictException(f"Alias already exists: {function.arn}:{name}")
        alias = Alias(
            name,
            params["FunctionVersion"],
            params.get("Description") or "",
            _weights(function, params["FunctionVersion"], params.get("RoutingConfig")),
        )
        function.aliases[name] = alias
        emulator.functions.recorded(function)
        return json_response(alias.configuration(function.arn), 201)


def _without_weights(params: dict[str, Any]) -> dict[str, Any]:
    """The request without RoutingConfig, whose weights are checked by _weights (in Lambda's words and order)."""
    return {key: value for key, value in params.items() if key != "RoutingConfig"}


def _alias(function: Function, name: str, missing: str) -> Alias:
    alias = function.aliases.get(name)
    if alias is None:
        raise FunctionNotFoundException(f"{missing}: {function.arn}:{name}")
    return alias


def get_alias(emulator: Emulator, function: Function, name: str) -> Response:
    with emulator.lock:
        return json_response(_alias(function, name, "Cannot find alias arn").configuration(function.arn))


def update_alias(emulator: Emulator, function: Function, name: str, params: dict[str, Any]) -> Response:
    validation.validate("lambda", "UpdateAlias", dict(_without_weights(params), FunctionName=function.name, Name=name))
    with emulator.lock:
        alias = _alias(function, name, "Alias not found")
        check_revision(alias.revision_id, params.get("RevisionId"))
        target = params.get("FunctionVersion", alias.function_version)
        _version_exists(function, target)
        routing = _weights(function, target, params.get("RoutingConfig", {"AdditionalVersionWeights": alias.routing}))
        alias.function_version, alias.routing = target, routing
        if params.get("Description") is not None:
            alias.description = params["Description"]
        alias.changed()  # a new RevisionId even when nothing changed (AWS-recorded test_alias_lifecycle)
        emulator.functions.recorded(function)
        return json_response(alias.configuration(function.arn))


def delete_alias(emulator: Emulator, function: Function, name: str) -> Response:
    """Deleting an alias that does not exist answers 204 as for one that does (AWS-recorded
    test_non_existent_alias_deletion); its provisioned concurrency configuration goes with it (AWS-recorded
    test_lambda_provisioned_lifecycle), and its function URL (AWS-recorded test_lambda_url_persists_after_alias_delete:
    the URL answers 403 once the alias is gone)."""
    with emulator.lock:
        if function.aliases.pop(name, None) is not None:
            function.provisioned_concurrency.pop(name, None)  # its provisioned concurrency goes with it
            function.url_configs.pop(name, None)
            emulator.functions.recorded(function)
    return Response(204, {"x-amzn-RequestId": str(uuid.uuid4())}, b"")


def list_aliases(emulator: Emulator, function: Function, query: dict[str, str]) -> Response:
    version = query.get("FunctionVersion")
    with emulator.lock:
        items = [
            alias.configuration(function.arn)
            for alias in sorted(function.aliases.values(), key=lambda a: a.name)
            if version is None or alias.function_version == version
        ]
    return json_response(page_of(items, query, "Aliases"))


def handle(
    emulator: Emulator,
    operation: str,
    function: Function,
    path: dict[str, str],
    query: dict[str, str],
    params: dict[str, Any],
) -> Response:
    """One of OPERATIONS on a function's versions or aliases."""
    if operation == "PublishVersion":
        return publish_version(emulator, function, params)
    if operation == "ListVersionsByFunction":
        return list_versions(emulator, function, query)
    if operation == "CreateAlias":
        return create_alias(emulator, function, params)
    if operation == "ListAliases":
        return list_aliases(emulator, function, query)
    if operation == "GetAlias":
        return get_alias(emulator, function, path["Name"])
    if operation == "UpdateAlias":
        return update_alias(emulator, function, path["Name"], params)
    return delete_alias(emulator, function, path["Name"])


OPERATIONS = frozenset(
    {"PublishVersion", "ListVersionsByFunction", "CreateAlias", "ListAliases", "GetAlias", "UpdateAlias", "DeleteAlias"}
)

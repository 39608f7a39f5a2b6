"""The Lambda API's layer requests checked as Lambda checks them, before moto (which keeps the layers:
moto_seam/layers.py) answers a valid one:

    GET  /2018-10-31/layers                                   ListLayers: CompatibleRuntime, CompatibleArchitecture
    POST /2018-10-31/layers/{name}/versions                   PublishLayerVersion: CompatibleRuntimes, -Architectures
    POST /2018-10-31/layers/{name}/versions/{number}/policy   AddLayerVersionPermission: its body, by the model

Each refusal in AWS's recorded words (LocalStack's test_lambda_api.snapshot.json, TestLambdaLayer::
test_layer_exceptions, recorded 12-01-2026, and ::test_layer_policy_exceptions "layer_permission_action_invalid"). The
runtimes AWS names are not botocore's enum: ListLayers names every runtime Lambda ever had, in the order of AWS's own
set; PublishLayerVersion the runtimes a layer may name today. GetLayerVersionByArn is door.py's.
"""

from __future__ import annotations

import re
from typing import Any

from eddy.emulator.api import validation
from eddy.emulator.api.lambda_.door import error_response
from eddy.emulator.api.rest_json import json_body, query_parameters
from eddy.emulator.aws_requests import Request, Response
from eddy.emulator.engine import Emulator
from eddy.emulator.errors import AWSError, ValidationException

LIST_LAYERS = re.compile(r"^/2018-10-31/layers/?$")
PUBLISH = re.compile(r"^/2018-10-31/layers/[^/]+/versions/?$")
ADD_PERMISSION = re.compile(r"^/2018-10-31/layers/[^/]+/versions/[^/]+/policy/?$")
#: the runtimes AWS named refusing ListLayers' CompatibleRuntime, in its order
LISTED_RUNTIMES = (
    "ruby3.5, ruby2.6, dotnetcore1.0, python3.7, nodejs8.10, nasa, ruby2.7, python2.7-greengrass, dotnetcore2.0, "
    "python3.8, java21, dotnet6, dotnetcore2.1, python3.9, java11, nodejs6.10, provided, dotnetcore3.1, dotnet8, java25, "
    "java17, nodejs, nodejs4.3, java8.al2, go1.x, dotnet10, nodejs20.x, go1.9, byol, nodejs10.x, provided.al2023, "
    "nodejs22.x, python3.10, java8, nodejs12.x, python3.11, nodejs24.x, nodejs8.x, python3.12, nodejs14.x, nodejs8.9, "
    "nodejs26.x, python3.13, python3.14, nodejs16.x, python3.15, provided.al2, nodejs4.3-edge, nodejs18.x, ruby3.2, "
    "python3.4, ruby3.3, ruby3.4, ruby2.5, python3.6, python2.7"
).split(", ")
#: the runtimes AWS named refusing PublishLayerVersion's CompatibleRuntimes, in its order
LAYER_RUNTIMES = (
    "nodejs20.x, python3.14, provided.al2023, python3.12, python3.13, nodejs24.x, nodejs22.x, java25, python3.10, "
    "python3.11, java21, ruby3.3, ruby3.4, ruby3.2, python3.8, python3.9, java17, nodejs16.x, dotnet10, dotnet8, java11, "
    "dotnet6, nodejs18.x, provided.al2, java8.al2"
).split(", ")
ARCHITECTURES = ["x86_64", "arm64"]


def _operation(request: Request) -> str | None:
    path, method = request.path.split("?")[0], request.method.upper()
    if method == "GET" and LIST_LAYERS.match(path) and "find" not in query_parameters(request):
        return "ListLayers"
    if method == "POST" and PUBLISH.match(path):
        return "PublishLayerVersion"
    if method == "POST" and ADD_PERMISSION.match(path):
        return "AddLayerVersionPermission"
    return None


def claims(request: Request) -> bool:
    return _operation(request) is not None


def handle(emulator: Emulator, request: Request, caller: tuple[str, str]) -> Response | None:
    """AWS's refusal of a request Lambda would refuse; None for a valid one, which moto answers."""
    operation = _operation(request)
    try:
        if operation == "ListLayers":
            query = query_parameters(request)
            _refuse(
                _enum("compatibleRuntime", query.get("CompatibleRuntime"), LISTED_RUNTIMES, _known_runtimes())
                + _enum("compatibleArchitecture", query.get("CompatibleArchitecture"), ARCHITECTURES)
            )
        elif operation == "PublishLayerVersion":
            body = json_body(request)
            _refuse(_runtimes(body.get("CompatibleRuntimes")) + _architectures(body.get("CompatibleArchitectures")))
            rest = {k: v for k, v in body.items() if k not in ("CompatibleRuntimes", "CompatibleArchitectures")}
            validation.validate("lambda", operation, rest, body_only=True)
        elif operation == "AddLayerVersionPermission":
            validation.validate("lambda", operation, json_body(request), body_only=True)
    except AWSError as error:
        return error_response(error)
    return None


def _refuse(problems: list[str]) -> None:
    if problems:
        count = len(problems)
        raise ValidationException(
            f"{count} validation error{'s' if count > 1 else ''} detected: {'; '.join(problems)}"
        )


def _violation(path: str, shown: str, constraint: str) -> list[str]:
    return [f"Value '{shown}' at '{path}' failed to satisfy constraint: {constraint}"]


def _enum(path: str, value: str | None, allowed: list[str], known: frozenset[str] | None = None) -> list[str]:
    """A value outside `known` (default: `allowed`) refused, naming the set `allowed`."""
    if value is None or value in (allowed if known is None else known):
        return []
    return _violation(path, value, f"Member must satisfy enum value set: [{', '.join(allowed)}]")


def _known_runtimes() -> frozenset[str]:
    """Every runtime botocore's model names (retired ones too): AWS takes them in a layer's CompatibleRuntimes and
    ListLayers' CompatibleRuntime (AWS-validated: TestLambdaLayer::test_layer_compatibilities publishes python3.7 and
    nodejs12.x), though its refusal lists fewer."""
    shape = validation.operation_model("lambda", "ListLayers").input_shape.members["CompatibleRuntime"]
    return frozenset(shape.enum) | frozenset(LISTED_RUNTIMES) | frozenset(LAYER_RUNTIMES)


def _runtimes(value: Any) -> list[str]:
    """A list naming a runtime Lambda does not know: the whole list refused against the set (its one constraint)."""
    known = _known_runtimes()
    if not isinstance(value, list) or all(runtime in known for runtime in value):
        return []
    shown = ", ".join(str(runtime) for runtime in value)
    return _violation("compatibleRuntimes", f"[{shown}]", f"Member must satisfy enum value set: [{', '.join(LAYER_RUNTIMES)}]")


def _architectures(value: Any) -> list[str]:
    """A list naming an unknown architecture: the whole list refused with its members' constraints."""
    if not isinstance(value, list) or all(architecture in ARCHITECTURES for architecture in value):
        return []
    shown = ", ".join(str(architecture) for architecture in value)
    return _violation(
        "compatibleArchitectures",
        f"[{shown}]",
        f"Member must satisfy constraint: [Member must satisfy enum value set: [{', '.join(ARCHITECTURES)}], "
        "Member must not be null]",
    )

"""The EventBridge Pipes API (REST-JSON, /v1/pipes), answered by Eddy in both doors (emulator/pipes/ runs them):
    POST   /v1/pipes/{Name}        CreatePipe
    GET    /v1/pipes/{Name}        DescribePipe
    PUT    /v1/pipes/{Name}        UpdatePipe
    DELETE /v1/pipes/{Name}        DeletePipe
    POST   /v1/pipes/{Name}/start  StartPipe
    POST   /v1/pipes/{Name}/stop   StopPipe
    POST/GET/DELETE /tags/{arn}    TagResource, ListTagsForResource, UntagResource (tagKeys) of a pipe's ARN
    GET    /v1/pipes               ListPipes (NamePrefix, SourcePrefix, TargetPrefix, DesiredState, CurrentState,
                                   Limit, NextToken)
Bodies are checked against botocore's model first (api/validation.py); errors are the Pipes API's
(x-amzn-ErrorType and a JSON {"message": ...}).
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from eddy.emulator.api import validation
from eddy.emulator.api.rest_json import json_body, json_response, query_parameters
from eddy.emulator.engine import Emulator
from eddy.emulator.errors import AWSError, ValidationException
from eddy.emulator.aws_requests import Request, Response

PREFIX = "/v1/pipes"
ROUTES = [
    ("GET", re.compile(r"^/v1/pipes/?$"), "ListPipes"),
    ("POST", re.compile(r"^/v1/pipes/(?P<name>[^/]+)/start$"), "StartPipe"),
    ("POST", re.compile(r"^/v1/pipes/(?P<name>[^/]+)/stop$"), "StopPipe"),
    ("POST", re.compile(r"^/v1/pipes/(?P<name>[^/]+)$"), "CreatePipe"),
    ("GET", re.compile(r"^/v1/pipes/(?P<name>[^/]+)$"), "DescribePipe"),
    ("PUT", re.compile(r"^/v1/pipes/(?P<name>[^/]+)$"), "UpdatePipe"),
    ("DELETE", re.compile(r"^/v1/pipes/(?P<name>[^/]+)$"), "DeletePipe"),
]


TAGGED_PIPE = re.compile(r"^arn:aws[a-z-]*:pipes:[a-z0-9-]+:\d{12}:pipe/")


def claims(request: Request) -> bool:
    path = urlsplit(request.url).path
    return path == PREFIX or path.startswith(PREFIX + "/") or _tagged_arn(path) is not None


def _tagged_arn(path: str) -> str | None:
    """The pipe ARN a /tags/{resourceArn} path names (other services' ARNs are not the Pipes API's)."""
    if not path.startswith("/tags/"):
        return None
    arn = unquote(path[len("/tags/") :])
    return arn if TAGGED_PIPE.match(arn) else None


def handle(emulator: Emulator, request: Request, caller: tuple[str, str]) -> Response:
    account_id, region = caller
    path = urlsplit(request.url).path
    pipes = emulator.eventbridge.pipes
    try:
        arn = _tagged_arn(path)
        if arn is not None:
            return _tags(pipes, request, arn)
        for method, pattern, operation in ROUTES:
            match = pattern.match(path)
            if match and request.method.upper() == method:
                break
        else:
            raise ValidationException(f"No Pipes operation is {request.method} {path}")
        name = unquote(match.groupdict().get("name") or "")
        if operation == "ListPipes":
            return _listed(pipes.list(account_id, region, query_parameters(request)), query_parameters(request))
        if operation in ("CreatePipe", "UpdatePipe"):
            params = json_body(request)
            validation.validate("pipes", operation, params, body_only=True)
            if operation == "CreatePipe":
                return json_response(pipes.create(name, params, account_id, region))
            return json_response(pipes.update(name, params, account_id, region))
        chosen = {
            "DescribePipe": pipes.describe,
            "DeletePipe": pipes.delete,
            "StartPipe": pipes.start,
            "StopPipe": pipes.stop,
        }[operation]
        return json_response(chosen(name, account_id, region))
    except AWSError as error:
        return json_response({"message": error.message}, error.status, {"x-amzn-ErrorType": error.code})


def _tags(pipes: Any, request: Request, arn: str) -> Response:
    method = request.method.upper()
    if method == "POST":
        params = json_body(request)
        validation.validate("pipes", "TagResource", params, body_only=True)
        pipes.tag(arn, params["tags"])
        return json_response({})
    if method == "DELETE":
        keys = parse_qs(urlsplit(request.url).query).get("tagKeys", [])
        pipes.untag(arn, keys)
        return json_response({})
    return json_response({"tags": pipes.tags_of(arn)})


def _listed(summaries: list[dict[str, Any]], query: dict[str, str]) -> Response:
    """One page of ListPipes: Limit entries (100 by default) from NextToken (the next pipe's name)."""
    try:
        limit = int(query.get("Limit", "100"))
    except ValueError:
        raise ValidationException("Limit must be a number") from None
    token = query.get("NextToken")
    if token:
        summaries = [summary for summary in summaries if summary["Name"] >= token]
    answer: dict[str, Any] = {"Pipes": summaries[:limit]}
    if len(summaries) > limit:
        answer["NextToken"] = summaries[limit]["Name"]
    return json_response(answer)

"""Function URLs served: an HTTP request to a URL invokes its function and its answer is the HTTP response, as Lambda
does it (docs.aws.amazon.com/lambda/latest/dg/urls-invocation.html). The configurations are the Lambda API's
(api/lambda_/resources/url_configs.py).

Two forms reach a URL on Eddy's endpoint (`eddy serve`'s, or in-process the loopback server emulate() starts for it):

    http://127.0.0.1:4566/lambda-url/<url id>/<path>?<query>            the FunctionUrl Eddy answers (any resolver)
    http://<url id>.lambda-url.<region>.localhost:4566/<path>?<query>   AWS's host form, for clients that resolve it

In both, the function sees the path after the URL's own (`rawPath` /<path>). The parts: events.py (the request as the
payload format 2.0 event), access.py (AuthType NONE and AWS_IAM), cors.py (Cors: preflights answered, headers set),
answers.py (the function's answer as the response). An unknown URL answers 403 {"Message":null} AccessDeniedException,
as AWS does (LocalStack's AWS-validated TestLambdaURL::test_lambda_url_non_existing_url).
"""

from __future__ import annotations

import json
import re
import uuid
from typing import Any
from urllib.parse import urlsplit

from eddy.emulator.api.lambda_.function_urls import access, answers, cors
from eddy.emulator.api.lambda_.function_urls.events import UrlRequest, event_of
from eddy.emulator.api.lambda_.resources.url_configs import URL_PATH
from eddy.emulator.aws_requests import Request, Response
from eddy.emulator.engine import Emulator
from eddy.emulator.functions.function import Function
from eddy.emulator.moto_seam import bridge as moto_bridge

#: AWS's host form (<url id>.lambda-url.<region>.on.aws), whatever domain follows the region
URL_HOST = re.compile(r"^(?P<id>[a-z0-9]{1,63})\.lambda-url\.(?P<region>[a-z0-9-]+)(?:\.|$)")


def _raw(request: Request) -> tuple[str, str]:
    """The path and query as the client sent them (escapes kept), where the server kept them; else the URL's."""
    if request.target.startswith("/"):
        path, _, query = request.target.partition("?")
        return path, query
    parts = urlsplit(request.url)
    return parts.path, parts.query


def _located(request: Request) -> tuple[str, str, str] | None:
    """(url id, the path the function sees, the domain name) of a request to a function URL, else None."""
    host = (request.header("Host") or urlsplit(request.url).netloc).split(":")[0].lower()
    path = _raw(request)[0]
    if match := URL_HOST.match(host):
        return match.group("id"), path or "/", host
    if path.startswith(URL_PATH) and not _signed_for_another_service(request):
        url_id, _, rest = path[len(URL_PATH) :].partition("/")
        return url_id, f"/{rest}", host
    return None


def _signed_for_another_service(request: Request) -> bool:
    """A request signed for S3 (say, to a bucket named lambda-url, path-style) is that service's, not a URL's."""
    signed = (request.header("Authorization") or "") + " " + _raw(request)[1]
    return ("aws4_request" in signed or "aws4_request".replace("_", "%5F") in signed) and not any(
        scope in signed for scope in ("/lambda/aws4_request", "%2Flambda%2Faws4_request")
    )


def claims(request: Request) -> bool:
    return _located(request) is not None


def _answer(answer: Response, request_id: str) -> Response:
    answer.headers["x-amzn-RequestId"] = request_id
    return answer


def _refused(message: str | None) -> Response:
    return Response(
        403,
        {"Content-Type": "application/json", "x-amzn-ErrorType": "AccessDeniedException",
         "x-amzn-RequestId": str(uuid.uuid4())},
        json.dumps({"Message": message}, separators=(",", ":")).encode(),
    )  # fmt: skip


def _configured(emulator: Emulator, url_id: str) -> tuple[Function, str, dict[str, Any]] | None:
    with emulator.lock:
        for function in emulator.functions.functions.values():
            for alias, config in function.url_configs.items():
                if config["UrlId"] == url_id:
                    return function, alias, dict(config)
    return None


def _iam_identity(request: Request, function: Function, policy: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The caller's identity as the event's authorizer has it, when AWS_IAM lets it call; else None."""
    signed = access.signed_caller(request.header("Authorization") or "", _raw(request)[1])
    if signed is None:
        return None
    account_id = moto_bridge.caller(request)[0]
    if not access.iam_access(policy, account_id, function.account_id):
        return None
    return {
        "accessKey": signed[0],
        "accountId": account_id,
        "callerId": signed[0],
        "cognitoIdentity": None,
        "principalOrgId": None,
        "userArn": f"arn:aws:iam::{account_id}:root",
        "userId": account_id,
    }


def handle(emulator: Emulator, request: Request) -> Response | None:
    located = _located(request)
    if located is None:
        return None
    url_id, path, domain = located
    found = _configured(emulator, url_id)
    if found is None:
        return _refused(None)
    function, alias, config = found
    with emulator.lock:
        holder = emulator.functions.qualified(function, alias or None)
        policy = [dict(statement) for statement in holder.policy] if holder is not None else []
        version = emulator.functions.version_of(function, alias or None, weighted=True) if holder else None
    if version is None:
        return _refused(access.FORBIDDEN)
    settings = config.get("Cors")
    if settings and cors.is_preflight(request.method, request.headers):
        return Response(200, {**cors.preflight(settings, request.headers), "x-amzn-RequestId": str(uuid.uuid4())})
    iam = None
    if config["AuthType"] == "AWS_IAM":
        iam = _iam_identity(request, function, policy)
        if iam is None:
            return _refused(access.FORBIDDEN)
    elif not access.public_access(policy):
        return _refused(access.FORBIDDEN)
    parts = urlsplit(request.url)
    url_request = UrlRequest(
        request.method.upper(), path, _raw(request)[1], dict(request.headers), request.body or b"", url_id, domain,
        str(parts.port or (443 if parts.scheme == "https" else 80)), iam,
    )  # fmt: skip
    request_id = str(uuid.uuid4())
    event = event_of(url_request, request_id, emulator.clock.now())
    invoked_arn = f"{function.arn}:{alias}" if alias else function.arn
    result = emulator.invoker.invoke(
        version, event, source="FunctionUrl", request_id=request_id, invoked_arn=invoked_arn
    )
    if result.throttled:
        return _answer(Response(429, {"Content-Type": "application/json"}, b'{"Message":"Rate Exceeded."}'),
                       request_id)  # fmt: skip
    if not result.ok:
        answer = answers.internal_server_error()
    elif config.get("InvokeMode") == "RESPONSE_STREAM":
        answer = answers.streamed_answer(result.payload, result.raw)
    else:
        answer = answers.http_answer(answers.raw_payload(result.payload) if result.raw else result.payload)
    if settings:
        answer.headers = cors.on_answer(settings, request.headers, answer.headers)
    return _answer(answer, request_id)


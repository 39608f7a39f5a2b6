"""The event a function URL's function gets: the HTTP request in payload format version 2.0, as Lambda writes it
(docs.aws.amazon.com/lambda/latest/dg/urls-invocation.html, "Request payload format"; a real one recorded in
Powertools' tests/events/lambdaFunctionUrlEvent.json). Pure: the request's parts in, the event out.

Keys Lambda leaves out when they would be empty stay out: `cookies` (the Cookie header's, which leaves `headers`),
`queryStringParameters` (a name given twice: its values joined by commas), `body` (with `isBase64Encoded` true unless
the content type is text, JSON, XML, JavaScript or a form); `authorizer` only for AWS_IAM (the caller's IAM identity),
`accountId` "anonymous" for NONE.
"""

from __future__ import annotations

import base64
import os
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any
from urllib.parse import parse_qsl

#: content types whose body the event carries as text
TEXT_TYPES = ("text/", "application/json", "application/javascript", "application/xml",
              "application/x-www-form-urlencoded", "+json", "+xml")  # fmt: skip


@dataclass(frozen=True)
class UrlRequest:
    """One HTTP request to a function URL, as the event needs it."""

    method: str
    raw_path: str
    raw_query: str
    headers: dict[str, str]
    body: bytes
    url_id: str
    domain_name: str
    port: str
    #: the caller's IAM identity (AWS_IAM): {"accessKey", "accountId", ...}; None for NONE
    iam: dict[str, Any] | None = None


def _is_text(content_type: str, body: bytes) -> bool:
    if not content_type:
        try:
            body.decode()
        except UnicodeDecodeError:
            return False
        return True
    kind = content_type.split(";")[0].strip().lower()
    return any(kind.startswith(t) if t.endswith("/") else kind == t or kind.endswith(t) for t in TEXT_TYPES)


def _trace_id(now: float) -> str:
    return f"Root=1-{int(now):08x}-{os.urandom(12).hex()}"


def event_of(request: UrlRequest, request_id: str, now: float) -> dict[str, Any]:
    """The payload format 2.0 event of `request`, received at `now` (the emulator's clock)."""
    headers = {name.lower(): value for name, value in request.headers.items()}
    cookie = headers.pop("cookie", "")
    headers.setdefault("x-forwarded-proto", "http")
    headers.setdefault("x-forwarded-port", request.port)
    headers.setdefault("x-forwarded-for", "127.0.0.1")
    headers.setdefault("x-amzn-trace-id", _trace_id(now))
    event: dict[str, Any] = {
        "version": "2.0",
        "routeKey": "$default",
        "rawPath": request.raw_path,
        "rawQueryString": request.raw_query,
    }
    cookies = [part.strip() for part in cookie.split(";") if part.strip()]
    if cookies:
        event["cookies"] = cookies
    event["headers"] = headers
    parameters: dict[str, str] = {}
    for name, value in parse_qsl(request.raw_query, keep_blank_values=True):
        parameters[name] = f"{parameters[name]},{value}" if name in parameters else value
    if parameters:
        event["queryStringParameters"] = parameters
    context: dict[str, Any] = {
        "accountId": request.iam["accountId"] if request.iam else "anonymous",
        "apiId": request.url_id,
    }
    if request.iam is not None:
        context["authorizer"] = {"iam": request.iam}
    context.update(
        domainName=request.domain_name,
        domainPrefix=request.url_id,
        http={
            "method": request.method,
            "path": request.raw_path,
            "protocol": "HTTP/1.1",
            "sourceIp": headers["x-forwarded-for"].split(",")[0].strip(),
            "userAgent": headers.get("user-agent", ""),
        },
        requestId=request_id,
        routeKey="$default",
        stage="$default",
        time=datetime.fromtimestamp(now, timezone.utc).strftime("%d/%b/%Y:%H:%M:%S +0000"),
        timeEpoch=int(now * 1000),
    )
    event["requestContext"] = context
    encoded = False
    if request.body:
        encoded = not _is_text(headers.get("content-type", ""), request.body)
        event["body"] = base64.b64encode(request.body).decode() if encoded else request.body.decode()
    event["isBase64Encoded"] = encoded
    return event


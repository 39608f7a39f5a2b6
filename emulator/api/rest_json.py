"""What the REST-JSON doors (Lambda's /2015-03-31/..., EventBridge Pipes' /v1/pipes/...) read and write alike:

    params = json_body(request)          # the JSON object a request carries ({} without a body)
    query = query_parameters(request)    # ?Qualifier=...&Marker=...: each name's first value
    return json_response({"Functions": [...]}, 200, {"x-amz-...": "..."})

A body that is not a JSON object is ValidationException, as those services answer it. Each service's error shape is
its own door's (api/lambda_/door.py's error_response, the Pipes door's).
"""

from __future__ import annotations

import json
import uuid
from typing import Any
from urllib.parse import parse_qs, urlsplit

from eddy.emulator.aws_requests import Request, Response
from eddy.emulator.errors import ValidationException


def json_response(payload: Any, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    body = json.dumps(payload).encode()
    return Response(
        status, {"Content-Type": "application/json", "x-amzn-RequestId": str(uuid.uuid4()), **(headers or {})}, body
    )


def json_body(request: Request) -> dict[str, Any]:
    if not request.body:
        return {}
    try:
        params = json.loads(request.body)
    except (ValueError, UnicodeDecodeError):
        raise ValidationException("The request body is not valid JSON") from None
    if not isinstance(params, dict):
        raise ValidationException("The request body must be a JSON object")
    return params


def query_parameters(request: Request) -> dict[str, str]:
    return {name: values[0] for name, values in parse_qs(urlsplit(request.url).query).items()}

"""A custom resource's response, PUT by its provider to the request's ResponseURL: an S3-style path on Eddy's
endpoint (/cloudformation-custom-resource-response-<region>/<stack id|logical id|request id>, as AWS's pre-signed
URL has it on S3), handed to the stack operation waiting for it (cloudformation/resource_types/
custom_resource_calls.py). Answered as S3 answers a PUT: 200 with an ETag, or 403 AccessDenied where no request
awaits a response."""

from __future__ import annotations

import hashlib
from urllib.parse import urlsplit

from eddy.emulator.aws_requests import Request, Response
from eddy.emulator.cloudformation.resource_types.custom_resource_calls import RESPONSE_BUCKET, CustomResourceCalls


def _bucket_and_key(request: Request) -> tuple[str, str]:
    host = urlsplit(request.url).hostname or ""
    if host.startswith(RESPONSE_BUCKET):  # virtual-hosted, as AWS's own URL is
        return host.split(".")[0], request.path[1:]
    bucket, _, key = request.path[1:].partition("/")
    return bucket, key


def claims(request: Request) -> bool:
    return request.method.upper() == "PUT" and _bucket_and_key(request)[0].startswith(RESPONSE_BUCKET)


def handle(calls: CustomResourceCalls | None, request: Request) -> Response:
    bucket, key = _bucket_and_key(request)
    if calls is not None and calls.deliver(bucket, key, request.body):
        return Response(200, {"ETag": f'"{hashlib.md5(request.body).hexdigest()}"', "Content-Length": "0"}, b"")
    body = (
        '<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>AccessDenied</Code><Message>No custom resource '
        "request awaits a response at this URL (it was answered, or its stack operation has ended)</Message>"
        f"<Resource>{request.path}</Resource></Error>"
    ).encode()
    return Response(403, {"Content-Type": "application/xml", "Content-Length": str(len(body))}, body)

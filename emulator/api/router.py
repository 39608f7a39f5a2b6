"""Where a request goes: the one dispatch both front doors share.

DynamoDB Streams and DynamoDB requests are recognised by their X-Amz-Target, whatever host they were
sent to (botocore sends Streams calls to https://<account>.streams-ddb.<region>.amazonaws.com).
/_eddy/ is Eddy's control API and its dashboard (/_eddy/ui); the Lambda API's functions, Invoke and event source mappings are Eddy's. Everything else (S3, SQS, SNS, moto's own /moto-api/) is moto's: the
router answers None and the door hands the request on.
"""

from __future__ import annotations

import logging
import uuid

from eddy.emulator.api import control_api, dashboard_api, dynamodb_api, lambda_api, streams_api
from eddy.emulator.api.lambda_async import event_invoke_configs
from eddy.emulator.api import lambda_invoke, lambda_resources
from eddy.emulator.api.eventbridge import events_api, pipes_api
from eddy.emulator.api.cloudformation import cloudformation_api, custom_resource_responses
from eddy.emulator.moto_seam import bridge as moto_bridge
from eddy.emulator.engine import Emulator
from eddy.emulator.errors import InternalServerError, UnknownOperationException
from eddy.emulator.aws_requests import Request, Response, error_response
from eddy.emulator.storage.disk import WriteFailed

log = logging.getLogger("eddy")


def _without_target(request: Request) -> bool:
    """A DynamoDB-style request (JSON 1.0, POST) that names no operation: AWS's UnknownOperationException."""
    content_type = (request.header("Content-Type") or "").lower()
    return (request.method.upper() == "POST" and not request.header("X-Amz-Target")
            and content_type.startswith("application/x-amz-json-1.0"))


def claims(request: Request) -> bool:
    """Whether the router answers this request (decided from its target and path, without its body)."""
    target = request.header("X-Amz-Target") or ""
    if target.startswith((streams_api.TARGET_PREFIX, dynamodb_api.TARGET_PREFIX)) or _without_target(request):
        return True
    path = request.path
    return (path.startswith("/_eddy/") or path.rstrip("/") == "/moto-api/reset" or lambda_api.claims(request)
            or lambda_invoke.claims(request) or event_invoke_configs.claims(request) or lambda_resources.claims(request) or pipes_api.claims(request)
            or events_api.claims(request)
            or cloudformation_api.claims(request) or custom_resource_responses.claims(request))


def route(emulator: Emulator, request: Request) -> Response | None:
    target = request.header("X-Amz-Target") or ""
    try:
        if target.startswith(streams_api.TARGET_PREFIX):
            operation = target[len(streams_api.TARGET_PREFIX):]
            return streams_api.handle(emulator, operation, request.body, lambda: moto_bridge.caller(request))
        if target.startswith(dynamodb_api.TARGET_PREFIX):
            return dynamodb_api.handle(emulator, target[len(dynamodb_api.TARGET_PREFIX):], request)
        path = request.path
        if dashboard_api.claims(request):
            return dashboard_api.handle(emulator, request)
        if path.startswith("/_eddy/"):
            return control_api.handle(emulator, request)
        if lambda_invoke.claims(request):  # Invoke, InvokeAsync
            return lambda_invoke.handle(emulator, request, moto_bridge.caller(request))
        if lambda_resources.claims(request):  # before lambda_api's: it answers InvokeAsync and the like honestly
            answer = lambda_resources.handle(emulator, request, moto_bridge.caller(request))
            if answer is not None:
                return answer
        if lambda_api.claims(request):
            return lambda_api.handle(emulator, request, moto_bridge.caller(request))
        if event_invoke_configs.claims(request):
            return event_invoke_configs.handle(emulator, request, moto_bridge.caller(request))
        if pipes_api.claims(request):
            return pipes_api.handle(emulator, request, moto_bridge.caller(request))
        if events_api.claims(request):
            return events_api.handle(request)  # None: a valid PutRule goes on to moto
        if cloudformation_api.claims(request):
            return cloudformation_api.handle(emulator, request, moto_bridge.caller(request))
        if custom_resource_responses.claims(request):
            return custom_resource_responses.handle(emulator.cloudformation.custom_resources, request)
        if _without_target(request):
            return error_response(UnknownOperationException("The request names no operation (X-Amz-Target)"))
        if path.rstrip("/") == "/moto-api/reset" and request.method.upper() == "POST":
            emulator.reset()  # and moto resets its own backends
    except WriteFailed as failure:  # the disk refused the write: nothing of it was kept or shown
        return write_refused(emulator, failure)
    except Exception:  # a fault of Eddy's: answered as one, never as a dropped connection or a traceback
        return internal_error(request)
    return None


def write_refused(emulator: Emulator, failure: WriteFailed) -> Response:
    """A write the disk refused (nothing of it kept or shown): 500 InternalServerError, which the SDKs retry, and one
    WARNING line when writes start being refused (not one per request, nor a traceback)."""
    emulator.disk.refused(failure, emulator.clock.now())
    return error_response(InternalServerError(f"The write was not made: {failure.reason}"))


def internal_error(request: Request) -> Response:
    """AWS's answer to a fault of its own: 500 InternalServerError with a request id; the traceback is logged."""
    request_id = str(uuid.uuid4())
    log.exception("internal error on %s %s (request %s)", request.method, request.url, request_id)
    response = error_response(InternalServerError(f"Internal server error (request id {request_id})"))
    response.headers["x-amzn-RequestId"] = request_id
    return response

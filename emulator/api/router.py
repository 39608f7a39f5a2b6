"""Where a request goes: the one dispatch both front doors share.

DynamoDB Streams and DynamoDB requests are recognised by their X-Amz-Target, whatever host they were
sent to (botocore sends Streams calls to https://<account>.streams-ddb.<region>.amazonaws.com).
/_eddy/ is Eddy's control API and its dashboard (/_eddy/ui); the Lambda API's functions, Invoke and event source mappings are Eddy's. Everything else (S3, SQS, SNS, moto's own /moto-api/) is moto's: the
router answers None and the door hands the request on.

Each API module is loaded by the first request that may be its own (LOAD ON FIRST USE): DynamoDB's and DynamoDB
Streams' with the router; Eddy's controls and dashboard on the first /_eddy/ path; the others when a request shows
the mark of their API (REST paths, X-Amz-Target, the service it is signed for) and are then asked whether it is theirs.
"""

from __future__ import annotations

import importlib
import logging
import uuid
from typing import Any, Callable, Iterator

from eddy.emulator.api.dynamodb import door as dynamodb_door, streams as dynamodb_streams
from eddy.emulator.moto_seam import bridge as moto_bridge
from eddy.emulator.engine import Emulator
from eddy.emulator.errors import InternalServerError, UnknownOperationException
from eddy.emulator.aws_requests import Request, Response, error_response
from eddy.emulator.moto_seam.services.requests import Seen
from eddy.emulator.service_journal import may_change_state
from eddy.emulator.storage.disk import WriteFailed

#: where the zips Lambda's answers point to are served (api/lambda_/resources/code_locations.py: loaded by its first use)
CODE_PATH = "/_eddy/code/"

log = logging.getLogger("eddy")


def _without_target(request: Request) -> bool:
    """A DynamoDB-style request (JSON 1.0, POST) that names no operation: AWS's UnknownOperationException."""
    content_type = (request.header("Content-Type") or "").lower()
    return (
        request.method.upper() == "POST"
        and not request.header("X-Amz-Target")
        and content_type.startswith("application/x-amz-json-1.0")
    )


def _lambda_path(request: Request) -> bool:
    return request.path.startswith("/20")  # every Lambda REST path starts with its API's date: /2015-03-31/functions


def _pipes_path(request: Request) -> bool:
    return request.path.startswith(("/v1/pipes", "/tags/"))


def _events_target(request: Request) -> bool:
    return (request.header("X-Amz-Target") or "").startswith("AWSEvents.")


def _function_url(request: Request) -> bool:
    """A function URL's request: its path on Eddy's endpoint, or AWS's host form (<url id>.lambda-url.<region>...)."""
    return request.path.startswith("/lambda-url/") or ".lambda-url." in (request.header("Host") or "")


def _sns_link(request: Request) -> bool:
    return request.path.startswith("/SimpleNotificationService-") or any(
        f"Action={action}" in request.url for action in ("Unsubscribe", "ConfirmSubscription")
    )


def _sns_signed(request: Request) -> bool:
    return "/sns/aws4_request" in (request.header("Authorization") or "")


def _cloudformation_named(request: Request) -> bool:
    return "cloudformation" in (request.header("Authorization") or "") or "cloudformation" in request.url


def _with_caller(api: Any, emulator: Emulator, request: Request) -> Response | None:
    return api.handle(emulator, request, moto_bridge.caller(request))


def _or_next(api: Any, emulator: Emulator, request: Request) -> Response | None | object:
    answer = _with_caller(api, emulator, request)
    return _NEXT if answer is None else answer  # None: an operation of the Lambda API itself, asked next


def _request_only(api: Any, emulator: Emulator, request: Request) -> Response | None:
    return api.handle(request)  # None: a valid PutRule goes on to moto


def _with_emulator(api: Any, emulator: Emulator, request: Request) -> Response | None:
    return api.handle(emulator, request)


def _custom_resources(api: Any, emulator: Emulator, request: Request) -> Response | None:
    return api.handle(emulator.cloudformation.custom_resources, request)  # a custom resource's response (a PUT)


_NEXT = object()
#: the APIs beyond DynamoDB's, in the order they are asked: each module loaded once a request shows its API's mark,
#: then asked whether the request is its own, and how it is called
_APIS: tuple[tuple[str, Callable[[Request], bool], Callable[[Any, Emulator, Request], Any]], ...] = (
    ("eddy.emulator.api.lambda_.function_urls", _function_url, _with_emulator),  # first: its paths are its functions'
    ("eddy.emulator.api.lambda_.invoke", _lambda_path, _with_caller),  # Invoke, InvokeAsync
    ("eddy.emulator.api.lambda_.resources", _lambda_path, _or_next),  # before the door: InvokeAsync and the like
    ("eddy.emulator.api.lambda_.layers", _lambda_path, _with_caller),  # checks only: a valid request is moto's
    ("eddy.emulator.api.lambda_.door", _lambda_path, _with_caller),
    ("eddy.emulator.api.lambda_.async_invocation.event_invoke_configs", _lambda_path, _with_caller),
    ("eddy.emulator.api.eventbridge.pipes_api", _pipes_path, _with_caller),
    ("eddy.emulator.api.eventbridge.events_api", _events_target, _with_emulator),
    ("eddy.emulator.api.cloudformation.cloudformation_api", _cloudformation_named, _with_caller),
    ("eddy.emulator.api.cloudformation.custom_resource_responses", _cloudformation_named, _custom_resources),
    ("eddy.emulator.api.sns.links", _sns_link, _with_emulator),
    ("eddy.emulator.api.sns.refusals", _sns_signed, _with_emulator),
)


def _apis(request: Request) -> Iterator[tuple[Any, Callable[[Any, Emulator, Request], Any]]]:
    """The API modules this request may be for (loaded now if they were not), in the order they are asked."""
    for name, marked, call in _APIS:
        if marked(request):
            yield importlib.import_module(name), call


def _eddy(name: str) -> Any:
    """Eddy's controls or its dashboard (control_api, dashboard_api), loaded by the first /_eddy/ request."""
    return importlib.import_module(f"eddy.emulator.api.{name}")


def claims(request: Request) -> bool:
    """Whether the router answers this request (decided from its target and path, without its body)."""
    target = request.header("X-Amz-Target") or ""
    if target.startswith((dynamodb_streams.TARGET_PREFIX, dynamodb_door.TARGET_PREFIX)) or _without_target(request):
        return True
    path = request.path
    return (
        path.startswith("/_eddy/")
        or path.rstrip("/") == "/moto-api/reset"
        or any(api.claims(request) for api, _ in _apis(request))
    )


def route(emulator: Emulator, request: Request) -> Response | None:
    target = request.header("X-Amz-Target") or ""
    try:
        with emulator.persistence.unit():  # the request's unit of work: its entries in one append, or undone
            return _dispatch(emulator, request, target)
    except WriteFailed as failure:  # the disk refused the write: nothing of it was kept or shown
        if target.startswith((dynamodb_streams.TARGET_PREFIX, dynamodb_door.TARGET_PREFIX)) or request.path.startswith(
            "/_eddy/"
        ):  # DynamoDB's, and Eddy's controls' (JSON errors)
            return write_refused(emulator, failure)
        status, headers, body = emulator.services.refused(_seen(request), failure)  # the service's own shape
        return Response(status, headers, body)
    except Exception:  # a fault of Eddy's: answered as one, never as a dropped connection or a traceback
        return internal_error(request)


def _dispatch(emulator: Emulator, request: Request, target: str) -> Response | None:
    if target.startswith(dynamodb_streams.TARGET_PREFIX):
        operation = target[len(dynamodb_streams.TARGET_PREFIX) :]
        return dynamodb_streams.handle(emulator, operation, request.body, lambda: moto_bridge.caller(request))
    if target.startswith(dynamodb_door.TARGET_PREFIX):
        return dynamodb_door.handle(emulator, target[len(dynamodb_door.TARGET_PREFIX) :], request)
    path = request.path
    if path.startswith(("/_eddy/ui", "/_eddy/dashboard")) and _eddy("dashboard_api").claims(request):
        return _eddy("dashboard_api").handle(emulator, request)
    if path.startswith(CODE_PATH):  # a layer version's or a function's zip, where Lambda's answers point
        return _eddy("lambda_.resources.code_locations").handle(emulator, request)
    if path.startswith("/_eddy/"):
        return _eddy("control_api").handle(emulator, request)
    for api, call in _apis(request):
        if api.claims(request):
            if emulator.persistence.durable and may_change_state(_seen(request), request.body):
                emulator.disk.room_for(len(request.body))  # what these APIs apply cannot be put back: room first
            answer = call(api, emulator, request)
            if answer is not _NEXT:
                return answer
    if _without_target(request):
        return error_response(UnknownOperationException("The request names no operation (X-Amz-Target)"))
    if path.rstrip("/") == "/moto-api/reset" and request.method.upper() == "POST":
        emulator.reset()  # and moto resets its own backends
    return None


def _seen(request: Request) -> Seen:
    return Seen(
        request.method,
        request.url,
        request.header("X-Amz-Target") or "",
        request.header("Authorization") or "",
        request.header("Content-Type") or "",
    )


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

"""The in-process door's hook into moto: `BotocoreStubber.process_request`, where every boto3 call of the
process arrives while emulate() is active.

Eddy's router sees each request first (DynamoDB, DynamoDB Streams on any host, /_eddy/, Lambda functions and
mappings); the rest goes on to moto, through the services' journal (service_journal.py) when an emulator is
active, so what a request changes in S3, SQS, SNS, ... is written down as the server door writes it down.
"""

from __future__ import annotations

import contextlib

from typing import Any, Callable

from botocore.awsrequest import AWSPreparedRequest, HeadersDict
from moto.core.botocore_stubber import BotocoreStubber

from eddy.emulator.aws_requests import Request, Response
from eddy.emulator.moto_seam import Patches
from eddy.emulator.moto_seam.services.extras import missing_package
from eddy.emulator.storage.disk import WriteFailed
from eddy.emulator.moto_seam.services.requests import Seen, botocore_request, original_process_request

_router: Callable[[Request], Response | None] | None = None
_claims: Callable[[Request], bool] = lambda request: False
_journal: Any = None


def route_through(
    router: Callable[[Request], Response | None] | None, claims: Callable[[Request], bool] | None, journal: Any
) -> None:
    """Send requests `claims` accepts to `router`, the others to moto through `journal` (None: straight)."""
    global _router, _claims, _journal
    _router, _journal = router, journal
    if claims is not None:
        _claims = claims


def plain_headers(headers: Any) -> dict[str, Any]:
    """A prepared request's headers as a plain dict, named as botocore was given them: what dict(headers.items()) makes,
    read from botocore's HeadersDict's own dict where it has one (its Mapping interface makes a _HeaderKey and
    hashes the name again for every header it hands out: some 20 us of an in-process call's 9 headers).
    Pinned against dict(headers.items()) by tests/emulator/moto_seam/test_botocore_hook.py."""
    own = getattr(headers, "_dict", None) if type(headers) is HeadersDict else None
    if type(own) is not dict:
        return dict(headers.items())
    try:  # a key's _key: what HeadersDict.__iter__'s str(key) answers (_HeaderKey.__str__), without a call a header
        return {name._key: value for name, value in own.items()}
    except AttributeError:  # keys botocore no longer makes so: named through its Mapping interface
        return dict(headers.items())


def _body(request: AWSPreparedRequest) -> bytes:
    """The request's body read once, and left on the request as bytes for whoever reads it next. A stream is wound
    back as botocore's reset_stream would (it cannot, once the body is bytes), so a retry sends the whole body again."""
    body = stream = request.body
    if hasattr(stream, "read"):
        body = stream.read()
        with contextlib.suppress(Exception):  # botocore's own reset_stream ignores a stream that cannot seek
            stream.seek(0)
    body = (body.encode() if isinstance(body, str) else body) or b""
    request.body = body
    return body


def _process_request(self: BotocoreStubber, request: AWSPreparedRequest) -> Any:
    """moto's hook while an emulator is open. A client may carry it twice (moto's own handler and the one
    aws_environment.send_to_eddy adds for clients made before moto was imported): each attempt is answered once."""
    context = getattr(request, "context", None) or {}
    attempt = (context.get("retries") or {}).get("attempt")
    if attempt is not None and getattr(request, "eddy_answered_attempt", None) == attempt:
        return None
    answer = _answer(self, request)
    if answer is not None and attempt is not None:
        request.eddy_answered_attempt = attempt
    return answer


def _answer(self: BotocoreStubber, request: AWSPreparedRequest) -> Any:
    router = _router
    if router is not None:
        ours = Request(request.method, request.url, plain_headers(request.headers))
        if _claims(ours):  # decided before the body is read, so moto still gets an unread body otherwise
            ours.body = _body(request)
            response = router(ours)
            if response is not None:
                return response.status, response.headers, response.body
    journal = _journal
    if journal is None:
        return _moto(self, request)
    headers = request.headers
    seen = Seen(
        request.method,
        request.url,
        _text(headers.get("X-Amz-Target")),
        _text(headers.get("Authorization")),
        _text(headers.get("Content-Type")),
    )
    body = b"" if request.method.upper() in ("GET", "HEAD") else _body(request)
    try:
        return journal.run(
            seen,
            "botocore",
            lambda: botocore_request(request),
            body,
            lambda: _moto(self, request),
            lambda answer: None if answer is None else int(answer[0]),
        )
    except WriteFailed as failure:  # the disk refused it: not applied, answered as the service's internal error
        return journal.refused(seen, failure)


def _moto(self: BotocoreStubber, request: AWSPreparedRequest) -> Any:
    try:
        return original_process_request(self, request)
    except ModuleNotFoundError as error:  # a service whose packages a plain install leaves out
        answer = missing_package(error, request.method, request.url)
        return answer.status, answer.headers, answer.body


def _text(value: Any) -> str:
    return value.decode("latin-1") if isinstance(value, bytes) else (value or "")


_patches = Patches()


def install() -> None:
    _patches.set(BotocoreStubber, "process_request", _process_request)


def uninstall() -> None:
    _patches.restore()

"""A request to one of moto's services, as the journal keeps it, and replayed into moto the way it came.

The two doors reach moto by two paths, and a logged request is replayed by the path that served it:
  - "botocore" (in-process): moto's BotocoreStubber, with the request's method, URL and headers;
  - "wsgi" (eddy serve): moto's server application as server_app.py serves it (without Flask), with the request's
    WSGI environment (its CGI variables: method, raw path and query, host, headers), so moto reads exactly what it
    read then.
The body travels beside these (the journal keeps it inline or in a file).
"""

from __future__ import annotations

import io
import re
import sys
from typing import TYPE_CHECKING, Any, NamedTuple
from urllib.parse import parse_qs, urlsplit

from botocore.awsrequest import AWSPreparedRequest
from moto.core.botocore_stubber import BotocoreStubber
from moto.core.models import botocore_stubber

from eddy.emulator import callers

if TYPE_CHECKING:
    from eddy.emulator.moto_seam.services.server_app import ServerApp

#: WSGI variables kept for a replay: the CGI ones and the headers; never the input stream or server objects
_WSGI_KEPT = re.compile(
    r"^(HTTP_[A-Z0-9_]+|REQUEST_METHOD|SCRIPT_NAME|PATH_INFO|QUERY_STRING|CONTENT_TYPE|"
    r"SERVER_NAME|SERVER_PORT|SERVER_PROTOCOL|REQUEST_URI|RAW_URI|wsgi\.url_scheme)$"
)
_moto_app: "ServerApp | None" = None
#: moto's own in-process path (botocore_hook.py puts Eddy's in front of it; a replay goes straight to moto)
original_process_request = BotocoreStubber.process_request


class Seen(NamedTuple):
    """What the journal reads of a request to decide whether it may change state."""

    method: str
    url: str
    target: str
    authorization: str
    content_type: str


def wsgi_request(environ: dict[str, Any]) -> dict[str, Any]:
    """What of a WSGI environment a replay needs (JSON-safe: WSGI strings are latin-1 text)."""
    return {name: value for name, value in environ.items() if isinstance(value, str) and _WSGI_KEPT.match(name)}


def botocore_request(request: AWSPreparedRequest) -> dict[str, Any]:
    headers = {
        name: value.decode("latin-1") if isinstance(value, bytes) else str(value)
        for name, value in request.headers.items()
    }
    return {"method": request.method, "url": request.url, "headers": headers}


def service_of(authorization: str, url: str) -> str | None:
    """The service a request is signed for (its credential scope), or None for an unsigned request."""
    scope = callers.scope_of(authorization, url)
    return scope.service if scope else None


def operation_of(method: str, target: str, url: str, content_type: str, body: bytes) -> str | None:
    """The operation a request names by X-Amz-Target or Action (query string or form body), if it names one."""
    if target:
        return target.rsplit(".", 1)[-1]
    action = parse_qs(urlsplit(url).query).get("Action")
    if not action and method.upper() == "POST" and content_type.startswith("application/x-www-form-urlencoded"):
        action = parse_qs(body.decode("utf-8", "replace")).get("Action")
    return action[0] if action else None


def moto_server_app() -> "ServerApp":
    """moto's server application, without Flask (server_app.py): the server door's way to every service moto
    serves, and a logged server request's replay."""
    from eddy.emulator.moto_seam.services.server_app import ServerApp

    return ServerApp()


def replay(via: str, request: dict[str, Any], body: bytes) -> int:
    """Run a logged request through moto again; answers moto's HTTP status."""
    if via == "botocore":
        prepared = AWSPreparedRequest(request["method"], request["url"], request["headers"], body, False)
        status, _, _ = original_process_request(botocore_stubber, prepared)
        return int(status)
    global _moto_app
    if _moto_app is None:
        _moto_app = moto_server_app()
    environ = dict(request)
    environ.update(
        {
            "wsgi.input": io.BytesIO(body),
            "CONTENT_LENGTH": str(len(body)),
            "wsgi.errors": sys.stderr,
            "wsgi.version": (1, 0),
            "wsgi.multithread": False,
            "wsgi.multiprocess": False,
            "wsgi.run_once": False,
        }
    )
    answer: list[str] = []
    for _ in _moto_app(environ, lambda status, headers, exc_info=None: answer.append(status)):
        pass
    return int(answer[0][:3])

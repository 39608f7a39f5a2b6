"""The server front door: one port serving DynamoDB, DynamoDB Streams, Eddy's controls and moto's services.

    eddy serve --host 127.0.0.1 --port 4566

Requests the router claims are answered by Eddy; the rest go to moto's own server application, so any
SDK (or a localstack-client session) pointed at the port finds every service there.
"""

from __future__ import annotations

import functools
import io
import itertools
import logging
import re
import threading
from http import HTTPStatus
from typing import Any, Callable, Iterable

from werkzeug.wrappers import Request as WerkzeugRequest

from eddy.emulator import moto_seam
from eddy.emulator.moto_seam import bridge as moto_bridge
from eddy.emulator.api import router
from eddy.emulator.api.dynamodb import door as dynamodb_door, streams as dynamodb_streams
from eddy.emulator.http_server import Answer, HTTPServer, Incoming, OpenedPort, listen
from eddy.emulator.engine import Emulator
from eddy.emulator.errors import UnknownOperationException, no_such_path
from eddy.emulator.aws_requests import Request, Response, error_response
from eddy.emulator.moto_seam.services.extras import missing_package
from eddy.emulator.storage.disk import WriteFailed, taken_refusal
from eddy.emulator.moto_seam.services.requests import Seen, moto_server_app, wsgi_request

log = logging.getLogger("eddy")
#: the seam that puts SNS notifications' links (UnsubscribeURL, SigningCertURL) on this server's URL
SNS_SIGNATURES = "eddy.emulator.moto_seam.sns_signatures"


class EddyApp:
    """A WSGI application: Eddy's router first, moto's server for everything else."""

    def __init__(self, emulator: Emulator) -> None:
        self.emulator = emulator
        self._moto_app: Any = None
        self._moto_app_lock = threading.Lock()

    @property
    def moto_app(self) -> Any:
        """moto's server application (moto_seam/services/server_app.py: each service's routes as moto loads them), made by the first request
        Eddy's router does not answer."""
        with self._moto_app_lock:
            if self._moto_app is None:
                self._moto_app = moto_server_app()
            return self._moto_app

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        request = request_of(environ)
        body = request.body
        response = router.route(self.emulator, request)
        if response is None:
            environ["wsgi.input"] = io.BytesIO(body)
            environ["CONTENT_LENGTH"] = str(len(body))
            environ.pop("HTTP_TRANSFER_ENCODING", None)
            seen = Seen(
                request.method,
                request.url,
                request.header("X-Amz-Target", ""),
                request.header("Authorization", ""),
                request.header("Content-Type", ""),
            )
            try:
                answered = self.emulator.services.run(
                    seen,
                    "wsgi",
                    lambda: wsgi_request(environ),
                    body,
                    lambda: self._moto(environ, request),
                    lambda answer: None if answer is None else int(answer[0][:3]),
                )
            except WriteFailed as failure:  # the disk refused it: not applied, the service's internal error
                status, refused_headers, refused_body = self.emulator.services.refused(seen, failure)
                answered = (f"{status} {HTTPStatus(status).phrase}", list(refused_headers.items()), refused_body)
            if answered is not None:
                start_response(answered[0], answered[1])
                return [answered[2]]
            response = self._not_served(request)
        status, headers, body = _answer_of(response)
        start_response(status, headers)
        return [body]

    def answer(self, incoming: Incoming) -> Answer | None:
        """A DynamoDB or DynamoDB Streams request (its X-Amz-Target), answered without a WSGI environment: the same
        Request as `request_of` reads from the environment the server would make, the same answer. None for any
        other request, and where `request_of` would hand the URL to werkzeug: then the server makes the environment."""
        url = _plain_url(incoming.cgi_headers.get("HTTP_HOST"), incoming.path_info, incoming.query)
        if url is None:
            return None
        headers = _werkzeug_headers(
            itertools.chain((("CONTENT_LENGTH", str(len(incoming.body))),), incoming.cgi_headers.items())
        )
        if not headers.get("X-Amz-Target", "").startswith(_DYNAMODB_TARGETS):
            return None
        request = Request(incoming.method.upper(), url, headers, incoming.body, incoming.target)
        response = router.route(self.emulator, request)
        if response is None:  # never for these targets (the router's DynamoDB and Streams doors always answer)
            response = self._not_served(request)
        return _answer_of(response)

    def _not_served(self, request: Request) -> Response:
        """What a request moto could not serve gets: no such operation (a REST path: 404), never a 5xx page."""
        target = request.header("X-Amz-Target")
        if target:
            return error_response(UnknownOperationException(f"{target} is not an operation Eddy serves"))
        return error_response(no_such_path(request.method, request.path))

    def _moto(self, environ: dict[str, Any], request: Request) -> tuple[str, list[tuple[str, str]], bytes] | None:
        """moto's answer (status line, headers, body); None when moto failed (5xx: no backend, or a crash)."""
        answer: dict[str, Any] = {}

        def hold(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> None:
            answer["status"], answer["headers"] = status, headers

        taken_refusal()  # a refusal made during moto's answer is this request's (below)
        try:
            body = b"".join(self.moto_app(environ, hold))
        except ModuleNotFoundError as error:  # a service whose packages a plain install leaves out
            missing = missing_package(error, request.method, request.url)
            return (
                f"{missing.status} {HTTPStatus(missing.status).phrase}",
                list(missing.headers.items()),
                missing.body,
            )
        except WriteFailed:
            raise  # the disk refused a write moto's change made: the journal's to answer (and to take back)
        except Exception:
            log.exception("moto failed on %s %s", request.method, request.url)
            return None
        if int(answer["status"][:3]) >= 500:
            refused = taken_refusal()  # the same, answered by moto's application as its own crash
            if refused is not None:
                raise refused
            log.error("moto answered %s to %s %s", answer["status"], request.method, request.url)
            return None
        return answer["status"], answer["headers"], body


#: the X-Amz-Target prefixes of the requests EddyApp answers without a WSGI environment
_DYNAMODB_TARGETS = (dynamodb_door.TARGET_PREFIX, dynamodb_streams.TARGET_PREFIX)
_STATUS_LINES: dict[int, str] = {}  # "200 OK", by status


def _answer_of(response: Response) -> Answer:
    """A Response as the server sends it: its status line's text, its headers with its Content-Length and its
    cookies, its body."""
    status = _STATUS_LINES.get(response.status)
    if status is None:
        status = _STATUS_LINES.setdefault(response.status, f"{response.status} {HTTPStatus(response.status).phrase}")
    headers = [(k, v) for k, v in response.headers.items() if k.lower() != "content-length"]
    headers.append(("Content-Length", str(len(response.body))))
    headers.extend(("Set-Cookie", cookie) for cookie in response.cookies)
    return status, headers, response.body


class Server:
    """Eddy on a port, in a background thread; `stop()` shuts it down cleanly.

    A standalone server owns its emulator (`eddy serve`); the in-process door also starts a non-standalone
    one on a free loopback port when a function's code needs to call back into Eddy from a subprocess.
    """

    def __init__(
        self,
        emulator: Emulator,
        host: str = "127.0.0.1",
        port: int = 4566,
        standalone: bool = True,
        opened: OpenedPort | None = None,
    ) -> None:
        """`opened`: the port `eddy serve` opened before the engine was made (its requests wait for `start()`)."""
        self.emulator = emulator
        self.standalone = standalone
        self._opened = opened
        if opened is None:
            listener = listen(host, port)  # a busy port is an OSError here, for the caller to word
            try:
                self._server = HTTPServer(listener, EddyApp(emulator))
            except BaseException:
                listener.close()
                raise
            self._thread = threading.Thread(target=self._server.serve_forever, name="eddy-server", daemon=True)
        else:
            self._server, self._thread = opened.server, opened.thread
        if standalone:
            moto_bridge.connect(None, kinesis_observer=emulator.kinesis_observer)
        self.host, self.port = host, self._server.port

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    @property
    def loopback_url(self) -> str:
        """The URL this machine's own processes (function workers) reach the server at."""
        host = "127.0.0.1" if self.host in ("0.0.0.0", "") else ("[::1]" if self.host == "::" else self.host)
        return f"http://{host}:{self.port}"

    def start(self) -> "Server":
        if self.standalone:
            self.emulator.aws_endpoint_url = self.loopback_url
            moto_seam.activate(SNS_SIGNATURES, self.loopback_url)  # SNS notifications' links name this server
            self.emulator.worker_environment["AWS_ENDPOINT_URL"] = self.loopback_url
            self.emulator.start()
        if self._opened is None:
            self._thread.start()
        else:  # requests go to the application from now on; those that waited for it are handed over
            app = EddyApp(self.emulator)
            self._server.app = app
            self._opened.starting.ready(app)
        return self

    def stop(self) -> None:
        if self.standalone:  # the batches in flight finish first: their functions' calls come through this server
            self.emulator.close_triggers()
        # attempts of asynchronous invocations running now finish first: their functions and records may need this door
        self.emulator.close_async_invocations()
        self._server.shutdown()
        self._thread.join(timeout=10)
        self._server.server_close()
        if self.standalone:
            moto_seam.deactivate(SNS_SIGNATURES)
            moto_bridge.disconnect()
            self.emulator.close()


# -- a WSGI environment read as the router's Request, as werkzeug's Request reads it -----------------------------
# `eddy serve` hands every request to EddyApp as a WSGI environment (emulator/http_server.py). The router needs its
# method, URL, headers and body: werkzeug's Request made them at about a tenth of a DynamoDB request's cost in the
# server (its URL re-quoted and decoded as an IRI, its headers walked through EnvironHeaders). Here the common
# request (a host of lower-case letters, digits, dots and dashes with a plain port; a path and query of characters
# that werkzeug's quoting keeps and its IRI decoding leaves alone: no percent escapes, nothing outside ASCII) is read
# directly; any other is read by werkzeug, so every URL the router sees is the one werkzeug made.

# characters werkzeug's get_current_url keeps as they are (always safe, or in its `safe`) and uri_to_iri does not
# touch: no "%" (an escape is decoded), no space or control character, nothing outside ASCII
_PLAIN_PATH = re.compile(r"[A-Za-z0-9_.~!$&'()*+,/:;=@-]*")
_PLAIN_QUERY = re.compile(r"[A-Za-z0-9_.~!$&'()*+,/:;=?@-]*")
# a host werkzeug's URL keeps as it is: lower case (urlsplit's hostname lowers it), no IDNA label, a port as written
_PLAIN_HOST = re.compile(r"(?!.*xn--)[a-z0-9.-]+(?::([1-9][0-9]{0,4}))?")
_SPECIAL_HEADERS = frozenset(("HTTP_CONTENT_TYPE", "HTTP_CONTENT_LENGTH"))


def request_of(environ: dict[str, Any]) -> Request:
    """The request `environ` carries: its method, URL (werkzeug's `Request.url`), headers (werkzeug's names:
    `X-Amz-Target`) and whole body."""
    url = _plain_url_of(environ)
    if url is None or not environ.get("wsgi.input_terminated"):
        incoming = WerkzeugRequest(environ)
        body = incoming.get_data(cache=True)
        return Request(incoming.method, incoming.url, dict(incoming.headers.items()), body, environ.get("RAW_URI", ""))
    return Request(
        environ["REQUEST_METHOD"].upper(),
        url,
        _werkzeug_headers(environ.items()),
        environ["wsgi.input"].read(),
        environ.get("RAW_URI", ""),
    )


def _werkzeug_headers(environ: Iterable[tuple[str, Any]]) -> dict[str, str]:
    """The headers an environment's items hold, named and ordered as werkzeug's EnvironHeaders names them."""
    headers = {}
    for key, value in environ:
        name = _header_name(key)
        if name is not None and (value or key[:5] == "HTTP_"):  # an empty Content-Type or Content-Length: none
            headers[name] = value
    return headers


@functools.lru_cache(maxsize=1024)  # an environment's keys are the same few from request to request
def _header_name(key: str) -> str | None:
    """The header an environment's key holds, by werkzeug's name for it (HTTP_X_AMZ_TARGET: X-Amz-Target); None for
    a key that holds none."""
    if key[:5] == "HTTP_":
        return None if key in _SPECIAL_HEADERS else key[5:].replace("_", "-").title()
    return key.replace("_", "-").title() if key == "CONTENT_TYPE" or key == "CONTENT_LENGTH" else None


def _plain_url_of(environ: dict[str, Any]) -> str | None:
    """werkzeug's URL of the request where it is the request's own text; None where werkzeug would change it."""
    if environ.get("wsgi.url_scheme") != "http" or environ.get("SCRIPT_NAME"):
        return None
    return _plain_url(environ.get("HTTP_HOST"), environ.get("PATH_INFO", ""), environ.get("QUERY_STRING", ""))


def _plain_url(host: str | None, path: str, query: str) -> str | None:
    """The same, for a plain http request (no SCRIPT_NAME) to `host` of PATH_INFO `path` and query `query`."""
    plain_host = _PLAIN_HOST.fullmatch(host) if host else None
    if (
        plain_host is None
        or int(plain_host[1] or 0) > 65535
        or not _PLAIN_PATH.fullmatch(path)
        or not _PLAIN_QUERY.fullmatch(query)
    ):
        return None
    host = host.removesuffix(":80")
    path = "/" + path.lstrip("/")
    return f"http://{host}{path}?{query}" if query else f"http://{host}{path}"

"""moto's services served to WSGI requests as moto's server application serves them, without Flask.

moto's server (moto.moto_server.werkzeug_app) is a Flask application per backend; Flask, Jinja and flask-cors are
3.8 MB of an install and serve nothing moto's services need. This application does the same steps with werkzeug,
which moto's core needs anyway: the backend found for the request (service_hosts.py), that backend's routes (moto's
`flask_paths`, their `regex` converter) in a werkzeug Map made by its first request, moto's Request read from the
WSGI environment as a server's (`from_wsgi_server`), moto's request recorder told, the route's handler called with
the request, its raw URL and headers, and its answer (a ClientError as a 400 with its message) written as Flask's
Response writes it (text/html unless the handler says otherwise; a HEAD's Content-Length the handler's), with the
CORS headers flask-cors adds to every answer of moto's (Access-Control-Allow-Origin: the request's Origin, with Vary:
Origin, else *; a preflight's allowed methods and headers). An exception of a handler is raised to the caller, as moto's
application in its debug mode raises it; a path no route matches is werkzeug's 404.
Pinned against moto's own application by tests/emulator/moto_seam/services/test_server_app.py.
"""

from __future__ import annotations

import threading
from typing import Any, Callable, Iterable

from botocore.exceptions import ClientError
from moto import backends
from moto.core import DEFAULT_ACCOUNT_ID
from moto.core.base_backend import BackendDict
from moto.core.request import Request
from moto.moto_api import recorder
from werkzeug.exceptions import BadRequestKeyError, HTTPException
from werkzeug.routing import BaseConverter, Map, Rule
from werkzeug.wrappers import Response

from eddy.emulator.moto_seam.services.service_hosts import backend_for

#: the methods every route of moto's server takes
METHODS = ["GET", "POST", "PUT", "DELETE", "HEAD", "PATCH", "OPTIONS"]
#: what a preflight is told it may use (flask-cors' default: every method, sorted)
CORS_METHODS = "DELETE, GET, HEAD, OPTIONS, PATCH, POST, PUT"


class ServerRequest(Request):
    """moto's Request, as a server received it."""

    from_wsgi_server = True


class ServerResponse(Response):
    """An answer as Flask's Response writes it (HTML unless the handler names a type)."""

    default_mimetype = "text/html"


class RegexConverter(BaseConverter):
    """moto's `<regex("..."):name>` route parts: the pattern as given."""

    part_isolating = False

    def __init__(self, url_map: Map, *items: Any) -> None:
        super().__init__(url_map)
        self.regex = items[0]


class Routes:
    """One backend's routes: a werkzeug Map of its `flask_paths`, and the handler of each."""

    def __init__(self, backend_name: str) -> None:
        self.map = Map()
        self.map.converters["regex"] = RegexConverter
        self.handlers: list[Callable[..., Any]] = []
        for path, handler in _any_backend(backend_name).flask_paths.items():
            if path:  # a backend served at its endpoint's root only (no path) has no route, as in moto's server
                self.map.add(Rule(path, endpoint=len(self.handlers), methods=METHODS, strict_slashes=False))
                self.handlers.append(handler)
        self.map.update()  # the rules sorted now, not by the first of requests matching at once


def _any_backend(name: str) -> Any:
    """An instance of the backend, for its routes (which account's and region's does not matter)."""
    backend_dict = backends.get_backend(name)  # type: ignore[call-overload]
    if not isinstance(backend_dict, BackendDict):
        return backend_dict["global"]
    regions = backend_dict[DEFAULT_ACCOUNT_ID]
    return regions["us-east-1"] if "us-east-1" in regions else regions["aws"]


class ServerApp:
    """The WSGI application: what moto's DomainDispatcherApplication(create_backend_app) answers."""

    def __init__(self) -> None:
        self._routes: dict[str, Routes] = {}
        self._lock = threading.Lock()

    def routes(self, backend_name: str) -> Routes:
        with self._lock:
            if backend_name not in self._routes:
                self._routes[backend_name] = Routes(backend_name)
            return self._routes[backend_name]

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        with self._lock:
            backend_name = backend_for(environ)
        if backend_name is None:
            raise LookupError(f"no moto backend serves {environ.get('PATH_INFO')}")
        routes = self.routes(backend_name)
        request = ServerRequest(environ)
        try:
            endpoint, _ = routes.map.bind_to_environ(environ).match()
            response = answer(routes.handlers[endpoint], request)
        except BadRequestKeyError:
            raise  # a handler's missing form field: moto's application raises it in its debug mode
        except HTTPException as error:  # no route (404), a redirect, or a handler's own HTTP error
            response = error.get_response(environ)
        with_cors(response, request)
        return response(environ, start_response)


def answer(handler: Callable[..., Any], request: Request) -> Response:
    """A route's handler called as moto's server calls it, its answer as moto's server writes it."""
    recorder._record_request(request)
    try:
        result = handler(request, request.raw_url, dict(request.headers))
    except ClientError as error:
        result = 400, {}, error.response["Error"]["Message"]
    status, headers, content = result if len(result) == 3 else (200, {}, result)
    response = ServerResponse(response=content, status=status, headers=headers)
    if request.method == "HEAD" and "content-length" in headers:
        response.headers["Content-Length"] = headers["content-length"]
    return response


def with_cors(response: Response, request: Request) -> None:
    """The CORS headers moto's server adds (flask-cors with its defaults), unless the answer has its own."""
    if response.headers.get("Access-Control-Allow-Origin"):
        return
    response.headers.add("Access-Control-Allow-Origin", request.headers.get("Origin") or "*")
    if request.headers.get("Access-Control-Request-Private-Network") == "true":
        response.headers.add("Access-Control-Allow-Private-Network", "false")
    asked_method = request.headers.get("Access-Control-Request-Method", "").upper()
    if request.method == "OPTIONS" and asked_method and asked_method in CORS_METHODS:  # as flask-cors reads it
        asked = request.headers.get("Access-Control-Request-Headers")
        if asked:
            response.headers.add("Access-Control-Allow-Headers", ", ".join(sorted(h.strip() for h in asked.split(","))))
        response.headers.add("Access-Control-Allow-Methods", CORS_METHODS)
    if request.headers.get("Origin"):  # the answer names the origin: it varies with it
        response.headers.add("Vary", "Origin")

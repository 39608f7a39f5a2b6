"""HTTP/1.1 for `eddy serve`: persistent connections, one thread per connection, a WSGI application behind it.

werkzeug's development server closes every connection after one answer (its `Connection: close`), so each SDK
call paid a new TCP connection and a new thread, then werkzeug's wait for the client to hang up. Here a
connection stays open for as many requests as the client sends (HTTP/1.1's default; HTTP/1.0 with
`Connection: keep-alive`); each request is read whole (Content-Length or chunked, `Expect: 100-continue`
answered), handed to the application as a WSGI environment, and its answer written in one send with its
Content-Length. Closing the server also closes the connections clients keep open, so none reaches a stopped
emulator.

An application may also answer a request without a WSGI environment: its `answer(incoming)` method (if it has one)
is handed the request as read (an `Incoming`) and answers it, or answers None and the request goes to the application
as WSGI. Eddy's answers DynamoDB's and DynamoDB Streams' requests so (api/server.py), the environment's making and
reading being a tenth of such a request's cost in the server.
"""

from __future__ import annotations

import email.utils
import functools
import io
import logging
import socket
import socketserver
import sys
import threading
import time
from http import HTTPStatus
from typing import Any, Callable, Iterable, NamedTuple
from urllib.parse import unquote_to_bytes, urlsplit

log = logging.getLogger("eddy.server")

MAX_LINE = 65536
MAX_HEADERS = 200
#: the headers the server itself reads, by their lower-case names
_READ_BY_THE_SERVER = frozenset(("connection", "expect", "transfer-encoding", "content-length"))
WSGIApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]
#: an answer: its status (WSGI's "200 OK"), headers and whole body
Answer = tuple[str, list[tuple[str, str]], bytes]
#: what a server answers before its application is ready: a request's WSGI status, headers and body, or None (it waits)
EarlyAnswers = Callable[[dict[str, Any]], "Answer | None"]


class Incoming(NamedTuple):
    """A request as the server read it, before any WSGI environment is made of it."""

    method: str
    #: the request target as sent (path and query, escapes kept)
    target: str
    version: str
    #: the path as a WSGI environment's PATH_INFO holds it (unescaped, latin-1), and the query as sent
    path_info: str
    query: str
    #: the headers by the names a WSGI environment gives them (HTTP_X_AMZ_TARGET, CONTENT_TYPE), in its order
    cgi_headers: dict[str, str]
    body: bytes


class BadRequest(Exception):
    """A request that is not HTTP/1.x: answered 400 and the connection closed."""


class HTTPServer(socketserver.ThreadingMixIn, socketserver.TCPServer):
    """Serves `app` on `listener` (a bound, listening socket) until `shutdown()`; `server_close()` also closes
    every connection still open."""

    daemon_threads = True

    def __init__(self, listener: socket.socket, app: WSGIApp) -> None:
        super().__init__(listener.getsockname()[:2], ConnectionHandler, bind_and_activate=False)
        self.socket.close()
        self.socket, self.address_family = listener, listener.family
        self.app = app
        self.port: int = listener.getsockname()[1]
        self._connections: set[socket.socket] = set()
        self._connections_lock = threading.Lock()
        self._closing = False
        #: the Date header's value and the second it was made for (made once a second)
        self._date: tuple[int, str] = (0, "")

    def http_date(self) -> str:
        """The Date header's value, made once a second."""
        now = int(time.time())
        date = self._date
        if date[0] != now:
            date = self._date = (now, email.utils.formatdate(now, usegmt=True))
        return date[1]

    def opened(self, connection: socket.socket) -> bool:
        with self._connections_lock:
            if self._closing:
                return False
            self._connections.add(connection)
            return True

    def closed(self, connection: socket.socket) -> None:
        with self._connections_lock:
            self._connections.discard(connection)

    def server_close(self) -> None:
        super().server_close()
        with self._connections_lock:
            self._closing = True
            connections, self._connections = list(self._connections), set()
        for connection in connections:
            try:
                connection.shutdown(socket.SHUT_RDWR)
            except OSError:  # the client hung up first
                pass


def listen(host: str, port: int) -> socket.socket:
    """A listening socket on `host`:`port` (0: one the system picks); a busy port is an OSError."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    return socket.create_server((host, port), family=family, backlog=128)


class StartingApp:
    """What a server serves while its application is still being made (`eddy serve`'s engine loading): a request
    `early` answers (its WSGI status, headers and body; None: not without the application) is answered at once, any
    other waits until `ready(app)` hands the application over, and is then the application's."""

    def __init__(self, early: EarlyAnswers) -> None:
        self._early = early
        self._app: WSGIApp | None = None
        self._handed_over = threading.Event()

    def ready(self, app: WSGIApp) -> None:
        self._app = app
        self._handed_over.set()

    def failed(self) -> None:
        """The application will not come (the start failed): waiting requests are answered 503."""
        self._handed_over.set()

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        if self._app is None:
            answered = self._early(environ)
            if answered is not None:
                start_response(answered[0], answered[1])
                return [answered[2]]
            self._handed_over.wait()
        if self._app is None:
            status = HTTPStatus.SERVICE_UNAVAILABLE
            start_response(f"{status.value} {status.phrase}", [("Content-Type", "text/plain")])
            return [b"Eddy did not start"]
        return self._app(environ, start_response)


class OpenedPort:
    """A port serving before its application is made: its server (a StartingApp until then), serving on its own
    thread from the start. `Server(..., opened=)` (api/server.py) hands the application over; `close()` if it never
    comes."""

    def __init__(self, host: str, port: int, early: EarlyAnswers) -> None:
        listener = listen(host, port)  # a busy port is an OSError here, for the caller to word
        self.starting = StartingApp(early)
        try:
            self.server = HTTPServer(listener, self.starting)
        except BaseException:
            listener.close()
            raise
        self.thread = threading.Thread(target=self.server.serve_forever, name="eddy-server", daemon=True)
        self.thread.start()

    def close(self) -> None:
        """The application will not come: the requests waiting for it end (answered 503, or their connection closed
        with the server), and the port closes."""
        self.starting.failed()
        self.server.shutdown()
        self.thread.join(timeout=10)
        self.server.server_close()


class ConnectionHandler(socketserver.StreamRequestHandler):
    """One client connection: its requests in turn, until either side closes it."""

    server: HTTPServer

    def handle(self) -> None:
        if not self.server.opened(self.connection):
            return
        try:
            self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            while self._one_request():
                pass
        except (ConnectionError, TimeoutError, OSError):  # the client went away mid-request
            pass
        finally:
            self.server.closed(self.connection)

    def _one_request(self) -> bool:
        """Reads and answers one request; whether the connection stays open for another."""
        line = self.rfile.readline(MAX_LINE + 1)
        if not line:
            return False
        try:
            method, target, version, headers, known = self._head(line)
            keep_alive = _keeps_alive(version, known.get("connection", ""))
            if known.get("expect", "").lower() == "100-continue":
                self.wfile.write(b"HTTP/1.1 100 Continue\r\n\r\n")
            body = self._body(known)
        except BadRequest as problem:
            text = str(problem).encode()
            plain = [("Content-Type", "text/plain"), ("Content-Length", str(len(text)))]
            self._send(b"HTTP/1.1 400 Bad Request\r\n", plain, text, keep_alive=False)
            return False
        cgi = cgi_headers(headers)
        if target[:1] == "/" and target[:2] != "//" and "#" not in target:  # the common target: a path and a query
            path, _, query = target.partition("?")  # as urlsplit splits it
        else:
            url = urlsplit(target)
            path = url.path if url.scheme or not url.netloc else f"/{url.netloc}{url.path}"  # "//x" is a path
            query = url.query
            if url.scheme and url.netloc:
                cgi["HTTP_HOST"] = url.netloc
        path_info = path if "%" not in path and path.isascii() else unquote_to_bytes(path).decode("latin-1")
        incoming = Incoming(method, target, version, path_info, query, cgi, body)
        started = time.perf_counter()
        status, response_headers, payload = self._call(incoming)
        head_only = method == "HEAD" or status[:1] == "1" or status[:3] in ("204", "304")
        if not head_only and not any(name.lower() == "content-length" for name, _ in response_headers):
            response_headers.append(("Content-Length", str(len(payload))))
        self._send(
            f"HTTP/1.1 {status}\r\n".encode("latin-1"), response_headers, b"" if head_only else payload, keep_alive
        )
        if log.isEnabledFor(logging.DEBUG):  # `eddy serve --verbose`
            took = (time.perf_counter() - started) * 1000
            log.debug('%s "%s %s %s" %s %.1f ms', self.client_address[0], method, target, version, status[:3], took)
        return keep_alive

    def _head(self, line: bytes) -> tuple[str, str, str, list[tuple[str, str]], dict[str, str]]:
        """The request line's method, target and version; the headers as sent; the four the server reads itself
        (connection, expect, transfer-encoding, content-length: the first of each, by its lower-case name)."""
        if len(line) > MAX_LINE:
            raise BadRequest("request line too long")
        parts = line.decode("latin-1").rstrip("\r\n").split()
        if len(parts) != 3 or not parts[2].startswith("HTTP/1."):
            raise BadRequest(f"not an HTTP/1.x request line: {line[:100]!r}")
        headers: list[tuple[str, str]] = []
        readline = self.rfile.readline
        while True:
            raw = readline(MAX_LINE + 1)
            if raw in (b"\r\n", b"\n", b""):
                known: dict[str, str] = {}
                for name, value in headers:
                    lowered = name.lower()
                    if lowered in _READ_BY_THE_SERVER and lowered not in known:
                        known[lowered] = value
                return parts[0], parts[1], parts[2], headers, known
            if len(raw) > MAX_LINE or len(headers) >= MAX_HEADERS:
                raise BadRequest("request headers too large")
            text = raw.decode("latin-1").rstrip("\r\n")
            if text[:1] in (" ", "\t") and headers:  # an obsolete folded line continues the header before it
                headers[-1] = (headers[-1][0], f"{headers[-1][1]} {text.strip()}")
                continue
            name, colon, value = text.partition(":")
            if not colon or not name or name != name.strip():
                raise BadRequest(f"not a header line: {raw[:100]!r}")
            headers.append((name, value.strip()))

    def _body(self, known: dict[str, str]) -> bytes:
        if "chunked" in known.get("transfer-encoding", "").lower():
            return self._chunked()
        length = known.get("content-length", "")
        if not length:
            return b""
        if not length.isdigit():
            raise BadRequest(f"Content-Length is not a number: {length[:40]!r}")
        return self._exactly(int(length))

    def _chunked(self) -> bytes:
        chunks = []
        while True:
            size_line = self.rfile.readline(MAX_LINE + 1)
            try:
                size = int(size_line.split(b";", 1)[0].strip(), 16)
            except ValueError:
                raise BadRequest(f"not a chunk size: {size_line[:40]!r}") from None
            if size == 0:
                while self.rfile.readline(MAX_LINE + 1) not in (b"\r\n", b"\n", b""):  # trailers, unused
                    pass
                return b"".join(chunks)
            chunks.append(self._exactly(size))
            self.rfile.readline(MAX_LINE + 1)  # the CRLF after the chunk

    def _exactly(self, size: int) -> bytes:
        data = self.rfile.read(size)
        if len(data) != size:
            raise ConnectionError("the client closed the connection mid-body")
        return data

    def _environ(self, incoming: Incoming) -> dict[str, Any]:
        host, port = self.server.server_address[:2]
        environ: dict[str, Any] = {
            "wsgi.version": (1, 0),
            "wsgi.url_scheme": "http",
            "wsgi.input": io.BytesIO(incoming.body),
            "wsgi.errors": sys.stderr,
            "wsgi.multithread": True,
            "wsgi.multiprocess": False,
            "wsgi.run_once": False,
            "wsgi.input_terminated": True,
            "SERVER_SOFTWARE": "Eddy",
            "REQUEST_METHOD": incoming.method,
            "SCRIPT_NAME": "",
            "PATH_INFO": incoming.path_info,
            "QUERY_STRING": incoming.query,
            "REQUEST_URI": incoming.target,
            "RAW_URI": incoming.target,
            "REMOTE_ADDR": self.client_address[0],
            "REMOTE_PORT": self.client_address[1],
            "SERVER_NAME": str(host),
            "SERVER_PORT": str(port),
            "SERVER_PROTOCOL": incoming.version,
            "CONTENT_LENGTH": str(len(incoming.body)),
        }
        environ.update(incoming.cgi_headers)
        return environ

    def _call(self, incoming: Incoming) -> Answer:
        """The application's answer: its own `answer` if it has one and gives one, else as WSGI."""
        try:
            direct = getattr(self.server.app, "answer", None)
            answered = direct(incoming) if direct is not None else None
            if answered is not None:
                return answered
            return self._wsgi(self._environ(incoming))
        except Exception:  # the application's own failure: a 500 the SDKs retry, never a dropped connection
            log.exception("the server failed on %s %s", incoming.method, incoming.target)
            status = HTTPStatus.INTERNAL_SERVER_ERROR
            return f"{status.value} {status.phrase}", [("Content-Type", "text/plain")], b"Internal Server Error"

    def _wsgi(self, environ: dict[str, Any]) -> Answer:
        answer: dict[str, Any] = {}

        def start_response(
            status: str, headers: list[tuple[str, str]], exc_info: Any = None
        ) -> Callable[[bytes], None]:
            answer["status"], answer["headers"] = status, list(headers)
            return lambda data: None  # the legacy write(): Eddy's applications return their bodies

        iterable = self.server.app(environ, start_response)
        try:
            payload = b"".join(iterable)
        finally:
            if hasattr(iterable, "close"):
                iterable.close()
        return answer["status"], answer["headers"], payload

    def _send(self, status_line: bytes, headers: list[tuple[str, str]], body: bytes, keep_alive: bool) -> None:
        lines = [status_line]
        dated = False
        for name, value in headers:
            lowered = name.lower()
            if lowered != "connection":
                lines.append(f"{name}: {value}\r\n".encode("latin-1"))
                dated = dated or lowered == "date"
        if not dated:  # one Date, first: the application's (where it stands), if it sent one
            lines.insert(1, f"Date: {self.server.http_date()}\r\n".encode())
        if not keep_alive:
            lines.append(b"Connection: close\r\n")
        lines.append(b"\r\n")
        lines.append(body)
        self.connection.sendall(b"".join(lines))


def cgi_headers(headers: list[tuple[str, str]]) -> dict[str, str]:
    """The headers by the names a WSGI environment gives them (X-Amz-Target: HTTP_X_AMZ_TARGET; Content-Type:
    CONTENT_TYPE), a repeated one's values joined by commas, in their order. Left out: a name with an underscore (as
    CGI servers do: it would pass for a dash one), Content-Length and Transfer-Encoding (the body is read whole: its
    length is known)."""
    cgi: dict[str, str] = {}
    for name, value in headers:
        key = _cgi_name(name)
        if key is None:
            continue
        cgi[key] = f"{cgi[key]},{value}" if key in cgi and key != "CONTENT_TYPE" else value
    return cgi


@functools.lru_cache(maxsize=1024)  # a client sends the same few names in every request
def _cgi_name(name: str) -> str | None:
    """A header's name in a WSGI environment (HTTP_X_AMZ_TARGET, CONTENT_TYPE); None for one left out."""
    if "_" in name:
        return None
    key = name.upper().replace("-", "_")
    if key == "CONTENT_LENGTH" or key == "TRANSFER_ENCODING":
        return None
    return key if key == "CONTENT_TYPE" else f"HTTP_{key}"


def _keeps_alive(version: str, connection: str) -> bool:
    options = {option.strip().lower() for option in connection.split(",")}
    return "keep-alive" in options if version == "HTTP/1.0" else "close" not in options

"""DynamoDB's and DynamoDB Streams' requests answered without a WSGI environment (EddyApp.answer): the router is
handed the same Request, in the same header order, and the client gets the same bytes, as through the WSGI path.

Two real servers on the same EddyApp, one of them offered the application as WSGI only; the same raw requests sent
to both; the router replaced by one that notes what it was handed and answers it back.
"""

from __future__ import annotations

import json
import random
import socket
import threading

import pytest

from eddy.emulator.api import server as api_server
from eddy.emulator.aws_requests import Response
from eddy.emulator.http_server import HTTPServer

TARGET = "X-Amz-Target: DynamoDB_20120810.GetItem"
SIGNED = "Authorization: AWS4-HMAC-SHA256 Credential=AKID/20261128/eu-west-1/dynamodb/aws4_request, Signature=x"


class Noted:
    """The router's stand-in: notes each Request and answers it back (a cookie and a status of the request's own)."""

    def __init__(self) -> None:
        self.requests: list[tuple] = []
        self.lock = threading.Lock()

    def route(self, emulator, request):
        seen = (request.method, request.url, list(request.headers.items()), request.body, request.target)
        with self.lock:
            self.requests.append(seen)
        status = 400 if b"refuse" in request.body else 200
        body = json.dumps(seen, default=repr).encode()
        return Response(status, {"Content-Type": "application/x-amz-json-1.0", "Content-Length": "1"}, body, ["a=b"])


@pytest.fixture
def servers(monkeypatch):
    noted = Noted()
    monkeypatch.setattr(api_server.router, "route", noted.route)
    app = api_server.EddyApp(emulator=None)
    made = []
    for served_app in (app, lambda environ, start_response: app(environ, start_response)):  # the second: WSGI only
        served = HTTPServer(socket.create_server(("127.0.0.1", 0)), served_app)
        thread = threading.Thread(target=served.serve_forever, daemon=True)
        thread.start()
        made.append((served, thread))
    yield noted, [served.port for served, _ in made]
    for served, thread in made:
        served.shutdown()
        served.server_close()
        thread.join(timeout=30)


def exchange(port: int, raw: bytes) -> bytes:
    """The answer's bytes (the Date line left out: the two servers may answer in different seconds; the server's
    own port, which a request without a Host names, as PORT)."""
    with socket.create_connection(("127.0.0.1", port), timeout=30) as connection:
        connection.sendall(raw)
        connection.shutdown(socket.SHUT_WR)
        received = b""
        while chunk := connection.recv(65536):
            received += chunk
    kept = b"".join(line for line in received.splitlines(keepends=True) if not line.startswith(b"Date: "))
    return kept.replace(f":{port}/".encode(), b":PORT/")


def same(noted: Noted, ports: list[int]) -> bool:
    """Whether the router was handed the same request by both servers (the server's own port as PORT)."""
    first, second = (repr(seen).replace(f":{port}/", ":PORT/") for seen, port in zip(noted.requests, ports))
    return len(noted.requests) == 2 and first == second


def request(target: str = "/", *headers: str, body: bytes = b'{"TableName": "t"}', version: str = "HTTP/1.1") -> bytes:
    lines = [f"POST {target} {version}", *headers, f"Content-Length: {len(body)}", "Connection: close", "", ""]
    return "\r\n".join(lines).encode("latin-1") + body


CASES = [
    request("/", "Host: 127.0.0.1:4566", TARGET, "Content-Type: application/x-amz-json-1.0", SIGNED),
    request("/", "Host: localhost:4566", "X-Amz-Target: DynamoDBStreams_20120810.GetRecords", SIGNED),
    request("/", "Host: 127.0.0.1:4566", TARGET, "x-amz-date: 20261128T000000Z", "X-Amz-Date: again", "Via: 1",
            "via: 2"),  # a repeated header's values joined, where its first stood
    request("/", "Host: 127.0.0.1:4566", TARGET, "X_Amz_Target: DynamoDB_20120810.PutItem"),  # underscores: left out
    request("/", TARGET, "Host: 127.0.0.1:4566", "Content-Type: a", "content-type: b"),  # Content-Type: the last
    request("/", "Host: 127.0.0.1:4566", TARGET, "Content-Type: "),  # empty: not a header werkzeug shows
    request("/", "Host: 127.0.0.1:4566", TARGET, "Transfer-Encoding: identity"),
    request("/", "Host: 127.0.0.1:4566", "x-amz-target: DynamoDB_20120810.PutItem", "X-AMZ-TARGET: second"),
    request("http://other.host:9/?a=b", "Host: 127.0.0.1:4566", TARGET),  # the target's host wins
    request("/", TARGET),  # no Host: werkzeug's URL from the server's name
    request("/", "Host: Localhost:4566", TARGET),  # werkzeug lowers it: its URL
    request("/a%20b?x=%41", "Host: 127.0.0.1:4566", TARGET),  # escapes: werkzeug's URL
    request("//double", "Host: 127.0.0.1:4566", TARGET),
    request("/", "Host: 127.0.0.1:4566", TARGET, version="HTTP/1.0"),
    request("/", "Host: 127.0.0.1:4566", TARGET, body=b'{"refuse": 1}'),  # a 400 answer
    request("/", "Host: 127.0.0.1:4566", "X-Amz-Target: Kinesis_20131202.PutRecord"),  # not DynamoDB's: WSGI both
    request("/", "Host: 127.0.0.1:4566", "X-Amz-Target: ", SIGNED),
    request("/", "Host: 127.0.0.1:4566", "X-Amz-Target:DynamoDB_20120810.Query", "Folded: a", " b"),
]


@pytest.mark.parametrize("raw", CASES, ids=range(len(CASES)))
def test_a_request_answered_directly_is_the_one_wsgi_would_have_handed_the_router(servers, raw):
    noted, (direct, wsgi) = servers
    answers = [exchange(direct, raw), exchange(wsgi, raw)]
    assert answers[0] == answers[1] and same(noted, [direct, wsgi]), (answers, noted.requests)
    assert answers[0].startswith(b"HTTP/1.1 ") and b"Set-Cookie: a=b\r\n" in answers[0]


def test_random_requests_answered_directly_are_the_ones_wsgi_would_have_handed_the_router(servers):
    noted, (direct, wsgi) = servers
    names = ["Host", "host", "X-Amz-Target", "x-amz-target", "Content-Type", "Authorization", "X-Amz-Date",
             "User-Agent", "amz-sdk-invocation-id", "X_Under", "Accept-Encoding", "Content-Length-Extra", "É-name"]
    values = ["127.0.0.1:4566", "localhost:1", "DynamoDB_20120810.PutItem", "DynamoDBStreams_20120810.ListStreams",
              "a, b", "é", "", "x=y"]
    targets = ["/", "/?a=b", "/x%2Fy", "/é", "http://h:1/p", "//a"]
    chooser = random.Random(39)
    for _ in range(150):
        headers = [f"{chooser.choice(names)}: {chooser.choice(values)}" for _ in range(chooser.randrange(1, 7))]
        raw = request(chooser.choice(targets), *headers)
        noted.requests.clear()
        answers = [exchange(direct, raw), exchange(wsgi, raw)]
        assert answers[0] == answers[1] and same(noted, [direct, wsgi]), (raw, answers, noted.requests)


def test_dynamodb_and_streams_requests_are_answered_without_an_environment(servers, monkeypatch):
    noted, (direct, _) = servers
    environments = []
    read = api_server.request_of
    monkeypatch.setattr(api_server, "request_of", lambda environ: environments.append(environ) or read(environ))
    for raw in CASES[:2]:
        assert exchange(direct, raw).startswith(b"HTTP/1.1 200 OK\r\n")
    exchange(direct, CASES[15])  # Kinesis's: through the environment
    assert [dict(seen[2])["X-Amz-Target"] for seen in noted.requests] == [
        "DynamoDB_20120810.GetItem", "DynamoDBStreams_20120810.GetRecords", "Kinesis_20131202.PutRecord"]
    assert [environ["HTTP_X_AMZ_TARGET"] for environ in environments] == ["Kinesis_20131202.PutRecord"]

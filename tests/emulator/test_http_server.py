"""The HTTP/1.1 layer under `eddy serve`: kept connections, whole bodies, 100-continue, closing, bad requests.

Driven with a plain WSGI application that echoes what it was handed, so what is asserted is what the server read
and wrote. (Eddy's own answers through it are covered by every test that runs in the `server` door.)
"""

from __future__ import annotations

import email.utils
import http.client
import json
import socket
import threading
import random
import time
import urllib.parse

import pytest

from eddy.emulator.http_server import HTTPServer, OpenedPort


def echo(environ, start_response):
    body = environ["wsgi.input"].read()
    seen = {"method": environ["REQUEST_METHOD"], "path": environ["PATH_INFO"], "query": environ["QUERY_STRING"],
            "length": environ["CONTENT_LENGTH"], "type": environ.get("CONTENT_TYPE"),
            "target": environ.get("HTTP_X_AMZ_TARGET"), "body": body.decode(), "client_port": environ["REMOTE_PORT"]}
    start_response("200 OK", [("Content-Type", "application/json")])
    return [json.dumps(seen).encode()]


@pytest.fixture
def server():
    listener = socket.create_server(("127.0.0.1", 0))
    served = HTTPServer(listener, echo)
    thread = threading.Thread(target=served.serve_forever, daemon=True)
    thread.start()
    yield served
    served.shutdown()
    served.server_close()
    thread.join(timeout=30)


def test_one_connection_carries_many_requests(server):
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    answers = []
    for number in range(3):
        connection.request("POST", f"/a%20b?n={number}", body=f'{{"n":{number}}}',
                           headers={"Content-Type": "application/x-amz-json-1.0", "X-Amz-Target": "DynamoDB_20120810.GetItem"})
        response = connection.getresponse()
        answers.append((response.status, response.getheader("Connection"), json.loads(response.read())))
    client_port = connection.sock.getsockname()[1]
    connection.close()
    assert answers == [(200, None, {"method": "POST", "path": "/a b", "query": f"n={number}", "length": "7",
                                    "type": "application/x-amz-json-1.0", "target": "DynamoDB_20120810.GetItem",
                                    "body": f'{{"n":{number}}}', "client_port": client_port}) for number in range(3)]


def test_a_chunked_body_reaches_the_application_whole(server):
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    connection.request("PUT", "/bucket/key", body=iter([b"hello ", b"chunked ", b"world"]), encode_chunked=True,
                       headers={"Transfer-Encoding": "chunked"})
    response = connection.getresponse()
    assert (response.status, json.loads(response.read())) == (200, {
        "method": "PUT", "path": "/bucket/key", "query": "", "length": "19", "type": None, "target": None,
        "body": "hello chunked world", "client_port": connection.sock.getsockname()[1]})


def read_response(stream) -> tuple[bytes, bytes]:
    head = b""
    while not head.endswith(b"\r\n\r\n"):
        head += stream.read(1)
    length = int(next(line.split(b":")[1] for line in head.split(b"\r\n") if line.lower().startswith(b"content-length")))
    return head, stream.read(length)


def test_expect_100_continue_is_answered_before_the_body_is_sent(server):
    with socket.create_connection(("127.0.0.1", server.port), timeout=30) as client:
        stream = client.makefile("rb")
        client.sendall(b"PUT /bucket/key HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nExpect: 100-continue\r\n\r\n")
        assert stream.readline() == b"HTTP/1.1 100 Continue\r\n"
        assert stream.readline() == b"\r\n"
        client.sendall(b"body")
        head, body = read_response(stream)
    assert head.startswith(b"HTTP/1.1 200 OK\r\n") and json.loads(body)["body"] == "body"


def test_an_http_1_0_client_is_answered_and_closed(server):
    with socket.create_connection(("127.0.0.1", server.port), timeout=30) as client:
        stream = client.makefile("rb")
        client.sendall(b"GET /x HTTP/1.0\r\n\r\n")
        head, body = read_response(stream)
        assert b"Connection: close\r\n" in head and json.loads(body)["path"] == "/x"
        assert stream.read() == b""  # the server closed it


def test_a_request_that_is_not_http_is_refused_with_400_and_closed(server):
    with socket.create_connection(("127.0.0.1", server.port), timeout=30) as client:
        stream = client.makefile("rb")
        client.sendall(b"HELLO\r\n\r\n")
        head, body = read_response(stream)
        assert head.startswith(b"HTTP/1.1 400 Bad Request\r\n") and b"Connection: close\r\n" in head
        assert body == b"not an HTTP/1.x request line: b'HELLO\\r\\n'"
        assert stream.read() == b""


def test_closing_the_server_closes_the_connections_clients_keep(server):
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    connection.request("GET", "/first")
    assert json.loads(connection.getresponse().read())["path"] == "/first"
    server.shutdown()
    server.server_close()
    assert connection.sock.recv(1) == b""  # the kept connection ends: nothing reaches a stopped server
    connection.close()


def test_every_answer_carries_the_date_in_http_form(server):
    """RFC 9110 §6.6.1: an origin server with a clock sends Date, in IMF-fixdate form (made once a second, by the
    server object: no module keeps it)."""
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    before = int(time.time())
    dates = []
    for _ in range(2):
        connection.request("GET", "/")
        response = connection.getresponse()
        response.read()
        dates.append(response.getheader("Date"))
    after = int(time.time())
    connection.close()
    moments = [email.utils.parsedate_to_datetime(date).timestamp() for date in dates]
    assert all(date.endswith(" GMT") and date == email.utils.formatdate(moment, usegmt=True)
               for date, moment in zip(dates, moments)) and before <= min(moments) <= max(moments) <= after, dates


def test_an_answer_carries_one_date_the_applications_when_it_sends_one():
    """RFC 9110 §5.3: Date is not a list; a server sends it once. An application that sends its own (moto's DynamoDB
    answers carry a `date` header) is answered with that one alone: urllib3 would join two into one value
    ("Sat, 28 Nov ... GMT, Sat, 28 Nov ... GMT"), as boto3 showed ListTables' headers before 2026-11-28."""

    def dated(environ, start_response):
        start_response("200 OK", [("Content-Type", "text/plain"), ("date", "Sun, 06 Nov 1994 08:49:37 GMT")])
        return [b"dated"]

    listener = socket.create_server(("127.0.0.1", 0))
    served = HTTPServer(listener, dated)
    thread = threading.Thread(target=served.serve_forever, daemon=True)
    thread.start()
    try:
        with socket.create_connection(("127.0.0.1", served.port), timeout=30) as client:
            client.sendall(b"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            raw = b""
            while chunk := client.recv(65536):
                raw += chunk
    finally:
        served.shutdown()
        served.server_close()
        thread.join(timeout=30)
    assert raw == (b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\ndate: Sun, 06 Nov 1994 08:49:37 GMT\r\n"
                   b"Content-Length: 5\r\nConnection: close\r\n\r\ndated")


def _early(asked: dict[str, threading.Event]):
    """An early answer for /early; any other request is noted (its body read, as empty_listing reads it) and waits."""

    def early(environ):
        environ["wsgi.input"].read()
        environ["wsgi.input"].seek(0)
        if environ["PATH_INFO"] == "/early":
            return "200 OK", [("Content-Type", "text/plain")], b"early"
        asked.setdefault(environ["PATH_INFO"], threading.Event()).set()
        return None

    return early


def _post_in_thread(port: int, path: str, body: bytes) -> tuple[threading.Thread, dict]:
    answer: dict = {}

    def post() -> None:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        connection.request("POST", path, body=body, headers={"Content-Type": "application/x-amz-json-1.0"})
        try:
            response = connection.getresponse()
            answer.update(status=response.status, body=response.read())
        except (http.client.RemoteDisconnected, ConnectionError) as error:
            answer.update(closed=type(error).__name__)
        connection.close()

    thread = threading.Thread(target=post)
    thread.start()
    return thread, answer


def test_a_port_opened_before_its_application_answers_early_and_hands_the_rest_over():
    asked: dict[str, threading.Event] = {}
    opened = OpenedPort("127.0.0.1", 0, _early(asked))
    try:
        connection = http.client.HTTPConnection("127.0.0.1", opened.server.port, timeout=30)
        connection.request("POST", "/early", body=b"{}")
        response = connection.getresponse()
        assert (response.status, response.read()) == (200, b"early")
        waiting, answer = _post_in_thread(opened.server.port, "/later", b'{"n": 1}')
        assert asked.setdefault("/later", threading.Event()).wait(60)  # it reached the server, and waits
        assert answer == {}
        opened.starting.ready(echo)
        waiting.join(60)
        assert answer["status"] == 200 and json.loads(answer["body"])["body"] == '{"n": 1}'  # its body whole
        connection.request("POST", "/early", body=b"{}")  # the application answers everything from now on
        response = connection.getresponse()
        assert response.status == 200 and json.loads(response.read())["path"] == "/early"
        connection.close()
    finally:
        opened.close()


def test_requests_waiting_for_an_application_that_never_comes_end_and_the_port_closes():
    """A start that fails (Ctrl-C, an import error) ends the requests waiting for it: answered 503 by the thread
    serving them, or their connection closed with the server if that came first (both retried by the SDKs)."""
    asked: dict[str, threading.Event] = {}
    opened = OpenedPort("127.0.0.1", 0, _early(asked))
    waiting, answer = _post_in_thread(opened.server.port, "/later", b"{}")
    assert asked.setdefault("/later", threading.Event()).wait(60)
    opened.close()
    waiting.join(60)
    assert not waiting.is_alive()
    assert answer in ({"status": 503, "body": b"Eddy did not start"}, {"closed": "RemoteDisconnected"},
                      {"closed": "ConnectionResetError"}), answer
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.1", opened.server.port), timeout=30)


def test_request_targets_reach_the_application_as_urlsplit_reads_them(server):
    """PATH_INFO (unescaped, latin-1) and QUERY_STRING as urlsplit and unquote_to_bytes make them, for the common
    targets the server splits itself and every other (escapes, fragments, "//", absolute forms, non-ASCII)."""
    pieces = ["a", "/", "?", "#", "%41", "%2F", "%", "é", "//", "http:", "x=y", "&", ":", "@", "*", ";", "+"]
    chooser = random.Random(39)
    targets = ["/", "/a?b", "/a?b?c", "//host/p", "/p#f", "http://h:1/p?q", "/é?é", "/%C3%A9", "*", "/a:b"]
    targets += ["/" + "".join(chooser.choice(pieces) for _ in range(chooser.randrange(6))) for _ in range(300)]
    targets += ["".join(chooser.choice(pieces) for _ in range(chooser.randrange(1, 6))) for _ in range(100)]
    with socket.create_connection(("127.0.0.1", server.port), timeout=30) as connection:
        reader = connection.makefile("rb")
        for target in targets:
            connection.sendall(f"GET {target} HTTP/1.1\r\nHost: h\r\n\r\n".encode())
            assert reader.readline().startswith(b"HTTP/1.1 200")
            length = 0
            while (line := reader.readline()) != b"\r\n":
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
            seen = json.loads(reader.read(length))
            url = urllib.parse.urlsplit(target.encode().decode("latin-1"))  # the request line as the server reads it
            path = url.path if url.scheme or not url.netloc else f"/{url.netloc}{url.path}"
            assert (seen["path"], seen["query"]) == (
                urllib.parse.unquote_to_bytes(path).decode("latin-1"), url.query), target

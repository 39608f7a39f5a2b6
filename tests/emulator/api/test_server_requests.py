"""A WSGI environment read as Eddy's Request: the same method, URL, headers and body werkzeug's Request reads,
for the plain requests read directly and for every other one (handed to werkzeug)."""

from __future__ import annotations

import io
import random

import pytest
from werkzeug.wrappers import Request as WerkzeugRequest

from eddy.emulator.api.server import request_of
from eddy.emulator.aws_requests import Request


def environ(
    host: str | None = "127.0.0.1:4566", path: str = "/", query: str = "", body: bytes = b"", **headers: str
) -> dict:
    made = {
        "wsgi.version": (1, 0),
        "wsgi.url_scheme": "http",
        "wsgi.input": io.BytesIO(body),
        "wsgi.input_terminated": True,
        "REQUEST_METHOD": "post",
        "SCRIPT_NAME": "",
        "PATH_INFO": path,
        "QUERY_STRING": query,
        "SERVER_NAME": "127.0.0.1",
        "SERVER_PORT": "4566",
        "CONTENT_LENGTH": str(len(body)),
        "CONTENT_TYPE": "application/x-amz-json-1.0",
        "HTTP_X_AMZ_TARGET": "DynamoDB_20120810.GetItem",
        "HTTP_AUTHORIZATION": "AWS4-HMAC-SHA256 Credential=AKID/20261128/eu-west-1/dynamodb/aws4_request",
        "HTTP_X_AMZ_CONTENT_SHA256": "abc",
    }
    if host is not None:
        made["HTTP_HOST"] = host
    made.update(headers)
    return made


def werkzeugs(made: dict) -> Request:
    copy = dict(made, **{"wsgi.input": io.BytesIO(made["wsgi.input"].getvalue())})
    incoming = WerkzeugRequest(copy)
    return Request(incoming.method, incoming.url, dict(incoming.headers.items()), incoming.get_data())


def read(made: dict) -> Request:
    return request_of(dict(made, **{"wsgi.input": io.BytesIO(made["wsgi.input"].getvalue())}))


CASES = [
    environ(body=b'{"TableName": "t"}'),
    environ(host="localhost:45123", path="/bucket/key.txt", query="versionId=3&x-id=GetObject"),
    environ(host="Localhost:4566"),  # werkzeug lowers the host
    environ(host="127.0.0.1:80"),  # and drops http's own port
    environ(host="127.0.0.1:0080"),
    environ(host="127.0.0.1:99999"),
    environ(host="xn--n3h.net:4566"),  # an IDNA host, decoded
    environ(host=None),  # no Host header: SERVER_NAME and SERVER_PORT
    environ(host="[::1]:4566"),
    environ(path="//double/slash"),
    environ(path="/a b/ü"),  # PATH_INFO as the server decoded it
    environ(path="/key%2Fwith%25escapes"),
    environ(query="X-Amz-Credential=AKID%2F20261128%2Fus-east-1%2Fs3%2Faws4_request&list-type=2"),
    environ(query="a=b c&d=é"),
    environ(query="prefix=a/b&delimiter=/"),
    environ(CONTENT_TYPE="", CONTENT_LENGTH=""),  # empty: werkzeug leaves them out
    environ(HTTP_CONTENT_TYPE="text/plain", HTTP_X_WEIRD_NAME_="1"),
    dict(environ(), **{"wsgi.url_scheme": "https"}),
    dict(environ(), SCRIPT_NAME="/mounted"),
]


@pytest.mark.parametrize("made", CASES, ids=range(len(CASES)))
def test_a_request_reads_as_werkzeug_reads_it(made):
    assert read(made) == werkzeugs(made)


def test_random_urls_read_as_werkzeug_reads_them():
    pieces = list("aZ0-_.~/% ?&=+;:@!$'()*,é#[]\\\"<|") + ["%2F", "%41"]
    hosts = ["127.0.0.1:4566", "localhost:51234", "eddy.local", "s3.localhost:4566", "EDDY:4566", "bucket.s3.x:1"]
    chooser = random.Random(39)
    for _ in range(2000):
        path = "/" + "".join(chooser.choice(pieces) for _ in range(chooser.randrange(8)))
        query = "".join(chooser.choice(pieces) for _ in range(chooser.randrange(8))).replace("#", "")
        made = environ(host=chooser.choice(hosts), path=path, query=query)
        assert read(made) == werkzeugs(made), (path, query)

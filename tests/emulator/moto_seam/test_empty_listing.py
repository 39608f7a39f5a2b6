"""moto_seam/tables/empty_listing.py: the ListTables `eddy serve` answers before its engine is loaded is the engine's
door's answer on an empty state, and it answers nothing else (every other request waits for the engine).

Each request is sent once over HTTP to a server whose application asks both: the early answer
(empty_listing.answer) and the answer of the engine's door (api/server.py's EddyApp on a fresh Emulator), compared
whole: status, every header in order and its value (the request id and the date by their form: each request draws its
own), body."""

from __future__ import annotations

import email.utils
import http.client
import io
import re
import socket
import threading

import boto3
import pytest
from botocore.config import Config
from moto.core.base_backend import AccountSpecificBackend

from eddy.emulator.api.server import EddyApp
from eddy.emulator.engine import Emulator
from eddy.emulator.http_server import HTTPServer
from eddy.emulator.moto_seam.tables import empty_listing
from tests.conftest import QUIET

SIGNED = "AWS4-HMAC-SHA256 Credential=eddy/20261128/{}/dynamodb/aws4_request, SignedHeaders=host, Signature=0"
JSON_10 = {"Content-Type": "application/x-amz-json-1.0", "X-Amz-Target": "DynamoDB_20120810.ListTables"}


@pytest.fixture
def both():
    """(URL, answers): a server whose every request is answered by the engine's door, after the early answer (or
    None) and the door's answer are recorded side by side."""
    emulator = Emulator(**QUIET)
    door = EddyApp(emulator)
    answers: list[tuple] = []

    def app(environ, start_response):
        body = environ["wsgi.input"].read()
        environ["wsgi.input"] = io.BytesIO(body)
        early = empty_listing.answer(environ)
        environ["wsgi.input"] = io.BytesIO(body)
        held = {}
        payload = b"".join(door(environ, lambda status, headers, exc_info=None: held.update(s=status, h=headers)))
        answers.append((early, (held["s"], list(held["h"]), payload)))
        start_response(held["s"], held["h"])
        return [payload]

    server = HTTPServer(socket.create_server(("127.0.0.1", 0)), app)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.port}", answers
    server.shutdown()
    server.server_close()
    thread.join(timeout=30)
    emulator.close()


def _client(url: str, region: str):
    return boto3.client("dynamodb", endpoint_url=url, region_name=region, config=Config(retries={"total_max_attempts": 1}))


def _raw(url: str, method: str, headers: dict, body: bytes, path: str = "/") -> None:
    connection = http.client.HTTPConnection(url.removeprefix("http://"), timeout=60)
    connection.request(method, path, body=body, headers=headers)
    connection.getresponse().read()
    connection.close()


def _compared(answer: tuple) -> tuple:
    """An answer with its request id and date checked for their form, then set aside (each request has its own)."""
    status, headers, body = answer
    names = [name for name, _ in headers]
    values = dict(headers)
    assert re.fullmatch(r"[A-Za-z0-9]{52}", values["x-amzn-requestid"])  # moto's gen_amzn_requestid_long
    assert email.utils.parsedate_to_datetime(values["date"]).tzname() == "UTC"
    kept = [(name, value) for name, value in headers if name not in ("x-amzn-requestid", "date")]
    return status, names, kept, body


def test_botocores_list_tables_is_answered_early_as_the_engine_answers_it_on_an_empty_state(both):
    url, answers = both
    answers.clear()
    for region in ("us-east-1", "eu-west-1", "cn-north-1", "us-gov-west-1"):
        assert _client(url, region).list_tables()["TableNames"] == []
    _raw(url, "POST", {**JSON_10, "Authorization": SIGNED.format("us-east-1")}, b"")  # no body: as {}
    _raw(url, "POST", {**JSON_10, "Authorization": SIGNED.format("ap-south-2")}, b" { } ")
    assert len(answers) == 6
    for early, door in answers:
        assert early is not None
        assert _compared(early) == _compared(door)
        assert _compared(door)[:2] == (
            "200 OK",
            ["Content-Type", "server", "date", "x-amzn-requestid", "x-amz-crc32", "Content-Length"],
        )
        assert door[2] == b'{"TableNames": []}'


def test_any_other_request_is_left_to_the_engine(both):
    url, answers = both
    answers.clear()
    client = _client(url, "us-east-1")
    client.list_tables(Limit=5)
    client.list_tables(ExclusiveStartTableName="abc")
    with pytest.raises(client.exceptions.ResourceNotFoundException):
        client.describe_table(TableName="missing")
    with pytest.raises(Exception):  # moto has no DynamoDB backend there: the engine's door answers its 500
        _client(url, "mars-1").list_tables()
    signed = SIGNED.format("us-east-1")
    _raw(url, "POST", {**JSON_10}, b"{}")  # unsigned
    _raw(url, "POST", {**JSON_10, "Authorization": signed, "Content-Type": "application/x-amz-json-1.1"}, b"{}")
    _raw(url, "GET", {**JSON_10, "Authorization": signed}, b"{}")
    _raw(url, "POST", {**JSON_10, "Authorization": signed}, b"{}", path="/other")
    _raw(url, "POST", {**JSON_10, "Authorization": signed, "x-moto-account-id": "111122223333"}, b"{}")
    _raw(url, "POST", {**JSON_10, "Authorization": signed}, b"{not json")
    _raw(url, "POST", {**JSON_10, "Authorization": signed}, b"[]")
    _raw(url, "POST", {**JSON_10, "Authorization": signed, "X-Amz-Target": "DynamoDB_20120810.DescribeLimits"}, b"{}")
    assert len(answers) == 12
    assert [early for early, _ in answers] == [None] * 12
    statuses = [door[0][:3] for _, door in answers]
    assert statuses == ["200", "200", "400", "500", "200", "200", "200", "200", "200", "400", "400", "200"]


def test_its_regions_are_those_motos_dynamodb_backends_list():
    moto_regions = AccountSpecificBackend.__dict__["_generate_regions"]  # moto's own: no emulator is open here
    backend = AccountSpecificBackend("dynamodb", "123456789012", object, use_boto3_regions=False, additional_regions=[])
    assert empty_listing.dynamodb_regions() == frozenset(moto_regions(backend, "dynamodb"))

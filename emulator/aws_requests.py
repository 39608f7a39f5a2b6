"""The two plain values the front doors exchange with the router: a request read in full, and a response."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from eddy.emulator.errors import AWSError
from eddy.emulator import callers

JSON_1_0 = "application/x-amz-json-1.0"

def request_id() -> str:
    """An answer's x-amzn-RequestId: what uuid.uuid4().hex gives (16 random bytes with the version and variant bits
    set, in 32 hex digits), without the UUID object uuid4() builds on the way (a few us of every answer), and without
    a 128-bit integer formatted as hex (the bits set in the bytes instead: a third cheaper)."""
    random = bytearray(os.urandom(16))
    random[6] = random[6] & 0x0F | 0x40  # the version, 4: the high nibble of byte 6 (uuid.UUID's `version=4`)
    random[8] = random[8] & 0x3F | 0x80  # RFC 4122's variant, 0b10: the two high bits of byte 8
    return random.hex()


@dataclass
class Request:
    method: str
    url: str
    headers: dict[str, str]
    body: bytes = b""
    #: the request target as the client sent it (path and query, escapes kept), where a server received it
    target: str = ""

    def header(self, name: str, default: str | None = None) -> str | None:
        """The header's value, its name in any case. A header is most often asked by the name the client sent it
        under (botocore's X-Amz-Target, Authorization): that name is looked up first, and only a miss walks the
        headers comparing lower-case names (9 lower() calls of an in-process call's headers, asked several times),
        once the names joined and lowered in one string show that one of them is the name asked for."""
        value = self.headers.get(name)
        if value is not None:
            return value.decode() if isinstance(value, bytes) else value
        wanted = name.lower()
        if wanted not in "\n".join(self.headers).lower():  # no name is it, in any case: nothing to walk for
            return default  # (a header a request does not carry, such as x-moto-account-id, asked on every call)
        for key, value in self.headers.items():
            if key.lower() == wanted:
                return value.decode() if isinstance(value, bytes) else value
        return default

    @property
    def path(self) -> str:
        return urlsplit(self.url).path or "/"

    def for_target(self, target: str, params: Any) -> Request:
        """Another JSON request from the same caller: X-Amz-Target `target`, body `params`; the headers of the body
        it replaces (its length and checksum) dropped."""
        headers = {
            name: value
            for name, value in self.headers.items()
            if name.lower() not in ("x-amz-target", "content-length", "x-amz-crc32")
        }
        headers["X-Amz-Target"] = target
        return Request(self.method, self.url, headers, json.dumps(params).encode())

    def in_region(self, region: str) -> Request:
        """The same caller's request signed for another region (the credential scope's region replaced): what one
        region's API asks of another (a global table's replica created in its region)."""
        headers = {
            name: value for name, value in self.headers.items() if name.lower() not in ("authorization", "user-agent")
        }
        headers["Authorization"] = callers.in_region(self.header("Authorization") or "", region)
        return Request(self.method, callers.endpoint_in_region(self.url, region), headers, self.body)


@dataclass
class Response:
    status: int
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes = b""
    #: Set-Cookie headers, one each (a function URL's answer: its function's `cookies`)
    cookies: list[str] = field(default_factory=list)


def json_response(payload: Any, status: int = 200, content_type: str = JSON_1_0) -> Response:
    return raw_json_response(json.dumps(payload).encode(), status, content_type)


def raw_json_response(body: bytes, status: int = 200, content_type: str = JSON_1_0) -> Response:
    return Response(
        status,
        {"Content-Type": content_type, "x-amzn-RequestId": request_id(), "Content-Length": str(len(body))},
        body,
    )


def error_response(error: AWSError, content_type: str = JSON_1_0) -> Response:
    return raw_json_response(error.to_body(), error.status, content_type)

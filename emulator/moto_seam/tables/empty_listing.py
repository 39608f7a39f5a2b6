"""ListTables answered as moto's DynamoDB answers it where no table exists, without loading moto or botocore.

`eddy serve` on an empty state opens its port before the engine (and moto) are loaded (emulator/http_server.py's
StartingApp): a client's first call, most often ListTables, is answered at once, and every other request waits for the
engine. Until the engine is ready no table can exist (nothing was recovered, and every request that could make one
waits), so ListTables' answer is known: `{"TableNames": []}`, with the headers moto's full path gives it (moto's
`server`, its `date`, its 52-character `x-amzn-requestid`, the body's `x-amz-crc32`).

`answer` gives that answer only to a request the engine's door would answer so: botocore's ListTables without members
(POST /, X-Amz-Target DynamoDB_20120810.ListTables, Content-Type application/x-amz-json-1.0, a body of `{}` or none),
signed for a region moto serves DynamoDB in (the regions moto's backends list: botocore's endpoint data, read here
directly), with no account named by header. Anything else (a Limit, another region, an unsigned request, ...) is
None: the request waits for the engine, whose door answers it, errors included. Pinned against the engine's door by
tests/emulator/moto_seam/tables/test_empty_listing.py.
"""

from __future__ import annotations

import email.utils
import importlib.util
import json
import os
import random
import string
import threading
import zlib
from pathlib import Path
from typing import Any

from eddy.emulator.callers import scope_of

TARGET = "DynamoDB_20120810.ListTables"
CONTENT_TYPE = "application/x-amz-json-1.0"
BODY = json.dumps({"TableNames": []}).encode()
#: moto's request ids (moto.utilities.aws_headers.gen_amzn_requestid_long: 52 letters and digits)
_REQUEST_ID_CHARACTERS = string.ascii_letters + string.digits
_random = random.SystemRandom()
_lock = threading.Lock()
_regions: frozenset[str] | None = None

Answer = tuple[str, list[tuple[str, str]], bytes]


def answer(environ: dict[str, Any]) -> Answer | None:
    """The answer (WSGI status, headers, body) the engine's door gives this request on an empty state, or None where
    that is not known without the engine."""
    if (
        environ.get("REQUEST_METHOD") != "POST"
        or environ.get("PATH_INFO") != "/"
        or environ.get("QUERY_STRING")
        or environ.get("HTTP_X_AMZ_TARGET") != TARGET
        or environ.get("CONTENT_TYPE") != CONTENT_TYPE
        or "HTTP_X_MOTO_ACCOUNT_ID" in environ
    ):
        return None
    scope = scope_of(environ.get("HTTP_AUTHORIZATION", ""), "")
    if scope is None or scope.region not in dynamodb_regions():
        return None
    body = environ["wsgi.input"].read()
    environ["wsgi.input"].seek(0)
    try:
        if json.loads(body or b"{}") != {}:
            return None
    except (ValueError, UnicodeDecodeError):
        return None
    request_id = "".join(_random.choice(_REQUEST_ID_CHARACTERS) for _ in range(52))
    headers = [
        ("Content-Type", CONTENT_TYPE),
        ("server", "amazon.com"),
        ("date", email.utils.formatdate(usegmt=True)),
        ("x-amzn-requestid", request_id),
        ("x-amz-crc32", str(zlib.crc32(BODY))),
        ("Content-Length", str(len(BODY))),
    ]
    return "200 OK", headers, BODY


def dynamodb_regions() -> frozenset[str]:
    """The regions moto's DynamoDB backends serve: every partition's regions with a DynamoDB endpoint in botocore's
    endpoint data (botocore's EndpointResolver.get_available_endpoints, which moto asks); none where AWS_DATA_PATH
    may hold other endpoint data."""
    global _regions
    with _lock:
        if _regions is None:
            _regions = frozenset() if os.environ.get("AWS_DATA_PATH") else _read_regions()
        return _regions


def _read_regions() -> frozenset[str]:
    spec = importlib.util.find_spec("botocore")  # found, not imported
    if spec is None or not spec.submodule_search_locations:
        return frozenset()
    endpoints = json.loads((Path(spec.submodule_search_locations[0]) / "data" / "endpoints.json").read_bytes())
    return frozenset(
        region
        for partition in endpoints["partitions"]
        for region in partition["services"].get("dynamodb", {}).get("endpoints", {})
        if region in partition["regions"]
    )

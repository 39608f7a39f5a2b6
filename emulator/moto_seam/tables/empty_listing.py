"""ListTables answered as moto's DynamoDB answers it where no table exists, without loading moto or botocore.

`eddy serve` on an empty state opens its port before the engine (and moto) are loaded (emulator/http_server.py's
StartingApp): a client's first call, most often ListTables, is answered at once, and every other request waits for the
engine. Until the engine is ready no table can exist (nothing was recovered, and every request that could make one
waits), so ListTables' answer is known: `{"TableNames": []}`, with the headers moto's full path gives it (moto's
`server`, its `date`, its 52-character `x-amzn-requestid`, the body's `x-amz-crc32`).

`answer` gives that answer only to a request the engine's door would answer so: botocore's ListTables without members
(POST /, X-Amz-Target DynamoDB_20120810.ListTables, Content-Type application/x-amz-json-1.0, a body of `{}` or none),
signed for a region moto serves DynamoDB in (the regions moto's backends list: moto_seam/backend_regions.py, which
reads botocore's endpoint data without loading botocore), with no account named by header. Anything else (a Limit, another region, an unsigned request, ...) is
None: the request waits for the engine, whose door answers it, errors included. Pinned against the engine's door by
tests/emulator/moto_seam/tables/test_empty_listing.py.
"""

from __future__ import annotations

import email.utils
import json
import random
import string
import zlib
from typing import Any

from eddy.emulator.callers import scope_of
from eddy.emulator.moto_seam import backend_regions

TARGET = "DynamoDB_20120810.ListTables"
CONTENT_TYPE = "application/x-amz-json-1.0"
BODY = json.dumps({"TableNames": []}).encode()
#: moto's request ids (moto.utilities.aws_headers.gen_amzn_requestid_long: 52 letters and digits)
_REQUEST_ID_CHARACTERS = string.ascii_letters + string.digits
_random = random.SystemRandom()

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
    """The regions moto's DynamoDB backends serve; none where botocore's loader must be asked (AWS_DATA_PATH set, or
    an endpoints file under ~/.aws/models)."""
    return frozenset((backend_regions.by_prefix() or {}).get("dynamodb", ()))

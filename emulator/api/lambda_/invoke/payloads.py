"""An invocation's request payload, checked as Lambda checks it before anything runs (pure).

Sizes (Lambda API Reference, Invoke: "For synchronous invocations, the maximum payload size is 6 MB. For asynchronous
invocations, the maximum payload size is 1 MB"; InvokeAsync: "The payload limit is 256KB"): over them, HTTP 413
RequestEntityTooLargeException, AWS's code on the wire (botocore's model names the shape RequestTooLargeException,
so boto3 raises a ClientError carrying AWS's code), in AWS's words as SDKs have reported them:
"Request must be smaller than 6291456 bytes for the InvokeFunction operation" (awslabs/aws-athena-query-federation
issue 793: "Status Code: 413; Error Code: RequestEntityTooLargeException") and "264496 byte payload is too large for
the Event invocation type (limit 262144 bytes)" (ASFHyP3/hyp3 issue 2241, before the limit became 1 MB).

A payload that is not JSON is InvalidRequestContentException, worded by the Jackson parser Lambda reads it with
(LocalStack's AWS-validated snapshots, test_lambda.snapshot.json, TestLambdaErrors::
test_lambda_invoke_payload_encoding_error):

    Could not parse request body into json: Could not parse payload into json: Invalid UTF-8 start byte 0x87
     at [Source: REDACTED (`StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION` disabled); line: 1, column: 3]

The reasons are Jackson's for the first fault: a byte that is not UTF-8 ("Invalid UTF-8 start byte 0x87", "Invalid
UTF-8 middle byte 0x41"), a character that cannot start a value ("Unexpected character ((CTRL-CHAR, code 153)):
expected a valid value (...)"), a word that is not true, false or null ("Unrecognized token 'hello': was expecting
(...)"), and the end of the input inside a value ("Unexpected end-of-input").
"""

from __future__ import annotations

import json
import re
import unicodedata
from typing import Any

from eddy.emulator.errors import AWSError, RequestEntityTooLargeException

SYNC_LIMIT = 6 * 1024 * 1024
EVENT_LIMIT = 1024 * 1024
INVOKE_ASYNC_LIMIT = 256 * 1024
_SOURCE = "[Source: REDACTED (`StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION` disabled); line: {}, column: {}]"
_VALUES = "(JSON String, Number, Array, Object or token 'null', 'true' or 'false')"
_WORD = re.compile(r"[A-Za-z0-9_$\-.+]+")


class InvalidRequestContentException(AWSError):
    code = "InvalidRequestContentException"


def checked_size(body: bytes, invocation_type: str) -> None:
    """Refuse a payload over the limit of its invocation type ("Event", "RequestResponse", "DryRun", "InvokeAsync")."""
    if invocation_type in ("Event", "InvokeAsync"):
        limit = EVENT_LIMIT if invocation_type == "Event" else INVOKE_ASYNC_LIMIT
        if len(body) > limit:
            raise RequestEntityTooLargeException(
                f"{len(body)} byte payload is too large for the Event invocation type (limit {limit} bytes)"
            )
    elif len(body) > SYNC_LIMIT:
        raise RequestEntityTooLargeException(
            f"Request must be smaller than {SYNC_LIMIT} bytes for the InvokeFunction operation"
        )


def event_of(body: bytes) -> Any:
    """The event a payload carries ({} for none, as Lambda hands an empty payload to a handler)."""
    if not body.strip():
        return {}
    try:
        return json.loads(body.decode("utf-8"))
    except UnicodeDecodeError as error:
        reason, at = _not_utf8(body, error.start)
    except json.JSONDecodeError as error:
        reason, at = _not_json(body.decode("utf-8"), error.pos)
    text = body[:at].decode("utf-8", "replace")
    line, column = text.count("\n") + 1, at - (body.rfind(b"\n", 0, at) + 1) + 1
    raise InvalidRequestContentException(
        f"Could not parse request body into json: Could not parse payload into "
        f"json: {reason}\n at {_SOURCE.format(line, column)}"
    )


def _described(char: str) -> str:
    """A character as Jackson names it in a message (ParserMinimalBase._getCharDesc)."""
    code = ord(char)
    if unicodedata.category(char) == "Cc":
        return f"(CTRL-CHAR, code {code})"
    return f"'{char}' (code {code})" if code <= 255 else f"'{char}' (code {code} / 0x{code:x})"


def _first_value_at(body: bytes) -> int:
    return len(body) - len(body.lstrip(b" \t\r\n"))


def _not_utf8(body: bytes, at: int) -> tuple[str, int]:
    """(reason, the offset Jackson's location names) for the first byte that is not UTF-8, at `at`."""
    if at == _first_value_at(body):  # where a value starts: the byte read as a character (ISO-8859-1)
        return _unexpected(chr(body[at])), at
    byte = body[at]
    if 0x80 <= byte < 0xC0 or byte >= 0xF8:
        return f"Invalid UTF-8 start byte 0x{byte:02x}", at + 1
    following = at + 1  # a multi-byte sequence's start: the byte after it is not a continuation
    if following < len(body):
        return f"Invalid UTF-8 middle byte 0x{body[following]:02x}", following + 1
    return "Unexpected end-of-input", len(body)


def _unexpected(char: str) -> str:
    return f"Unexpected character ({_described(char)}): expected a valid value {_VALUES}"


def _not_json(text: str, at: int) -> tuple[str, int]:
    """(reason, character offset) for valid UTF-8 that is not JSON; `at`: where Python's decoder stopped."""
    if at >= len(text.rstrip()):
        return "Unexpected end-of-input", len(text.encode())
    offset = len(text[:at].encode())
    word = _WORD.match(text, at)
    if word and text[at].isalpha():  # Jackson reads a word as a token it does not know
        return f"Unrecognized token '{word.group()}': was expecting {_VALUES}", len(text[: word.end()].encode())
    return _unexpected(text[at]), offset

"""A function's answer turned into the HTTP response its URL gives, as Lambda does (docs.aws.amazon.com/lambda/latest/
dg/urls-invocation.html, "Response payload format"; LocalStack's AWS-validated snapshots,
tests/aws/services/lambda_/test_lambda.snapshot.json TestLambdaURL::test_lambda_url_invocation, test_lambda_url_
invocation_exception, test_lambda_url_headers_and_status). Pure.

- An object with `statusCode` is a response: its statusCode (a number, or a string of one), headers, body (base64 when
  isBase64Encoded) and cookies (one Set-Cookie each); Content-Type application/json unless its headers name one.
- Anything else is the body of a 200 application/json response: a string as it is ("hello"), any other value as
  compact JSON ({"hello":"world"}, ["hello",3,true], 3, 3.1, true).
- A function error, or an answer that is no response (a statusCode that is no number): 502 "Internal Server Error".
- InvokeMode RESPONSE_STREAM: what the function returned, as it is (LocalStack's AWS-validated test_lambda_url_echo_
  invoke[RESPONSE_STREAM] reads the JSON the handler returned, statusCode and all), application/octet-stream unless
  the handler's runtime streamed a content type (Eddy's runtimes buffer a stream: the whole of it is sent at once).
"""

from __future__ import annotations

import base64
import binascii
import json
from typing import Any

from eddy.emulator.aws_requests import Response as HttpAnswer


def internal_server_error() -> HttpAnswer:
    """Lambda's answer when the function failed or answered no response (AWS-recorded: 502, this text)."""
    return HttpAnswer(502, {"Content-Type": "text/plain; charset=utf-8"}, b"Internal Server Error")


def _json(value: Any) -> bytes:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode()


def _content_type_given(headers: dict[str, str]) -> bool:
    return any(name.lower() == "content-type" for name in headers)


def http_answer(payload: Any) -> HttpAnswer:
    """The response for a function's (successful) answer, buffered mode."""
    if not (isinstance(payload, dict) and "statusCode" in payload):
        body = payload.encode() if isinstance(payload, str) else _json(payload)
        return HttpAnswer(200, {"Content-Type": "application/json"}, body)
    try:
        status = int(payload["statusCode"])
    except (TypeError, ValueError):
        return internal_server_error()
    if not 100 <= status <= 599:
        return internal_server_error()
    given_headers, given_cookies = payload.get("headers") or {}, payload.get("cookies") or []
    if not isinstance(given_headers, dict) or not isinstance(given_cookies, list):
        return internal_server_error()  # an answer Lambda cannot read as a response, as for a wrong statusCode
    headers = {str(name): str(value) for name, value in given_headers.items()}
    if not _content_type_given(headers):
        headers["Content-Type"] = "application/json"
    body = payload.get("body")
    if body is None:
        data = b""
    elif isinstance(body, str) and payload.get("isBase64Encoded") is True:
        try:
            data = base64.b64decode(body, validate=True)
        except binascii.Error:
            return internal_server_error()
    else:
        data = body.encode() if isinstance(body, str) else _json(body)
    cookies = [str(cookie) for cookie in given_cookies]
    return HttpAnswer(status, headers, data, cookies)


def streamed_answer(payload: Any, raw: bool) -> HttpAnswer:
    """The response in RESPONSE_STREAM mode: the function's answer itself, as its runtime wrote it."""
    if raw and isinstance(payload, str):
        body = payload.encode()
    else:
        body = json.dumps(payload).encode()
    return HttpAnswer(200, {"Content-Type": "application/octet-stream"}, body)


def raw_payload(text: str) -> Any:
    """A custom runtime's answer (the text it posted) read as the JSON it should be; text that is none is a string."""
    try:
        return json.loads(text)
    except ValueError:
        return text

"""What the function URL tests share: a function made through the Lambda API, its URL made public (both statements
AWS requires: docs.aws.amazon.com/lambda/latest/dg/urls-auth.html), and an HTTP call to the URL as any client makes
it (urllib: no SDK, no signature)."""

from __future__ import annotations

import json
import urllib.error
import urllib.request

from tests.emulator.functions.test_functions import create_function  # noqa: F401 (re-exported)
from tests.emulator.functions.test_aliases import answer  # noqa: F401
from tests.emulator.functions.test_versions import refused  # noqa: F401

FUNCTION_ARN = "arn:aws:lambda:us-east-1:123456789012:function"
#: answers with the event it got
ECHO = "def handler(event, context):\n    return {'event': event}\n"


def make_public(lam, name: str, qualifier: str | None = None) -> None:
    """The two statements an AuthType NONE URL needs, as SAM's FunctionUrlConfig adds them."""
    extra = {"Qualifier": qualifier} if qualifier else {}
    lam.add_permission(FunctionName=name, StatementId="FunctionUrlAllowPublicAccess", Action="lambda:InvokeFunctionUrl",
                       Principal="*", FunctionUrlAuthType="NONE", **extra)
    lam.add_permission(FunctionName=name, StatementId="FunctionUrlInvokeAllowPublicAccess",
                       Action="lambda:InvokeFunction", Principal="*", InvokedViaFunctionUrl=True, **extra)


def call(url: str, method: str = "GET", body: bytes | None = None, headers: dict | None = None):
    """(status, headers as a message object, body bytes) of one HTTP request to `url`."""
    request = urllib.request.Request(url, data=body, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=120) as response:
            return response.status, response.headers, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers, error.read()


def call_json(url: str, **options):
    status, headers, body = call(url, **options)
    return status, json.loads(body)

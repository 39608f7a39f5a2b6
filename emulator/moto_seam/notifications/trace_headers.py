"""The X-Ray trace header of the S3 (or SNS) request being answered, for the messages its events send.

S3 passes the request's X-Amzn-Trace-Id on to the queue its event notification goes to: the message's AWSTraceHeader
system attribute is the header as the request carried it (AWS's recorded test_xray_header, LocalStack's
tests/aws/services/s3/test_s3_notifications_sqs.snapshot.json at 8b9a79f05846:
"Root=1-3152b799-8954dae64eda91bc9a23a7e8;Parent=7fa8c0f79203be72;Sampled=1"). moto's S3Response notes it here as
it reads each request (setup_class); a request without the header clears what the thread's last one had. SNS's
Publish passes it on alike to an SQS subscriber (test_sns.snapshot.json, test_publish_sqs_from_sns_with_xray_propagation;
moto_seam/notifications/subscriptions.py notes SNS's requests with noting_the_trace).
"""

from __future__ import annotations

import functools
import threading
from typing import Any

from moto.s3.responses import S3Response

from eddy.emulator.moto_seam import Patches

_patches = Patches()
_request = threading.local()


def install() -> None:
    _patches.set(S3Response, "setup_class", noting_the_trace(S3Response.setup_class))


def uninstall() -> None:
    _patches.restore()


def current() -> str | None:
    """The X-Amzn-Trace-Id of the S3 request this thread answers, or None."""
    return getattr(_request, "trace_header", None)


def system_attributes() -> dict[str, Any] | None:
    """SQS's MessageSystemAttributes for a message S3 sends in the request this thread answers."""
    header = current()
    return {"AWSTraceHeader": {"StringValue": header, "DataType": "String"}} if header else None


def noting_the_trace(setup_class: Any) -> Any:
    """A moto response class's setup_class that notes the request's X-Amzn-Trace-Id (S3's here, SNS's in
    subscriptions.py)."""

    @functools.wraps(setup_class)
    def setup(self: Any, request: Any, *args: Any, **kwargs: Any) -> None:
        setup_class(self, request, *args, **kwargs)
        headers = getattr(request, "headers", None) or {}
        _request.trace_header = headers.get("X-Amzn-Trace-Id") or None

    return setup

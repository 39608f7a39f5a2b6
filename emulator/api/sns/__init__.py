"""SNS's requests Eddy answers before moto: the links in its notifications (links.py), and the requests AWS
refuses that moto accepts (refusals.py). Answers in SNS's query protocol: XML."""

from __future__ import annotations

import uuid

from eddy.emulator.aws_requests import Response

XMLNS = "http://sns.amazonaws.com/doc/2010-03-31/"


def xml_answer(status: int, body: str) -> Response:
    data = ('<?xml version="1.0"?>\n' + body).encode()
    return Response(
        status,
        {"Content-Type": "text/xml", "Content-Length": str(len(data)), "x-amzn-RequestId": str(uuid.uuid4())},
        data,
    )


def error_answer(code: str, message: str, status: int = 400) -> Response:
    """SNS's error: <ErrorResponse><Error><Type>Sender</Type><Code/><Message/></Error><RequestId/></ErrorResponse>."""
    escaped = message.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return xml_answer(
        status,
        f'<ErrorResponse xmlns="{XMLNS}"><Error><Type>Sender</Type><Code>{code}</Code>'
        f"<Message>{escaped}</Message></Error><RequestId>{uuid.uuid4()}</RequestId>"
        f"</ErrorResponse>",
    )

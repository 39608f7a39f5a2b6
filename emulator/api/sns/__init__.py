"""SNS's requests Eddy answers before moto: the links in its notifications (links.py), and the requests AWS
refuses that moto accepts (refusals.py, with names.py, platform_applications.py and sms.py). Answers in SNS's query
protocol: XML."""

from __future__ import annotations

import uuid

from eddy.emulator.aws_requests import Response

XMLNS = "http://sns.amazonaws.com/doc/2010-03-31/"

#: a query request's parameters, each name with its (first) value
Params = dict[str, str]


class Refused(Exception):
    """SNS's refusal of a request: its error code and message."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code, self.message = code, message


def invalid(message: str) -> Refused:
    """SNS's InvalidParameter, "Invalid parameter: <message>"."""
    return Refused("InvalidParameter", f"Invalid parameter: {message}")


def map_entries(params: Params, name: str) -> Params | None:
    """A request's map parameter `name` (<name>.entry.N.key / .value), None when the request has none."""
    prefix = f"{name}.entry."
    keys = {key[: -len(".key")]: value for key, value in params.items()
            if key.startswith(prefix) and key.endswith(".key")}
    if not keys and name not in params:
        return None
    return {key: params.get(f"{entry}.value", "") for entry, key in keys.items()}


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

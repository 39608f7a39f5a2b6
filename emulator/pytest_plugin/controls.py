"""One fixture API: what a control is called and what its answer means, the same for `eddy` and `eddy_server`.

A control is named by its path under /_eddy/, with or without the prefix ("delivered", "shards/split",
"/_eddy/clock"), or by moto's "/moto-api/reset". Its answer is its JSON body; a failure raises what the in-process
call raises, with the answer's message:

    409 {"__type": "NotDelivered", "message", "Report"}   -> NotDeliveredError(message, report)
    4xx/5xx {"__type": "...#ResourceNotFoundException", "message"} -> ResourceNotFoundException(message)
                                                                      (the AWSError subclass of that code)

    answer(409, body)          # raises NotDeliveredError("not everything was delivered: ...")
"""

from __future__ import annotations

import json
from typing import Any, Callable

from eddy.emulator import errors
from eddy.emulator.errors import AWSError, ValidationException
from eddy.emulator.triggers.failures import NotDeliveredError

#: moto's reset, which Eddy also answers (every table, stream, function, mapping and moto resource gone)
RESET_PATH = "/moto-api/reset"
_PREFIXES = ("_eddy/", "moto-api/")


def control_path(path: str) -> str:
    """A control's path on the server: "delivered" and "_eddy/delivered" are "/_eddy/delivered"."""
    name = path.lstrip("/")
    if name.startswith(_PREFIXES) or name == "_eddy":
        return "/" + name
    return "/_eddy/" + name


def answer(status: int, body: bytes) -> dict[str, Any]:
    """A control's answer: its JSON when it succeeded, else the exception the in-process call raises."""
    try:
        payload = json.loads(body or b"{}")
    except ValueError:
        payload = None
    if status < 400 and isinstance(payload, dict):
        return payload
    if status < 400:
        raise _error("InternalServerError", f"the control's answer is not a JSON object: {body[:200]!r}", 500)
    if not isinstance(payload, dict):
        raise _error("InternalServerError", body.decode(errors="replace").strip() or f"HTTP {status}", status)
    code = str(payload.get("__type", "InternalServerError")).rsplit("#", 1)[-1]
    message = str(payload.get("message", payload.get("Message", "")))
    if code == "NotDelivered":
        raise NotDeliveredError(message, payload.get("Report", {}))
    raise _error(code, message, status)


def _error(code: str, message: str, status: int) -> AWSError:
    """The AWSError class of errors.py that has `code` (ValidationException, ResourceNotFoundException, ...), carrying
    `message`; AWSError itself for a code errors.py does not name."""
    error_class = next(
        (
            value
            for value in vars(errors).values()
            if isinstance(value, type) and issubclass(value, AWSError) and value.code == code
        ),
        AWSError,
    )
    error = error_class(message)
    error.code, error.status = code, status
    return error


class ServerClock:
    """The emulator's clock of a server, as the in-process `eddy.clock` offers it: now(), advance(seconds), offset."""

    def __init__(self, control: Callable[..., dict[str, Any]]) -> None:
        self._control = control

    def now(self) -> float:
        """Seconds since the epoch on the server's emulator's clock."""
        return self._control("clock")["Now"]

    @property
    def offset(self) -> float:
        """How far the server's clock has been advanced."""
        return self._control("clock")["Offset"]

    def advance(self, seconds: float) -> None:
        """Move the server's clock forward; ValueError (as Clock.advance raises) with the server's message for a
        number of seconds it refuses."""
        try:
            self._control("clock", {"advance": seconds})
        except ValidationException as error:
            raise ValueError(error.message) from None

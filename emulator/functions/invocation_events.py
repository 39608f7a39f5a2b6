"""The event a function's handler gets, in the forms Invoker.invoke (functions/invocation.py) takes it: a plain event
(given to a registered callable as its own copy: `own_copy`), an OwnEvent (a poller's batch already made as that
copy) or a WrittenEvent (a poller's batch already written as JSON for a worker subprocess), and a worker's request as
its protocol line (`request_line`, runtimes/__init__.py's protocol)."""

from __future__ import annotations

import copy
import json
import marshal
from typing import Any


class OwnEvent(dict):
    """An event made for one invocation with nothing in it shared with Eddy's state (a poller's batch: its records
    made new, their images copied): Invoker.invoke gives it to a registered callable as it is, not copied again."""


class WrittenEvent:
    """An event already written as its compact JSON text (a poller's batch for a function in a worker subprocess: its
    records joined from the text the stream holds, nothing decoded); `records`: how many it carries. A worker is sent
    the text as it is (request_line); a registered callable (one an alias's weights drew for this batch) gets it
    decoded, as its own copy."""

    __slots__ = ("text", "records")

    def __init__(self, text: str, records: int) -> None:
        self.text = text
        self.records = records

    def decoded(self) -> dict[str, Any]:
        return json.loads(self.text)


_compact = json.JSONEncoder(separators=(",", ":")).encode  # json.dumps(..., separators=...) without a new encoder


def request_line(request: dict[str, Any]) -> str:
    """A worker's request as its protocol line (runtimes/__init__.py), compact JSON; an event already written (a
    WrittenEvent) goes in as its text, not decoded and encoded again."""
    if type(request.get("event")) is not WrittenEvent:
        return _compact(request) + "\n"
    members = (
        f"{_compact(name)}:{value.text if name == 'event' else _compact(value)}" for name, value in request.items()
    )
    return "{" + ",".join(members) + "}\n"


def own_copy(event: Any) -> Any:
    """A deep copy of an event: through marshal (C speed) for JSON's types, which events are made of."""
    try:
        return marshal.loads(marshal.dumps(event))
    except ValueError:  # a type marshal does not take (a tumbling window's state may hold anything)
        return copy.deepcopy(event)

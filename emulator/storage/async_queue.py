"""Lambda's asynchronous invocation queue on disk: each event not yet done, in the write-ahead log and snapshots.

Log entries (persistence.py writes them, flushed before the client hears the answer):
  {"op": "async_event", "state": {...}}   an event queued, or waiting for its retry (async_events.AsyncEvent's
                                          state: payload, attempts, next attempt's moment, age, last error)
  {"op": "async_event_done", "id": ...}   an event done: its records sent, never tried again
A snapshot keeps every event not yet done as {"kind": "async_event", "state": {...}}. Replaying them in order
leaves exactly the events that were not done at the stop, each as it was last written down; an attempt that was
running then (not written down) is tried again after the restart: at least once.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterator

if TYPE_CHECKING:
    from emulator.functions.async_invocations import AsyncInvocations

LOG_OPS = ("async_event", "async_event_done")
SNAPSHOT_KIND = "async_event"


def saved(state: dict[str, Any]) -> dict[str, Any]:
    return {"op": "async_event", "state": state}


def done(request_id: str) -> dict[str, Any]:
    return {"op": "async_event_done", "id": request_id}


def apply(queue: "AsyncInvocations", entry: dict[str, Any]) -> None:
    """Replay a log entry or a snapshot entry into the queue."""
    if entry.get("op") == "async_event_done":
        queue.forget(entry["id"])
    else:
        queue.restore(entry["state"])


def snapshot_entries(queue: "AsyncInvocations") -> Iterator[dict[str, Any]]:
    """The queue's events not yet done (the emulator's lock held), as snapshot entries."""
    for event in queue.events.values():
        yield {"kind": SNAPSHOT_KIND, "state": event.to_state()}

"""Asynchronous work on disk: each piece not yet done, in the write-ahead log and snapshots.

Two queues are kept this way, each under names of its own:
  ASYNC_EVENTS     Lambda's asynchronous invocation queue (functions/async_invocations.py): an event queued for a
                   function, or waiting for its retry (async_events.AsyncEvent's state: payload, attempts, next
                   attempt's moment, age, last error), keyed by its request id
  RULE_DELIVERIES  EventBridge rules' deliveries (eventbridge/deliveries.py): an event a rule matched, for one of its
                   Lambda or SQS targets, keyed by the delivery's id; written down before PutEvents answers

Log entries (persistence.py writes them, flushed before the client hears the answer):
  {"op": "<name>", "state": {...}}     a piece of work queued, or changed (an event waiting for its retry)
  {"op": "<name>_done", "id": ...}     done: never tried again
A snapshot keeps every piece not yet done as {"kind": "<name>", "state": {...}}. Replaying them in order leaves
exactly the work that was not done at the stop, each as it was last written down; work that was running then (not
written down as done) is done again after the restart: at least once.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Iterator, Protocol


class Restorable(Protocol):
    """A queue of work kept this way."""

    def restore(self, state: dict[str, Any]) -> None:
        """A piece of work as it was written down (recovery)."""

    def forget(self, key: str) -> None:
        """A piece of work written down as done (recovery)."""

    def states(self) -> Iterable[dict[str, Any]]:
        """Every piece not yet done (the emulator's lock held), as written down."""


@dataclass(frozen=True)
class LoggedQueue:
    """One queue's log entries and snapshot entries."""

    name: str

    @property
    def log_ops(self) -> tuple[str, str]:
        return self.name, f"{self.name}_done"

    def saved(self, state: dict[str, Any]) -> dict[str, Any]:
        return {"op": self.name, "state": state}

    def done(self, key: str) -> dict[str, Any]:
        return {"op": f"{self.name}_done", "id": key}

    def apply(self, queue: Restorable, entry: dict[str, Any]) -> None:
        """Replay a log entry or a snapshot entry into the queue."""
        if entry.get("op") == f"{self.name}_done":
            queue.forget(entry["id"])
        else:
            queue.restore(entry["state"])

    def snapshot_entries(self, queue: Restorable) -> Iterator[dict[str, Any]]:
        """The queue's work not yet done (the emulator's lock held), as snapshot entries."""
        for state in queue.states():
            yield {"kind": self.name, "state": state}


ASYNC_EVENTS = LoggedQueue("async_event")
RULE_DELIVERIES = LoggedQueue("rule_delivery")
QUEUES = (ASYNC_EVENTS, RULE_DELIVERIES)

"""Asynchronous work on disk: each piece not yet done, in the write-ahead log and snapshots.

A queue's owner declares a QueueChannel under its own name and the composition root registers it; three are kept
this way:
  async_event      Lambda's asynchronous invocation queue (functions/async_invocation/queue.py): an event queued for a
                   function, or waiting for its retry (async_invocation/events.py AsyncEvent's state: payload,
                   attempts, next attempt's moment, age, last error), keyed by its request id
  rule_delivery    EventBridge rules' deliveries (eventbridge/deliveries.py): an event a rule matched, for one of its
                   Lambda or SQS targets, keyed by the delivery's id; written down before PutEvents answers
  sns_http_delivery  SNS's notifications to HTTP/S subscribers (notifications/http_endpoints.py): one not yet
                   delivered nor given up on, or waiting for its retry, keyed by its id; written down before Publish
                   answers

Log entries (flushed before the client hears the answer):
  {"op": "<name>", "state": {...}}     a piece of work queued, or changed (an event waiting for its retry)
  {"op": "<name>_done", "id": ...}     done: never tried again
A snapshot keeps every piece not yet done as {"kind": "<name>", "state": {...}}. Replaying them in order leaves
exactly the work that was not done at the stop, each as it was last written down; work that was running then (not
written down as done) is done again after the restart: at least once.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, Iterator, Protocol

from eddy.emulator.storage.channels import Channel, DurableLog


class Restorable(Protocol):
    """A queue of work kept this way."""

    def restore(self, state: dict[str, Any]) -> None:
        """A piece of work as it was written down (recovery)."""

    def forget(self, key: str) -> None:
        """A piece of work written down as done (recovery)."""

    def states(self) -> Iterable[dict[str, Any]]:
        """Every piece not yet done (the emulator's lock held), as written down."""


class QueueChannel(Channel):
    """One queue's durable channel (storage/channels.py): its log entries and snapshot entries, under its name."""

    def __init__(self, name: str, log: DurableLog, queue: Restorable) -> None:
        self.name, self.ops, self.kinds = name, (name, f"{name}_done"), (name,)
        self.log = log
        self.queue = queue

    def saved(self, state: dict[str, Any]) -> None:
        """A piece of work queued, or changed."""
        self.log.log({"op": self.name, "state": state})

    def queued(self, state: dict[str, Any], keep: Callable[[], Any]) -> None:
        """A new piece of work written down, then kept (`keep`) once its request's entries are written
        (units_of_work.py): one whose request the disk refused is neither kept, snapshotted nor run."""
        self.log.log({"op": self.name, "state": state})
        self.log.after_commit(keep)

    def done(self, key: str) -> None:
        """A piece of work done: never tried again."""
        self.log.log({"op": f"{self.name}_done", "id": key})

    def replay(self, entry: dict[str, Any]) -> None:
        if entry.get("op") == f"{self.name}_done":
            self.queue.forget(entry["id"])
        else:
            self.queue.restore(entry["state"])

    def restore(self, entry: dict[str, Any]) -> None:
        self.queue.restore(entry["state"])

    def snapshot_entries(self, generation: int) -> Iterator[dict[str, Any]]:
        """The queue's work not yet done (the emulator's lock held), as snapshot entries."""
        for state in self.queue.states():
            yield {"kind": self.name, "state": state}

"""What the Emulator tells its persistence: every change to durable state, as calls on an observer.

NoPersistence is the observer of an in-memory emulator (nothing written down, nothing recovered); Persistence
(persistence.py) writes each call down.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from eddy.emulator.functions.registry import Function
from eddy.emulator.streams.stream import StreamObserver

if TYPE_CHECKING:
    from eddy.emulator.triggers.event_source_mappings import EventSourceMapping

TableKey = tuple[str, str, str]


class NoPersistence(StreamObserver):
    """In-memory mode: nothing is written down, nothing recovered."""

    durable = False

    def table_request(self, account_id: str, region: str, target: str, body: dict[str, Any]) -> None:
        """A DynamoDB request changed a table's definition."""

    def commit_entry(self, table: TableKey, version: int, now: float, changes: list[Any], by_ttl: bool,
                     last_sequence_number: int | None) -> bytes | None:
        """A commit's log entry (none: nothing is written down)."""
        return None

    def log_commits(self, entries: list[bytes]) -> None:
        """An operation's commits, one a table, all of them or none."""

    def clock(self, offset: float) -> None:
        """The clock moved."""

    def function_saved(self, function: Function) -> None:
        """A function was created or changed."""

    def function_deleted(self, function: Function) -> None:
        """A function was deleted."""

    def mapping_saved(self, mapping: "EventSourceMapping", start_position: int) -> None:
        """An event source mapping was created or changed."""

    def mapping_deleted(self, uuid: str) -> None:
        """An event source mapping was deleted."""

    def kinesis_stream_changed(self, stream: Any) -> None:
        """A Kinesis data stream was created, resharded or had its retention changed."""

    def kinesis_record_put(self, stream: Any, shard: Any, record: Any) -> None:
        """A record was put on a Kinesis data stream."""

    def kinesis_stream_deleted(self, stream: Any) -> None:
        """A Kinesis data stream was deleted."""

    def kinesis_destinations_saved(self, table: TableKey, destinations: list[dict[str, Any]]) -> None:
        """A table's Kinesis streaming destinations changed."""

    def queue_messages_changed(self, change: dict[str, Any]) -> None:
        """A queue mapping's poller received, dead-lettered or deleted messages (moto_seam/sqs.py's change)."""

    def async_event_saved(self, state: dict[str, Any]) -> None:
        """An asynchronous invocation's event was queued, or waits for its retry (storage/async_queue.py)."""

    def async_event_done(self, request_id: str) -> None:
        """An asynchronous invocation's event is done: its records were sent."""

    def rule_delivery_saved(self, state: dict[str, Any]) -> None:
        """An event a rule matched is to be delivered to one of its targets (storage/async_queue.py)."""

    def rule_delivery_done(self, delivery_id: str) -> None:
        """A rule's delivery is done: the target has the event, or its dead-letter queue does (or had none)."""

    def service_request(self, fields: dict[str, Any], body: bytes) -> None:
        """moto accepted a request that may have changed one of its services (service_journal.py)."""

    def function_logs(self, account_id: str, region: str, group: str, stream: str,
                      events: list[tuple[int, str]]) -> None:
        """An invocation's log events were written into moto's CloudWatch Logs (functions/log_groups.py)."""

    def recover(self) -> None:
        """Nothing to recover."""

    def close(self) -> None:
        """Nothing to close."""

    def reset(self) -> None:
        """Nothing to forget."""

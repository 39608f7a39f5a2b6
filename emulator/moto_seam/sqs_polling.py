"""A queue read as Lambda's SQS poller reads it, in moto's SQS (whose internals are touched only in the seam): how
many messages a receive would take now and when the next becomes receivable; ReceiveMessage of up to a batch (FIFO
groups in order, a group with a message in flight skipped, a message received maxReceiveCount times moved to the
RedrivePolicy's dead-letter queue, at O(batch) rather than moto's O(queue) per message); DeleteMessage of a whole
batch in one pass. Each receive's or delete's change is handed to `write_down` (the log) before it is made, and
`apply_change` makes it again on recovery. Messages leave as ReceivedMessage values in SQS's own words.

    received, change = receive(find_queue(arn), 10, clock.now(), 6 * 1024 * 1024, write_down=journal.queue_messages_changed)
    delete(queue, received, write_down=journal.queue_messages_changed)

moto's SQS on the emulator's clock, its notifications and find_queue: sqs.py.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import os
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Callable

from moto.sqs.models import Message, Queue

from eddy.emulator.moto_seam.listings import queue_activity
from eddy.emulator.moto_seam.speedups import sqs as sqs_speedups
from eddy.emulator.moto_seam.sqs import find_queue

WriteDown = Callable[[dict[str, Any]], None]  # a poller's change to a queue logged before it is made


@dataclass(slots=True)
class ReceivedMessage:
    """One received message, as SQS describes it; `message` is moto's, for deleting it."""

    message_id: str
    receipt_handle: str
    body: str
    md5_of_body: str
    #: SQS's MD5 of the message attributes (moto's Message.attribute_md5, AWS's digest), None without attributes
    md5_of_message_attributes: str | None
    attributes: dict[str, str]
    message_attributes: dict[str, dict[str, Any]]
    size: int
    message: Message


def _blocked_groups(queue: Queue, milliseconds: float) -> set[str]:
    """A FIFO queue's groups with a message in flight: none of their messages may be received."""
    if not queue.fifo_queue:
        return set()
    return {m.group_id for m in queue.pending_messages if m.group_id is not None and m.visible_at >= milliseconds}


def deliverable(queue: Queue, now: float, limit: int) -> int:
    """How many messages (at most `limit`) a receive would return now."""
    milliseconds = now * 1000.0
    with queue._messages_lock:
        blocked = _blocked_groups(queue, milliseconds)
        count = 0
        for message in queue._messages:
            if (
                message.visible_at < milliseconds
                and message.delayed_until <= milliseconds
                and (message.group_id is None or message.group_id not in blocked)
            ):
                count += 1
                if count >= limit:
                    break
        return count


def next_change(queue: Queue, now: float) -> float | None:
    """When (emulator seconds) the next invisible or delayed message becomes receivable, or None."""
    milliseconds = now * 1000.0
    with queue._messages_lock:
        moments = [
            max(m.visible_at, m.delayed_until)
            for m in queue._messages
            if m.visible_at >= milliseconds or m.delayed_until > milliseconds
        ]
    return min(moments) / 1000.0 if moments else None


def receive(
    queue: Queue, limit: int, now: float, max_bytes: int, write_down: WriteDown | None = None
) -> tuple[list[ReceivedMessage], dict[str, Any] | None]:
    """Receive up to `limit` messages (and at most `max_bytes` of bodies) as ReceiveMessage would, on `now`.

    A FIFO queue answers as many messages of one message group as it can, in the group's order, then the next
    group's (SQS: "SQS returns as many messages with the same message group ID as possible. The ReceiveMessage API
    call can also return messages from other available message groups", re:Post knowledge center
    sqs-fifo-messages-not-returned); a group with a message in flight gives nothing.

    Also answers what the receive changed (a `change` for `apply_change`, None if nothing), handed to `write_down`
    (persistence logs it: a restart keeps receive counts, visibility and dead-letter moves) before any of it is
    made: if that raises (a disk that refuses the log entry), the queue is as it was."""
    milliseconds = now * 1000.0
    timeout_ms = int(queue.visibility_timeout) * 1000
    policy = queue.redrive_policy if queue.dead_letter_queue is not None else None
    chosen: list[tuple[Message, int]] = []
    to_dead_letter_queue: list[Message] = []
    size = 0
    token = os.urandom(48).hex()
    with queue._messages_lock:
        for message in _receivable(queue, milliseconds):
            if policy and message.approximate_receive_count >= policy["maxReceiveCount"]:
                to_dead_letter_queue.append(message)
                continue
            body_size = len(message.body.encode())
            if chosen and size + body_size > max_bytes:
                break
            size += body_size
            chosen.append((message, body_size))
            if len(chosen) >= limit:
                break
        if not chosen and not to_dead_letter_queue:
            return [], None
        change = {
            "queue": queue.queue_arn,
            "at": milliseconds,
            "visibility_ms": timeout_ms,
            "token": token,
            "received": [m.id for m, _ in chosen],
            "dead_lettered": [m.id for m in to_dead_letter_queue],
        }
        if write_down is not None:
            write_down(change)  # logged first: nothing is received or moved unless the log has it
        if to_dead_letter_queue:
            moved = {id(m) for m in to_dead_letter_queue}
            queue._messages = [m for m in queue._messages if id(m) not in moved]
            for message in to_dead_letter_queue:
                queue_activity.returned(queue, message)
                queue.pending_messages.discard(message)
        received = []
        for message, body_size in chosen:
            _mark_received(queue, message, milliseconds, timeout_ms, token)
            received.append(_received(message, body_size))
        queue_activity.received_all(queue, [r.message for r in received], milliseconds / 1000.0)
    for message in to_dead_letter_queue:  # outside this queue's lock: the DLQ takes its own
        queue.dead_letter_queue.add_message(message)
    return received, change


def _receivable(queue: Queue, milliseconds: float) -> Iterator[Message]:
    """The messages a receive may take now, in the order it takes them (the queue's lock held): a standard queue's
    in its order, lazily; a FIFO queue's group by group, each group's in its order, the groups in the order of their
    oldest message, groups with a message in flight left out."""
    retention_ms = int(queue.message_retention_period) * 1000
    blocked = _blocked_groups(queue, milliseconds)
    groups: dict[str, list[Message]] = {}
    for message in queue._messages:
        if message.visible_at >= milliseconds or message.delayed_until > milliseconds:
            continue
        if message.sent_timestamp is not None and message.sent_timestamp + retention_ms <= milliseconds:
            continue  # past the queue's MessageRetentionPeriod: SQS no longer returns it
        group = message.group_id
        if not queue.fifo_queue or group is None:
            yield message
        elif group not in blocked:
            groups.setdefault(group, []).append(message)
    for messages in groups.values():
        yield from messages


def _mark_received(queue: Queue, message: Message, milliseconds: float, timeout_ms: int, token: str) -> None:
    if message.approximate_receive_count:  # received before: visible again without a delete
        queue_activity.returned(queue, message)
    if not message.approximate_first_receive_timestamp:
        message.approximate_first_receive_timestamp = int(milliseconds)
    message.approximate_receive_count += 1
    message.visible_at = milliseconds + timeout_ms
    if message.receipt_handle is not None:
        message._old_receipt_handles.append(message.receipt_handle)
    # opaque and unique per receive, as SQS's are: this receive's random token, the message and its receive count
    message.receipt_handle = base64.urlsafe_b64encode(
        f"{token}:{message.id}:{message.approximate_receive_count}".encode()
    ).decode()
    sqs_speedups.remember(message)
    queue.pending_messages.add(message)


def _received(message: Message, body_size: int) -> ReceivedMessage:
    attributes = {
        "ApproximateReceiveCount": str(message.approximate_receive_count),
        "SentTimestamp": str(message.sent_timestamp),
    }
    if message.group_id is not None:
        if message.sequence_number is not None:
            attributes["SequenceNumber"] = message.sequence_number
        attributes["MessageGroupId"] = message.group_id
    attributes["SenderId"] = message.sender_id
    if message.group_id is not None and message.deduplication_id is not None:
        attributes["MessageDeduplicationId"] = message.deduplication_id
    attributes["ApproximateFirstReceiveTimestamp"] = str(message.approximate_first_receive_timestamp)
    md5_of_body = hashlib.md5(message.body.encode("utf-8")).hexdigest()  # Message.body_md5, without moto's wrapper
    md5_of_attributes = message.attribute_md5 if message.message_attributes else None
    return ReceivedMessage(
        message.id,
        message.receipt_handle,
        message.body,
        md5_of_body,
        md5_of_attributes,
        attributes,
        {name: dict(value) for name, value in message.message_attributes.items()},
        body_size,
        message,
    )


def delete(queue: Queue, messages: list[ReceivedMessage], write_down: WriteDown | None = None) -> dict[str, Any] | None:
    """Delete received messages (a batch that succeeded, or messages a filter did not match); answers the change
    (for `apply_change`; None: nothing to delete), handed to `write_down` first: if that raises, nothing is deleted."""
    if not messages:
        return None
    change = {"queue": queue.queue_arn, "deleted": [m.message_id for m in messages]}
    if write_down is not None:
        write_down(change)
    _delete_messages(queue, [m.message for m in messages])
    return change


def _delete_messages(queue: Queue, messages: list[Message]) -> None:
    with queue._messages_lock:
        if len(messages) <= 64:  # a batch sits near the head of the queue: remove() finds each quickly
            for message in messages:
                with contextlib.suppress(ValueError):  # already deleted through the API
                    queue._messages.remove(message)
        else:
            gone = {id(m) for m in messages}
            queue._messages = [m for m in queue._messages if id(m) not in gone]
        for message in messages:
            queue.pending_messages.discard(message)
            queue.deleted_messages.update(message.all_receipt_handles)
        queue_activity.note_all(queue, "Deleted", messages)


def apply_change(change: dict[str, Any]) -> None:
    """Do again what a poller's receive or delete did (`change` as `receive` / `delete` answered it): recovery
    replays it in its place among the requests the services' journal replays, so the queue comes back with the
    same receive counts, first receive times, receipt handles, visibility and dead-letter moves."""
    queue = find_queue(change["queue"])
    if queue is None:
        return  # a change is logged while its queue exists, in order, so this is only defensive
    wanted = set(change.get("received", ())) | set(change.get("dead_lettered", ())) | set(change.get("deleted", ()))
    found: dict[str, Message] = {}
    with queue._messages_lock:
        for message in queue._messages:
            if message.id in wanted:
                found[message.id] = message
                if len(found) == len(wanted):
                    break
    if "deleted" in change:
        _delete_messages(queue, [found[i] for i in change["deleted"] if i in found])
        return
    moved = [found[i] for i in change["dead_lettered"] if i in found]
    with queue._messages_lock:
        for message_id in change["received"]:
            if message_id in found:
                _mark_received(queue, found[message_id], change["at"], change["visibility_ms"], change["token"])
        if moved:
            gone = {id(m) for m in moved}
            queue._messages = [m for m in queue._messages if id(m) not in gone]
            for message in moved:
                queue.pending_messages.discard(message)
    for message in moved:
        queue.dead_letter_queue.add_message(message)

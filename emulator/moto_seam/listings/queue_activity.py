"""Each queue's last ACTIVITY_KEPT message events, for `eddy tail --queue` (read without receiving anything).

moto_seam/sqs.py (add_message's wrapper), moto_seam/sqs_polling.py (the pollers' receive and delete) and moto_seam/speedups/sqs.py (a
client's ReceiveMessage and DeleteMessage) call these: Sent, Received (by a poller of a mapping
or a pipe, or by a ReceiveMessage), Deleted, Returned (visible again without a delete: the attempt failed and the
visibility timeout ran out, or was set to 0), DeadLettered (on the source queue) and ArrivedFromSourceQueue (on the
dead-letter queue), moved by the RedrivePolicy. The events live on moto's Queue (so a snapshot keeps them); one
sequence numbers them across queues and goes on after a restored log's numbers.
"""

from __future__ import annotations

import itertools
from collections import deque
from collections.abc import Callable, Iterable
from typing import Any

from moto.sqs.models import Message, Queue, sqs_backends

ACTIVITY_KEPT = 1000
BODY_SHOWN = 200
_events = itertools.count(1)
_BY = {by: {"By": by} for by in ("Poller", "ReceiveMessage")}
_now: Callable[[], float] | None = None


def use_clock(now: Callable[[], float] | None) -> None:
    """The emulator's clock for the events' times (moto_seam/sqs.py's activate and deactivate)."""
    global _now
    _now = now


def note(
    queue: Queue, event: str, message: Message, at: float | None = None, detail: dict[str, Any] | None = None
) -> None:
    """Keep one event."""
    note_all(queue, event, (message,), at, detail)


def note_all(
    queue: Queue, event: str, messages: Iterable[Message], at: float | None = None, detail: dict[str, Any] | None = None
) -> None:
    """Keep one event for each message (as tuples, in one pass: this runs for every batch a poller receives and
    deletes)."""
    log = queue.__dict__.get("_eddy_activity")
    if log is None:
        log = queue.__dict__.setdefault("_eddy_activity", deque(maxlen=ACTIVITY_KEPT))
    if at is None and _now is not None:
        at = _now()
    sequence = next(_events)
    if log and log[-1][0] >= sequence:  # a log restored from a snapshot: number on after it
        sequence = _resume_events(log[-1][0])
    append, number = log.append, _events.__next__
    for message in messages:  # numbers increase; one may be skipped between batches
        append((sequence, at, event, message.id, message.approximate_receive_count, detail))
        sequence = number()


def _resume_events(last: int) -> int:
    global _events
    _events = itertools.count(last + 2)
    return last + 1


def queue_of(message: Message) -> Queue | None:
    """The queue a message was last put in (its ARN is kept on the message: a snapshot carries it)."""
    parts = (message.__dict__.get("_eddy_queue_arn") or "").split(":")
    if len(parts) != 6:
        return None
    return sqs_backends[parts[4]][parts[3]].queues.get(parts[5])


def added(queue: Queue, message: Message) -> None:
    """A message put in `queue`: sent, or moved there by its source queue's RedrivePolicy."""
    source = queue_of(message)
    if source is not None and source is not queue:
        returned(source, message)
        note(source, "DeadLettered", message, detail={"DeadLetterQueueArn": queue.queue_arn})
        note(queue, "ArrivedFromSourceQueue", message, detail={"SourceQueueArn": source.queue_arn})
    else:
        note(queue, "Sent", message, detail={"Body": message.body[:BODY_SHOWN]})
    message._eddy_queue_arn = queue.queue_arn


def received(queue: Queue | None, message: Message) -> None:
    """A message received by a client's ReceiveMessage."""
    if queue is not None:
        note(queue, "Received", message, detail=_BY["ReceiveMessage"])


def received_all(queue: Queue, messages: list[Message], at: float) -> None:
    """The messages a poller (of a mapping or a pipe) received in one batch."""
    if messages:
        note_all(queue, "Received", messages, at, _BY["Poller"])


def returned(queue: Queue | None, message: Message) -> None:
    """Note that a received message is visible again without having been deleted (once per receive)."""
    count = message.approximate_receive_count
    if queue is None or not count or message.__dict__.get("_eddy_returned", 0) >= count:
        return
    message._eddy_returned = count
    note(queue, "Returned", message, at=message.visible_at / 1000.0)


def activity(queue: Queue, after: int, now: float) -> list[dict[str, Any]]:
    """The queue's message events numbered above `after`, oldest first (a message whose visibility timeout ran out
    since the last look is noted Returned first, at the moment it became visible)."""
    milliseconds = now * 1000.0
    with queue._messages_lock:
        for message in queue._messages:
            if message.approximate_receive_count and message.visible_at < milliseconds:
                returned(queue, message)
        kept = [event for event in queue.__dict__.get("_eddy_activity", ()) if event[0] > after]
    return [
        dict(Sequence=sequence, Time=at, Event=event, MessageId=message_id, ReceiveCount=count, **(detail or {}))
        for sequence, at, event, message_id, count, detail in kept
    ]

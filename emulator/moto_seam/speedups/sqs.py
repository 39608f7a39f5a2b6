"""moto's SQS Queue methods that cost O(messages in the queue) per call, replaced by ones with the same answers.

- `Queue.delete_message` (DeleteMessage, DeleteMessageBatch per entry, and a queue mapping's deletes): moto walks
  every message of the queue twice, building each message's list of receipt handles, to find the one message
  that ever had the handle. Here each receipt handle a receive hands out is remembered (`remember`, called by
  moto's Message.mark_received as wrapped here and by moto_seam/sqs_polling.py's receive), so the message is found at
  once and taken out of the queue's list by identity (list.remove: a pointer comparison per message, in C).
  A handle not remembered (one from before a restart, or never handed out) takes moto's own method: the same
  answer, ReceiptHandleIsInvalid included. Already-deleted handles are accepted first, as moto does. The queue's
  lock is held, so a queue mapping's poller never walks a list being rebuilt.
- `Queue.messages` (every visible, undelayed message: moto builds the whole list on each ReceiveMessage, which
  then takes the first few): a view that yields them in the queue's order as it is walked, so a receive reads only
  as far as its batch; `len()` and truth (ApproximateNumberOfMessages, a long poll's wait) count as moto's list
  does. The clock is read once per walk rather than once per message: the same messages on the emulator's
  virtual clock, and on a real one the difference is the microseconds a walk takes. A FIFO queue's are yielded in
  the order SQS receives them, not moto's: group by group (the groups in the order of their oldest message, each
  group's in its order), so moto's ReceiveMessage answers "as many messages with the same message group ID as
  possible" first (Amazon SQS Developer Guide, "FIFO queue logic": a1, a2, b1 where moto answered a1, b1, a2); moto
  already holds back a group with a message in flight. `Queue.pending_message_groups` (the groups in flight, which
  moto's receive reads once before its walk) first lets go of the messages whose visibility timeout has passed, as
  moto's walk does when it meets them: so a group whose messages all became visible again is received whole and in
  order (moto, meeting b1 while b2 was still marked in flight, skipped b1 and answered b2 first).
SendMessage itself is O(1) once moto_seam/sqs.py reads Queue.attributes lazily (a FIFO queue with deduplication
still compares each message's deduplication id, in moto's add_message: O(queue), as on moto).
"""

from __future__ import annotations

import weakref
from collections.abc import Iterator
from typing import Any

from moto.sqs import models as sqs_models
from moto.sqs.models import Message, Queue

from eddy.emulator.moto_seam.listings import queue_activity
from eddy.emulator.moto_seam import Patches

original_delete_message = Queue.delete_message
original_messages: property = Queue.__dict__["messages"]
original_pending_message_groups: property = Queue.__dict__["pending_message_groups"]
original_mark_received = Message.mark_received

#: receipt handle -> the message it was handed out for (weakly: a deleted message is not kept alive by it)
_handles: weakref.WeakValueDictionary[str, Message] = weakref.WeakValueDictionary()


def remember(message: Message) -> None:
    """`message` was just received: its new receipt handle finds it."""
    handle = message.receipt_handle
    if handle is not None:
        _handles[handle] = message


def _mark_received(self: Message, visibility_timeout: int | None = None) -> None:
    queue = queue_activity.queue_of(self)
    queue_activity.returned(queue, self)  # for `eddy tail --queue`
    original_mark_received(self, visibility_timeout)
    remember(self)
    queue_activity.received(queue, self)


def _delete_message(self: Queue, receipt_handle: str) -> None:
    with self._messages_lock:
        if receipt_handle in self.deleted_messages:
            return  # already deleted: accepted again, as moto (and SQS) accept it
        message = _handles.get(receipt_handle)
        if message is not None:
            try:
                self._messages.remove(message)
            except ValueError:  # not (or no longer) in this queue: moto decides
                message = None
        if message is None:
            return original_delete_message(self, receipt_handle)
        self.pending_messages.discard(message)
        self.deleted_messages.update(message.all_receipt_handles)
        queue_activity.note(self, "Deleted", message)
        return None


class VisibleMessages:
    """moto's Queue.messages, read as it is walked."""

    __slots__ = ("_queue",)

    def __init__(self, queue: Queue) -> None:
        self._queue = queue

    def __iter__(self) -> Iterator[Message]:
        now = sqs_models.unix_time_millis()
        visible = (m for m in self._queue._messages if now > m.visible_at and not now < m.delayed_until)
        if not self._queue.fifo_queue:
            yield from visible
            return
        groups: dict[Any, list[Message]] = {}
        for message in visible:
            groups.setdefault(message.group_id, []).append(message)
        for messages in groups.values():
            yield from messages

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def __bool__(self) -> bool:
        return next(iter(self), None) is not None

    def __eq__(self, other: object) -> bool:
        return list(self) == other

    __hash__ = None  # type: ignore[assignment]


def _messages(self: Queue) -> Any:
    return VisibleMessages(self)


def _pending_message_groups(self: Queue) -> set[str]:
    now = sqs_models.unix_time_millis()
    self._pending_messages.difference_update([m for m in self._pending_messages if now > m.visible_at])
    return {message.group_id for message in self._pending_messages if message.group_id is not None}


_patches = Patches()


def install() -> None:
    _patches.set(Queue, "delete_message", _delete_message)
    _patches.set(Queue, "messages", property(_messages))
    _patches.set(Queue, "pending_message_groups", property(_pending_message_groups))
    _patches.set(Message, "mark_received", _mark_received)


def uninstall() -> None:
    _patches.restore()

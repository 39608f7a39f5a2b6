"""The seam between moto's SQS and Eddy's queue event source mappings (moto's SQS internals are touched only here).

What Eddy needs of a queue, as Lambda's SQS poller sees it:
  - moto's SQS on the emulator's clock: SentTimestamp, visibility timeouts, delays and retention read the
    Clock (moto.sqs.models' unix_time / unix_time_millis), so `clock.advance(31)` makes a message whose
    30-second VisibilityTimeout ran out visible again, as it would be 31 seconds later on AWS;
  - a notification (the emulator's `activity` condition) whenever a message is added to a queue or its visibility
    changes, so pollers wait on a condition rather than sleep-polling;
  - ReceiveMessage and DeleteMessage for a poller, each change logged before it is made: sqs_polling.py;
  - Queue.attributes read lazily: moto's SendMessage reads it for one attribute, and the property counts every
    message three times (ApproximateNumberOf*), which made filling a queue quadratic (20,000 messages: minutes).
    QueueAttributes computes each value when it is read, with moto's keys, order and values (pinned).
Queues are found by their ARN (find_queue) and counted on the emulator's clock (queue_figures, dead_letter_figures).

Each message's events (sent, received, deleted, returned, dead-lettered) are noted for `eddy tail --queue` by
listings/queue_activity.py, called from add_message's wrapper, the pollers' receive and delete (sqs_polling.py), and speedups/sqs.py.
"""

from __future__ import annotations

import functools
import re
import json
import threading
import time
from collections.abc import Iterator, Mapping
from typing import Any, Callable

from moto.core.utils import camelcase_to_underscores
from moto.sqs import models as sqs_models
from moto.sqs.models import Message, Queue, sqs_backends
from moto.sqs.responses import SQSResponse

from eddy.emulator.moto_seam.listings import queue_activity
from eddy.emulator.moto_seam import Patches

QUEUE_ARN = re.compile(r"^arn:aws[a-z-]*:sqs:(?P<region>[a-z0-9-]+):(?P<account>\d{12}):(?P<name>[A-Za-z0-9_.-]+)$")

_now: Callable[[], float] | None = None
_activity: threading.Condition | None = None
_original_time = (sqs_models.unix_time, sqs_models.unix_time_millis)
#: moto's own Queue.attributes property (the seam's test compares QueueAttributes with it)
MOTO_ATTRIBUTES: property = Queue.__dict__["attributes"]


def activate(now: Callable[[], float], activity: threading.Condition) -> None:
    """Put moto's SQS on the clock `now` and notify `activity` when messages arrive (the wrappers: install())."""
    global _now, _activity
    _now, _activity = now, activity
    queue_activity.use_clock(now)
    unix_time, unix_time_millis = _original_time
    sqs_models.unix_time = lambda dt=None: now() if dt is None else unix_time(dt)
    sqs_models.unix_time_millis = lambda dt=None: now() * 1000.0 if dt is None else unix_time_millis(dt)


def deactivate() -> None:
    global _now, _activity
    _now, _activity = None, None
    queue_activity.use_clock(None)
    sqs_models.unix_time, sqs_models.unix_time_millis = _original_time


def _notify() -> None:
    activity = _activity
    if activity is not None:
        with activity:
            activity.notify_all()


_patches = Patches()


def install() -> None:
    """moto's SQS telling Eddy of messages added and visibility changed; Queue.attributes read lazily. The clock
    (moto.sqs.models' unix_time) is the emulator's only while one is active (`activate`). (Queue.delete_message
    holds the queue's lock while it takes a message out: speedups/sqs.py.)"""
    add_message, change_visibility = Queue.add_message, Message.change_visibility

    def added(self: Queue, message: Message) -> None:
        if self.fifo_queue and not message.approximate_receive_count:  # sent, not moved here by a redrive
            message.sequence_number = _next_sequence_number(self)
        queue_activity.added(self, message)
        add_message(self, message)
        _notify()

    def visibility_changed(self: Message, visibility_timeout: int) -> None:
        change_visibility(self, visibility_timeout)
        _notify()

    _patches.set(Queue, "add_message", added)
    _patches.set(Message, "change_visibility", visibility_changed)
    _patches.set(Queue, "attributes", property(QueueAttributes))
    for batch in BATCH_ANSWERS:
        _patches.set(SQSResponse, batch, _without_empty_failed(getattr(SQSResponse, batch)))


#: the batch operations whose answer has no Failed when none failed (LocalStack's AWS-validated snapshots:
#: test_lambda_integration_sqs.snapshot.json's "send-message-batch-result-*", test_sqs.snapshot.json's batches; moto
#: answered "Failed": [])
BATCH_ANSWERS = ("send_message_batch", "delete_message_batch", "change_message_visibility_batch")


def _without_empty_failed(answer: Callable[[SQSResponse], Any]) -> Callable[[SQSResponse], Any]:
    @functools.wraps(answer)
    def answered(self: SQSResponse) -> Any:
        result = answer(self)
        if result.result.get("Failed") == []:
            del result.result["Failed"]
        return result

    return answered


def uninstall() -> None:
    _patches.restore()


def _next_sequence_number(queue: Queue) -> str:
    """A FIFO message's SequenceNumber as SQS gives it: 20 digits, growing with each message sent to the queue ("a
    large, non-consecutive number ... SequenceNumber continues to increase for a particular MessageGroupId", SQS API
    Reference, SendMessage); moto draws 20 random digits (and none with ContentBasedDeduplication), so a group's
    messages did not sort by it. Milliseconds on the emulator's clock, then a count within the millisecond."""
    milliseconds = int((_now() if _now is not None else time.time()) * 1000)
    number = max(milliseconds * 10_000_000, getattr(queue, "_eddy_sequence_number", 0) + 1)
    queue._eddy_sequence_number = number
    return f"{number:020d}"


class QueueAttributes(Mapping):
    """moto's Queue.attributes (the same keys, order and values), each value computed when it is read."""

    def __init__(self, queue: Queue) -> None:
        self._queue = queue
        names = list(Queue.BASE_ATTRIBUTES)
        if queue.fifo_queue:
            names += Queue.FIFO_ATTRIBUTES
        if queue.kms_master_key_id:
            names += Queue.KMS_ATTRIBUTES
        self._names = dict.fromkeys(names)

    def __getitem__(self, name: str) -> Any:
        if name not in self._names:
            raise KeyError(name)
        queue = self._queue
        if name == "RedrivePolicy":
            return json.dumps(queue.redrive_policy) if queue.redrive_policy else queue.redrive_policy
        value = getattr(queue, camelcase_to_underscores(name))
        return str(value).lower() if isinstance(value, bool) else value

    def __iter__(self) -> Iterator[str]:
        return iter(self._names)

    def __len__(self) -> int:
        return len(self._names)


def find_queue(arn: str) -> Queue | None:
    """The queue an ARN names, or None."""
    match = QUEUE_ARN.match(arn)
    return None if match is None else sqs_backends[match["account"]][match["region"]].queues.get(match["name"])


def visibility_timeout(queue: Queue) -> int:
    return int(queue.visibility_timeout)


def dead_letter_figures(queue: Queue, now: float) -> dict[str, Any] | None:
    """The ARN of the queue its RedrivePolicy moves messages to and how many messages that queue holds, or None."""
    target = queue.dead_letter_queue
    if target is None:
        return None
    return {"QueueArn": target.queue_arn, "Messages": sum(queue_figures(target, now).values())}


def is_fifo(queue: Queue) -> bool:
    return bool(queue.fifo_queue)


def queue_figures(queue: Queue, now: float) -> dict[str, int]:
    """ApproximateNumberOfMessages / NotVisible / Delayed, counted on the emulator's clock."""
    milliseconds = now * 1000.0
    visible = delayed = in_flight = 0
    for message in list(queue._messages):
        if message.delayed_until > milliseconds:
            delayed += 1
        elif message.visible_at >= milliseconds:
            in_flight += 1
        else:
            visible += 1
    return {
        "ApproximateNumberOfMessages": visible,
        "ApproximateNumberOfMessagesNotVisible": in_flight,
        "ApproximateNumberOfMessagesDelayed": delayed,
    }

"""The dashboard's queues: every SQS queue's figures, a queue mapping's queue, and a queue's message events.

    queue_views(now)                      # every queue: available, in flight, delayed, its DLQ and that DLQ's count
    mapping_queue(queue_arn, now)         # a queue mapping's queue (instead of a stream's shard positions)
    queue_tail(emulator, name_or_arn, after)["Events"]   # what `eddy tail --queue` prints, one line per event

Read through moto_seam/sqs.py and moto_seam/listings/ (moto's queues are touched only there); nothing here
receives a message.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from eddy.emulator.errors import AWSError
from eddy.emulator.moto_seam import sqs as sqs_seam
from eddy.emulator.moto_seam.listings import queue_activity
from eddy.emulator.moto_seam.listings import queues as queue_listing

if TYPE_CHECKING:
    from eddy.emulator.engine import Emulator


class QueueDoesNotExist(AWSError):
    """SQS's error for a queue that does not exist (its JSON protocol's code and message)."""

    code = "QueueDoesNotExist"


#: how each message event reads in a tail line
EVENT_WORDS = {
    "Sent": "SENT",
    "Received": "RECEIVED",
    "Deleted": "DELETED",
    "Returned": "RETURNED",
    "DeadLettered": "DEAD-LETTERED",
    "ArrivedFromSourceQueue": "ARRIVED",
}


def queue_views(now: float) -> list[dict[str, Any]]:
    """Every queue, by name: its messages available, in flight and delayed, and its RedrivePolicy's DLQ."""
    return sorted(
        (queue_listing.queue_summary(queue, now) for queue in queue_listing.all_queues()),
        key=lambda view: (view["QueueName"], view["Region"]),
    )


def mapping_queue(queue_arn: str, now: float) -> dict[str, Any] | None:
    """A queue mapping's queue: messages waiting, in flight and delayed, and its dead-letter queue's messages."""
    queue = sqs_seam.find_queue(queue_arn)
    if queue is None:
        return None
    view: dict[str, Any] = dict(sqs_seam.queue_figures(queue, now), QueueArn=queue_arn)
    dead_letters = sqs_seam.dead_letter_figures(queue, now)
    if dead_letters is not None:
        view["DeadLetterQueue"] = dead_letters
    return view


def queue_tail(emulator: Emulator, queue: str, after: int = 0) -> dict[str, Any]:
    """The queue's message events numbered above `after` (the last one already shown), oldest first, each with the
    line `eddy tail --queue` prints; `queue` is its name (in any region, the first found) or its ARN."""
    found = sqs_seam.find_queue(queue) or next((q for q in queue_listing.all_queues() if q.name == queue), None)
    if found is None:
        raise QueueDoesNotExist(f"The specified queue does not exist: {queue}")
    events = queue_activity.activity(found, after, emulator.clock.now())
    for event in events:
        event["Line"] = event_line(event)
    return {"QueueArn": found.queue_arn, "Events": events, "LastSequence": events[-1]["Sequence"] if events else after}


def event_line(event: dict[str, Any]) -> str:
    """One message event as a line: time, what happened, the message id, its receive count and detail."""
    moment = event.get("Time")
    clock = datetime.fromtimestamp(moment, UTC).strftime("%H:%M:%S") if moment is not None else "--:--:--"
    words = [clock, f"{EVENT_WORDS.get(event['Event'], event['Event']):<13}", event["MessageId"]]
    if event["Event"] in ("Received", "Returned", "DeadLettered"):
        words.append(f"receive count {event['ReceiveCount']}")
    if "By" in event:
        words.append("by a poller (a mapping or a pipe)" if event["By"] == "Poller" else "by ReceiveMessage")
    if "DeadLetterQueueArn" in event:
        words.append(f"to {event['DeadLetterQueueArn'].rsplit(':', 1)[-1]}")
    if "SourceQueueArn" in event:
        words.append(f"from {event['SourceQueueArn'].rsplit(':', 1)[-1]}")
    if "Body" in event:
        words.append(repr(event["Body"]))
    return "  ".join(words)

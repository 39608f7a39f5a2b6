"""FIFO topics as SNS runs them: each message numbered, duplicates dropped by the topic, the number answered.

AWS's recorded answers (LocalStack's AWS-validated tests/aws/services/sns/test_sns.snapshot.json, localstack/localstack
at 8b9a79f05846, TestSNSSubscriptionSQSFifo):
- Publish and each of PublishBatch's Successful entries answer the message's SequenceNumber
  (test_publish_batch_messages_from_fifo_topic_to_fifo_queue: "publish-batch-response-fifo"); moto answered none;
- the topic deduplicates: a message whose deduplication id (MessageDeduplicationId, or with ContentBasedDeduplication
  the SHA-256 of the message) the topic took within the last 5 minutes (the deduplication interval, Developer Guide
  "Message deduplication for FIFO topics") is answered the first one's MessageId and SequenceNumber and delivered to
  no one ("republish-batch-response-fifo"; test_fifo_topic_to_regular_sqs and
  test_publish_to_fifo_topic_deduplication_on_topic_level: a standard queue receives it once);
- a FIFO topic's notification (the JSON body a queue receives) is not signed: Type, MessageId, SequenceNumber,
  TopicArn, Subject, Message, Timestamp, UnsubscribeURL, MessageAttributes, and no Signature, SignatureVersion or
  SigningCertURL (test_message_to_fifo_sqs: "messages"); sns_signatures.py shapes it with `sequence_number()`.
A topic's numbers are 20 digits that grow with each message (as Eddy's SQS FIFO queues' do, moto_seam/sqs.py):
milliseconds on the emulator's clock, then a count within the millisecond. Kept on moto's Topic (pickled with it),
and drawn again the same when the log is replayed (the request's moment gives the same instant).
"""

from __future__ import annotations

import functools
import hashlib
import threading
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from moto.core.utils import utcnow
from moto.sns.models import Topic
from moto.sns.responses import SNSResponse

from eddy.emulator.moto_seam import Patches

#: how long a FIFO topic remembers a deduplication id (seconds)
DEDUPLICATION_INTERVAL = 300
STATE = "_eddy_fifo_topic"


@dataclass
class Taken:
    message_id: str
    sequence_number: str
    at: float


@dataclass
class FifoTopic:
    """What a FIFO topic keeps: its last sequence number, and each message it took within the interval (by
    deduplication id, and by message id for the answer)."""

    last: int = 0
    by_deduplication_id: dict[str, Taken] = field(default_factory=dict)
    by_message_id: dict[str, Taken] = field(default_factory=dict)

    def forget_before(self, now: float) -> None:
        for deduplication_id, taken in list(self.by_deduplication_id.items()):
            if taken.at > now - DEDUPLICATION_INTERVAL:
                break  # taken in order: the rest are newer
            del self.by_deduplication_id[deduplication_id]
            self.by_message_id.pop(taken.message_id, None)

    def next_sequence_number(self, now: float) -> str:
        self.last = max(int(now * 1000) * 10_000_000, self.last + 1)
        return f"{self.last:020d}"


_publishing = threading.local()


def sequence_number() -> str | None:
    """The sequence number of the FIFO topic's message being published on this thread, None for a standard topic's."""
    return getattr(_publishing, "sequence_number", None)


def _state(topic: Topic) -> FifoTopic:
    state = topic.__dict__.get(STATE)
    if state is None:
        state = topic.__dict__[STATE] = FifoTopic()
    return state


def _seconds(moment: datetime) -> float:
    return moment.timestamp()


def _published(publish: Any) -> Any:
    @functools.wraps(publish)
    def published(self: Topic, message: str, *args: Any, **kwargs: Any) -> str:
        if not self.fifo_topic:
            return publish(self, message, *args, **kwargs)
        state, now = _state(self), _seconds(utcnow())
        state.forget_before(now)
        deduplication_id = kwargs.get("deduplication_id") or hashlib.sha256(message.encode()).hexdigest()
        taken = state.by_deduplication_id.get(deduplication_id)
        if taken is not None:
            return taken.message_id
        number = state.next_sequence_number(now)
        _publishing.sequence_number = number
        try:
            message_id = publish(self, message, *args, **kwargs)
        finally:
            _publishing.sequence_number = None
        taken = Taken(message_id, number, now)
        state.by_deduplication_id[deduplication_id] = state.by_message_id[message_id] = taken
        return message_id

    return published


def _taken(response: SNSResponse, message_id: str) -> Taken | None:
    topic = response.backend.topics.get(response._get_param("TopicArn") or response._get_param("TargetArn") or "")
    state = topic.__dict__.get(STATE) if topic is not None else None
    return state.by_message_id.get(message_id) if state is not None else None


def _publish_answered(answer: Any) -> Any:
    @functools.wraps(answer)
    def answered(self: SNSResponse) -> Any:
        result = answer(self)
        taken = _taken(self, result.result["MessageId"])
        if taken is not None:
            result.result["SequenceNumber"] = taken.sequence_number
        return result

    return answered


def _publish_batch_answered(answer: Any) -> Any:
    @functools.wraps(answer)
    def answered(self: SNSResponse) -> Any:
        result = answer(self)
        for entry in result.result["Successful"]:
            taken = _taken(self, entry["MessageId"])
            if taken is not None:
                entry["SequenceNumber"] = taken.sequence_number
        return result

    return answered


_patches = Patches()


def install() -> None:
    _patches.set(Topic, "publish", _published(Topic.publish))
    _patches.set(SNSResponse, "publish", _publish_answered(SNSResponse.publish))
    _patches.set(SNSResponse, "publish_batch", _publish_batch_answered(SNSResponse.publish_batch))


def uninstall() -> None:
    _patches.restore()

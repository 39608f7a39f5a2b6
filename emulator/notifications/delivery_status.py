"""SNS's delivery-status logs: a topic's deliveries to its subscribers written to CloudWatch Logs, as the topic's
`<Protocol>SuccessFeedbackRoleArn`, `<Protocol>SuccessFeedbackSampleRate` and `<Protocol>FailureFeedbackRoleArn`
ask (the SNS Developer Guide, "Amazon SNS message delivery status"; protocols HTTP (http and https), Firehose,
Lambda, Application, SQS).

    logs = DeliveryStatusLogs(now=clock.now, sink=put_events)
    logs.write(Delivery(topic_arn, "lambda", feedback, message_id, message, published, endpoint),
               Outcome(202, json.dumps({"lambdaRequestId": request_id})))

A success is logged when the topic has the protocol's SuccessFeedbackRoleArn, to the log group
`sns/<region>/<account>/<topic name>`; a failure when it has the FailureFeedbackRoleArn, every one, to
`<that group>/Failure` (the guide's "Prerequisites for delivery status logging"; "After you configure the
<ENDPOINT>FailureFeedbackRoleArn attribute, then all failed message deliveries generate CloudWatch Logs"). Each event
in a log stream of its own named by a UUID, as AWS names them. The event is AWS's JSON:

    {"notification": {"messageMD5Sum", "messageId", "topicArn", "timestamp": "2021-06-19 16:01:44.845"},
     "delivery": {"deliveryId", "destination", "providerResponse" (JSON text), "dwellTimeMs", ["attempts",]
                  "statusCode"},
     "status": "SUCCESS" | "FAILURE"}

(LocalStack's AWS-validated test_sns.snapshot.json, TestSNSPublishDelivery::test_delivery_lambda "delivery-events":
a Lambda success, statusCode 202, providerResponse {"lambdaRequestId"}, no "attempts"; an SQS failure AWS wrote, in a
public example's README: statusCode 403, "attempts": 1, providerResponse {"ErrorCode", "ErrorMessage",
"sqsRequestId": "Unrecoverable"}, to the group's /Failure.) The messageMD5Sum is the MD5 of the message as delivered
to the protocol, dwellTimeMs the time on the emulator's clock from the Publish to the delivery.

Sampling is Eddy's and deterministic: a SuccessFeedbackSampleRate of r logs, of each topic's and protocol's
successes counted from the emulator's start, the n-th when floor(n*r/100) grows (r=30: the 4th, 7th, 10th, ...):
exactly the rate rounded down over any run of them, where AWS samples at random. No rate given logs every success.
"""

from __future__ import annotations

import hashlib
import json
import math
import threading
import uuid
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Callable

#: the prefix of a protocol's feedback attributes
PREFIXES = {"http": "HTTP", "https": "HTTP", "firehose": "Firehose", "lambda": "Lambda", "application": "Application",
            "sqs": "SQS"}
SUFFIXES = ("SuccessFeedbackRoleArn", "SuccessFeedbackSampleRate", "FailureFeedbackRoleArn")
#: every topic attribute of delivery-status logging, as SNS names it
ATTRIBUTES = tuple(prefix + suffix for prefix in dict.fromkeys(PREFIXES.values()) for suffix in SUFFIXES)


@dataclass(frozen=True)
class Delivery:
    """One notification to one subscriber: its topic and the topic's feedback attributes (by name, only those
    given), the subscription's protocol and endpoint, the message as delivered to it, when it was published (the
    emulator's clock)."""

    topic_arn: str
    protocol: str
    feedback: dict[str, str]
    message_id: str
    message: str
    published: float
    destination: str


@dataclass(frozen=True)
class Outcome:
    """What the subscriber answered: the status code (None: none, an endpoint not reached), the provider's response
    (JSON text, or an endpoint's words), the attempts made (None: not logged, as for Lambda), whether it was
    delivered."""

    status_code: int | None
    provider_response: str
    attempts: int | None = None
    delivered: bool = True


def log_groups(topic_arn: str) -> tuple[str, str]:
    """(the successes' log group, the failures') of a topic."""
    _, _, _, region, account, name = topic_arn.split(":", 5)
    group = f"sns/{region}/{account}/{name}"
    return group, f"{group}/Failure"


def timestamp(seconds: float) -> str:
    """A notification's time as the log writes it: "2021-06-19 16:01:44.845" (UTC)."""
    return datetime.fromtimestamp(seconds, timezone.utc).strftime("%Y-%m-%d %H:%M:%S.%f")[:-3]


def sample_rate(feedback: dict[str, str], protocol: str) -> int:
    """The share (0-100) of successes logged; 100 when the topic gives none."""
    given = feedback.get(PREFIXES[protocol] + "SuccessFeedbackSampleRate")
    try:
        return min(100, max(0, int(given))) if given is not None else 100
    except ValueError:
        return 100


def event_message(delivery: Delivery, outcome: Outcome, delivery_id: str, now: float) -> str:
    """The log event's text."""
    record: dict[str, object] = {
        "deliveryId": delivery_id,
        "destination": delivery.destination,
        "providerResponse": outcome.provider_response,
        "dwellTimeMs": max(0, round((now - delivery.published) * 1000)),
    }
    if outcome.attempts is not None:
        record["attempts"] = outcome.attempts
    if outcome.status_code is not None:
        record["statusCode"] = outcome.status_code
    return json.dumps(
        {
            "notification": {
                "messageMD5Sum": hashlib.md5(delivery.message.encode("utf-8")).hexdigest(),
                "messageId": delivery.message_id,
                "topicArn": delivery.topic_arn,
                "timestamp": timestamp(delivery.published),
            },
            "delivery": record,
            "status": "SUCCESS" if outcome.delivered else "FAILURE",
        },
        separators=(",", ":"),
    )


class DeliveryStatusLogs:
    """Built with the emulator's clock (`now`), where events go (`sink(account, region, group, stream, [(epoch ms,
    text)])`: moto's CloudWatch Logs, through the functions' durable channel) and a maker of ids."""

    def __init__(
        self,
        now: Callable[[], float],
        sink: Callable[[str, str, str, str, list[tuple[int, str]]], None],
        new_id: Callable[[], str] = lambda: str(uuid.uuid4()),
    ) -> None:
        self._now, self._sink, self._new_id = now, sink, new_id
        #: each (topic, protocol prefix)'s successes so far, for its sample rate
        self._successes: dict[tuple[str, str], int] = {}
        self._lock = threading.Lock()

    def write(self, delivery: Delivery, outcome: Outcome) -> bool:
        """Log the delivery if its topic asks for it (True: logged)."""
        prefix = PREFIXES.get(delivery.protocol)
        if prefix is None:
            return False
        kind = "Success" if outcome.delivered else "Failure"
        if not delivery.feedback.get(f"{prefix}{kind}FeedbackRoleArn"):
            return False
        if outcome.delivered and not self._sampled(delivery.topic_arn, prefix, sample_rate(delivery.feedback,
                                                                                           delivery.protocol)):
            return False
        now = self._now()
        success_group, failure_group = log_groups(delivery.topic_arn)
        _, _, _, region, account, _ = delivery.topic_arn.split(":", 5)
        text = event_message(delivery, outcome, self._new_id(), now)
        self._sink(account, region, success_group if outcome.delivered else failure_group, self._new_id(),
                   [(int(now * 1000), text)])
        return True

    def _sampled(self, topic_arn: str, prefix: str, rate: int) -> bool:
        with self._lock:
            n = self._successes.get((topic_arn, prefix), 0) + 1
            self._successes[(topic_arn, prefix)] = n
        return math.floor(n * rate / 100) > math.floor((n - 1) * rate / 100)

    def reset(self) -> None:
        with self._lock:
            self._successes.clear()

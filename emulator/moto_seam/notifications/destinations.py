"""A destination's ARN read, whether moto has its queue or topic, a subscription's dead-letter queue, a refusal's
words, and a delivery as its delivery-status log has it."""

from __future__ import annotations

import json
from typing import Callable

from moto.core.utils import camelcase_to_underscores
from moto.sns.models import Subscription, sns_backends
from moto.sqs.models import sqs_backends

from eddy.emulator.moto_seam.services import moments
from eddy.emulator.notifications.delivery_status import ATTRIBUTES as FEEDBACK_ATTRIBUTES, Delivery


def arn_parts(arn: str) -> tuple[str, str, str]:
    """(region, account, resource) of a queue's or topic's ARN."""
    parts = arn.split(":", 5)
    if len(parts) < 6:
        return "", "", ""
    return parts[3], parts[4], parts[5]


def queue_exists(arn: str) -> bool:
    region, account, name = arn_parts(arn)
    return bool(region) and name in sqs_backends[account][region].queues


def topic_exists(arn: str) -> bool:
    region, account, _ = arn_parts(arn)
    return bool(region) and arn in sns_backends[account][region].topics


def refusal(failure: Exception) -> str:
    """A delivery moto refused, as "Code: message" (its AWS error) or the exception's name and text."""
    return f"{getattr(failure, 'code', type(failure).__name__)}: {getattr(failure, 'message', failure)}"


def dead_letter_arn(subscription: Subscription) -> str | None:
    """The queue of the subscription's RedrivePolicy (where a notification SNS could not deliver goes), or None."""
    try:
        policy = json.loads(subscription.attributes.get("RedrivePolicy") or "{}")
    except ValueError:
        return None
    arn = policy.get("deadLetterTargetArn") if isinstance(policy, dict) else None
    return arn if isinstance(arn, str) and arn.startswith("arn:") and arn.count(":") == 5 else None


#: each delivery-status attribute and the name moto keeps it under on its topic (snake case)
FEEDBACK_FIELDS = tuple((name, camelcase_to_underscores(name)) for name in FEEDBACK_ATTRIBUTES)


def feedback_of(topic: object) -> dict[str, str]:
    """The topic's delivery-status attributes given (none empty), by SNS's names."""
    return {
        name: str(value) for name, field in FEEDBACK_FIELDS if (value := getattr(topic, field, None)) not in (None, "")
    }


def delivery_of(subscription: Subscription, message: Callable[[], str], message_id: str) -> Delivery | None:
    """A notification to the subscription for its delivery-status log (`message`: the message as its protocol has it,
    asked only then), or None when its topic logs none: the topic's feedback attributes, the Publish's moment."""
    feedback = feedback_of(subscription.topic)
    if not feedback:
        return None
    return Delivery(subscription.topic.arn, subscription.protocol, feedback, message_id, message(), moments.now(),
                    subscription.endpoint)

"""A destination's ARN read, whether moto has its queue or topic, a subscription's dead-letter queue, and a refusal's
words."""

from __future__ import annotations

import json

from moto.sns.models import Subscription, sns_backends
from moto.sqs.models import sqs_backends


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

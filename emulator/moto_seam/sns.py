"""The seam between moto's SNS and Eddy's functions (moto's SNS internals are touched only here).

moto's Subscription.publish hands a "lambda" subscription's message to moto's Lambda, which needs Docker. While an
emulator is open Eddy takes that branch: the subscription's filter policy is applied as moto applies it (moto's
matcher, FilterPolicyScope MessageAttributes or MessageBody), the message gets Lambda's SNS event
(notifications/sns_events.py, from the notification moto signs for HTTP subscribers) and the function is invoked
asynchronously, as SNS invokes Lambda. SQS subscriptions (RawMessageDelivery, filter policies) stay moto's.
"""

from __future__ import annotations

from typing import Any, Protocol

from moto.sns.models import Subscription

from emulator.notifications.sns_events import lambda_event


class Target(Protocol):
    def invoke_function(self, arn: str, event: dict[str, Any], source: str) -> None: ...


_target: Target | None = None
_installed = False


def activate(target: Target) -> None:
    global _target
    _install()
    _target = target


def deactivate() -> None:
    global _target
    _target = None


def _install() -> None:
    global _installed
    if _installed:
        return
    _installed = True
    publish = Subscription.publish

    def published(self: Subscription, message: str, message_id: str, subject: str | None = None,
                  message_attributes: dict[str, Any] | None = None, group_id: str | None = None,
                  deduplication_id: str | None = None, message_structure: str | None = None) -> None:
        target = _target
        if target is None or self.protocol != "lambda":
            return publish(self, message, message_id, subject=subject, message_attributes=message_attributes,
                           group_id=group_id, deduplication_id=deduplication_id, message_structure=message_structure)
        if self._filter_policy_matcher is not None and not self._filter_policy_matcher.matches(message_attributes, message):
            return None
        if message_structure == "json":
            message = self._parse_message_structure(message, self.protocol)
        notification = self.get_post_data(message, message_id, subject, message_attributes=message_attributes)
        region = self.topic.sns_backend.region_name
        target.invoke_function(self.endpoint, lambda_event(notification, self.arn, region), "sns")
        return None

    Subscription.publish = published

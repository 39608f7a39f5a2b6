"""moto's SNS errors in SNS's words, where moto words them otherwise.

AWS's recorded answers (LocalStack's AWS-validated tests/aws/services/sns/test_sns.snapshot.json):
- Publish to a TopicArn no topic has: NotFound "Topic does not exist" (test_unknown_topic_publish; moto looked for a
  platform endpoint and answered "Endpoint does not exist"); to a TargetArn no endpoint nor topic has (a TargetArn
  is "Either TopicArn or EndpointArn": a topic's is published to it, as moto does): InvalidParameter
  "Invalid parameter: TargetArn Reason: No endpoint found for the target arn specified"
  (test_publish_non_existent_target);
- Set/GetSubscriptionAttributes of a subscription that does not exist: NotFound "Subscription does not exist"
  (test_not_found_error_on_set_subscription_attributes; moto: "Subscription with arn ... not found");
- AddPermission's refusals with SNS's "Invalid parameter: " (test_add_permission_errors: "Invalid parameter: Statement
  already exists", "Invalid parameter: Policy statement action out of service scope!");
- CreateTopic of a topic that exists, with an attribute it does not have as given: "Invalid parameter: Attributes
  Reason: Topic already exists with different attributes" (test_create_topic_different_attrs: the same DisplayName, no
  attributes, or FifoTopic "false" for a standard topic are taken; another DisplayName, or a SignatureVersion it was
  not given, refused; a policy compared as JSON, so the topic's own Policy given again is taken); with a tag it does
  not have: "Invalid parameter: Tags Reason: Topic already exists with different tags"
  (test_create_duplicate_topic_with_more_tags), while its tags, some of them or none answer the topic
  (test_create_duplicate_topic_check_idempotency). moto answered the topic.
- Subscribe of an endpoint already subscribed, with an attribute it does not have as given (unset ones at SNS's
  defaults: RawMessageDelivery "false", FilterPolicyScope "MessageAttributes"; true/false in any case): "Invalid
  parameter: Attributes Reason: Subscription already exists with different attributes" (test_subscribe_idempotency;
  moto changed the subscription).
"""

from __future__ import annotations

import functools
import json
from typing import Any

from moto.sns.exceptions import SNSInvalidParameter, SNSNotFoundError
from moto.core.utils import camelcase_to_underscores
from moto.sns.models import SNSBackend
from moto.sns.utils import make_arn_for_topic
from moto.sns.responses import SNSResponse

from eddy.emulator.moto_seam import Patches

PREFIX = "Invalid parameter: "

_patches = Patches()


def install() -> None:
    _patches.set(SNSResponse, "publish", _publish(SNSResponse.publish))
    _patches.set(SNSResponse, "subscribe", _same_subscription(SNSResponse.subscribe))
    for name in ("get_subscription_attributes", "set_subscription_attributes"):
        _patches.set(SNSBackend, name, _subscription_found(getattr(SNSBackend, name)))
    _patches.set(SNSBackend, "add_permission", _prefixed(SNSBackend.add_permission))
    _patches.set(SNSBackend, "create_topic", _same_topic(SNSBackend.create_topic))


def uninstall() -> None:
    _patches.restore()


def _publish(publish: Any) -> Any:
    @functools.wraps(publish)
    def published(self: SNSResponse) -> Any:
        if self._get_param("PhoneNumber") is None:
            target, topic = self._get_param("TargetArn"), self._get_param("TopicArn")
            known = self.backend.platform_endpoints.keys() | self.backend.topics.keys()  # "TopicArn or EndpointArn"
            if target is not None and target not in known:
                raise SNSInvalidParameter(f"{PREFIX}TargetArn Reason: No endpoint found for the target arn specified")
            if target is None and topic is not None:
                self.backend.get_topic(topic)  # TopicNotFound: "Topic does not exist" (another account's found too)
        return publish(self)

    return published


def _subscription_found(operation: Any) -> Any:
    @functools.wraps(operation)
    def found(self: SNSBackend, arn: str, *args: Any) -> Any:
        if arn not in self.subscriptions:
            raise SNSNotFoundError("Subscription does not exist")
        return operation(self, arn, *args)

    return found


def _prefixed(operation: Any) -> Any:
    @functools.wraps(operation)
    def prefixed(self: SNSBackend, *args: Any, **kwargs: Any) -> Any:
        try:
            return operation(self, *args, **kwargs)
        except SNSInvalidParameter as refused:
            if refused.message.startswith(PREFIX):
                raise
            raise SNSInvalidParameter(PREFIX + refused.message) from None

    return prefixed


def _same_topic(create_topic: Any) -> Any:
    @functools.wraps(create_topic)
    def created(self: SNSBackend, name: str, attributes: dict[str, str] | None = None,
                tags: dict[str, str] | None = None) -> Any:
        existing = self.topics.get(make_arn_for_topic(self.account_id, name, self.region_name))
        if existing is not None:
            for attribute, value in (attributes or {}).items():
                kept = getattr(existing, camelcase_to_underscores(attribute), None)
                if _read(attribute, kept) != _read(attribute, value):
                    raise SNSInvalidParameter(f"{PREFIX}Attributes Reason: Topic already exists with different attributes")
            if tags and not tags.items() <= existing._tags.items():  # some of its tags again: the topic
                raise SNSInvalidParameter(f"{PREFIX}Tags Reason: Topic already exists with different tags")
        return create_topic(self, name, attributes, tags)

    return created


#: a subscription's attributes while not set, as SNS compares a repeated Subscribe's with them
SUBSCRIPTION_DEFAULTS = {"RawMessageDelivery": "false", "FilterPolicyScope": "MessageAttributes"}


def _same_subscription(subscribe: Any) -> Any:
    @functools.wraps(subscribe)
    def subscribed(self: SNSResponse) -> Any:
        existing = self.backend._find_subscription(
            self._get_param("TopicArn"), self._get_param("Endpoint"), self._get_param("Protocol"))
        if existing is not None:
            for name, value in (self._get_attributes() or {}).items():
                current = existing.attributes.get(name, SUBSCRIPTION_DEFAULTS.get(name))
                if _read(name, current) != _read(name, value):
                    raise SNSInvalidParameter(
                        f"{PREFIX}Attributes Reason: Subscription already exists with different attributes")
        return subscribe(self)

    return subscribed


def _read(name: str, value: Any) -> Any:
    """An attribute's value as compared: a policy's JSON read (its spacing does not matter), others in lower case."""
    if name.endswith("Policy") and isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError:
            return value
    return str(value).lower()

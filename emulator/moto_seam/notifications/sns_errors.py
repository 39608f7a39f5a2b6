"""moto's SNS errors in SNS's words, where moto words them otherwise.

AWS's recorded answers (LocalStack's AWS-validated tests/aws/services/sns/test_sns.snapshot.json):
- Publish to a TopicArn no topic has: NotFound "Topic does not exist" (test_unknown_topic_publish; moto looked for a
  platform endpoint and answered "Endpoint does not exist"); to a TargetArn no endpoint has: InvalidParameter
  "Invalid parameter: TargetArn Reason: No endpoint found for the target arn specified"
  (test_publish_non_existent_target);
- Set/GetSubscriptionAttributes of a subscription that does not exist: NotFound "Subscription does not exist"
  (test_not_found_error_on_set_subscription_attributes; moto: "Subscription with arn ... not found");
- AddPermission's refusals with SNS's "Invalid parameter: " (test_add_permission_errors: "Invalid parameter: Statement
  already exists", "Invalid parameter: Policy statement action out of service scope!").
"""

from __future__ import annotations

import functools
from typing import Any

from moto.sns.exceptions import SNSInvalidParameter, SNSNotFoundError
from moto.sns.models import SNSBackend
from moto.sns.responses import SNSResponse

from eddy.emulator.moto_seam import Patches

PREFIX = "Invalid parameter: "

_patches = Patches()


def install() -> None:
    _patches.set(SNSResponse, "publish", _publish(SNSResponse.publish))
    for name in ("get_subscription_attributes", "set_subscription_attributes"):
        _patches.set(SNSBackend, name, _subscription_found(getattr(SNSBackend, name)))
    _patches.set(SNSBackend, "add_permission", _prefixed(SNSBackend.add_permission))


def uninstall() -> None:
    _patches.restore()


def _publish(publish: Any) -> Any:
    @functools.wraps(publish)
    def published(self: SNSResponse) -> Any:
        if self._get_param("PhoneNumber") is None:
            target, topic = self._get_param("TargetArn"), self._get_param("TopicArn")
            if target is not None and target not in self.backend.platform_endpoints:
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

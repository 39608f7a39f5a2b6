"""GetTopicAttributes answered as SNS answers it: the DeliveryPolicy as SNS keeps it, the EffectiveDeliveryPolicy SNS
derives from it, and the SignatureVersion a topic was given.

AWS's recorded answers (LocalStack's AWS-validated tests/aws/services/sns/test_sns.snapshot.json):
- no DeliveryPolicy member while the topic has none (test_create_topic_test_arn; moto answered ""); a policy given is
  kept with `http.disableSubscriptionOverrides` (false unless given) and without the members given as null
  (test_topic_delivery_policy_crud: "get-topic-attrs-after-none" keeps {"http": {"disableSubscriptionOverrides":
  false}});
- EffectiveDeliveryPolicy: {"http": {"defaultHealthyRetryPolicy": the retry policy given over SNS's default (3
  retries 20 seconds apart, the phases' counts 0, "linear"), "disableSubscriptionOverrides", "defaultRequestPolicy":
  the one given or {"headerContentType": "text/plain; charset=UTF-8"}}} (moto answered its own shape, with
  "sicklyRetryPolicy" and "guaranteed");
- SignatureVersion when the topic was given one (test_create_topic_with_attributes: "2");
- delivery-status logging's attributes as given (TestSNSPublishDelivery::test_delivery_lambda,
  "get-topic-attrs-with-success-feedback": LambdaSuccessFeedbackRoleArn, LambdaSuccessFeedbackSampleRate "100").
Other policies given (a defaultThrottlePolicy) are kept in both as given.

A topic's DataProtectionPolicy (PutDataProtectionPolicy, GetDataProtectionPolicy, which moto lacks: the request was
answered with no SNS answer at all) is kept on moto's topic as given and answered as given, not among its attributes
(test_data_protection_policy_crud, recorded 18-12-2025: "get-topic-attributes-after-policy" has no such member). A
topic that does not exist is moto's NotFound.
"""

from __future__ import annotations

import functools
import json
from typing import Any

from moto.core.responses import ActionResult, EmptyResult
from moto.sns.responses import SNSResponse

from eddy.emulator.moto_seam import Patches
from eddy.emulator.moto_seam.notifications.destinations import feedback_of
from eddy.emulator.notifications.delivery_policies import DEFAULT_RETRY_POLICY  # in the order SNS answers it

DEFAULT_REQUEST_POLICY = {"headerContentType": "text/plain; charset=UTF-8"}

_patches = Patches()


def install() -> None:
    _patches.set(SNSResponse, "get_topic_attributes", _answered_as_sns_does(SNSResponse.get_topic_attributes))
    _patches.set(SNSResponse, "put_data_protection_policy", _put_data_protection_policy)
    _patches.set(SNSResponse, "get_data_protection_policy", _get_data_protection_policy)


def _put_data_protection_policy(self: SNSResponse) -> ActionResult:
    topic = self.backend.get_topic(self._get_param("ResourceArn"))
    topic.data_protection_policy = self._get_param("DataProtectionPolicy")
    return EmptyResult()


def _get_data_protection_policy(self: SNSResponse) -> ActionResult:
    topic = self.backend.get_topic(self._get_param("ResourceArn"))
    policy = getattr(topic, "data_protection_policy", None)
    return ActionResult({"DataProtectionPolicy": policy} if policy else {})


def uninstall() -> None:
    _patches.restore()


def kept_policy(given: str) -> dict[str, Any] | None:
    """The DeliveryPolicy as SNS keeps it, None for none (or one that is not a JSON object: left as moto kept it)."""
    try:
        policy = json.loads(given) if given else None
    except ValueError:
        return None
    if not isinstance(policy, dict):
        return None
    http = {name: value for name, value in (policy.get("http") or {}).items() if value is not None}
    http.setdefault("disableSubscriptionOverrides", False)
    return {**policy, "http": http}


def effective_policy(kept: dict[str, Any] | None) -> dict[str, Any]:
    http = (kept or {}).get("http", {})
    retry = {**DEFAULT_RETRY_POLICY, **(http.get("defaultHealthyRetryPolicy") or {})}
    others = {name: value for name, value in http.items()
              if name not in ("defaultHealthyRetryPolicy", "disableSubscriptionOverrides", "defaultRequestPolicy")}
    return {"http": {
        "defaultHealthyRetryPolicy": retry,
        "disableSubscriptionOverrides": http.get("disableSubscriptionOverrides", False),
        "defaultRequestPolicy": http.get("defaultRequestPolicy") or DEFAULT_REQUEST_POLICY,
        **others,
    }}


def _answered_as_sns_does(answer: Any) -> Any:
    @functools.wraps(answer)
    def answered(self: SNSResponse) -> Any:
        result = answer(self)
        attributes = result.result["Attributes"]
        given = attributes.pop("DeliveryPolicy", "") or ""
        kept = kept_policy(given)
        if kept is not None:
            attributes["DeliveryPolicy"] = json.dumps(kept, separators=(",", ":"))
        elif given:
            attributes["DeliveryPolicy"] = given
        attributes["EffectiveDeliveryPolicy"] = json.dumps(effective_policy(kept), separators=(",", ":"))
        topic = self.backend.get_topic(attributes["TopicArn"])
        if getattr(topic, "signature_version", None) is not None:
            attributes["SignatureVersion"] = str(topic.signature_version)
        attributes.update(feedback_of(topic))  # delivery-status logging's, each as given (moto answers none)
        return result

    return answered

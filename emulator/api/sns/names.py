"""The names and ARNs an SNS request gives, checked as SNS checks them before anything else (moto crashes on an ARN
of fewer than six parts, answering nothing, and serves any topic name). Each refusal is AWS's recorded answer
(LocalStack's AWS-validated tests/aws/services/sns/test_sns.snapshot.json):

- a TopicArn of fewer than 6 ":"-separated elements: "Invalid parameter: TopicArn Reason: An ARN must have at least 6
  elements, not <n>" (test_create_topic_with_attributes, test_publish_wrong_arn_format,
  test_subscribe_with_invalid_topic); one of another region: "Invalid parameter: TopicArn"
  (test_topic_publish_another_region, test_cross_region_access);
- Unsubscribe's SubscriptionArn: missing, "Reason: no value for required parameter"; fewer than 6 elements, as a
  TopicArn's; a topic's ARN without the subscription's id, "Invalid parameter: SubscriptionId"
  (test_unsubscribe_wrong_arn_format, test_unsubscribe_from_deleted_topic: "pending confirmation" is 1 element);
- Get/SetPlatformApplicationAttributes' PlatformApplicationArn: fewer than 6 elements, as a TopicArn's;
- CreateTopic's Name: 1 to 256 letters, digits, hyphens and underscores, a FIFO topic's ending in ".fifo" (counted
  in the 256) and only a FIFO topic's: else "Invalid parameter: Topic Name" (test_create_topic_name_constraints).
"""

from __future__ import annotations

import re


class InvalidName(Exception):
    """SNS's InvalidParameter: the exception's text is what follows "Invalid parameter: "."""

#: the operations whose TopicArn names a topic of the request's region
TOPIC_OPERATIONS = frozenset({
    "AddPermission", "DeleteTopic", "GetTopicAttributes", "ListSubscriptionsByTopic", "Publish", "PublishBatch",
    "RemovePermission", "SetTopicAttributes", "Subscribe",
})
#: the operations on a platform application, named by its ARN (test_get_platform_application_attributes_invalid_arn,
#: test_set_platform_application_attributes_invalid_arn)
PLATFORM_APPLICATION_OPERATIONS = frozenset({"GetPlatformApplicationAttributes", "SetPlatformApplicationAttributes"})
TOPIC_NAME = re.compile(r"[A-Za-z0-9_-]{1,256}")
FIFO_SUFFIX = ".fifo"


def check(params: dict[str, str], region: str) -> None:
    """Refused (InvalidParameter) where SNS refuses the request's names or ARNs; nothing else is looked at."""
    action = params.get("Action", "")
    if action in TOPIC_OPERATIONS and "TopicArn" in params:
        _topic_arn(params["TopicArn"], region)
    elif action == "Unsubscribe":
        _subscription_arn(params)
    elif action == "CreateTopic":
        _topic_name(params)
    elif action in PLATFORM_APPLICATION_OPERATIONS:
        _elements("PlatformApplicationArn", params.get("PlatformApplicationArn", ""))


def _elements(parameter: str, arn: str) -> list[str]:
    parts = arn.split(":")
    if len(parts) < 6:
        raise InvalidName(f"{parameter} Reason: An ARN must have at least 6 elements, not {len(parts)}")
    return parts


def _topic_arn(arn: str, region: str) -> None:
    if _elements("TopicArn", arn)[3] != region:
        raise InvalidName("TopicArn")


def _subscription_arn(params: dict[str, str]) -> None:
    if "SubscriptionArn" not in params:
        raise InvalidName("SubscriptionArn Reason: no value for required parameter")
    if len(_elements("SubscriptionArn", params["SubscriptionArn"])) == 6:
        raise InvalidName("SubscriptionId")


def _topic_name(params: dict[str, str]) -> None:
    name = params.get("Name", "")
    fifo = _fifo_attribute(params)
    base = name[: -len(FIFO_SUFFIX)] if fifo and name.endswith(FIFO_SUFFIX) else name
    if not TOPIC_NAME.fullmatch(base) or len(name) > 256 or fifo != name.endswith(FIFO_SUFFIX):
        raise InvalidName("Topic Name")


def _fifo_attribute(params: dict[str, str]) -> bool:
    for key, value in params.items():
        if key.startswith("Attributes.entry.") and key.endswith(".key") and value == "FifoTopic":
            return params.get(key[: -len(".key")] + ".value", "").lower() == "true"
    return False


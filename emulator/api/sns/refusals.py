"""SNS requests AWS refuses and moto accepts, refused at the door in AWS's words before moto sees them (so they
change nothing). Each refusal is AWS's recorded answer (LocalStack's AWS-validated snapshots,
tests/aws/services/sns/test_sns.snapshot.json; pinned by tests/emulator/api/sns/test_refusals.py):

- Publish and PublishBatch: message attributes SNS does not take (message_attributes.py);
- Publish: an empty Message; with MessageStructure "json", a Message that is not JSON, or has no string "default";
  to a FIFO topic, no MessageGroupId, or no MessageDeduplicationId where the topic has no ContentBasedDeduplication
  (moto answers MissingParameter, and its InvalidParameter without SNS's "Invalid parameter: ");
- PublishBatch: an entry Id of other than letters, digits, "-" and "_", or over 80 characters; entries whose
  messages and message attributes (names, data types and values) together exceed 256 KiB; an entry's JSON message
  without a string "default", or a FIFO topic's entry without its group or deduplication id (the whole request
  refused, as AWS does);
- Subscribe: a protocol SNS does not support;
- SetSubscriptionAttributes: an attribute SNS does not have, RawMessageDelivery other than true or false, a
  RedrivePolicy that is not JSON (in Jackson's words, Subscribe's too) or whose deadLetterTargetArn is not an ARN,
  or a standard queue for a FIFO queue's subscription to a FIFO topic (Subscribe's too);
- a DeliveryPolicy AWS refuses, in CreateTopic's, SetTopicAttributes', Subscribe's and SetSubscriptionAttributes'
  (notifications/delivery_policies.py: the Developer Guide's constraints, "Invalid parameter: DeliveryPolicy: ...");
- platform applications' and SMS's (platform_applications.py, sms.py);
- ConfirmSubscription: a TopicArn that is not an SNS ARN of the request's region, a token that is not hexadecimal
  ("Invalid token"), a token the region did not send (test_sns_confirm_subscription_wrong_token,
  test_subscribe_external_http_endpoint).
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from typing import TYPE_CHECKING, Callable
from urllib.parse import parse_qs

from botocore.exceptions import ClientError

from eddy.emulator.api.sns import (
    Params,
    Refused,
    error_answer,
    invalid,
    map_entries,
    message_attributes,
    names,
    platform_applications,
    sms,
)
from eddy.emulator.aws_requests import Request, Response
from eddy.emulator.callers import region_of
from eddy.emulator.event_patterns.json_source import JsonPatternError, read_document
from eddy.emulator.notifications.delivery_policies import (
    InvalidDeliveryPolicy,
    check_subscription_policy,
    check_topic_policy,
)
from eddy.emulator.notifications.subscription_attributes import SUBSCRIPTION_ATTRIBUTES

if TYPE_CHECKING:
    from eddy.emulator.engine import Emulator

PROTOCOLS = frozenset({"http", "https", "email", "email-json", "sms", "sqs", "application", "lambda", "firehose"})
#: Publish's and PublishBatch's limit on a request's messages and attributes (the API reference: 256 KB)
MAX_BYTES = 262144
BATCH_ENTRY_ID = re.compile(r"[A-Za-z0-9_-]*")
ENTRY = re.compile(r"PublishBatchRequestEntries\.member\.(\d+)\.(.+)")

#: a topic's or a subscription's attributes by its ARN (asked of SNS as a client asks), None where SNS does not answer
AttributesOf = Callable[[str], "dict[str, str] | None"]


def _params(request: Request) -> Params:
    return {
        name: values[0]
        for name, values in parse_qs(request.body.decode("utf-8", "replace"), keep_blank_values=True).items()
    }


def claims(request: Request) -> bool:
    """A request signed for SNS (decided without its body: the operation is in the body)."""
    return request.method.upper() == "POST"


def handle(emulator: "Emulator", request: Request) -> Response | None:
    """AWS's refusal, or None: the request goes on to moto."""
    params = _params(request)
    if params.get("Action") == "ConfirmSubscription":
        return _confirm_subscription(request, params)
    check = CHECKS.get(params.get("Action", ""))
    try:
        names.check(params, region_of(request.header("Authorization") or "", request.url))
    except names.InvalidName as refused:
        return error_answer("InvalidParameter", f"Invalid parameter: {refused}")
    try:
        if check is not None:
            check(params, lambda arn: _attributes_of(emulator, arn))
    except Refused as refused:
        return error_answer(refused.code, refused.message)
    return None


def _confirm_subscription(request: Request, params: Params) -> Response | None:
    """ConfirmSubscription refused in SNS's words (moto_seam/notifications/http_subscriptions.py decides)."""
    from eddy.emulator.moto_seam.notifications.http_subscriptions import confirmation_refusal  # moto's SNS

    region = region_of(request.header("Authorization") or "", request.url)
    refusal = confirmation_refusal(region, params.get("TopicArn", ""), params.get("Token", ""))
    return error_answer("InvalidParameter", refusal) if refusal else None


def _attributes_of(emulator: "Emulator", arn: str) -> dict[str, str] | None:
    parts = arn.split(":")
    if len(parts) < 6:
        return None
    sns = emulator.aws_client("sns", parts[3])
    try:
        if len(parts) == 7:
            return sns.get_subscription_attributes(SubscriptionArn=arn)["Attributes"]
        return sns.get_topic_attributes(TopicArn=arn)["Attributes"]
    except ClientError:  # no such topic (or not this account's): moto answers the request itself
        return None


def _json_message(message: str) -> None:
    try:
        structure = json.loads(message)
    except ValueError:
        raise invalid("Message Structure - JSON message body failed to parse") from None
    if not isinstance(structure, dict) or not isinstance(structure.get("default"), str):
        raise invalid("Message Structure - No default entry in JSON message body")


def _publish(params: Params, attributes_of: AttributesOf) -> None:
    if params.get("Message", "") == "":
        raise invalid("Empty message")
    if params.get("Subject") == "":  # given, and empty (test_publish_with_empty_subject)
        raise invalid("Subject")
    message_attributes.check(params)
    if _entry_bytes(params) > MAX_BYTES:  # the message and its attributes (test_publish_too_long_message)
        raise invalid("Message too long")
    if params.get("MessageStructure") == "json":
        _json_message(params["Message"])
    if "PhoneNumber" in params:
        sms.check_phone_number(params["PhoneNumber"])
    _fifo_message(params.get("TopicArn", ""), params, attributes_of)


def _fifo_message(topic: str, message: Params, attributes_of: AttributesOf) -> None:
    """A FIFO topic's message (a Publish, or a PublishBatch's entry: the whole batch refused) names its group, and
    its deduplication id unless the topic has ContentBasedDeduplication (test_publish_batch_exceptions/no-group-id,
    /no-dedup-id)."""
    if not topic.endswith(".fifo"):  # a FIFO topic's name ends so, and only a FIFO topic's
        return
    if not message.get("MessageGroupId"):
        raise invalid("The MessageGroupId parameter is required for FIFO topics")
    if not message.get("MessageDeduplicationId"):
        attributes = attributes_of(topic)
        if attributes is not None and attributes.get("ContentBasedDeduplication", "false").lower() != "true":
            raise invalid(
                "The topic should either have ContentBasedDeduplication enabled or "
                "MessageDeduplicationId provided explicitly"
            )


def _entries(params: Params) -> list[Params]:
    entries: dict[int, Params] = {}
    for name, value in params.items():
        match = ENTRY.fullmatch(name)
        if match:
            entries.setdefault(int(match.group(1)), {})[match.group(2)] = value
    return [entries[number] for number in sorted(entries)]


def _entry_bytes(entry: Params) -> int:
    size = len(entry.get("Message", "").encode())
    for name, value in entry.items():
        if name.startswith("MessageAttributes.entry.") and name.endswith((".Name", ".DataType", ".StringValue")):
            size += len(value.encode())
        elif name.startswith("MessageAttributes.entry.") and name.endswith(".BinaryValue"):
            try:
                size += len(base64.b64decode(value))
            except binascii.Error:
                size += len(value.encode())
    return size


def _publish_batch(params: Params, attributes_of: AttributesOf) -> None:
    entries = _entries(params)
    for entry in entries:
        entry_id = entry.get("Id", "")
        if not BATCH_ENTRY_ID.fullmatch(entry_id):
            raise Refused(
                "InvalidBatchEntryId",
                f"The Id of a batch entry in the batch request contains an impermissible character: {entry_id}",
            )
        if len(entry_id) > 80:
            raise Refused(
                "InvalidBatchEntryId", f"The Id of a batch entry in the batch request is too long: {entry_id}"
            )
    if len(entries) > 10 or len({entry.get("Id") for entry in entries}) < len(entries):
        return  # moto refuses these in AWS's words (TooManyEntriesInBatchRequest, BatchEntryIdsNotDistinct)
    for position, entry in enumerate(entries, start=1):
        message_attributes.check(entry, batch_position=position)
    if sum(_entry_bytes(entry) for entry in entries) > MAX_BYTES:
        raise Refused("BatchRequestTooLong", "The length of all the messages put together is more than the limit.")
    for entry in entries:
        if entry.get("MessageStructure") == "json":
            _json_message(entry.get("Message", ""))
    for entry in entries:  # after every entry's JSON (test_publish_batch_exceptions/no-default-key-json)
        _fifo_message(params.get("TopicArn", ""), entry, attributes_of)


def _subscribe(params: Params, attributes_of: AttributesOf) -> None:
    protocol = params.get("Protocol", "")
    if protocol.lower() not in PROTOCOLS:
        raise invalid(f"Amazon SNS does not support this protocol string: {protocol}")
    attributes = _attributes(params)
    raw = attributes.get("RawMessageDelivery")
    if raw is not None and raw.lower() not in ("true", "false"):  # test_create_subscriptions_with_attributes
        raise invalid(f"Attributes Reason: RawMessageDelivery: Invalid value [{raw}]. Must be true or false.")
    _delivery_policy(attributes.get("DeliveryPolicy"), check_subscription_policy)
    policy = _redrive_policy(attributes.get("RedrivePolicy") or "{}", "Attributes Reason: ")
    if isinstance(policy, dict):
        _fifo_dead_letter_queue(params.get("TopicArn", ""), protocol, params.get("Endpoint", ""),
                                policy.get("deadLetterTargetArn"))


def _attributes(params: Params) -> Params:
    """A request's Attributes map."""
    return map_entries(params, "Attributes") or {}


def _delivery_policy(value: str | None, check: Callable[[str], None]) -> None:
    if value:
        try:
            check(value)
        except InvalidDeliveryPolicy as refused:
            raise invalid(f"DeliveryPolicy: {refused}") from None


def _create_topic(params: Params, attributes_of: AttributesOf) -> None:
    _delivery_policy(_attributes(params).get("DeliveryPolicy"), check_topic_policy)


def _set_topic_attributes(params: Params, attributes_of: AttributesOf) -> None:
    if params.get("AttributeName") == "FifoTopic":  # fixed at creation (test_topic_get_attributes_with_fifo_false)
        raise invalid("AttributeName")
    if params.get("AttributeName") == "DeliveryPolicy":
        _delivery_policy(params.get("AttributeValue"), check_topic_policy)


def _set_subscription_attributes(params: Params, attributes_of: AttributesOf) -> None:
    name, value = params.get("AttributeName", ""), params.get("AttributeValue", "")
    if name not in SUBSCRIPTION_ATTRIBUTES:
        raise invalid("AttributeName")
    if name == "DeliveryPolicy":
        _delivery_policy(value, check_subscription_policy)
    if name == "RawMessageDelivery" and value.lower() not in ("true", "false"):
        raise invalid(f"RawMessageDelivery: Invalid value [{value}]. Must be true or false.")
    if name == "RedrivePolicy" and value:
        policy = _redrive_policy(value, "")
        target = policy.get("deadLetterTargetArn") if isinstance(policy, dict) else None
        if isinstance(target, str) and not (target.startswith("arn:") and target.count(":") >= 5):
            raise invalid("RedrivePolicy: deadLetterTargetArn is an invalid arn")
        subscription = attributes_of(params.get("SubscriptionArn", "")) or {}
        _fifo_dead_letter_queue(subscription.get("TopicArn", ""), subscription.get("Protocol", ""),
                                subscription.get("Endpoint", ""), target)


def _redrive_policy(text: str, prefix: str) -> object:
    """A RedrivePolicy's JSON, or SNS's refusal in its JSON parser's (Jackson's) words
    (test_validate_set_sub_attributes/invalid-json-redrive-policy; Subscribe's with its "Attributes Reason: ", as its
    FilterPolicy's is worded); None where Jackson reads it whole and Python does not (moto answers it)."""
    try:
        return read_document(text)
    except JsonPatternError as refusal:
        raise invalid(f"{prefix}RedrivePolicy: failed to parse JSON. {refusal}") from None
    except ValueError:
        return None


def _fifo_dead_letter_queue(topic: str, protocol: str, endpoint: str, target: object) -> None:
    """A FIFO queue's subscription to a FIFO topic takes a FIFO dead-letter queue only (test_validations_for_fifo/
    regular-queue-for-dlq-of-fifo-topic); a standard queue's subscription to a FIFO topic takes a standard one."""
    fifo = ".fifo"
    if (isinstance(target, str) and not target.endswith(fifo) and topic.endswith(fifo) and protocol == "sqs"
            and endpoint.endswith(fifo)):
        raise invalid("RedrivePolicy: must use a FIFO queue as DLQ for a FIFO Subscription to a FIFO Topic.")


def _tag_resource(params: Params, attributes_of: AttributesOf) -> None:
    keys = [value for name, value in params.items() if re.fullmatch(r"Tags\.member\.\d+\.Key", name)]
    if len(set(keys)) < len(keys):  # test_tags/duplicate-key-error
        raise invalid("Duplicated keys are not allowed.")


CHECKS: dict[str, Callable[[Params, AttributesOf], None]] = {
    "TagResource": _tag_resource,
    "Publish": _publish,
    "PublishBatch": _publish_batch,
    "Subscribe": _subscribe,
    "CreateTopic": _create_topic,
    "SetTopicAttributes": _set_topic_attributes,
    "SetSubscriptionAttributes": _set_subscription_attributes,
    **{action: lambda params, _, check=check: check(params)
       for action, check in {**platform_applications.CHECKS, **sms.CHECKS}.items()},
}

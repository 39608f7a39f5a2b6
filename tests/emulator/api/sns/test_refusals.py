"""SNS requests AWS refuses, refused in AWS's words and changing nothing (emulator/api/sns/refusals.py).

Every expected answer is AWS's, recorded in LocalStack's AWS-validated snapshots
(localstack/localstack tests/aws/services/sns/test_sns.snapshot.json), named per case as `<test>/<snapshot key>`.
"""

from __future__ import annotations

import json

import pytest
from botocore.exceptions import ClientError

MAX = 262144  # test_publish_batch_too_long_message's max_size

#: the request, with TOPIC and SUB for the topic's and the subscription's ARNs
Case = tuple[str, str, dict, str, str]
INVALID = "InvalidParameter"
NO_DEFAULT = "Invalid parameter: Message Structure - No default entry in JSON message body"
TOO_LONG = ("BatchRequestTooLong", "The length of all the messages put together is more than the limit.")
BAD_ID = "The Id of a batch entry in the batch request contains an impermissible character: "
#: where SNS's JSON parser (Jackson) stopped, as it words it
JACKSON_SOURCE = "[Source: REDACTED (`StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION` disabled); line: 1, column: {}]"
FIELD_NAME_EXPECTED = ("Unexpected character ('i' (code 105)): was expecting double-quote to start field name\n at "
                       + JACKSON_SOURCE.format(2))
NUMBER = {"attr1": {"DataType": "Number", "StringValue": "1"}}  # attr1 + Number + 1 counted: 12 bytes


def sub_attribute(name: str, value: str) -> dict:
    return {"SubscriptionArn": "SUB", "AttributeName": name, "AttributeValue": value}


def batch(*entries: dict) -> dict:
    return {"TopicArn": "TOPIC", "PublishBatchRequestEntries": list(entries)}


def json_message(message: str) -> dict:
    return {"TopicArn": "TOPIC", "Message": message, "MessageStructure": "json"}


#: (source, operation, its request, AWS's Code, AWS's Message)
CASES: list[Case] = [
    ("test_empty_sns_message/empty-msg-error", "publish", {"TopicArn": "TOPIC", "Message": ""},
     INVALID, "Invalid parameter: Empty message"),
    ("test_publish_with_empty_subject/response-with-empty-subject", "publish",
     {"TopicArn": "TOPIC", "Subject": "", "Message": json.dumps({"message": "test_publish"})},
     INVALID, "Invalid parameter: Subject"),
    ("test_publish_too_long_message/error", "publish", {"TopicArn": "TOPIC", "Message": "This is a test message" * 12000},
     INVALID, "Invalid parameter: Message too long"),
    ("test_publish_too_long_message/error-with-attrs", "publish",
     {"TopicArn": "TOPIC", "Message": "a" * (MAX - 12 + 1), "MessageAttributes": NUMBER},
     INVALID, "Invalid parameter: Message too long"),
    ("test_tags/duplicate-key-error", "tag_resource", {"ResourceArn": "TOPIC", "Tags": [
        {"Key": "k1", "Value": "v1"}, {"Key": "k2", "Value": "v2"}, {"Key": "k2", "Value": "v2"}]},
     INVALID, "Invalid parameter: Duplicated keys are not allowed."),
    ("test_topic_get_attributes_with_fifo_false/set-fifo-false-after-creation", "set_topic_attributes",
     {"TopicArn": "TOPIC", "AttributeName": "FifoTopic", "AttributeValue": "false"}, INVALID,
     "Invalid parameter: AttributeName"),
    ("test_create_subscriptions_with_attributes/subscribe-wrong-attr", "subscribe",
     {"TopicArn": "TOPIC", "Protocol": "sqs", "Endpoint": "arn:aws:sqs:us-east-1:123456789012:other", "Attributes": {
         "RawMessageDelivery": "wrongvalue", "FilterPolicyScope": "MessageBody", "FilterPolicy": ""}},
     INVALID, "Invalid parameter: Attributes Reason: RawMessageDelivery: Invalid value [wrongvalue]. "
              "Must be true or false."),
    ("test_message_structure_json_exc/missing-default-key", "publish",
     json_message(json.dumps({"sqs": "Test message"})), INVALID, NO_DEFAULT),
    ("test_message_structure_json_exc/invalid-json", "publish",
     json_message('{"default": "This is a default message"} }'),
     INVALID, "Invalid parameter: Message Structure - JSON message body failed to parse"),
    ("test_message_structure_json_exc/key-is-not-string", "publish",
     json_message(json.dumps({"default": {"object": "test"}})), INVALID, NO_DEFAULT),
    ("test_subscribe_with_invalid_protocol/exception", "subscribe",
     {"TopicArn": "TOPIC", "Protocol": "test-protocol", "Endpoint": "localhost"},
     INVALID, "Invalid parameter: Amazon SNS does not support this protocol string: test-protocol"),
    ("test_validate_set_sub_attributes/fake-attribute", "set_subscription_attributes",
     sub_attribute("FakeAttribute", "test-value"), INVALID, "Invalid parameter: AttributeName"),
    ("test_validate_set_sub_attributes/raw-message-wrong-value", "set_subscription_attributes",
     sub_attribute("RawMessageDelivery", "test-ValUe"),
     INVALID, "Invalid parameter: RawMessageDelivery: Invalid value [test-ValUe]. Must be true or false."),
    ("test_validate_set_sub_attributes/raw-message-empty-value", "set_subscription_attributes",
     sub_attribute("RawMessageDelivery", ""),
     INVALID, "Invalid parameter: RawMessageDelivery: Invalid value []. Must be true or false."),
    ("test_validate_set_sub_attributes/fake-arn-redrive-policy", "set_subscription_attributes",
     sub_attribute("RedrivePolicy", json.dumps({"deadLetterTargetArn": "fake-arn"})),
     INVALID, "Invalid parameter: RedrivePolicy: deadLetterTargetArn is an invalid arn"),
    ("test_validate_set_sub_attributes/invalid-json-redrive-policy", "set_subscription_attributes",
     sub_attribute("RedrivePolicy", "{invalidjson}"), INVALID,
     "Invalid parameter: RedrivePolicy: failed to parse JSON. " + FIELD_NAME_EXPECTED),
    ("test_validate_set_sub_attributes/invalid-json-filter-policy", "set_subscription_attributes",
     sub_attribute("FilterPolicy", "{invalidjson}"), INVALID,
     "Invalid parameter: FilterPolicy: failed to parse JSON. " + FIELD_NAME_EXPECTED),
    ("test_subscribe_invalid_filter_policy/subscribe-invalid-filter-policy", "subscribe",
     {"TopicArn": "TOPIC", "Protocol": "email", "Endpoint": "test@example.com",
      "Attributes": {"FilterPolicy": "invalid-json"}}, INVALID,
     "Invalid parameter: Attributes Reason: FilterPolicy: failed to parse JSON. Unrecognized token 'invalid': was "
     "expecting (JSON String, Number, Array, Object or token 'null', 'true' or 'false')\n at " + JACKSON_SOURCE.format(8)),
    ("test_publish_batch_exceptions/no-default-key-json", "publish_batch",
     batch({"Id": "1", "Message": json.dumps({"sqs": "test"}), "MessageStructure": "json"}), INVALID, NO_DEFAULT),
    ("test_publish_batch_too_long_message/error-no-attrs", "publish_batch",
     batch({"Id": "1", "Message": "a" * (MAX // 2)}, {"Id": "2", "Message": "b" * (1 + MAX // 2)}), *TOO_LONG),
    ("test_publish_batch_too_long_message/error-with-attrs", "publish_batch",
     batch({"Id": "1", "Message": "a" * (MAX - 12), "MessageAttributes": NUMBER}, {"Id": "2", "Message": "b"}),
     *TOO_LONG),
    ("test_publish_batch_invalid_entry_id/invalid-char-dot", "publish_batch",
     batch({"Id": "message.id", "Message": "test message"}), "InvalidBatchEntryId", BAD_ID + "message.id"),
    ("test_publish_batch_invalid_entry_id/invalid-char-special", "publish_batch",
     batch({"Id": "msg@123#test", "Message": "test message"}), "InvalidBatchEntryId", BAD_ID + "msg@123#test"),
    ("test_publish_batch_invalid_entry_id/id-too-long-81", "publish_batch",
     batch({"Id": "a" * 81, "Message": "test message"}),
     "InvalidBatchEntryId", "The Id of a batch entry in the batch request is too long: " + "a" * 81),
]


def subscribed(door) -> tuple[object, object, str, str, str]:
    sns, sqs = door.client("sns"), door.client("sqs")
    topic = sns.create_topic(Name="orders")["TopicArn"]
    queue_url = sqs.create_queue(QueueName="subscriber")["QueueUrl"]
    queue_arn = sqs.get_queue_attributes(QueueUrl=queue_url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    sub = sns.subscribe(TopicArn=topic, Protocol="sqs", Endpoint=queue_arn)["SubscriptionArn"]
    return sns, sqs, topic, sub, queue_url


@pytest.mark.parametrize("source, operation, request_, code, message", CASES, ids=[case[0] for case in CASES])
def test_aws_refuses_and_nothing_changes(door, source, operation, request_, code, message):
    sns, sqs, topic, sub, queue_url = subscribed(door)
    attributes = sns.get_subscription_attributes(SubscriptionArn=sub)["Attributes"]
    arns = {"TOPIC": topic, "SUB": sub}
    with pytest.raises(ClientError) as raised:
        getattr(sns, operation)(**{name: arns.get(value, value) if isinstance(value, str) else value
                                   for name, value in request_.items()})
    assert raised.value.response["Error"] == {"Type": "Sender", "Code": code, "Message": message}
    assert raised.value.response["ResponseMetadata"]["HTTPStatusCode"] == 400
    assert sns.get_subscription_attributes(SubscriptionArn=sub)["Attributes"] == attributes
    assert [entry["SubscriptionArn"] for entry in sns.list_subscriptions()["Subscriptions"]] == [sub]
    assert sqs.get_queue_attributes(QueueUrl=queue_url, AttributeNames=["ApproximateNumberOfMessages"])[
        "Attributes"] == {"ApproximateNumberOfMessages": "0"}


def test_what_aws_accepts_goes_through(door):
    """AWS accepted these (test_message_structure_json_exc/duplicate-json-keys, test_publish_batch_invalid_entry_id/
    valid-id-80-chars and valid-id-with-hyphen-underscore, the last call of test_publish_batch_too_long_message)."""
    sns, sqs, topic, sub, queue_url = subscribed(door)
    sns.publish(TopicArn=topic, Message='{"default": "This is a default message", "default": "Duplicate"}',
                MessageStructure="json")
    for entry_id in ("a" * 80, "valid-message_123"):
        answer = sns.publish_batch(TopicArn=topic, PublishBatchRequestEntries=[{"Id": entry_id, "Message": "m"}])
        assert ([entry["Id"] for entry in answer["Successful"]], answer["Failed"]) == ([entry_id], [])
    answer = sns.publish_batch(TopicArn=topic, PublishBatchRequestEntries=[
        {"Id": "1", "Message": "a" * (MAX - 13), "MessageAttributes": NUMBER},
        {"Id": "2", "Message": "b"}])
    assert ([entry["Id"] for entry in answer["Successful"]], answer["Failed"]) == (["1", "2"], [])
    assert "MessageId" in sns.publish(TopicArn=topic, Message="a" * (MAX - 12), MessageAttributes=NUMBER)
    sns.set_subscription_attributes(SubscriptionArn=sub, AttributeName="RawMessageDelivery", AttributeValue="true")
    assert sns.get_subscription_attributes(SubscriptionArn=sub)["Attributes"]["RawMessageDelivery"] == "true"


def test_a_fifo_topic_refuses_a_message_without_its_group_or_deduplication(door):
    """test_validations_for_fifo/no-msg-group-id and /no-dedup-policy (the same words for PublishBatch's entries:
    test_publish_batch_exceptions/no-group-id, /no-dedup-id); with ContentBasedDeduplication the group suffices."""
    sns, sqs = door.client("sns"), door.client("sqs")
    topic = sns.create_topic(Name="orders.fifo", Attributes={"FifoTopic": "true"})["TopicArn"]
    queue_url = sqs.create_queue(QueueName="subscriber.fifo", Attributes={"FifoQueue": "true"})["QueueUrl"]
    queue_arn = sqs.get_queue_attributes(QueueUrl=queue_url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    sns.subscribe(TopicArn=topic, Protocol="sqs", Endpoint=queue_arn)
    for request, message in (({}, "The MessageGroupId parameter is required for FIFO topics"),
                             ({"MessageGroupId": "g"}, "The topic should either have ContentBasedDeduplication "
                                                       "enabled or MessageDeduplicationId provided explicitly")):
        with pytest.raises(ClientError) as raised:
            sns.publish(TopicArn=topic, Message="test", **request)
        assert raised.value.response["Error"] == {"Type": "Sender", "Code": "InvalidParameter",
                                                  "Message": f"Invalid parameter: {message}"}
        # the whole batch refused for one entry, not answered with the entry Failed
        with pytest.raises(ClientError) as raised:
            sns.publish_batch(TopicArn=topic, PublishBatchRequestEntries=[
                {"Id": "1", "Message": "test", "MessageGroupId": "g", "MessageDeduplicationId": "d1"},
                {"Id": "2", "Message": "test", **request}])
        assert raised.value.response["Error"] == {"Type": "Sender", "Code": "InvalidParameter",
                                                  "Message": f"Invalid parameter: {message}"}
    # test_publish_batch_exceptions/no-default-key-json: an entry's JSON is checked before its group
    with pytest.raises(ClientError) as raised:
        sns.publish_batch(TopicArn=topic, PublishBatchRequestEntries=[
            {"Id": "1", "Message": json.dumps({"sqs": "test sqs"}), "MessageStructure": "json"}])
    assert raised.value.response["Error"] == {"Type": "Sender", "Code": "InvalidParameter", "Message": NO_DEFAULT}
    assert sqs.get_queue_attributes(QueueUrl=queue_url, AttributeNames=["ApproximateNumberOfMessages"])[
        "Attributes"] == {"ApproximateNumberOfMessages": "0"}
    sns.publish(TopicArn=topic, Message="test", MessageGroupId="g", MessageDeduplicationId="d")
    assert sqs.get_queue_attributes(QueueUrl=queue_url, AttributeNames=["ApproximateNumberOfMessages"])[
        "Attributes"] == {"ApproximateNumberOfMessages": "1"}
    sns.set_topic_attributes(TopicArn=topic, AttributeName="ContentBasedDeduplication", AttributeValue="true")
    assert "MessageId" in sns.publish(TopicArn=topic, Message="other", MessageGroupId="g")  # accepted


def test_fifo_subscriptions_and_standard_topics_refused_as_aws_refuses_them(door):
    """test_validations_for_fifo: "not-fifo-topic" (a FIFO queue to a standard topic), "not-fifo-queue" (a standard
    queue to a FIFO topic: accepted, and a standard dead-letter queue for it too), "regular-queue-for-dlq-of-fifo-topic"
    (a standard dead-letter queue for a FIFO queue's subscription: refused, at Subscribe too) and
    "no-msg-dedup-regular-topic" (a MessageDeduplicationId to a standard topic)."""
    sns, sqs = door.client("sns"), door.client("sqs")

    def queue(name: str, **attributes: str) -> str:
        url = sqs.create_queue(QueueName=name, Attributes=attributes)["QueueUrl"]
        return sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]

    topic = sns.create_topic(Name="standard")["TopicArn"]
    fifo_topic = sns.create_topic(Name="orders.fifo", Attributes={"FifoTopic": "true"})["TopicArn"]
    fifo_queue, standard_queue, standard_dlq = queue("q.fifo", FifoQueue="true"), queue("q"), queue("dlq")
    redrive = json.dumps({"deadLetterTargetArn": standard_dlq})
    refusals = []
    for call, request in (
            (sns.subscribe, {"TopicArn": topic, "Protocol": "sqs", "Endpoint": fifo_queue}),
            (sns.subscribe, {"TopicArn": fifo_topic, "Protocol": "sqs", "Endpoint": fifo_queue,
                             "Attributes": {"RedrivePolicy": redrive}}),
            (sns.publish, {"TopicArn": topic, "Message": "test", "MessageDeduplicationId": "d"})):
        with pytest.raises(ClientError) as raised:
            call(**request)
        refusals.append(raised.value.response["Error"]["Message"])
    standard = sns.subscribe(TopicArn=fifo_topic, Protocol="sqs", Endpoint=standard_queue, ReturnSubscriptionArn=True)
    sns.set_subscription_attributes(SubscriptionArn=standard["SubscriptionArn"], AttributeName="RedrivePolicy",
                                    AttributeValue=redrive)
    fifo = sns.subscribe(TopicArn=fifo_topic, Protocol="sqs", Endpoint=fifo_queue)["SubscriptionArn"]
    with pytest.raises(ClientError) as raised:
        sns.set_subscription_attributes(SubscriptionArn=fifo, AttributeName="RedrivePolicy", AttributeValue=redrive)
    assert raised.value.response["Error"] == {
        "Type": "Sender", "Code": INVALID, "Message": "Invalid parameter: RedrivePolicy: must use a FIFO queue as DLQ "
                                                      "for a FIFO Subscription to a FIFO Topic."}
    assert refusals == [
        "Invalid parameter: Invalid parameter: Endpoint Reason: FIFO SQS Queues can not be subscribed to standard SNS "
        "topics",
        "Invalid parameter: RedrivePolicy: must use a FIFO queue as DLQ for a FIFO Subscription to a FIFO Topic.",
        "Invalid parameter: MessageDeduplicationId Reason: The request includes MessageDeduplicationId parameter that "
        "is not valid for this topic type"]
    assert "RedrivePolicy" not in sns.get_subscription_attributes(SubscriptionArn=fifo)["Attributes"]
    assert [(sub["TopicArn"], sub["Endpoint"]) for sub in sns.list_subscriptions()["Subscriptions"]] == [
        (fifo_topic, standard_queue), (fifo_topic, fifo_queue)]


@pytest.mark.parametrize("operation, request_, message", [
    ("subscribe", {"TopicArn": "TOPIC", "Protocol": "sqs", "Endpoint": "arn:aws:sqs:us-east-1:123456789012:other",
                   "Attributes": {"RedrivePolicy": '{"deadLetterTargetArn": tru}'}},
     "Invalid parameter: Attributes Reason: RedrivePolicy: failed to parse JSON. Unrecognized token 'tru': was "
     "expecting (JSON String, Number, Array, Object or token 'null', 'true' or 'false')\n at "
     + JACKSON_SOURCE.format(28)),
    ("set_subscription_attributes", sub_attribute("DeliveryPolicy", '{"healthyRetryPolicy": {"numRetries": 3,}}'),
     "Invalid parameter: DeliveryPolicy: failed to parse JSON. Unexpected character ('}' (code 125)): was expecting "
     "double-quote to start field name\n at " + JACKSON_SOURCE.format(41)),
], ids=["subscribe-redrive-policy", "set-delivery-policy"])
def test_other_policies_not_json_are_refused_in_the_parsers_words(door, operation, request_, message):
    """No recording of these: SNS words them as it words the recorded RedrivePolicy's and FilterPolicy's (above),
    its JSON parser's (Jackson's) reason and place after "failed to parse JSON. "."""
    sns, sqs, topic, sub, queue_url = subscribed(door)
    attributes = sns.get_subscription_attributes(SubscriptionArn=sub)["Attributes"]
    with pytest.raises(ClientError) as raised:
        getattr(sns, operation)(**{name: {"TOPIC": topic, "SUB": sub}.get(value, value) if isinstance(value, str)
                                   else value for name, value in request_.items()})
    assert raised.value.response["Error"] == {"Type": "Sender", "Code": INVALID, "Message": message}
    assert sns.get_subscription_attributes(SubscriptionArn=sub)["Attributes"] == attributes
    assert [entry["SubscriptionArn"] for entry in sns.list_subscriptions()["Subscriptions"]] == [sub]

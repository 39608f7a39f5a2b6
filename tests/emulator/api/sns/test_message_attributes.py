"""Publish's and PublishBatch's MessageAttributes checked as SNS checks them (emulator/api/sns/message_attributes.py).

Every expected answer is AWS's, recorded in LocalStack's AWS-validated snapshots (localstack/localstack at
8b9a79f05846835cf4dff63ab7eefdde9df83783, tests/aws/services/sns/test_sns.snapshot.json), TestSNSSubscriptionSQS::
test_empty_or_wrong_message_attributes (recorded 15-11-2024; the snapshot key per case, "batch-" before it for
PublishBatch's) and ::test_message_attributes_prefixes: the whole error (Type, Code, Message) and its status.
"""

from __future__ import annotations

import json

import pytest
from botocore.exceptions import ClientError

from tests.emulator.recorded_snapshots import assert_recorded, recorded_shape

NON_EMPTY = "The message attribute 'attr1' must contain non-empty message attribute value for message attribute type '{}'."
FIELD = "The message attribute 'attr1' with type '{}' must use field '{}'."
INVALID_TYPE = ("The message attribute 'attr1' has an invalid message attribute type, the set of supported type "
                "prefixes is Binary, Number, and String.")
VALUE = "ParameterValueInvalid"

#: (snapshot key, the MessageAttributes sent, AWS's Code, its Message for Publish, its Message for PublishBatch)
CASES = [
    ("missing_string_attr", {"attr1": {"DataType": "String", "StringValue": ""}}, VALUE, NON_EMPTY.format("String")),
    ("fully_missing_string_attr", {"attr1": {"DataType": "String"}}, VALUE, NON_EMPTY.format("String")),
    ("fully_missing_data_type", {"attr1": {"StringValue": "value"}}, "ValidationError",
     "1 validation error detected: Value null at '{}messageAttributes.attr1.member.dataType' failed to satisfy "
     "constraint: Member must not be null"),
    ("missing_binary_attr", {"attr1": {"DataType": "Binary", "BinaryValue": b""}}, VALUE, NON_EMPTY.format("Binary")),
    ("str_attr_binary_value", {"attr1": {"DataType": "String", "BinaryValue": b"123"}}, VALUE,
     FIELD.format("String", "String")),
    ("int_attr_binary_value", {"attr1": {"DataType": "Number", "BinaryValue": b"123"}}, VALUE,
     FIELD.format("Number", "String")),
    ("binary_attr_string_value", {"attr1": {"DataType": "Binary", "StringValue": "123"}}, VALUE,
     FIELD.format("Binary", "Binary")),
    ("invalid_attr_string_value", {"attr1": {"DataType": "InvalidType", "StringValue": "123"}}, VALUE, INVALID_TYPE),
    ("too_long_name", {"a" * 257: {"DataType": "String", "StringValue": "123"}}, VALUE,
     "Length of message attribute name must be less than 256 bytes."),
    ("invalid_name", {"a^*?": {"DataType": "String", "StringValue": "123"}}, VALUE,
     "Invalid non-alphanumeric character '#x5E' was found in the message attribute name. Can only include "
     "alphanumeric characters, hyphens, underscores, or dots."),
    ("invalid_name_2", {".abc": {"DataType": "String", "StringValue": "123"}}, VALUE,
     "Invalid message attribute name starting with character '.' was found."),
    ("invalid_name_3", {"abc.": {"DataType": "String", "StringValue": "123"}}, VALUE,
     "Invalid message attribute name ending with character '.' was found."),
    ("invalid_name_4", {"a..bc": {"DataType": "String", "StringValue": "123"}}, VALUE,
     "Message attribute name can not have successive '.' character."),
    # test_message_attributes_prefixes/publish-error and /publish-error-2: a custom type needs "." and a suffix
    ("publish-error", {"attr1": {"DataType": "String.", "StringValue": "prefixed-1"}}, VALUE, INVALID_TYPE),
    ("publish-error-2", {"attr1": {"DataType": "Stringprefixed", "StringValue": "prefixed-1"}}, VALUE, INVALID_TYPE),
]


def subscribed_queue(door):
    sns, sqs = door.client("sns", validate=False), door.client("sqs")
    topic = sns.create_topic(Name="orders")["TopicArn"]
    url = sqs.create_queue(QueueName="subscriber")["QueueUrl"]
    arn = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    sns.subscribe(TopicArn=topic, Protocol="sqs", Endpoint=arn)
    return sns, sqs, topic, url


def received_messages(sqs, url) -> list[str]:
    """The notifications' Messages, the queue emptied (moto's SQS deliveries are made before Publish answers)."""
    messages = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10, WaitTimeSeconds=1).get("Messages", [])
    for message in messages:
        sqs.delete_message(QueueUrl=url, ReceiptHandle=message["ReceiptHandle"])
    return [json.loads(message["Body"])["Message"] for message in messages]


@pytest.mark.parametrize("key, attributes, code, message", CASES, ids=[case[0] for case in CASES])
def test_refused_as_aws_refused_them_and_nothing_published(door, key, attributes, code, message):
    sns, sqs, topic, url = subscribed_queue(door)
    with pytest.raises(ClientError) as raised:
        sns.publish(TopicArn=topic, Message="test message", MessageAttributes=attributes)
    assert raised.value.response["Error"] == {"Type": "Sender", "Code": code, "Message": message.format("")}
    assert raised.value.response["ResponseMetadata"]["HTTPStatusCode"] == 400
    # batch-<key>: the whole batch refused, the valid entry too; a ValidationError names the entry
    with pytest.raises(ClientError) as raised:
        sns.publish_batch(TopicArn=topic, PublishBatchRequestEntries=[
            {"Id": "1", "Message": "test-batch", "MessageAttributes": attributes},
            {"Id": "3", "Message": "valid-batch"}])
    batch_message = message.format("publishBatchRequestEntries.1.member.")
    assert raised.value.response["Error"] == {"Type": "Sender", "Code": code, "Message": batch_message}
    assert raised.value.response["ResponseMetadata"]["HTTPStatusCode"] == 400
    sns.publish(TopicArn=topic, Message="after")
    assert received_messages(sqs, url) == ["after"]


def test_the_entry_named_is_the_one_refused(door):
    """A ValidationError names the batch entry (its position, 1-based) whose attribute has no DataType."""
    sns, sqs, topic, url = subscribed_queue(door)
    with pytest.raises(ClientError) as raised:
        sns.publish_batch(TopicArn=topic, PublishBatchRequestEntries=[
            {"Id": "1", "Message": "valid-batch"},
            {"Id": "2", "Message": "test-batch", "MessageAttributes": {"attr1": {"StringValue": "value"}}}])
    assert raised.value.response["Error"]["Message"] == (
        "1 validation error detected: Value null at 'publishBatchRequestEntries.2.member.messageAttributes.attr1."
        "member.dataType' failed to satisfy constraint: Member must not be null")
    sns.publish(TopicArn=topic, Message="after")
    assert received_messages(sqs, url) == ["after"]


@pytest.mark.parametrize("key, data_type", [("publish-ok-1", "String.prefixed"), ("publish-ok-2", "String.  prefixed.")])
def test_custom_types_are_taken_and_delivered(door, key, data_type):
    """test_message_attributes_prefixes/publish-ok-1 and -2: any suffix after "String." is taken."""
    sns, sqs, topic, url = subscribed_queue(door)
    answer = sns.publish(TopicArn=topic, Message="test message",
                         MessageAttributes={"attr1": {"DataType": data_type, "StringValue": "prefixed-1"}})
    assert_recorded(recorded_shape(answer), {"MessageId": "<uuid:1>", "ResponseMetadata": {"HTTPHeaders": {}, "HTTPStatusCode": 200}})
    message = sqs.receive_message(QueueUrl=url, WaitTimeSeconds=1)["Messages"][0]
    assert json.loads(message["Body"])["MessageAttributes"] == {"attr1": {"Type": data_type, "Value": "prefixed-1"}}


def test_the_names_and_types_aws_takes_are_taken(door):
    """The Developer Guide's names (letters, digits, "-", "_", single dots inside; 256 bytes) and types (String,
    Number, Binary, String.Array, custom suffixes), published and delivered with their values."""
    sns, sqs, topic, url = subscribed_queue(door)
    attributes = {
        "a" * 256: {"DataType": "String", "StringValue": "longest"},
        "order.id-2_x": {"DataType": "Number", "StringValue": "42"},
        "blob": {"DataType": "Binary", "BinaryValue": b"\x00\x01"},
        "colours": {"DataType": "String.Array", "StringValue": '["red", "blue"]'},
        "price": {"DataType": "Number.float", "StringValue": "1.5"},
        "image": {"DataType": "Binary.png", "BinaryValue": b"png"},
    }
    sns.publish(TopicArn=topic, Message="test message", MessageAttributes=attributes)
    sns.publish_batch(TopicArn=topic, PublishBatchRequestEntries=[
        {"Id": "1", "Message": "batched", "MessageAttributes": attributes}])
    delivered = []
    while len(delivered) < 2:
        for message in sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10, WaitTimeSeconds=1)["Messages"]:
            sqs.delete_message(QueueUrl=url, ReceiptHandle=message["ReceiptHandle"])
            delivered.append(json.loads(message["Body"]))
    expected = {
        "a" * 256: {"Type": "String", "Value": "longest"},
        "order.id-2_x": {"Type": "Number", "Value": "42"},
        "blob": {"Type": "Binary", "Value": "AAE="},
        "colours": {"Type": "String.Array", "Value": '["red", "blue"]'},
        "price": {"Type": "Number.float", "Value": "1.5"},
        "image": {"Type": "Binary.png", "Value": "cG5n"},
    }
    assert sorted(body["Message"] for body in delivered) == ["batched", "test message"]
    assert [body["MessageAttributes"] for body in delivered] == [expected, expected]

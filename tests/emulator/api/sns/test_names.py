"""SNS's names and ARNs checked as SNS checks them (emulator/api/sns/names.py), and its errors without moto's second,
lowercase `message` (moto_seam/services/query_errors.py).

Every expected answer is AWS's, recorded in LocalStack's AWS-validated snapshots (localstack/localstack at
8b9a79f05846835cf4dff63ab7eefdde9df83783, tests/aws/services/sns/test_sns.snapshot.json), named per case as
`<test>/<snapshot key>`: the whole error (Type, Code, Message; nothing else) and its status.
"""

from __future__ import annotations

import pytest
from botocore.exceptions import ClientError

ARN_ELEMENTS = "Invalid parameter: {} Reason: An ARN must have at least 6 elements, not {}"
TOPIC_NAME = "Invalid parameter: Topic Name"

#: (source, operation, its request (TOPIC: the topic's ARN), AWS's Message; the Code is InvalidParameter, status 400)
CASES = [
    ("test_create_topic_with_attributes/get-attrs-malformed-topic", "get_topic_attributes",
     {"TopicArn": "test-topic"}, ARN_ELEMENTS.format("TopicArn", 1)),
    ("test_publish_wrong_arn_format/invalid-topic-arn", "publish",
     {"Message": "Good news everyone!", "TopicArn": "randomstring"}, ARN_ELEMENTS.format("TopicArn", 1)),
    ("test_publish_wrong_arn_format/invalid-topic-arn-1", "publish",
     {"Message": "Good news everyone!", "TopicArn": "randomstring:1"}, ARN_ELEMENTS.format("TopicArn", 2)),
    ("test_publish_wrong_arn_format/empty-topic", "publish",
     {"Message": "Good news everyone!", "TopicArn": ""}, ARN_ELEMENTS.format("TopicArn", 1)),
    ("test_subscribe_with_invalid_topic/invalid-subscribe-arn-1", "subscribe",
     {"TopicArn": "randomstring", "Protocol": "email", "Endpoint": "localstack@yopmail.com"},
     ARN_ELEMENTS.format("TopicArn", 1)),
    ("test_subscribe_with_invalid_topic/invalid-subscribe-arn-2", "subscribe",
     {"TopicArn": "arn:aws:sns:us-east-1:random", "Protocol": "email", "Endpoint": "localstack@yopmail.com"},
     ARN_ELEMENTS.format("TopicArn", 5)),
    ("test_unsubscribe_wrong_arn_format/invalid-unsubscribe-arn-1", "unsubscribe",
     {"SubscriptionArn": "randomstring"}, ARN_ELEMENTS.format("SubscriptionArn", 1)),
    ("test_unsubscribe_wrong_arn_format/invalid-unsubscribe-arn-2", "unsubscribe",
     {"SubscriptionArn": "arn:aws:sns:us-east-1:random"}, ARN_ELEMENTS.format("SubscriptionArn", 5)),
    ("test_unsubscribe_wrong_arn_format/invalid-unsubscribe-arn-3", "unsubscribe",
     {"SubscriptionArn": "arn:aws:sns:us-east-1:111111111111:random"}, "Invalid parameter: SubscriptionId"),
    ("test_unsubscribe_wrong_arn_format/invalid-unsubscribe-arn-4", "unsubscribe",
     {}, "Invalid parameter: SubscriptionArn Reason: no value for required parameter"),
    ("test_unsubscribe_from_deleted_topic/unsubscribe-deleted-topic", "unsubscribe",
     {"SubscriptionArn": "pending confirmation"}, ARN_ELEMENTS.format("SubscriptionArn", 1)),
    ("test_create_topic_name_constraints/name-too-short", "create_topic", {"Name": ""}, TOPIC_NAME),
    ("test_create_topic_name_constraints/name-too-long", "create_topic", {"Name": "a" * 257}, TOPIC_NAME),
    ("test_create_topic_name_constraints/name-contains-fifo", "create_topic", {"Name": "test.fifo"}, TOPIC_NAME),
    ("test_create_topic_name_constraints/fifo-name-not-contains-fifo", "create_topic",
     {"Name": "test", "Attributes": {"FifoTopic": "true"}}, TOPIC_NAME),
    *((f"test_create_topic_name_constraints/name-invalid-char-{index}", "create_topic", {"Name": f"bad{char}name"},
       TOPIC_NAME) for index, char in enumerate([":", ";", "!", "@", "|", "^", "%", " "])),
]


@pytest.mark.parametrize("source, operation, request_, message", CASES, ids=[case[0] for case in CASES])
def test_aws_refuses_the_name_or_arn_and_nothing_changes(door, source, operation, request_, message):
    sns = door.client("sns", validate=False)
    topic = sns.create_topic(Name="orders")["TopicArn"]
    with pytest.raises(ClientError) as raised:
        getattr(sns, operation)(**{name: topic if value == "TOPIC" else value for name, value in request_.items()})
    assert raised.value.response["Error"] == {"Type": "Sender", "Code": "InvalidParameter", "Message": message}
    assert "message" not in raised.value.response
    assert raised.value.response["ResponseMetadata"]["HTTPStatusCode"] == 400
    assert sns.list_topics()["Topics"] == [{"TopicArn": topic}]


def test_a_topic_of_another_region_is_refused_as_aws_refuses_it(door):
    """test_topic_publish_another_region/error and /error-batch: the topic's ARN sent to another region's SNS."""
    topic = door.client("sns").create_topic(Name="orders")["TopicArn"]
    elsewhere = door.client("sns", region="eu-west-1")
    for call in (lambda: elsewhere.publish(TopicArn=topic, Message="This is a test message"),
                 lambda: elsewhere.publish_batch(TopicArn=topic, PublishBatchRequestEntries=[
                     {"Id": "1", "Message": "This is a test message"}])):
        with pytest.raises(ClientError) as raised:
            call()
        assert raised.value.response["Error"] == {"Type": "Sender", "Code": "InvalidParameter",
                                                  "Message": "Invalid parameter: TopicArn"}


def test_the_longest_names_aws_takes_are_taken(door):
    """test_create_topic_name_constraints/valid-name-max-length: 256 characters; a FIFO topic's with its suffix."""
    sns = door.client("sns")
    names = ["a" * 256, "A-z_09", "b" * 251 + ".fifo"]
    arns = [sns.create_topic(Name=name, Attributes={"FifoTopic": "true"} if name.endswith(".fifo") else {})[
        "TopicArn"] for name in names]
    assert [arn.rsplit(":", 1)[1] for arn in arns] == names


def test_moto_s_own_errors_are_answered_without_a_second_message(door):
    """test_create_topic_with_attributes/get-attrs-nonexistent-topic: the Error's Code, Message and Type only, 404."""
    sns = door.client("sns")
    topic = sns.create_topic(Name="orders")["TopicArn"]
    with pytest.raises(ClientError) as raised:
        sns.get_topic_attributes(TopicArn=topic[:-1] + "x")
    response = dict(raised.value.response)
    assert (response.pop("Error"), response.pop("ResponseMetadata")["HTTPStatusCode"], response) == (
        {"Type": "Sender", "Code": "NotFound", "Message": "Topic does not exist"}, 404, {})

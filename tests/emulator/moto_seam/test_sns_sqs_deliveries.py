"""A standard topic's notifications to a standard queue as SNS delivers them (moto_seam/notifications/subscriptions.py):
a MessageStructure "json" message's text for "sqs" only where it is a string, the Publish's MessageGroupId and its
X-Ray trace header on the queue's message.

Every expected answer is AWS's, recorded in LocalStack's AWS-validated snapshots: github.com/localstack/localstack
at 8b9a79f05846835cf4dff63ab7eefdde9df83783, tests/aws/services/sns/test_sns.snapshot.json, TestSNSSubscriptionSQS
(the test and snapshot key named per case), the whole ReceiveMessage answer compared (tests/emulator/
recorded_snapshots.py reads the snapshots' placeholders).
"""

from __future__ import annotations

import inspect
import json

import boto3
from moto import mock_aws
from moto.sns.models import Subscription, sns_backends

from tests.emulator.recorded_snapshots import assert_recorded, recorded_shape

TOPIC = "arn:<partition>:sns:<region>:111111111111:<resource:1>"


def subscribed_queue(door):
    sns, sqs = door.client("sns"), door.client("sqs")
    topic = sns.create_topic(Name="orders")["TopicArn"]
    url = sqs.create_queue(QueueName="subscriber")["QueueUrl"]
    arn = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    sns.subscribe(TopicArn=topic, Protocol="sqs", Endpoint=arn)
    return sns, sqs, topic, url


def notification(message_id: str, message: str, **more) -> dict:
    return {"Type": "Notification", "MessageId": message_id, "TopicArn": TOPIC, "Message": message,
            "Timestamp": "date", "SignatureVersion": "1", "Signature": "<signature>",
            "SigningCertURL": "<cert-domain>/SimpleNotificationService-<signing-cert-file:1>",
            "UnsubscribeURL": f"<unsubscribe-domain>/?Action=Unsubscribe&SubscriptionArn={TOPIC}:<resource:2>",
            **more}


def received(sqs, url: str, **request) -> dict:
    answer = sqs.receive_message(QueueUrl=url, WaitTimeSeconds=10, **request)
    for message in answer.get("Messages", []):
        sqs.delete_message(QueueUrl=url, ReceiptHandle=message["ReceiptHandle"])
    return recorded_shape(answer)


def test_a_json_message_gives_the_queue_its_sqs_text_or_its_default(door):
    """test_message_structure_json_to_sqs/get-msg-json-sqs (a string under "sqs": that string) and
    /get-msg-json-default (an object under "sqs": ignored, the "default")."""
    sns, sqs, topic, url = subscribed_queue(door)
    sns.publish(TopicArn=topic, MessageStructure="json",
                Message=json.dumps({"default": "default field", "sqs": json.dumps({"field": "value"})}))
    assert_recorded(received(sqs, url), {"Messages": [{
        "Body": notification("<uuid:1>", '{"field": "value"}'), "MD5OfBody": "<md5-hash>", "MessageId": "<uuid:2>",
        "ReceiptHandle": "<receipt-handle:1>"}], "ResponseMetadata": {"HTTPHeaders": {}, "HTTPStatusCode": 200}})
    sns.publish(TopicArn=topic, MessageStructure="json",
                Message=json.dumps({"default": "default field", "sqs": {"field": "value"}}))
    assert_recorded(received(sqs, url), {"Messages": [{
        "Body": notification("<uuid:3>", "default field"), "MD5OfBody": "<md5-hash>", "MessageId": "<uuid:4>",
        "ReceiptHandle": "<receipt-handle:2>"}], "ResponseMetadata": {"HTTPHeaders": {}, "HTTPStatusCode": 200}})


def test_a_standard_queue_gets_the_publishs_message_group_id(door):
    """test_publish_message_group_id/messages (recorded 18-08-2025): a standard topic's Publish with a MessageGroupId
    reaches a standard queue with it (a FIFO topic's does not: test_sns_fifo_topics.py)."""
    sns, sqs, topic, url = subscribed_queue(door)
    sns.publish(TopicArn=topic, Message="test signature value with attributes", MessageGroupId="my-group-id-1",
                MessageAttributes={"attr1": {"DataType": "Number", "StringValue": "1"}})
    assert_recorded(received(sqs, url, AttributeNames=["All"], MessageAttributeNames=["All"]), {"Messages": [{
        "Attributes": {"ApproximateFirstReceiveTimestamp": "timestamp", "ApproximateReceiveCount": "1",
                       "MessageGroupId": "my-group-id-1", "SenderId": "<sender-id>", "SentTimestamp": "timestamp"},
        "Body": notification("<uuid:1>", "test signature value with attributes",
                             MessageAttributes={"attr1": {"Type": "Number", "Value": "1"}}),
        "MD5OfBody": "<md5-hash>", "MessageId": "<uuid:2>", "ReceiptHandle": "<receipt-handle:1>"}],
        "ResponseMetadata": {"HTTPHeaders": {}, "HTTPStatusCode": 200}})


def test_moto_still_sends_an_object_under_the_protocols_key():
    """The seam is still needed: moto's Subscription._parse_message_structure takes any value under the protocol's
    key."""
    assert list(inspect.signature(Subscription._parse_message_structure).parameters) == ["self", "message",
                                                                                          "protocol"]
    with mock_aws():
        sns = boto3.client("sns", region_name="us-east-1")
        topic = sns.create_topic(Name="orders")["TopicArn"]
        subscription = Subscription("123456789012", sns_backends["123456789012"]["us-east-1"].topics[topic],
                                    "arn:aws:sqs:us-east-1:123456789012:subscriber", "sqs")
        structure = json.dumps({"default": "default field", "sqs": {"field": "value"}})
        assert subscription._parse_message_structure(structure, "sqs") == {"field": "value"}


TRACE = "Root=1-3152b799-8954dae64eda91bc9a23a7e8;Parent=7fa8c0f79203be72;Sampled=1"


def test_a_publishs_xray_trace_header_reaches_the_queue(door):
    """test_publish_sqs_from_sns_with_xray_propagation/xray-msg: the Publish's X-Amzn-Trace-Id is the SQS message's
    AWSTraceHeader; a Publish without one gives none."""
    sns, sqs, topic, url = subscribed_queue(door)

    def traced(request, **_):
        request.headers["X-Amzn-Trace-Id"] = TRACE

    sns.meta.events.register("before-send.sns.Publish", traced)
    sns.publish(TargetArn=topic, Message="X-Ray propagation test msg")
    sns.meta.events.unregister("before-send.sns.Publish", traced)
    message = sqs.receive_message(QueueUrl=url, AttributeNames=["SentTimestamp", "AWSTraceHeader"],
                                  MessageAttributeNames=["All"], WaitTimeSeconds=10)["Messages"][0]
    sqs.delete_message(QueueUrl=url, ReceiptHandle=message["ReceiptHandle"])
    assert_recorded(message, {
        "Attributes": {"AWSTraceHeader": TRACE, "SentTimestamp": "timestamp"},
        "Body": notification("<uuid:1>", "X-Ray propagation test msg"), "MD5OfBody": "<md5-hash>",
        "MessageId": "<uuid:2>", "ReceiptHandle": "<receipt-handle:1>"})
    sns.publish(TargetArn=topic, Message="untraced")
    message = sqs.receive_message(QueueUrl=url, AttributeNames=["SentTimestamp", "AWSTraceHeader"],
                                  WaitTimeSeconds=10)["Messages"][0]
    assert list(message["Attributes"]) == ["SentTimestamp"]

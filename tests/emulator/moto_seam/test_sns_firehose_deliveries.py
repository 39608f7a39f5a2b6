"""An SNS subscription to a Firehose delivery stream (moto_seam/notifications/subscriptions.py): each notification (or,
with RawMessageDelivery, the message) and a newline put to the stream, in its S3 destination.

AWS's: LocalStack's AWS-validated test_sns.py at 8b9a79f05846835cf4dff63ab7eefdde9df83783,
TestSNSSubscriptionFirehose::test_publish_to_firehose_with_s3 (the object's first line is the notification: Type,
MessageId, Message, Timestamp); the SNS Developer Guide, "Fanout to Firehose delivery streams" (the notification as an
SQS subscriber gets it; raw delivery, the message alone).
"""

from __future__ import annotations

import json

import pytest

ROLE = "arn:aws:iam::123456789012:role/firehose"


def subscribed_stream(door, raw: bool):
    sns, s3, firehose = door.client("sns"), door.client("s3"), door.client("firehose")
    s3.create_bucket(Bucket="fanout-bucket")
    stream = firehose.create_delivery_stream(
        DeliveryStreamName="fanout", DeliveryStreamType="DirectPut", S3DestinationConfiguration={
            "RoleARN": ROLE, "BucketARN": "arn:aws:s3:::fanout-bucket",
            "BufferingHints": {"SizeInMBs": 1, "IntervalInSeconds": 60}})["DeliveryStreamARN"]
    topic = sns.create_topic(Name="fanout")["TopicArn"]
    subscription = sns.subscribe(TopicArn=topic, Protocol="firehose", Endpoint=stream, ReturnSubscriptionArn=True,
                                 Attributes={"SubscriptionRoleArn": ROLE, "RawMessageDelivery": str(raw).lower()})
    return sns, s3, topic, subscription["SubscriptionArn"]


def delivered_lines(s3) -> list[str]:
    keys = [entry["Key"] for entry in s3.list_objects(Bucket="fanout-bucket").get("Contents", [])]
    return [line for key in keys
            for line in s3.get_object(Bucket="fanout-bucket", Key=key)["Body"].read().decode().split("\n")]


@pytest.mark.parametrize("raw", [False, True], ids=["notification", "raw"])
def test_a_publish_reaches_the_streams_bucket(door, raw):
    sns, s3, topic, subscription = subscribed_stream(door, raw)
    message = json.dumps({"message": "hello world"})
    published = sns.publish(TopicArn=topic, Message=message, MessageAttributes={
        "testAttribute": {"DataType": "String", "StringValue": "valueOfAttribute"}})
    first, rest = delivered_lines(s3)[0], delivered_lines(s3)[1:]
    assert rest == [""]  # the record ends with its newline
    if raw:
        assert first == message
        return
    notification = json.loads(first)
    endpoint = door.url if door.name == "server" else "https://sns.us-east-1.amazonaws.com"
    assert {name: value for name, value in notification.items() if name not in ("Timestamp", "Signature")} == {
        "Type": "Notification", "MessageId": published["MessageId"], "TopicArn": topic, "Message": message,
        "SignatureVersion": "1", "SigningCertURL": notification["SigningCertURL"],
        "UnsubscribeURL": f"{endpoint}/?Action=Unsubscribe&SubscriptionArn={subscription}",
        "MessageAttributes": {"testAttribute": {"Type": "String", "Value": "valueOfAttribute"}}}
    assert notification["SigningCertURL"].startswith(f"{endpoint}/SimpleNotificationService-")

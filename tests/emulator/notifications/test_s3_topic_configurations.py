"""S3 event notifications to SNS topics (TopicConfigurations) through both doors: the topic's queue subscription
gets SNS's envelope around S3's record, its function subscription (Python and Node.js) Lambda's SNS event around
it, both with the Subject S3 gives ("Amazon S3 Notification"; AWS's recorded messages in LocalStack's
test_s3_notifications_sns.snapshot.json)."""

from __future__ import annotations

import hashlib
import json

import pytest

from tests.emulator.notifications.test_s3_notifications import FORWARDER, NODE_FORWARDER, notify, wait_for_messages
from tests.emulator.trigger_helpers import create_zip_function
from tests.emulator.triggers.sqs_helpers import queue


def s3_records(message: str) -> list[dict]:
    """The S3 records an SNS message carries (none for S3's s3:TestEvent)."""
    return json.loads(message).get("Records", [])


def test_s3_to_a_topic_to_a_queue(door):
    s3, sns, sqs = door.client("s3"), door.client("sns"), door.client("sqs")
    url, arn = queue(sqs, "fanout")
    topic = sns.create_topic(Name="uploads")["TopicArn"]
    sns.subscribe(TopicArn=topic, Protocol="sqs", Endpoint=arn)
    s3.create_bucket(Bucket="images")
    notify(s3, "images", TopicConfigurations=[{"Id": "to-topic", "TopicArn": topic, "Events": ["s3:ObjectCreated:*"]}])
    s3.put_object(Bucket="images", Key="cat.jpg", Body=b"meow")
    envelopes = wait_for_messages(sqs, url, 2)
    assert [(e["Type"], e["TopicArn"], e["Subject"]) for e in envelopes] == [
        ("Notification", topic, "Amazon S3 Notification")] * 2
    test_event = json.loads(envelopes[0]["Message"])  # as the S3 User Guide's "Event message structure" shows it
    assert set(test_event) == {"Service", "Event", "Time", "Bucket", "RequestId", "HostId"}
    assert (test_event["Service"], test_event["Event"], test_event["Bucket"]) == ("Amazon S3", "s3:TestEvent", "images")
    [record] = s3_records(envelopes[1]["Message"])
    assert (record["eventName"], record["s3"]["configurationId"]) == ("ObjectCreated:Put", "to-topic")
    assert record["s3"]["object"] == {"key": "cat.jpg", "size": 4, "eTag": hashlib.md5(b"meow").hexdigest(),
                                      "sequencer": record["s3"]["object"]["sequencer"]}


@pytest.mark.parametrize("runtime", ["python", "node"])
def test_s3_to_a_topic_to_a_function(door, runtime):
    s3, sns, sqs, lam = door.client("s3"), door.client("sns"), door.client("sqs"), door.client("lambda")
    inbox, _ = queue(sqs, "inbox")
    function_arn = create_zip_function(lam, "forwarder", runtime, FORWARDER if runtime == "python" else NODE_FORWARDER,
                                       Environment={"Variables": {"QUEUE_URL": inbox}})["FunctionArn"]
    topic = sns.create_topic(Name="uploads")["TopicArn"]
    subscription = sns.subscribe(TopicArn=topic, Protocol="lambda", Endpoint=function_arn,
                                 ReturnSubscriptionArn=True)["SubscriptionArn"]
    s3.create_bucket(Bucket="images")
    notify(s3, "images", TopicConfigurations=[{"Id": "to-topic", "TopicArn": topic, "Events": ["s3:ObjectRemoved:*"]}])
    s3.put_object(Bucket="images", Key="old.jpg", Body=b"x")
    s3.delete_object(Bucket="images", Key="old.jpg")
    events = wait_for_messages(sqs, inbox, 2)  # the test event and the delete, in any order (asynchronous invocations)
    notifications = [event["Records"][0] for event in events]
    assert {(n["EventSource"], n["EventSubscriptionArn"], n["Sns"]["TopicArn"], n["Sns"]["Subject"])
            for n in notifications} == {("aws:sns", subscription, topic, "Amazon S3 Notification")}
    [record] = [r for n in notifications for r in s3_records(n["Sns"]["Message"])]
    assert (record["eventName"], record["s3"]["bucket"]["name"], record["s3"]["object"]["key"]) == (
        "ObjectRemoved:Delete", "images", "old.jpg")

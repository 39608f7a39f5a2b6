"""What SNS cannot deliver goes to the subscription's RedrivePolicy queue, as that queue would have had it
(moto_seam/notifications/subscriptions.py).

Every expected answer is AWS's, recorded in LocalStack's AWS-validated snapshots: github.com/localstack/localstack
at 8b9a79f05846835cf4dff63ab7eefdde9df83783, tests/aws/services/sns/test_sns.snapshot.json (the test and snapshot key
named per case), compared whole (tests/emulator/recorded_snapshots.py reads the snapshots' placeholders).
"""

from __future__ import annotations

import json

import pytest

from tests.durability.service_listings import running
from tests.emulator.recorded_snapshots import assert_recorded, recorded_shape as answered
from tests.emulator.trigger_helpers import create_zip_function
from tests.emulator.moto_seam.test_sns_fifo_topics import EMPTY, ENTRIES, recorded_shape

TOPIC_ARN = "arn:<partition>:sns:<region>:111111111111:<resource:1>"  # the topic "alerts"
UNSUBSCRIBE = "<unsubscribe-domain>/?Action=Unsubscribe&SubscriptionArn=" + TOPIC_ARN + ":<resource:2>"
RECEIVED = {"ApproximateFirstReceiveTimestamp": "timestamp", "ApproximateReceiveCount": "1", "SenderId": "<sender-id>",
            "SentTimestamp": "timestamp"}


def signed(message: str, attributes: dict) -> dict:
    return {"Type": "Notification", "MessageId": "<uuid:1>", "TopicArn": TOPIC_ARN, "Message": message,
            "Timestamp": "date", "SignatureVersion": "1", "Signature": "<signature>",
            "SigningCertURL": "<cert-domain>/SimpleNotificationService-<signing-cert-file:1>",
            "UnsubscribeURL": UNSUBSCRIBE, "MessageAttributes": attributes}


ECHO = "def handler(event, context):\n    return event\n"


def queue(sqs, name: str, **attributes: str) -> tuple[str, str]:
    url = sqs.create_queue(QueueName=name, Attributes=attributes)["QueueUrl"]
    return url, sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]


@pytest.mark.parametrize("raw", [True, False], ids=["raw", "envelope"])
def test_a_deleted_queues_message_goes_to_the_dead_letter_queue(door, raw):
    """test_redrive_policy_sqs_queue_subscription[True] and [False]: "messages" (the dead-letter queue's, the message
    as the deleted queue would have had it: raw with its attributes, or SNS's envelope)."""
    sns, sqs = door.client("sns"), door.client("sqs")
    topic = sns.create_topic(Name="alerts")["TopicArn"]
    url, arn = queue(sqs, "subscriber")
    dlq_url, dlq_arn = queue(sqs, "dead-letters")
    subscription = sns.subscribe(TopicArn=topic, Protocol="sqs", Endpoint=arn)["SubscriptionArn"]
    sns.set_subscription_attributes(SubscriptionArn=subscription, AttributeName="RedrivePolicy",
                                    AttributeValue=json.dumps({"deadLetterTargetArn": dlq_arn}))
    if raw:
        sns.set_subscription_attributes(SubscriptionArn=subscription, AttributeName="RawMessageDelivery",
                                        AttributeValue="true")
    sqs.delete_queue(QueueUrl=url)
    message = "test_dlq_after_sqs_endpoint_deleted"
    sns.publish(TopicArn=topic, Message=message, MessageAttributes={
        "attr1": {"DataType": "Number", "StringValue": "111"}, "attr2": {"DataType": "Binary", "BinaryValue": b"\x02\x03\x04"}})
    received = sqs.receive_message(QueueUrl=dlq_url, WaitTimeSeconds=10, AttributeNames=["All"],
                                   MessageAttributeNames=["All"])
    if raw:
        expected = {"Attributes": RECEIVED, "Body": message, "MD5OfBody": "<md5-hash>",
                    "MD5OfMessageAttributes": "<md5-hash>", "MessageAttributes": {
                        "attr1": {"DataType": "Number", "StringValue": "111"},
                        "attr2": {"BinaryValue": "b'\\x02\\x03\\x04'", "DataType": "Binary"}},
                    "MessageId": "<uuid:1>", "ReceiptHandle": "<receipt-handle:1>"}
    else:
        expected = {"Attributes": RECEIVED, "Body": signed(message, {"attr2": {"Type": "Binary", "Value": "AgME"},
                                                                     "attr1": {"Type": "Number", "Value": "111"}}),
                    "MD5OfBody": "<md5-hash>", "MessageId": "<uuid:2>", "ReceiptHandle": "<receipt-handle:1>"}
    assert_recorded(recorded_shape(received), {"Messages": [expected], **EMPTY})


def test_a_fifo_topics_undelivered_messages_keep_their_group_and_order(door):
    """test_publish_fifo_messages_to_dlq[True]: "batch-messages-in-dlq" (raw delivery; the FIFO dead-letter queue gets
    each message with its group, its deduplication id and its attributes, in order)."""
    sns, sqs = door.client("sns"), door.client("sqs")
    topic = sns.create_topic(Name="orders.fifo", Attributes={"FifoTopic": "true"})["TopicArn"]
    url, arn = queue(sqs, "subscriber.fifo", FifoQueue="true")
    dlq_url, dlq_arn = queue(sqs, "dead-letters.fifo", FifoQueue="true")
    subscription = sns.subscribe(TopicArn=topic, Protocol="sqs", Endpoint=arn,
                                 Attributes={"RawMessageDelivery": "true"})["SubscriptionArn"]
    sns.set_subscription_attributes(SubscriptionArn=subscription, AttributeName="RedrivePolicy",
                                    AttributeValue=json.dumps({"deadLetterTargetArn": dlq_arn}))
    sqs.delete_queue(QueueUrl=url)
    entries = [{**entry, "MessageDeduplicationId": f"MessageDeduplicationId-{n + 1}"} for n, entry in enumerate(ENTRIES)]
    sns.publish_batch(TopicArn=topic, PublishBatchRequestEntries=entries)
    received = sqs.receive_message(QueueUrl=dlq_url, MessageAttributeNames=["All"], AttributeNames=["All"],
                                   MaxNumberOfMessages=10, WaitTimeSeconds=1, VisibilityTimeout=1)
    expected = []
    for n, entry in enumerate(ENTRIES):
        message = {"Attributes": {**RECEIVED, "MessageDeduplicationId": f"MessageDeduplicationId-{n + 1}",
                                  "MessageGroupId": "complexMessageGroupId",
                                  "SequenceNumber": f"<sequence-number:{4 + n}>"},
                   "Body": entry["Message"], "MD5OfBody": "<md5-hash>", "MessageId": f"<uuid:{4 + n}>",
                   "ReceiptHandle": f"<receipt-handle:{1 + n}>"}
        if "MessageAttributes" in entry:
            message.update(MD5OfMessageAttributes="<md5-hash>", MessageAttributes=entry["MessageAttributes"])
        expected.append(message)
    assert_recorded({"Messages": received["Messages"]}, {"Messages": expected})


def subscribed_function(door, dead_letter_arn: str) -> tuple[str, str]:
    """A topic "alerts" and a function "subscriber" subscribed to it, with a RedrivePolicy: (topic, subscription)."""
    sns = door.client("sns")
    topic = sns.create_topic(Name="alerts")["TopicArn"]
    function = create_zip_function(door.client("lambda"), "subscriber", "python", ECHO)["FunctionArn"]
    subscription = sns.subscribe(TopicArn=topic, Protocol="lambda", Endpoint=function)["SubscriptionArn"]
    sns.set_subscription_attributes(SubscriptionArn=subscription, AttributeName="RedrivePolicy",
                                    AttributeValue=json.dumps({"deadLetterTargetArn": dead_letter_arn}))
    return topic, subscription


def test_a_deleted_functions_notification_goes_to_the_dead_letter_queue_at_once(door):
    """test_redrive_policy_lambda_subscription: "subscription-attributes", then, the function deleted, "messages" (the
    dead-letter queue's: SNS's signed envelope with the message attributes, no SQS message attributes). A deleted
    function is a client-side error, which SNS does not retry (the SNS Developer Guide, "Amazon SNS dead-letter
    queues"): the message is there at the first receive."""
    sns, sqs = door.client("sns"), door.client("sqs")
    dlq_url, dlq_arn = queue(sqs, "dead-letters")
    topic, subscription = subscribed_function(door, dlq_arn)
    assert_recorded(answered(sns.get_subscription_attributes(SubscriptionArn=subscription)), {
        "Attributes": {
            "ConfirmationWasAuthenticated": "true",
            "Endpoint": "arn:<partition>:lambda:<region>:111111111111:function:<resource:1>",
            "Owner": "111111111111", "PendingConfirmation": "false", "Protocol": "lambda",
            "RawMessageDelivery": "false",
            "RedrivePolicy": {"deadLetterTargetArn": "arn:<partition>:sqs:<region>:111111111111:<resource:2>"},
            "SubscriptionArn": "arn:<partition>:sns:<region>:111111111111:<resource:5>:<resource:3>",
            "SubscriptionPrincipal": "arn:<partition>:iam::111111111111:user/<resource:4>",
            "TopicArn": "arn:<partition>:sns:<region>:111111111111:<resource:5>"},
        **EMPTY})
    door.client("lambda").delete_function(FunctionName="subscriber")
    sns.publish(TopicArn=topic, Message="test_redrive_policy",
                MessageAttributes={"attr1": {"DataType": "Number", "StringValue": "1"}})
    received = sqs.receive_message(QueueUrl=dlq_url, WaitTimeSeconds=10, MessageAttributeNames=["All"])
    topic_arn = "arn:<partition>:sns:<region>:111111111111:<resource:5>"
    assert_recorded(answered(received), {"Messages": [{
        "Body": {"Type": "Notification", "MessageId": "<uuid:1>", "TopicArn": topic_arn,
                 "Message": "test_redrive_policy", "Timestamp": "date", "SignatureVersion": "1",
                 "Signature": "<signature>",
                 "SigningCertURL": "<cert-domain>/SimpleNotificationService-<signing-cert-file:1>",
                 "UnsubscribeURL": "<unsubscribe-domain>/?Action=Unsubscribe&SubscriptionArn=" + topic_arn
                                   + ":<resource:3>",
                 "MessageAttributes": {"attr1": {"Type": "Number", "Value": "1"}}},
        "MD5OfBody": "<md5-hash>", "MessageId": "<uuid:2>", "ReceiptHandle": "<receipt-handle:1>"}], **EMPTY})


def test_a_live_functions_notification_goes_to_no_dead_letter_queue(door):
    """The function there, the notification is its event (queued for its asynchronous invocation), not a dead
    letter."""
    sns, sqs = door.client("sns"), door.client("sqs")
    dlq_url, dlq_arn = queue(sqs, "dead-letters")
    topic, _ = subscribed_function(door, dlq_arn)
    sns.publish(TopicArn=topic, Message="delivered")
    assert sqs.receive_message(QueueUrl=dlq_url, WaitTimeSeconds=1).get("Messages", []) == []


@pytest.mark.parametrize("kind", ["inprocess", "server"])
def test_a_restart_moves_only_what_went_to_a_deleted_function(kind, tmp_path):
    """Replayed, a notification goes to the dead-letter queue as it went the first time: the one sent while the
    function existed (deleted after it) does not, the one sent after it was deleted does, once."""
    state = str(tmp_path / "state")
    with running(kind, state) as door:
        sqs = door.client("sqs")
        dlq_url, dlq_arn = queue(sqs, "dead-letters")
        topic, _ = subscribed_function(door, dlq_arn)
        door.client("sns").publish(TopicArn=topic, Message="delivered")
        door.client("lambda").delete_function(FunctionName="subscriber")
        door.client("sns").publish(TopicArn=topic, Message="undelivered")
        sent = sqs.receive_message(QueueUrl=dlq_url, MaxNumberOfMessages=10, VisibilityTimeout=0)["Messages"]
        assert [json.loads(message["Body"])["Message"] for message in sent] == ["undelivered"]
    with running(kind, state) as door:
        received = door.client("sqs").receive_message(QueueUrl=dlq_url, MaxNumberOfMessages=10)["Messages"]
        assert [(message["MessageId"], message["Body"]) for message in received] == [
            (sent[0]["MessageId"], sent[0]["Body"])]


@pytest.mark.parametrize("kind", ["inprocess", "server"])
def test_a_restart_keeps_the_dead_letter_queues_message_once(kind, tmp_path):
    """The move to the dead-letter queue is part of the Publish: replayed with it, once."""
    state = str(tmp_path / "state")
    with running(kind, state) as door:
        sns, sqs = door.client("sns"), door.client("sqs")
        topic = sns.create_topic(Name="alerts")["TopicArn"]
        url, arn = queue(sqs, "subscriber")
        dlq_url, dlq_arn = queue(sqs, "dead-letters")
        sns.subscribe(TopicArn=topic, Protocol="sqs", Endpoint=arn,
                      Attributes={"RedrivePolicy": json.dumps({"deadLetterTargetArn": dlq_arn})})
        sqs.delete_queue(QueueUrl=url)
        sns.publish(TopicArn=topic, Message="undelivered")
        sent = sqs.receive_message(QueueUrl=dlq_url, VisibilityTimeout=0)["Messages"]
    with running(kind, state) as door:
        received = door.client("sqs").receive_message(QueueUrl=dlq_url, MaxNumberOfMessages=10)["Messages"]
        assert [(message["MessageId"], message["Body"]) for message in received] == [
            (sent[0]["MessageId"], sent[0]["Body"])]
        assert json.loads(received[0]["Body"])["Message"] == "undelivered"

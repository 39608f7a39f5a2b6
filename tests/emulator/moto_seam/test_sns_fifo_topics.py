"""FIFO topics as SNS runs them (moto_seam/notifications/fifo_topics.py, sns_signatures.py, subscriptions.py): numbered,
unsigned notifications, deduplication by the topic, SequenceNumbers answered, a standard queue given no group.

Every expected answer is AWS's, recorded in LocalStack's AWS-validated snapshots: github.com/localstack/localstack
at 8b9a79f05846835cf4dff63ab7eefdde9df83783, tests/aws/services/sns/test_sns.snapshot.json, TestSNSSubscriptionSQSFifo
(the test and snapshot key named per case), compared whole (tests/emulator/recorded_snapshots.py reads the snapshots'
placeholders).
"""

from __future__ import annotations

import json

import pytest

from tests.durability.service_listings import running
from tests.emulator.recorded_snapshots import assert_recorded, recorded_shape

EMPTY = {"ResponseMetadata": {"HTTPHeaders": {}, "HTTPStatusCode": 200}}
TOPIC, QUEUE = "<resource:1>", "<resource:2>"


def subscribed_queue(door, topic_attributes: dict, queue_attributes: dict | None, raw: bool = False):
    sns, sqs = door.client("sns"), door.client("sqs")
    topic = sns.create_topic(Name="orders.fifo", Attributes={"FifoTopic": "true", **topic_attributes})["TopicArn"]
    name = "subscriber.fifo" if queue_attributes is not None else "subscriber"
    url = sqs.create_queue(QueueName=name, Attributes=queue_attributes or {})["QueueUrl"]
    arn = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    sns.subscribe(TopicArn=topic, Protocol="sqs", Endpoint=arn,
                  Attributes={"RawMessageDelivery": "true"} if raw else {})
    return sns, sqs, topic, url


def notification() -> dict:
    return {"Type": "Notification", "MessageId": "<uuid:1>", "SequenceNumber": "<sequence-number:2>",
            "TopicArn": "arn:<partition>:sns:<region>:111111111111:orders.fifo", "Message": "Test", "Timestamp": "date",
            "UnsubscribeURL": "<unsubscribe-domain>/?Action=Unsubscribe&SubscriptionArn=arn:<partition>:sns:<region>:"
                              "111111111111:orders.fifo:<resource:2>"}


@pytest.mark.parametrize("content_based", [True, False], ids=["content-based", "deduplication-id"])
def test_a_fifo_queue_receives_the_numbered_unsigned_notification_once(door, content_based):
    """test_message_to_fifo_sqs[True] and [False]: "messages", then the same message published again,
    "dedup-messages" (nothing)."""
    attributes = {"ContentBasedDeduplication": "true"} if content_based else {}
    sns, sqs, topic, url = subscribed_queue(door, attributes, {"FifoQueue": "true", **attributes})
    request = {"MessageGroupId": "message-group-id-1"}
    if not content_based:
        request["MessageDeduplicationId"] = "message-deduplication-id-1"
    sns.publish(TopicArn=topic, Message="Test", **request)
    received = sqs.receive_message(QueueUrl=url, WaitTimeSeconds=10, AttributeNames=["All"])
    # AWS's recorded MessageDeduplicationId: with ContentBasedDeduplication the SHA-256 of the message
    deduplication_id = ("532eaabd9574880dbf76b9b8cc00832c20a6ec113d682299550d7a6e0f345e25" if content_based
                        else "message-deduplication-id-1")
    assert_recorded(recorded_shape(received), {
        "Messages": [{
            "Attributes": {"ApproximateFirstReceiveTimestamp": "timestamp", "ApproximateReceiveCount": "1",
                           "MessageDeduplicationId": deduplication_id, "MessageGroupId": "message-group-id-1",
                           "SenderId": "<sender-id>", "SentTimestamp": "timestamp",
                           "SequenceNumber": "<sequence-number:1>"},
            "Body": notification(), "MD5OfBody": "<md5-hash>", "MessageId": "<uuid:2>",
            "ReceiptHandle": "<receipt-handle:1>"}],
        **EMPTY})
    sqs.delete_message(QueueUrl=url, ReceiptHandle=received["Messages"][0]["ReceiptHandle"])
    sns.publish(TopicArn=topic, Message="Test", **request)
    assert recorded_shape(sqs.receive_message(QueueUrl=url, WaitTimeSeconds=1, AttributeNames=["All"])) == EMPTY


def test_a_standard_queue_receives_it_without_group_and_the_topic_deduplicates(door):
    """test_fifo_topic_to_regular_sqs[True]: "messages" (no MessageGroupId, MessageDeduplicationId nor
    SequenceNumber attribute), and "dedup-messages": the topic drops the repeat, which no standard queue would."""
    sns, sqs, topic, url = subscribed_queue(door, {"ContentBasedDeduplication": "true"}, None)
    sns.publish(TopicArn=topic, Message="Test", MessageGroupId="message-group-id-1")
    received = sqs.receive_message(QueueUrl=url, WaitTimeSeconds=10, AttributeNames=["All"])
    assert_recorded(recorded_shape(received), {
        "Messages": [{
            "Attributes": {"ApproximateFirstReceiveTimestamp": "timestamp", "ApproximateReceiveCount": "1",
                           "SenderId": "<sender-id>", "SentTimestamp": "timestamp"},
            "Body": {**notification(), "SequenceNumber": "<sequence-number:1>"}, "MD5OfBody": "<md5-hash>",
            "MessageId": "<uuid:2>", "ReceiptHandle": "<receipt-handle:1>"}],
        **EMPTY})
    sqs.delete_message(QueueUrl=url, ReceiptHandle=received["Messages"][0]["ReceiptHandle"])
    sns.publish(TopicArn=topic, Message="Test", MessageGroupId="message-group-id-1")
    assert recorded_shape(sqs.receive_message(QueueUrl=url, WaitTimeSeconds=1, AttributeNames=["All"])) == EMPTY


ENTRIES = [
    {"Id": "1", "MessageGroupId": "complexMessageGroupId", "Message": "Test Message with two attributes",
     "Subject": "Subject", "MessageAttributes": {"attr1": {"DataType": "Number", "StringValue": "99.12"},
                                                 "attr2": {"DataType": "Number", "StringValue": "109.12"}}},
    {"Id": "2", "MessageGroupId": "complexMessageGroupId", "Message": "Test Message with one attribute",
     "Subject": "Subject", "MessageAttributes": {"attr1": {"DataType": "Number", "StringValue": "19.12"}}},
    {"Id": "3", "MessageGroupId": "complexMessageGroupId", "Message": "Test Message without attribute",
     "Subject": "Subject"},
]
#: AWS's recorded MessageDeduplicationIds with ContentBasedDeduplication: the SHA-256 of each message
CONTENT_IDS = ["47f6d7e2c477469ad670ae3bfee60ed3e79080bb0105fc01a2805a50f8b21358",
               "2186166772ec2fb49b7ba9efbda53c6eabf8e785cb00420db531c8eb9287d8e1",
               "a579d4ebff398c5ad4d5037534a1c1bfab36410100c80d8c7c1029b57c7898fe"]
MD5S = ["9b720b3af309c1c4b0d395c53b08c502", "1f07082409022a373fa2a2601f82b3cb", None]


@pytest.mark.parametrize("content_based", [True, False], ids=["content-based", "deduplication-id"])
def test_publish_batch_answers_sequence_numbers_and_a_repeat_the_first_ones(door, content_based):
    """test_publish_batch_messages_from_fifo_topic_to_fifo_queue[True] and [False]: "publish-batch-response-fifo",
    "messages" (raw delivery), "republish-batch-response-fifo" (the same MessageIds and SequenceNumbers) and
    "duplicate-messages" (nothing)."""
    attributes = {"ContentBasedDeduplication": "true"} if content_based else {}
    sns, sqs, topic, url = subscribed_queue(door, attributes, {"FifoQueue": "true", **attributes}, raw=True)
    entries = [dict(entry) if content_based else {**entry, "MessageDeduplicationId": f"MessageDeduplicationId-{n}"}
               for n, entry in enumerate(ENTRIES)]
    answer = {"Failed": [], "Successful": [
        {"Id": str(n), "MessageId": f"<uuid:{n}>", "SequenceNumber": f"<sequence-number:{n}>"} for n in (1, 2, 3)],
        **EMPTY}
    published = sns.publish_batch(TopicArn=topic, PublishBatchRequestEntries=entries)
    assert_recorded(recorded_shape(published), answer)
    received = sqs.receive_message(QueueUrl=url, MessageAttributeNames=["All"], AttributeNames=["All"],
                                   MaxNumberOfMessages=10, WaitTimeSeconds=1, VisibilityTimeout=10)
    messages = []
    for n, (entry, md5) in enumerate(zip(ENTRIES, MD5S)):
        message = {"Attributes": {
            "ApproximateFirstReceiveTimestamp": "timestamp", "ApproximateReceiveCount": "1",
            "MessageDeduplicationId": CONTENT_IDS[n] if content_based else f"MessageDeduplicationId-{n}",
            "MessageGroupId": "complexMessageGroupId", "SenderId": "<sender-id>", "SentTimestamp": "timestamp",
            "SequenceNumber": f"<sequence-number:{4 + n}>"},
            "Body": entry["Message"], "MD5OfBody": "<md5-hash>", "MessageId": f"<uuid:{4 + n}>",
            "ReceiptHandle": f"<receipt-handle:{1 + n}>"}
        if md5:
            message.update(MD5OfMessageAttributes=md5, MessageAttributes=entry["MessageAttributes"])
        messages.append(message)
    assert_recorded({"Published": recorded_shape(published), "Messages": received["Messages"]},
                    {"Published": answer, "Messages": messages})
    for message in received["Messages"]:
        sqs.delete_message(QueueUrl=url, ReceiptHandle=message["ReceiptHandle"])
    republished = sns.publish_batch(TopicArn=topic, PublishBatchRequestEntries=entries)
    assert recorded_shape(republished) == recorded_shape(published)
    assert recorded_shape(sqs.receive_message(QueueUrl=url, MessageAttributeNames=["All"], AttributeNames=["All"],
                                              MaxNumberOfMessages=10, WaitTimeSeconds=1)) == EMPTY


def test_the_topic_forgets_a_deduplication_id_after_five_minutes(door):
    """The deduplication interval is 5 minutes (SNS Developer Guide, "Message deduplication for FIFO topics"), on the
    emulator's clock: a repeat within it is answered the first MessageId and SequenceNumber and delivered to no one,
    one after it is a new message with a greater number."""
    sns, sqs, topic, url = subscribed_queue(door, {}, {"FifoQueue": "true"})
    request = {"TopicArn": topic, "Message": "Test", "MessageGroupId": "g", "MessageDeduplicationId": "d"}
    first = sns.publish(**request)
    door.advance(240)  # the clock runs on as well: well within the interval on a busy machine
    repeat = sns.publish(**request)
    door.advance(61)
    later = sns.publish(**request)
    assert (repeat["MessageId"], repeat["SequenceNumber"]) == (first["MessageId"], first["SequenceNumber"])
    assert later["MessageId"] != first["MessageId"] and int(later["SequenceNumber"]) > int(first["SequenceNumber"])
    received = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10)["Messages"]
    assert [json.loads(message["Body"])["MessageId"] for message in received] == [first["MessageId"],
                                                                                   later["MessageId"]]


@pytest.mark.parametrize("kind", ["inprocess", "server"])
def test_a_restart_remembers_what_the_topic_took(kind, tmp_path):
    state = str(tmp_path / "state")
    with running(kind, state) as door:
        sns = door.client("sns")
        topic = sns.create_topic(Name="orders.fifo", Attributes={"FifoTopic": "true"})["TopicArn"]
        first = sns.publish(TopicArn=topic, Message="Test", MessageGroupId="g", MessageDeduplicationId="d")
    with running(kind, state) as door:
        sns = door.client("sns")
        repeat = sns.publish(TopicArn=topic, Message="Test", MessageGroupId="g", MessageDeduplicationId="d")
        assert (repeat["MessageId"], repeat["SequenceNumber"]) == (first["MessageId"], first["SequenceNumber"])
        other = sns.publish(TopicArn=topic, Message="Other", MessageGroupId="g", MessageDeduplicationId="e")
        assert int(other["SequenceNumber"]) > int(first["SequenceNumber"])

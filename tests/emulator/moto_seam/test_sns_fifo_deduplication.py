"""A FIFO topic's content-based deduplication reaches a FIFO queue that has none of its own.

LocalStack's AWS-validated test_sns.snapshot.json (localstack/localstack at 8b9a79f05846),
TestSNSSubscriptionSQSFifo::test_publish_to_fifo_topic_to_sqs_queue_no_content_dedup[True]: a topic with
ContentBasedDeduplication, a FIFO queue without it; the same message published twice (Publish, then PublishBatch,
twice each) reaches the queue once per content: "Test single" and "Test batched". moto passed no deduplication id,
the queue refused the message, and it never arrived.
"""

from __future__ import annotations


def test_the_topics_deduplication_id_goes_on_to_the_queue(door):
    sns, sqs = door.client("sns"), door.client("sqs")
    topic = sns.create_topic(Name="orders.fifo", Attributes={"FifoTopic": "true",
                                                             "ContentBasedDeduplication": "true"})["TopicArn"]
    queue_url = sqs.create_queue(QueueName="orders.fifo", Attributes={"FifoQueue": "true"})["QueueUrl"]
    queue = sqs.get_queue_attributes(QueueUrl=queue_url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    sns.subscribe(TopicArn=topic, Protocol="sqs", Endpoint=queue, Attributes={"RawMessageDelivery": "true"})
    for _ in range(2):
        sns.publish(TopicArn=topic, Message="Test single", MessageGroupId="message-group-id-1")
        sns.publish_batch(TopicArn=topic, PublishBatchRequestEntries=[
            {"Id": "1", "MessageGroupId": "message-group-id-1", "Message": "Test batched"}])

    messages = sqs.receive_message(QueueUrl=queue_url, MaxNumberOfMessages=10, AttributeNames=["All"])["Messages"]
    assert [(message["Body"], message["Attributes"]["MessageGroupId"]) for message in messages] == [
        ("Test single", "message-group-id-1"), ("Test batched", "message-group-id-1")]
    assert [len(message["Attributes"]["MessageDeduplicationId"]) for message in messages] == [64, 64]

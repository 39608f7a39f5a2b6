"""A raw delivery to a queue of a message with a Binary attribute: received as SQS answers it.

LocalStack's AWS-validated test_sns.snapshot.json (localstack/localstack at 8b9a79f05846),
TestSNSSubscriptionSQS::test_attribute_raw_subscribe, "messages-response": the queue's message has the body as
published and MessageAttributes {"store": {"BinaryValue": b"\\x02\\x03\\x04", "DataType": "Binary"}}. moto's SNS handed
the base64 text on and its SQS failed on the ReceiveMessage (a 500 boto3 retried, then Eddy's UnknownOperation).
"""

from __future__ import annotations


def test_a_binary_attribute_reaches_a_raw_subscriber_as_bytes(door):
    sns, sqs = door.client("sns"), door.client("sqs")
    topic = sns.create_topic(Name="orders")["TopicArn"]
    queue_url = sqs.create_queue(QueueName="raw")["QueueUrl"]
    queue = sqs.get_queue_attributes(QueueUrl=queue_url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    sns.subscribe(TopicArn=topic, Protocol="sqs", Endpoint=queue, Attributes={"RawMessageDelivery": "true"})
    attributes = {"store": {"DataType": "Binary", "BinaryValue": b"\x02\x03\x04"}}
    sns.publish(TopicArn=topic, Message="This is a test message", MessageAttributes=attributes)

    (message,) = sqs.receive_message(QueueUrl=queue_url, MessageAttributeNames=["All"])["Messages"]
    direct_url = sqs.create_queue(QueueName="direct")["QueueUrl"]  # the same attribute sent to SQS itself
    sent = sqs.send_message(QueueUrl=direct_url, MessageBody="This is a test message", MessageAttributes=attributes)
    assert {key: message[key] for key in ("Body", "MessageAttributes", "MD5OfMessageAttributes")} == {
        "Body": "This is a test message", "MessageAttributes": attributes,
        "MD5OfMessageAttributes": sent["MD5OfMessageAttributes"]}

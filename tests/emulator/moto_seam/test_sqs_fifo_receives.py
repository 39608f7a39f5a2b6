"""A user's own ReceiveMessage on a FIFO queue answers as SQS does, in both doors: as many messages of one message
group as it can first, each group in its order, the groups in the order of their oldest message; a group with a
message in flight gives nothing until that message is deleted (Amazon SQS Developer Guide, "FIFO queue logic":
"When receiving messages from a FIFO queue with multiple message group IDs, Amazon SQS first attempts to return as
many messages with the same message group ID as possible ... no more messages for the same message group ID are
returned unless you delete the message or it becomes visible"). moto alone answered a1, b1, a2."""

from __future__ import annotations


def received(sqs, url: str, most: int) -> list[tuple[str, str]]:
    answer = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=most, AttributeNames=["MessageGroupId"])
    return [(m["Body"], m["Attributes"]["MessageGroupId"]) for m in answer.get("Messages", [])]


def handles(sqs, url: str, most: int) -> dict[str, str]:
    answer = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=most)
    return {m["Body"]: m["ReceiptHandle"] for m in answer.get("Messages", [])}


def fifo_queue(sqs) -> str:
    url = sqs.create_queue(QueueName="orders.fifo", Attributes={
        "FifoQueue": "true", "ContentBasedDeduplication": "true", "VisibilityTimeout": "60"})["QueueUrl"]
    for body, group in [("a1", "a"), ("b1", "b"), ("a2", "a"), ("c1", "c"), ("b2", "b")]:
        sqs.send_message(QueueUrl=url, MessageBody=body, MessageGroupId=group)
    return url


def test_a_fifo_receive_answers_one_groups_messages_first_and_holds_back_groups_in_flight(door):
    sqs = door.client("sqs")
    url = fifo_queue(sqs)
    assert received(sqs, url, 3) == [("a1", "a"), ("a2", "a"), ("b1", "b")]
    assert received(sqs, url, 10) == [("c1", "c")]  # a and b are in flight: b2 waits for b1
    assert received(sqs, url, 10) == []


def test_a_groups_next_message_comes_once_the_one_in_flight_is_deleted_or_visible_again(door):
    sqs = door.client("sqs")
    url = fifo_queue(sqs)
    first = handles(sqs, url, 1)
    assert list(first) == ["a1"]
    assert received(sqs, url, 2) == [("b1", "b"), ("b2", "b")]
    sqs.delete_message(QueueUrl=url, ReceiptHandle=first["a1"])
    assert received(sqs, url, 10) == [("a2", "a"), ("c1", "c")]
    door.advance(61)  # every message in flight is visible again: each group whole, in order, the oldest group first
    assert received(sqs, url, 10) == [("b1", "b"), ("b2", "b"), ("a2", "a"), ("c1", "c")]

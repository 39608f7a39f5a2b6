"""FIFO queues feeding a function, as Lambda's SQS poller hands them: several messages of one message group in one
batch and in order, the groups interleaved across batches, a group held back while a batch of it is in flight, partial
batch failures, and the RedrivePolicy's dead-letter queue after maxReceiveCount. Both doors, zip functions.

SQS: "When you specify a MaxNumberOfMessages parameter in the ReceiveMessage API call, SQS returns as many messages
with the same message group ID as possible. The ReceiveMessage API call can also return messages from other available
message groups." and "Inflight messages block delivery of available messages within the same message group." (AWS
re:Post knowledge center, sqs-fifo-messages-not-returned). Lambda: "If you're using this feature with a FIFO queue,
your function should stop processing messages after the first failure and return all failed and unprocessed messages
in batchItemFailures" (Lambda Developer Guide, "Handling errors for an SQS event source in Lambda"): Lambda deletes
what the answer does not name, FIFO or not.
"""

from __future__ import annotations

import pytest

from tests.emulator.trigger_helpers import wait_idle
from tests.emulator.triggers.sqs_helpers import bodies, delivered, queue_counts, queue_with_reporter

RUNTIMES = ["python", "node"]


def fifo(door, runtime: str = "python", mode: str = "raise", **attributes: str) -> dict:
    return queue_with_reporter(door, runtime, mode, name="work.fifo", FifoQueue="true", **attributes)


def send(sqs, url: str, messages: list[tuple[str, str]]) -> None:
    for group, body in messages:
        sqs.send_message(QueueUrl=url, MessageBody=body, MessageGroupId=group, MessageDeduplicationId=body)


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_a_batch_holds_a_groups_messages_in_order_then_the_other_groups(door, runtime):
    env = fifo(door, runtime)
    send(env["sqs"], env["url"], [("A", "a1"), ("B", "b1"), ("A", "a2"), ("C", "c1"), ("B", "b2"), ("A", "a3")])
    env["lambda"].create_event_source_mapping(EventSourceArn=env["arn"], FunctionName="reporter", BatchSize=10)
    assert wait_idle(door)["Idle"]
    events = delivered(env["sqs"], env["deliveries"])
    assert bodies(events) == [["a1", "a2", "a3", "b1", "b2", "c1"]]
    assert [r["attributes"]["MessageGroupId"] for r in events[0]] == ["A", "A", "A", "B", "B", "C"]
    sequence = [int(r["attributes"]["SequenceNumber"]) for r in events[0]]
    assert sequence[:3] == sorted(sequence[:3]) and sequence[3:5] == sorted(sequence[3:5])  # each group in order


def test_groups_interleave_across_batches_and_a_group_waits_for_its_batch(door):
    env = fifo(door)
    send(env["sqs"], env["url"], [("A", "a1"), ("B", "b1"), ("A", "a2"), ("B", "b2"), ("A", "a3")])
    env["lambda"].create_event_source_mapping(EventSourceArn=env["arn"], FunctionName="reporter", BatchSize=2)
    assert wait_idle(door)["Idle"]
    batches = bodies(delivered(env["sqs"], env["deliveries"]))
    # two pollers take A's first two and B's two at once; a3 only once a1 and a2 are deleted
    assert sorted(batches) == [["a1", "a2"], ["a3"], ["b1", "b2"]]
    assert batches.index(["a3"]) > batches.index(["a1", "a2"])


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_a_partial_failure_returns_what_the_answer_names_and_deletes_the_rest(door, runtime):
    env = fifo(door, runtime, mode="partial", VisibilityTimeout="300")
    sqs = env["sqs"]
    send(sqs, env["url"], [("A", "a1"), ("A", "fail-a2"), ("A", "fail-a3"), ("B", "b1")])
    env["lambda"].create_event_source_mapping(EventSourceArn=env["arn"], FunctionName="reporter",
                                              FunctionResponseTypes=["ReportBatchItemFailures"])
    assert wait_idle(door)["Idle"]
    assert bodies(delivered(sqs, env["deliveries"])) == [["a1", "fail-a2", "fail-a3", "b1"]]
    # a1 and b1 deleted; the two named wait out the visibility timeout, holding group A back
    assert queue_counts(sqs, env["url"]) == {"ApproximateNumberOfMessages": 0, "ApproximateNumberOfMessagesNotVisible": 2}
    send(sqs, env["url"], [("A", "a4"), ("B", "b2")])
    assert wait_idle(door)["Idle"]
    assert bodies(delivered(sqs, env["deliveries"])) == [["b2"]]  # B flows; A's a4 waits behind a2 and a3
    door.advance(301)
    assert wait_idle(door)["Idle"]
    again = delivered(sqs, env["deliveries"])
    assert bodies(again) == [["fail-a2", "fail-a3", "a4"]]  # the group, in order, in one batch
    assert [r["attributes"]["ApproximateReceiveCount"] for r in again[0]] == ["2", "2", "1"]


def test_a_message_the_answer_does_not_name_is_deleted_even_after_a_failed_one_of_its_group(door):
    """Lambda deletes what batchItemFailures leaves out: keeping a group in order is the function's part."""
    env = fifo(door, mode="partial", VisibilityTimeout="300")
    sqs = env["sqs"]
    send(sqs, env["url"], [("A", "a1"), ("A", "fail-a2"), ("A", "a3")])
    env["lambda"].create_event_source_mapping(EventSourceArn=env["arn"], FunctionName="reporter",
                                              FunctionResponseTypes=["ReportBatchItemFailures"])
    assert wait_idle(door)["Idle"]
    assert bodies(delivered(sqs, env["deliveries"])) == [["a1", "fail-a2", "a3"]]
    assert queue_counts(sqs, env["url"]) == {"ApproximateNumberOfMessages": 0, "ApproximateNumberOfMessagesNotVisible": 1}
    door.advance(301)
    assert wait_idle(door)["Idle"]
    assert bodies(delivered(sqs, env["deliveries"])) == [["fail-a2"]]


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_a_function_error_returns_the_whole_batch_and_the_queue_redrives_it(door, runtime):
    sqs = door.client("sqs")
    dlq = sqs.create_queue(QueueName="work-dlq.fifo", Attributes={"FifoQueue": "true"})["QueueUrl"]
    dlq_arn = sqs.get_queue_attributes(QueueUrl=dlq, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    env = fifo(door, runtime, VisibilityTimeout="300",
               RedrivePolicy=f'{{"deadLetterTargetArn": "{dlq_arn}", "maxReceiveCount": 2}}')
    send(sqs, env["url"], [("A", "a1"), ("A", "fail-a2"), ("B", "b1")])
    env["lambda"].create_event_source_mapping(EventSourceArn=env["arn"], FunctionName="reporter")
    for receive_count in ("1", "2"):
        assert wait_idle(door)["Idle"]
        events = delivered(sqs, env["deliveries"])
        assert bodies(events) == [["a1", "fail-a2", "b1"]]
        assert {r["attributes"]["ApproximateReceiveCount"] for r in events[0]} == {receive_count}
        door.advance(301)
    assert wait_idle(door)["Idle"]
    assert delivered(sqs, env["deliveries"]) == []  # received twice: the third receive moves them instead
    moved = sqs.receive_message(QueueUrl=dlq, MaxNumberOfMessages=10)["Messages"]
    assert [m["Body"] for m in moved] == ["a1", "fail-a2", "b1"]
    assert queue_counts(sqs, env["url"]) == {"ApproximateNumberOfMessages": 0, "ApproximateNumberOfMessagesNotVisible": 0}


def test_sequence_numbers_grow_with_each_message_sent(door):
    """SQS API Reference, SendMessage: SequenceNumber is "a large, non-consecutive number" (20 digits in AWS's answers)
    that "continues to increase for a particular MessageGroupId"; ContentBasedDeduplication's messages have one too."""
    sqs = door.client("sqs")
    url = sqs.create_queue(QueueName="numbers.fifo",
                           Attributes={"FifoQueue": "true", "ContentBasedDeduplication": "true"})["QueueUrl"]
    sent = [sqs.send_message(QueueUrl=url, MessageBody=f"m{i}", MessageGroupId="A")["SequenceNumber"] for i in range(3)]
    batch = sqs.send_message_batch(QueueUrl=url, Entries=[
        {"Id": "x", "MessageBody": "x", "MessageGroupId": "A"}, {"Id": "y", "MessageBody": "y", "MessageGroupId": "B"}])
    sent += [entry["SequenceNumber"] for entry in batch["Successful"]]
    assert all(len(number) == 20 and number.isdigit() for number in sent)
    assert [int(n) for n in sent] == sorted(int(n) for n in sent) and len(set(sent)) == 5
    received = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10, AttributeNames=["SequenceNumber"])["Messages"]
    assert {m["Body"]: m["Attributes"]["SequenceNumber"] for m in received} == dict(zip(["m0", "m1", "m2", "x", "y"], sent))

"""SQS event source mappings, through both doors with Python and Node.js zip functions: Lambda's SQS event, deletes on
success, retries after the visibility timeout on the emulator's clock, the RedrivePolicy's dead-letter queue, partial
batch failures and Lambda's rules for malformed answers, FIFO groups, batching windows and filters (on the body, the
attributes and the message attributes)."""

from __future__ import annotations

import hashlib
import json

import pytest

from tests.emulator.trigger_helpers import wait_idle
from tests.emulator.triggers.sqs_helpers import bodies, delivered, queue, queue_counts, queue_with_reporter

RUNTIMES = ["python", "node"]


def mapping(env, **options) -> dict:
    return env["lambda"].create_event_source_mapping(EventSourceArn=env["arn"], FunctionName="reporter", **options)


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_a_message_reaches_the_function_as_lambdas_sqs_event_and_is_deleted(door, runtime):
    env = queue_with_reporter(door, runtime)
    sqs = env["sqs"]
    before = door.now()
    mapping(env)
    sent = sqs.send_message(QueueUrl=env["url"], MessageBody="hello",
                            MessageAttributes={"colour": {"DataType": "String", "StringValue": "blue"}})
    assert wait_idle(door)["Idle"]
    [[record]] = delivered(sqs, env["deliveries"])
    attributes = record["attributes"]
    assert record == {
        "messageId": sent["MessageId"], "receiptHandle": record["receiptHandle"], "body": "hello",
        "attributes": {"ApproximateReceiveCount": "1", "SentTimestamp": attributes["SentTimestamp"],
                       "SenderId": attributes["SenderId"],
                       "ApproximateFirstReceiveTimestamp": attributes["ApproximateFirstReceiveTimestamp"]},
        "messageAttributes": {"colour": {"stringValue": "blue", "stringListValues": [], "binaryListValues": [],
                                         "dataType": "String"}},
        "md5OfMessageAttributes": sent["MD5OfMessageAttributes"],  # SQS's digest, as SendMessage answered it
        "md5OfBody": hashlib.md5(b"hello").hexdigest(), "eventSource": "aws:sqs", "eventSourceARN": env["arn"],
        "awsRegion": "us-east-1"}
    assert list(record) == ["messageId", "receiptHandle", "body", "attributes", "messageAttributes",
                            "md5OfMessageAttributes", "md5OfBody", "eventSource", "eventSourceARN", "awsRegion"]
    assert list(attributes) == ["ApproximateReceiveCount", "SentTimestamp", "SenderId", "ApproximateFirstReceiveTimestamp"]
    assert before * 1000 - 1 <= int(attributes["SentTimestamp"]) <= int(attributes["ApproximateFirstReceiveTimestamp"])
    assert record["receiptHandle"]
    assert queue_counts(sqs, env["url"]) == {"ApproximateNumberOfMessages": 0, "ApproximateNumberOfMessagesNotVisible": 0}


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_a_failing_message_returns_after_the_visibility_timeout_and_is_redriven_to_the_dead_letter_queue(door, runtime):
    sqs = door.client("sqs")
    dlq_url, dlq_arn = queue(sqs, "work-dlq")
    env = queue_with_reporter(door, runtime, VisibilityTimeout="300",
                              RedrivePolicy=json.dumps({"deadLetterTargetArn": dlq_arn, "maxReceiveCount": "2"}))
    mapping(env)
    sqs.send_message(QueueUrl=env["url"], MessageBody="fail-1")
    assert wait_idle(door)["Idle"]
    first = delivered(sqs, env["deliveries"])
    assert bodies(first) == [["fail-1"]] and first[0][0]["attributes"]["ApproximateReceiveCount"] == "1"
    assert queue_counts(sqs, env["url"]) == {"ApproximateNumberOfMessages": 0, "ApproximateNumberOfMessagesNotVisible": 1}

    door.advance(200)  # still invisible: nothing happens
    assert wait_idle(door)["Idle"] and delivered(sqs, env["deliveries"]) == []
    door.advance(101)  # the 300 s visibility timeout has run out on the emulator's clock
    assert wait_idle(door)["Idle"]
    second = delivered(sqs, env["deliveries"])
    assert bodies(second) == [["fail-1"]] and second[0][0]["attributes"]["ApproximateReceiveCount"] == "2"
    assert second[0][0]["messageId"] == first[0][0]["messageId"]
    assert second[0][0]["receiptHandle"] != first[0][0]["receiptHandle"]

    door.advance(301)  # received twice = maxReceiveCount: SQS moves it to the dead-letter queue instead
    assert wait_idle(door)["Idle"]
    assert delivered(sqs, env["deliveries"]) == []
    moved = sqs.receive_message(QueueUrl=dlq_url, MaxNumberOfMessages=10)["Messages"]
    assert [m["Body"] for m in moved] == ["fail-1"] and moved[0]["MessageId"] == first[0][0]["messageId"]
    assert queue_counts(sqs, env["url"]) == {"ApproximateNumberOfMessages": 0, "ApproximateNumberOfMessagesNotVisible": 0}


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_partial_batch_failure_deletes_the_rest_and_retries_only_the_failed_messages(door, runtime):
    env = queue_with_reporter(door, runtime, mode="partial", VisibilityTimeout="300")
    sqs = env["sqs"]
    for body in ("ok-1", "fail-2", "ok-3"):
        sqs.send_message(QueueUrl=env["url"], MessageBody=body)
    mapping(env, FunctionResponseTypes=["ReportBatchItemFailures"])  # after the sends: one batch of three
    assert wait_idle(door)["Idle"]
    assert bodies(delivered(sqs, env["deliveries"])) == [["ok-1", "fail-2", "ok-3"]]
    assert queue_counts(sqs, env["url"]) == {"ApproximateNumberOfMessages": 0, "ApproximateNumberOfMessagesNotVisible": 1}
    door.advance(301)
    assert wait_idle(door)["Idle"]
    retried = delivered(sqs, env["deliveries"])
    assert bodies(retried) == [["fail-2"]] and retried[0][0]["attributes"]["ApproximateReceiveCount"] == "2"


#: (the function's answer, how many of the batch's two messages fail): Lambda's rules for ReportBatchItemFailures
#: ("Handling errors for an SQS event source in Lambda", success and failure conditions)
ANSWERS = [
    ("null", 0),  # a null EventResponse: success
    ("{}", 0),  # an empty EventResponse
    ('{"batchItemFailures": []}', 0),  # an empty batchItemFailures list
    ('{"batchItemFailures": null}', 0),  # a null batchItemFailures list
    ('{"batchItemFailures": [{"itemIdentifier": "$id"}]}', 1),  # this message only
    ('{"batchItemFailures": [{"itemIdentifier": ""}]}', 2),  # an empty string itemIdentifier: the whole batch
    ('{"batchItemFailures": [{"itemIdentifier": null}]}', 2),  # a null itemIdentifier
    ('{"batchItemFailures": [{"messageId": "$id"}]}', 2),  # a bad key name: no itemIdentifier
    ('{"batchItemFailures": [{"itemIdentifier": "$id"}, {}]}', 2),  # one good, one without itemIdentifier
    ('{"batchItemFailures": [{"itemIdentifier": "not-in-the-batch"}]}', 2),  # a message ID that is not there
    ('{"batchItemFailures": "$id"}', 2),  # batchItemFailures not a list
    ('{"batchItemFailures": {"itemIdentifier": "$id"}}', 2),
    ('["$id"]', 2),  # not a batchItemFailures object
]


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_lambdas_rules_for_batch_item_failures_answers(door, runtime):
    env = queue_with_reporter(door, runtime, mode="answer")
    sqs, lam = env["sqs"], env["lambda"]
    queues = []
    for number, (answer, _) in enumerate(ANSWERS):  # a queue each, filled before its mapping: one batch of two
        url, arn = queue(sqs, f"answer-{number}", VisibilityTimeout="300")
        sqs.send_message(QueueUrl=url, MessageBody="answer:" + answer)
        sqs.send_message(QueueUrl=url, MessageBody="ok")
        lam.create_event_source_mapping(EventSourceArn=arn, FunctionName="reporter",
                                        FunctionResponseTypes=["ReportBatchItemFailures"])
        queues.append(url)
        # one mapping's batch at a time: one execution environment answers them all (thirteen at once started
        # thirteen workers, 13 Node.js processes, for what one answers)
        assert wait_idle(door)["Idle"]
    assert sorted(len(batch) for batch in bodies(delivered(sqs, env["deliveries"]))) == [2] * len(ANSWERS)
    left = {answer: queue_counts(sqs, url) for (answer, _), url in zip(ANSWERS, queues)}
    assert left == {answer: {"ApproximateNumberOfMessages": 0, "ApproximateNumberOfMessagesNotVisible": failed}
                    for answer, failed in ANSWERS}


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_a_fifo_group_that_fails_blocks_only_itself(door, runtime):
    env = queue_with_reporter(door, runtime, name="work.fifo", FifoQueue="true", VisibilityTimeout="300")
    sqs = env["sqs"]
    for group, body in [("A", "fail-a1"), ("B", "b1"), ("A", "a2"), ("B", "b2"), ("B", "b3")]:
        sqs.send_message(QueueUrl=env["url"], MessageBody=body, MessageGroupId=group, MessageDeduplicationId=body)
    mapping(env, BatchSize=1)
    assert wait_idle(door)["Idle"]
    events = delivered(sqs, env["deliveries"])
    seen = [records[0]["body"] for records in events]
    assert [b for b in seen if b.startswith("b")] == ["b1", "b2", "b3"]  # group B flows, in order
    assert [b for b in seen if not b.startswith("b")] == ["fail-a1"]  # group A waits behind its failed message
    b1 = next(records[0] for records in events if records[0]["body"] == "b1")
    assert list(b1["attributes"]) == ["ApproximateReceiveCount", "SentTimestamp", "SequenceNumber", "MessageGroupId",
                                      "SenderId", "MessageDeduplicationId", "ApproximateFirstReceiveTimestamp"]
    assert (b1["attributes"]["MessageGroupId"], b1["attributes"]["MessageDeduplicationId"]) == ("B", "b1")
    door.advance(301)  # the failed message is visible again: tried again, still first in its group
    assert wait_idle(door)["Idle"]
    again = delivered(sqs, env["deliveries"])
    assert bodies(again) == [["fail-a1"]] and again[0][0]["attributes"]["ApproximateReceiveCount"] == "2"


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_the_batching_window_runs_on_the_emulators_clock(door, runtime):
    env = queue_with_reporter(door, runtime)
    sqs = env["sqs"]
    mapping(env, BatchSize=20, MaximumBatchingWindowInSeconds=60)
    for i in range(5):
        sqs.send_message(QueueUrl=env["url"], MessageBody=f"m{i}")
    assert wait_idle(door, timeout=0.5)["Idle"] is False  # five of twenty wait for the window
    assert delivered(sqs, env["deliveries"]) == []
    door.advance(61)
    assert wait_idle(door)["Idle"]
    assert bodies(delivered(sqs, env["deliveries"])) == [[f"m{i}" for i in range(5)]]


def test_messages_the_filter_does_not_match_are_deleted_unseen(door):
    env = queue_with_reporter(door)
    sqs = env["sqs"]
    pattern = json.dumps({"body": {"kind": ["order"]}})
    mapping(env, FilterCriteria={"Filters": [{"Pattern": pattern}]})
    for body in ('{"kind": "order", "id": 1}', '{"kind": "refund"}', "plain text"):
        sqs.send_message(QueueUrl=env["url"], MessageBody=body)
    assert wait_idle(door)["Idle"]
    assert [b for batch in bodies(delivered(sqs, env["deliveries"])) for b in batch] == ['{"kind": "order", "id": 1}']
    assert queue_counts(sqs, env["url"]) == {"ApproximateNumberOfMessages": 0, "ApproximateNumberOfMessagesNotVisible": 0}


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_filters_on_attributes_and_message_attributes_delete_what_they_do_not_match(door, runtime):
    env = queue_with_reporter(door, runtime, name="work.fifo", FifoQueue="true", ContentBasedDeduplication="true")
    sqs = env["sqs"]
    filters = [{"Pattern": json.dumps({"attributes": {"MessageGroupId": ["orders"]}})},
               {"Pattern": json.dumps({"messageAttributes": {"colour": {"stringValue": ["blue"]}}})}]
    mapping(env, FilterCriteria={"Filters": filters})
    blue, red = ({"colour": {"DataType": "String", "StringValue": value}} for value in ("blue", "red"))
    sends = [("orders", "order", {}), ("other", "blue", blue), ("other", "red", red), ("other", "plain", {}),
             ("orders", "order again", red)]
    for group, body, attributes in sends:
        sqs.send_message(QueueUrl=env["url"], MessageBody=body, MessageGroupId=group, MessageAttributes=attributes)
    assert wait_idle(door)["Idle"]
    records = [record for batch in delivered(sqs, env["deliveries"]) for record in batch]
    assert sorted(record["body"] for record in records) == ["blue", "order", "order again"]
    assert {r["body"]: r["messageAttributes"].get("colour", {}).get("stringValue") for r in records} == {
        "order": None, "blue": "blue", "order again": "red"}
    # the messages no filter matched were deleted, as Lambda does
    assert queue_counts(sqs, env["url"]) == {"ApproximateNumberOfMessages": 0, "ApproximateNumberOfMessagesNotVisible": 0}

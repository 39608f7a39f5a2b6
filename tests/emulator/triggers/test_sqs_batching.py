"""Batches over ten messages with a batching window, and batches under reserved and maximum concurrency, compared with
AWS's recorded answers: LocalStack's AWS-validated test_lambda_integration_sqs.py (test_sqs_event_source_mapping_batch_size
[15, 100, 1000, 10000] and test_sqs_event_source_mapping_batching_reserved_concurrency, validated 2025-11-25) and its
.snapshot.json. The window runs on the emulator's clock. Both doors, zip functions."""

from __future__ import annotations

import pytest

from tests.emulator.trigger_helpers import wait_idle
from tests.emulator.triggers.sqs_helpers import delivered, queue_with_reporter
from tests.emulator.triggers.test_sqs_recorded_answers import AWS_CREATED, without_varying


def records_of(events: list[list[dict]], arn: str) -> list[dict]:
    """Every record delivered, sorted by body (as the recorded test sorts them), each checked for AWS's shape."""
    records = sorted((record for records in events for record in records), key=lambda r: r["body"])
    for record in records:
        assert list(record) == ["messageId", "receiptHandle", "body", "attributes", "messageAttributes",
                                "md5OfMessageAttributes", "md5OfBody", "eventSource", "eventSourceARN", "awsRegion"]
        assert (record["attributes"]["ApproximateReceiveCount"], record["messageAttributes"],
                record["md5OfMessageAttributes"], record["eventSource"], record["eventSourceARN"]) == (
            "1", {}, None, "aws:sqs", arn)
    return records


@pytest.mark.parametrize("batch_size", [15, 100, 1_000, 10_000])
def test_a_batch_over_ten_waits_for_its_window(door, batch_size):
    env = queue_with_reporter(door)
    lam, sqs = env["lambda"], env["sqs"]
    created = lam.create_event_source_mapping(EventSourceArn=env["arn"], FunctionName="reporter",
                                              MaximumBatchingWindowInSeconds=60, BatchSize=batch_size)
    # (AWS's recorded test used 10 s, a value its snapshot leaves out; 60 s cannot run out on a busy machine here)
    assert without_varying(created, env["arn"], "reporter") == dict(
        AWS_CREATED, BatchSize=batch_size, MaximumBatchingWindowInSeconds=60)
    first = sqs.send_message_batch(QueueUrl=env["url"], Entries=[
        {"Id": f"{i}-0", "MessageBody": f"{i}-0-message-{i}"} for i in range(10)])
    second = sqs.send_message_batch(QueueUrl=env["url"], Entries=[
        {"Id": f"{i}-1", "MessageBody": f"{i}-1-message-{i}"} for i in range(5)])
    assert [e["Id"] for e in first["Successful"] + second["Successful"]] == (
        [f"{i}-0" for i in range(10)] + [f"{i}-1" for i in range(5)])
    if batch_size > 15:  # fewer messages than the batch holds: they wait out the window, on the emulator's clock
        assert wait_idle(door, timeout=0.5)["Idle"] is False
        door.advance(61)
    assert wait_idle(door)["Idle"]
    events = delivered(sqs, env["deliveries"])
    assert [len(records) for records in events] == [15]  # one batch: the fifteen together
    ids = {entry["Id"]: entry["MessageId"] for entry in first["Successful"] + second["Successful"]}
    assert [(r["body"], r["messageId"]) for r in records_of(events, env["arn"])] == sorted(
        (f"{i}-{j}-message-{i}", ids[f"{i}-{j}"]) for j, count in ((0, 10), (1, 5)) for i in range(count))
    assert sqs.receive_message(QueueUrl=env["url"]).get("Messages", []) == []


def test_batches_under_reserved_and_maximum_concurrency(door):
    env = queue_with_reporter(door)
    lam, sqs = env["lambda"], env["sqs"]
    reserved = lam.put_function_concurrency(FunctionName="reporter", ReservedConcurrentExecutions=2)
    assert (reserved["ReservedConcurrentExecutions"], reserved["ResponseMetadata"]["HTTPStatusCode"]) == (2, 200)
    for b in range(3):
        sqs.send_message_batch(QueueUrl=env["url"], Entries=[
            {"Id": f"{i}-{b}", "MessageBody": f"{i}-{b}-message"} for i in range(10)])
    created = lam.create_event_source_mapping(EventSourceArn=env["arn"], FunctionName="reporter",
                                              MaximumBatchingWindowInSeconds=1, BatchSize=20,
                                              ScalingConfig={"MaximumConcurrency": 2})
    assert without_varying(created, env["arn"], "reporter") == dict(
        AWS_CREATED, BatchSize=20, MaximumBatchingWindowInSeconds=1, ScalingConfig={"MaximumConcurrency": 2})
    door.advance(2)  # the second batch's window
    assert wait_idle(door)["Idle"]
    events = delivered(sqs, env["deliveries"])
    assert {"total_batches_received": len(events)} == {"total_batches_received": 2}  # as AWS answered
    assert [r["body"] for r in records_of(events, env["arn"])] == sorted(
        f"{i}-{b}-message" for b in range(3) for i in range(10))

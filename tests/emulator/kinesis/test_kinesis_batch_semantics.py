"""The batch semantics of a Kinesis mapping are the DynamoDB stream mapping's: partial failures, tumbling windows,
record age (in-process, handlers as Python callables)."""

from __future__ import annotations

import base64
import json

import boto3


def setup(emu, handler, **mapping):
    kinesis = boto3.client("kinesis", region_name="us-east-1")
    kinesis.create_stream(StreamName="events", ShardCount=1)
    arn = kinesis.describe_stream_summary(StreamName="events")["StreamDescriptionSummary"]["StreamARN"]
    emu.register_function("handler", handler)
    lam = boto3.client("lambda", region_name="us-east-1")
    return kinesis, lam, lambda: lam.create_event_source_mapping(EventSourceArn=arn, FunctionName="handler",
                                                                 StartingPosition="TRIM_HORIZON", **mapping)


def put(kinesis, key: str) -> None:
    kinesis.put_record(StreamName="events", PartitionKey=key, Data=json.dumps({"key": key}).encode())


def keys(event) -> list[str]:
    return [json.loads(base64.b64decode(r["kinesis"]["data"]))["key"] for r in event["Records"]]


def test_report_batch_item_failures_redelivers_from_the_failed_sequence_number(emu):
    batches, failed = [], []

    def handler(event, context):
        batches.append(keys(event))
        for record, key in zip(event["Records"], keys(event)):
            if key == "b" and not failed:
                failed.append(key)
                return {"batchItemFailures": [{"itemIdentifier": record["kinesis"]["sequenceNumber"]}]}
        return {"batchItemFailures": []}

    kinesis, lam, create = setup(emu, handler, FunctionResponseTypes=["ReportBatchItemFailures"], BatchSize=10)
    for key in "abc":
        put(kinesis, key)
    create()
    assert emu.wait_idle(120)["Idle"]
    assert batches == [["a", "b", "c"], ["b", "c"]]


def test_tumbling_windows_carry_state_and_end_with_a_final_invocation(emu):
    events = []

    def handler(event, context):
        events.append(event)
        return {"state": {"count": event["state"].get("count", 0) + len(event["Records"])}}

    kinesis, lam, create = setup(emu, handler, TumblingWindowInSeconds=60)
    create()
    emu.clock.advance(61 - emu.clock.now() % 60)  # both records in one window, however slow the machine between them
    put(kinesis, "a")
    assert emu.wait_idle(120)["Idle"]
    put(kinesis, "b")
    assert emu.wait_idle(120)["Idle"]
    emu.clock.advance(120)
    assert emu.wait_idle(120)["Idle"]
    final = [e for e in events if e["isFinalInvokeForWindow"]]
    assert len(final) == 1 and final[0]["state"] == {"count": 2} and final[0]["Records"] == []
    assert final[0]["eventSourceARN"].endswith(":stream/events") and final[0]["shardId"].startswith("shardId-")


def test_records_older_than_the_maximum_age_are_not_delivered(emu):
    delivered = []
    kinesis, lam, create = setup(emu, lambda event, context: delivered.extend(keys(event)), MaximumRecordAgeInSeconds=60)
    put(kinesis, "old")
    emu.clock.advance(120)
    put(kinesis, "new")
    create()
    assert emu.wait_idle(120)["Idle"]
    assert delivered == ["new"]


def test_what_a_handler_changes_in_its_event_stays_with_it(emu):
    """Each invocation gets its own event, as Lambda's JSON gives it: a handler that rewrites its records' data and
    its window's state, then fails, is sent the records and the state as they were on the retry (a Kinesis record's
    delivered form is made once and kept; the poller hands a registered callable its own copy, not copied again)."""
    events = []

    def handler(event, context):
        events.append(json.loads(json.dumps(event)))
        for record in event["Records"]:
            record["kinesis"]["data"] = "changed"
            record["eventID"] = "changed"
        event["state"]["changed"] = True
        if len(events) == 1:
            raise ValueError("retry me")
        return {"state": {"seen": len(event["Records"])}}

    kinesis, lam, create = setup(emu, handler, TumblingWindowInSeconds=60, MaximumRetryAttempts=1)
    put(kinesis, "a")
    create()
    assert emu.wait_idle(120)["Idle"]
    first, retried = events[0], events[1]
    assert retried == first and keys(first) == ["a"] and first["state"] == {}
    assert first["Records"][0]["eventID"].startswith("shardId-000000000000:")

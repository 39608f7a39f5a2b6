"""wait_idle says what failed, assert_delivered raises when a record did not reach its function, a failing mapping
logs at WARNING with its repeats summarized, and its retries back off on the emulator's clock. Both doors, with
a zip function made through boto3; the log and the exact back-off in-process, on a clock that does not move."""

from __future__ import annotations

import json
import logging
import threading
import urllib.error
import urllib.request

import boto3
import pytest

from eddy import Clock, NotDeliveredError, emulate
from tests.conftest import QUIET, ServerDoor, http_json
from tests.emulator.helpers import create_table
from tests.emulator.trigger_helpers import put, retrying, stream_with_reporter

REGION = "us-east-1"


def mapping(setup, **options) -> dict:
    return setup["lambda"].create_event_source_mapping(EventSourceArn=setup["stream_arn"], FunctionName="reporter",
                                                       StartingPosition="TRIM_HORIZON", BatchSize=1, **options)


def test_a_discarded_record_is_reported_and_assert_delivered_raises(door):
    setup = stream_with_reporter(door, fail_key="poison")
    created = mapping(setup, MaximumRetryAttempts=1)
    for key in ("a", "poison", "b"):
        put(setup["dynamodb"], key)
    with pytest.raises(NotDeliveredError) as raised:
        door.assert_delivered()
    label = f"reporter <- orders ({created['UUID'][:8]})"
    [sequence_number] = [d["Records"][0]["SequenceNumber"] for d in raised.value.report["Failures"][0]["Discarded"]]
    assert str(raised.value) == (
        "not everything was delivered:\n"
        f"  mapping {label}: 1 record(s) of {raised.value.report['Failures'][0]['Discarded'][0]['ShardId']} discarded "
        '(RetryAttemptsExhausted after 2 invocations, no on-failure destination): {"pk": {"S": "poison"}}; '
        "error: RuntimeError: failing on poison")
    assert raised.value.report == {
        "Idle": True, "Delivered": False, "Pending": [],
        "Failures": [{
            "UUID": created["UUID"], "Mapping": label, "FunctionArn": created["FunctionArn"],
            "EventSourceArn": setup["stream_arn"], "FailedBatches": 2, "RecordsDiscarded": 1,
            "LastError": "RuntimeError: failing on poison",
            "Discarded": [{"ShardId": raised.value.report["Failures"][0]["Discarded"][0]["ShardId"],
                           "Condition": "RetryAttemptsExhausted", "ApproximateInvokeCount": 2,
                           "Records": [{"SequenceNumber": sequence_number, "Keys": {"pk": {"S": "poison"}}}],
                           "OnFailureDestination": None, "Error": "RuntimeError: failing on poison"}]}]}
    # what failed is reported once: the next wait starts over, and a and b were delivered
    assert door.wait_idle() == {"Idle": True, "Delivered": True, "Pending": [], "Failures": []}
    assert door.assert_delivered()["Delivered"] is True


def test_wait_idle_alone_is_idle_but_not_delivered(door):
    setup = stream_with_reporter(door, fail_key="poison")
    queue = setup["sqs"].create_queue(QueueName="failures")["QueueUrl"]
    queue_arn = setup["sqs"].get_queue_attributes(QueueUrl=queue, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    mapping(setup, MaximumRetryAttempts=0, DestinationConfig={"OnFailure": {"Destination": queue_arn}})
    put(setup["dynamodb"], "poison")
    report = door.wait_idle()
    assert (report["Idle"], report["Delivered"]) == (True, False)  # the README's old idiom would have passed here
    [discarded] = report["Failures"][0]["Discarded"]
    assert (discarded["Condition"], discarded["OnFailureDestination"], discarded["Records"][0]["Keys"]) == (
        "RetryAttemptsExhausted", queue_arn, {"pk": {"S": "poison"}})


def test_assert_delivered_names_the_records_still_being_retried(door):
    setup = stream_with_reporter(door, fail_key="poison")
    mapping(setup)  # MaximumRetryAttempts -1: retried until the record expires
    put(setup["dynamodb"], "poison")
    lane = retrying(door, attempts=1)
    assert lane["LastError"] == "RuntimeError: failing on poison"
    assert [r["Keys"] for r in lane["Records"]] == [{"pk": {"S": "poison"}}]
    with pytest.raises(NotDeliveredError) as raised:
        door.assert_delivered(timeout=0)
    assert str(raised.value) == ("not everything was delivered:\n"
                                 f"  mapping {lane['Mapping']}: not caught up after 0 s, retrying "
                                 '{"pk": {"S": "poison"}}; last error: RuntimeError: failing on poison')


def test_assert_delivered_over_http_is_a_409_with_the_report(server_url):
    http_json(server_url + "/moto-api/reset", {})
    setup = stream_with_reporter(ServerDoor(server_url), fail_key="poison")
    mapping(setup, MaximumRetryAttempts=0)
    put(setup["dynamodb"], "poison")
    request = urllib.request.Request(server_url + "/_eddy/delivered", data=json.dumps({"timeout": 30}).encode(),
                                     method="POST")
    with pytest.raises(urllib.error.HTTPError) as raised:
        urllib.request.urlopen(request)
    body = json.loads(raised.value.read())
    assert raised.value.code == 409 and body["__type"] == "NotDelivered"
    assert body["message"].startswith("not everything was delivered:\n  mapping reporter <- orders (")
    assert body["Report"]["Failures"][0]["Discarded"][0]["Records"][0]["Keys"] == {"pk": {"S": "poison"}}


def test_a_batch_that_failed_then_succeeded_was_delivered(emu):
    calls = []

    def handler(event, context):
        calls.append(event)
        if len(calls) == 1:
            raise ValueError("not yet")

    dynamodb, lam = boto3.client("dynamodb", region_name=REGION), boto3.client("lambda", region_name=REGION)
    arn = create_table(dynamodb, "orders")["LatestStreamArn"]
    emu.register_function("handler", handler)
    lam.create_event_source_mapping(EventSourceArn=arn, FunctionName="handler", StartingPosition="TRIM_HORIZON")
    put(dynamodb, "a")
    report = emu.assert_delivered(30)
    assert (report["Delivered"], report["Failures"][0]["FailedBatches"], report["Failures"][0]["RecordsDiscarded"],
            report["Failures"][0]["LastError"]) == (True, 1, 0, "ValueError: not yet")
    assert len(calls) == 2


def test_retries_back_off_on_the_emulators_clock_and_the_log_summarizes_repeats(caplog):
    """On a clock that does not move by itself, each retry is due 0.5, 1, 2, 4, ... s after the failure before it,
    at most 60 s, and only the 1st, 2nd, 4th and 8th of 8 identical failures are WARNING lines."""
    start = 1_800_000_000.0
    invoked = threading.Semaphore(0)

    def handler(event, context):
        invoked.release()
        raise ImportError("No module named 'app'")

    with caplog.at_level(logging.DEBUG, logger="eddy.triggers"), \
            emulate(clock=Clock(source=lambda: start), **QUIET) as emu:
        dynamodb, lam = boto3.client("dynamodb", region_name=REGION), boto3.client("lambda", region_name=REGION)
        arn = create_table(dynamodb, "orders")["LatestStreamArn"]
        emu.register_function("handler", handler)
        lam.create_event_source_mapping(EventSourceArn=arn, FunctionName="handler", StartingPosition="TRIM_HORIZON")
        put(dynamodb, "a")
        assert invoked.acquire(timeout=30)  # the first invocation
        due = []
        for attempts in range(1, 9):
            lane = retrying(_Door(emu), attempts)
            due.append(lane["NextAttemptAt"] - start)
            emu.clock.advance(lane["NextAttemptAt"] - emu.clock.now())
            assert invoked.acquire(timeout=30)  # the retry ran once the clock reached it
    assert due == [0.5, 1.5, 3.5, 7.5, 15.5, 31.5, 63.5, 123.5]  # doubling, at most 60 s
    warnings = [r.getMessage() for r in caplog.records if r.name == "eddy.triggers" and r.levelno == logging.WARNING]
    label = warnings[0].split(" shard ")[0].removeprefix("mapping ")
    assert warnings[0].startswith(f"mapping {label} shard shardId-") and warnings[0].endswith(
        "batch 1 failed: ImportError: No module named 'app' (retry in 0.5 s)")
    assert warnings[1:] == [f"mapping {label} failed {n} times in a row with: ImportError: No module named 'app' "
                            f"(retry in {delay:g} s)" for n, delay in ((2, 1), (4, 4), (8, 60))]


class _Door:
    """The in-process door's wait_idle and clock, for the helpers (an emulator made with its own clock)."""

    def __init__(self, emu) -> None:
        self.emu = emu

    def wait_idle(self, timeout: float) -> dict:
        return self.emu.wait_idle(timeout)

    def now(self) -> float:
        return self.emu.clock.now()

    def advance(self, seconds: float) -> None:
        self.emu.clock.advance(seconds)

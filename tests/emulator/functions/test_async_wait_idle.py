"""wait_idle and assert_delivered see asynchronous invocations (both doors): an attempt running is waited for; an
event waiting for a retry later on the emulator's clock is pending, named with its request id, attempts,
NextAttemptAt and last error, and not waited for; an event given up on is a failure, reported once, and makes
assert_delivered raise naming the function, the error and the request id."""

from __future__ import annotations

import json
import threading
import time

import pytest

from eddy import NotDeliveredError
from tests.emulator.functions.test_async_invocations import invoke_event, setup
from tests.emulator.notifications.test_s3_notifications import wait_for_messages
from tests.emulator.trigger_helpers import create_zip_function
from tests.emulator.triggers.sqs_helpers import queue

SLOW = '''
import json, os, time, boto3
def handler(event, context):
    time.sleep(1)
    boto3.client("sqs").send_message(QueueUrl=os.environ["QUEUE_URL"], MessageBody=json.dumps(event))
'''


def test_wait_idle_waits_for_an_attempt_that_is_running(door):
    sqs, lam = door.client("sqs"), door.client("lambda")
    done, _ = queue(sqs, "done")
    create_zip_function(lam, "slow", "python", SLOW, Environment={"Variables": {"QUEUE_URL": done}}, Timeout=10)
    lam.invoke(FunctionName="slow", InvocationType="Event", Payload=json.dumps({"n": 3}).encode())
    report = door.assert_delivered(120)
    assert (report["Idle"], report["Pending"], report["Failures"]) == (True, [], [])
    # the function sent its message before the attempt ended: it is there as soon as the wait says idle
    [message] = sqs.receive_message(QueueUrl=done)["Messages"]
    assert json.loads(message["Body"]) == {"n": 3}


def test_an_event_waiting_for_a_retry_is_pending_and_not_waited_for(door):
    env = setup(door)
    answer = invoke_event(env["lambda"], {"fail": True, "n": 4})
    request_id = answer["ResponseMetadata"]["RequestId"]
    wait_for_messages(env["sqs"], env["attempts"], 1)
    started = time.monotonic()
    report = door.wait_idle(30)
    while any(entry.get("State") in ("Queued", "Running") for entry in report["Pending"]):
        report = door.wait_idle(30)  # the first attempt was still ending
        started = time.monotonic()
    assert time.monotonic() - started < 30  # answered without waiting for a retry a minute away on the clock
    assert (report["Idle"], report["Delivered"], report["Failures"]) == (False, False, [])
    [pending] = report["Pending"]
    assert pending["Mapping"] == "asynchronous invocation of worker"
    assert (pending["FunctionArn"], pending["RequestId"], pending["Attempts"], pending["State"]) == (
        "arn:aws:lambda:us-east-1:123456789012:function:worker", request_id, 1, "WaitingForRetry")
    assert pending["LastError"] == "RuntimeError: failing as asked"
    # a minute after the attempt began, which was after the event was queued and before now (however slow the machine)
    assert pending["QueuedAt"] + 60 <= pending["NextAttemptAt"] <= door.now() + 60
    with pytest.raises(NotDeliveredError) as raised:
        door.assert_delivered(30)
    assert f"asynchronous invocation of worker (request id {request_id}): WaitingForRetry after 1 attempts" in str(raised.value)
    assert "RuntimeError: failing as asked" in str(raised.value)


def test_an_event_given_up_on_is_reported_once_and_fails_assert_delivered(door):
    env = setup(door)
    env["lambda"].put_function_event_invoke_config(FunctionName="worker", MaximumRetryAttempts=0)
    answer = invoke_event(env["lambda"], {"fail": True, "n": 5})
    request_id = answer["ResponseMetadata"]["RequestId"]
    with pytest.raises(NotDeliveredError) as raised:
        door.assert_delivered(120)
    assert (f"asynchronous invocation of worker (request id {request_id}, from Invoke): RetriesExhausted after 1 "
            "attempts (no on-failure destination or dead-letter queue); error: RuntimeError: failing as asked") in str(raised.value)
    report = raised.value.report
    assert (report["Idle"], report["Delivered"], report["Pending"]) == (True, False, [])
    [failure] = report["Failures"]
    assert (failure["FunctionArn"], failure["RequestId"], failure["Condition"], failure["ApproximateInvokeCount"]) == (
        "arn:aws:lambda:us-east-1:123456789012:function:worker", request_id, "RetriesExhausted", 1)
    again = door.assert_delivered(30)  # reported once: the next wait has nothing to say
    assert (again["Delivered"], again["Failures"]) == (True, [])


def test_queued_and_figures_per_function(emu):
    failed = []

    @emu.function("flaky")
    def flaky(event, context):
        failed.append(event)
        raise ValueError("no")

    function = emu.functions.functions["arn:aws:lambda:us-east-1:123456789012:function:flaky"]
    request_id = emu.async_invocations.submit(function, {"n": 6}, "Invoke")
    assert emu.wait_idle(30)["Pending"][0]["State"] == "WaitingForRetry"  # the attempt running was waited for
    [queued] = emu.async_invocations.queued()[function.arn]
    assert (queued["RequestId"], queued["State"], queued["Attempts"], queued["LastError"]) == (
        request_id, "WaitingForRetry", 1, "ValueError: no")
    assert emu.async_invocations.figures_of() == {function.arn: {
        "Invocations": 1, "Errors": 1, "Retries": 0, "EventsDropped": 0, "LastError": "ValueError: no"}}
    emu.clock.advance(61)
    emu.wait_idle(30)
    emu.clock.advance(121)
    assert emu.wait_idle(30)["Failures"][0]["Condition"] == "RetriesExhausted"
    assert emu.async_invocations.queued() == {}
    assert emu.async_invocations.figures_of()[function.arn] == {
        "Invocations": 3, "Errors": 3, "Retries": 2, "EventsDropped": 1, "LastError": "ValueError: no"}
    assert failed == [{"n": 6}] * 3


HELD = '''
import os, pathlib, time
def handler(event, context):
    if "hold" in event:  # takes the function's one concurrent execution until the test lets it go
        pathlib.Path(event["hold"], "started").touch()
        while not pathlib.Path(event["hold"], "release").exists():
            time.sleep(0.01)
    return {"done": event.get("n")}
'''


def test_a_throttled_event_goes_back_to_its_queue_without_counting_as_an_attempt(door, tmp_path):
    """The function's one concurrent execution (ReservedConcurrentExecutions 1) is taken by a synchronous invocation
    that holds it: the event is throttled, pending with no attempt made, and runs once the execution is free."""
    env = setup(door)
    lam = env["lambda"]
    create_zip_function(lam, "held", "python", HELD, Timeout=60)
    lam.put_function_event_invoke_config(FunctionName="held", MaximumRetryAttempts=0,
                                         DestinationConfig={"OnSuccess": {"Destination": env["outcomes_arn"]}})
    lam.put_function_concurrency(FunctionName="held", ReservedConcurrentExecutions=1)
    holder = threading.Thread(target=lambda: door.client("lambda").invoke(
        FunctionName="held", Payload=json.dumps({"hold": str(tmp_path)}).encode()))
    holder.start()
    deadline = time.monotonic() + 60
    while not (tmp_path / "started").exists() and time.monotonic() < deadline:
        time.sleep(0.01)  # waits for the holding invocation to be running (a file it makes), not for a time
    assert (tmp_path / "started").exists()
    answer = lam.invoke(FunctionName="held", InvocationType="Event", Payload=json.dumps({"n": 8}).encode())
    report = door.wait_idle(60)
    [pending] = report["Pending"]
    assert (pending["RequestId"], pending["State"], pending["Attempts"]) == (
        answer["ResponseMetadata"]["RequestId"], "Throttled", 0)
    assert pending["LastError"] == "TooManyRequestsException: Rate Exceeded."
    assert pending["NextAttemptAt"] - door.now() <= 1  # Lambda's back-off after a throttle starts at a second
    (tmp_path / "release").touch()
    holder.join(60)
    # past any back-off the throttles reached meanwhile (each throttle doubles the wait from a second, up to 5 minutes)
    door.advance(600)
    door.assert_delivered(120)
    [record] = wait_for_messages(env["sqs"], env["outcomes"], 1)
    assert (record["requestContext"]["condition"], record["requestContext"]["approximateInvokeCount"]) == ("Success", 1)


def test_an_event_of_a_function_at_zero_reserved_concurrency_is_given_up_on_at_once(door):
    """A function whose reserved concurrency is 0 never runs: its event's record goes to the OnFailure destination at
    once, condition ZeroReservedConcurrency, no attempt made, no responseContext (AWS-recorded: LocalStack's
    test_lambda.snapshot.json at 8b9a79f05846, TestLambdaConcurrency::test_reserved_concurrency "invoke_result" and
    "msg"'s Body, compared whole)."""
    env = setup(door)
    lam = env["lambda"]
    lam.put_function_concurrency(FunctionName="worker", ReservedConcurrentExecutions=0)
    lam.put_function_event_invoke_config(FunctionName="worker", MaximumRetryAttempts=0,
                                         DestinationConfig={"OnFailure": {"Destination": env["outcomes_arn"]}})
    answer = lam.invoke(FunctionName="worker", InvocationType="Event")
    assert (answer["StatusCode"], answer["Payload"].read(), answer["ResponseMetadata"]["HTTPStatusCode"]) == (
        202, b"", 202)
    [record] = wait_for_messages(env["sqs"], env["outcomes"], 1)
    assert record == {
        "version": "1.0", "timestamp": record["timestamp"],
        "requestContext": {"requestId": answer["ResponseMetadata"]["RequestId"],
                           "functionArn": "arn:aws:lambda:us-east-1:123456789012:function:worker:$LATEST",
                           "condition": "ZeroReservedConcurrency", "approximateInvokeCount": 0},
        "requestPayload": {}}
    assert env["sqs"].receive_message(QueueUrl=env["attempts"]).get("Messages") is None  # it never ran
    report = door.wait_idle(30)
    assert (report["Pending"], [failure["Condition"] for failure in report["Failures"]]) == (
        [], ["ZeroReservedConcurrency"])

"""Lambda's asynchronous invocation queue survives a restart (in-process: a clean stop; the server: kill -9): an event
whose function failed waits for its retry across the restart with its request id, attempts, next attempt's moment
and age, and the destination or dead-letter queue gets exactly what AWS would send, once; an event that was done
before the stop is not run again. Python and Node.js functions."""

from __future__ import annotations

import json
import os
import signal
import time
from contextlib import contextmanager
from typing import Iterator

import pytest

from eddy import NotDeliveredError, emulate
from tests.conftest import QUIET, InProcessDoor, ServerDoor, eddy_server
from tests.emulator.notifications.test_s3_notifications import wait_for_messages
from tests.emulator.functions.test_functions import zip_of
from tests.emulator.trigger_helpers import SETTLE_SECONDS, create_zip_function
from tests.emulator.triggers.sqs_helpers import queue

FUNCTION_ARN = "arn:aws:lambda:us-east-1:123456789012:function:worker"

FAILING = {"python": '''
import json, os, boto3
sqs = boto3.client("sqs")
def handler(event, context):
    sqs.send_message(QueueUrl=os.environ["QUEUE_URL"], MessageBody=json.dumps(event))
    raise RuntimeError("failing as asked")
''', "node": """
const { SQSClient, SendMessageCommand } = require('@aws-sdk/client-sqs');
const sqs = new SQSClient({ useQueueUrlAsEndpoint: false });
exports.handler = async (event) => {
  await sqs.send(new SendMessageCommand({ QueueUrl: process.env.QUEUE_URL, MessageBody: JSON.stringify(event) }));
  throw new Error('failing as asked');
};
"""}

FIXED = {"python": '''
import json, os, boto3
sqs = boto3.client("sqs")
def handler(event, context):
    sqs.send_message(QueueUrl=os.environ["QUEUE_URL"], MessageBody=json.dumps(event))
    return {"fixed": event["n"]}
''', "node": """
const { SQSClient, SendMessageCommand } = require('@aws-sdk/client-sqs');
const sqs = new SQSClient({ useQueueUrlAsEndpoint: false });
exports.handler = async (event) => {
  await sqs.send(new SendMessageCommand({ QueueUrl: process.env.QUEUE_URL, MessageBody: JSON.stringify(event) }));
  return { fixed: event.n };
};
"""}


@contextmanager
def durable_door(kind: str, state_dir: str) -> Iterator:
    """A door on a durable state directory: (door, stop) where stop() ends it as the test's restart does (in-process:
    leaving the block, a clean stop; the server: kill -9)."""
    if kind == "inprocess":
        with emulate(state_dir=state_dir, **QUIET) as emu:
            yield InProcessDoor(emu), lambda: None
        return
    with eddy_server("--state-dir", state_dir, "--housekeeping-interval", "0") as (url, server):
        def kill() -> None:
            os.kill(server.pid, signal.SIGKILL)
            server.wait(timeout=30)
        yield ServerDoor(url), kill


def urls(door) -> dict[str, str]:
    sqs = door.client("sqs")
    return {name: sqs.get_queue_url(QueueName=name)["QueueUrl"] for name in ("attempts", "outcomes", "worker-dlq")}


def nothing_in(sqs, url: str) -> bool:
    return not sqs.receive_message(QueueUrl=url, WaitTimeSeconds=1).get("Messages")


def only_event(report: dict) -> dict:
    [pending] = [entry for entry in report["Pending"] if "RequestId" in entry]
    return pending


def start(door, runtime: str) -> str:
    """Queues, the failing function "worker" (one retry allowed, records to "outcomes", a dead-letter queue), one
    event invoked and its first attempt failed; returns the event's request id."""
    sqs, lam = door.client("sqs"), door.client("lambda")
    attempts, _ = queue(sqs, "attempts")
    _, outcomes_arn = queue(sqs, "outcomes")
    _, dlq_arn = queue(sqs, "worker-dlq")
    create_zip_function(lam, "worker", runtime, FAILING[runtime], Environment={"Variables": {"QUEUE_URL": attempts}},
                        DeadLetterConfig={"TargetArn": dlq_arn}, Timeout=10)
    lam.put_function_event_invoke_config(FunctionName="worker", DestinationConfig={
        "OnSuccess": {"Destination": outcomes_arn}, "OnFailure": {"Destination": outcomes_arn}})
    answer = lam.invoke(FunctionName="worker", InvocationType="Event", Payload=json.dumps({"n": 1}).encode())
    assert wait_for_messages(sqs, attempts, 1) == [{"n": 1}]
    return answer["ResponseMetadata"]["RequestId"]


def waiting(door, request_id: str, attempts: int) -> dict:
    """The event's Pending entry once it waits for its retry after `attempts` attempts (wait_idle answers at once:
    the retry's time has not come on the emulator's clock)."""
    deadline = time.monotonic() + SETTLE_SECONDS
    report = door.wait_idle(60)
    while only_event(report)["State"] != "WaitingForRetry" or only_event(report)["Attempts"] != attempts:
        assert time.monotonic() < deadline, report
        report = door.wait_idle(60)
    assert not report["Idle"] and not report["Delivered"]
    entry = only_event(report)
    assert (entry["RequestId"], entry["FunctionArn"], entry["Source"]) == (request_id, FUNCTION_ARN, "Invoke")
    assert "failing as asked" in entry["LastError"]
    assert entry["Retrying"] == [{"RequestId": request_id, "Attempts": attempts, "NextAttemptAt": entry["NextAttemptAt"],
                                  "Records": []}]
    return entry


@pytest.mark.parametrize("runtime", ["python", "node"])
@pytest.mark.parametrize("kind", ["inprocess", "server"])
def test_an_event_waiting_for_its_retry_resumes_after_a_restart_and_succeeds_once_fixed(tmp_path, kind, runtime):
    state = str(tmp_path / "state")
    with durable_door(kind, state) as (door, stop):
        request_id = start(door, runtime)
        before = waiting(door, request_id, 1)
        # a minute after the attempt began: after the event was queued, before now (however slow the machine)
        assert before["QueuedAt"] + 60 <= before["NextAttemptAt"] <= door.now() + 60
        stop()
    with durable_door(kind, state) as (door, _):
        after = waiting(door, request_id, 1)
        assert after == before  # the same event: request id, attempts, next attempt's moment, age
        sqs, lam = door.client("sqs"), door.client("lambda")
        queues = urls(door)
        assert nothing_in(sqs, queues["attempts"])  # the failed attempt was not run again
        lam.update_function_code(FunctionName="worker", ZipFile=zip_of(
            {"app.py" if runtime == "python" else "index.js": FIXED[runtime]}))
        door.advance(after["NextAttemptAt"] - door.now() + 1)
        report = door.assert_delivered(60)
        assert report["Idle"] and report["Failures"] == []
        assert wait_for_messages(sqs, queues["attempts"], 1) == [{"n": 1}]
        [record] = wait_for_messages(sqs, queues["outcomes"], 1)
        assert record["requestContext"] == {"requestId": request_id, "functionArn": f"{FUNCTION_ARN}:$LATEST",
                                            "condition": "Success", "approximateInvokeCount": 2}
        assert (record["requestPayload"], record["responsePayload"]) == ({"n": 1}, {"fixed": 1})
        assert nothing_in(sqs, queues["worker-dlq"]) and nothing_in(sqs, queues["outcomes"])


@pytest.mark.parametrize("kind", ["inprocess", "server"])
def test_retries_exhausted_across_restarts_reach_the_destination_and_dead_letter_queue_once(tmp_path, kind):
    state = str(tmp_path / "state")
    with durable_door(kind, state) as (door, stop):
        request_id = start(door, "python")
        first = waiting(door, request_id, 1)
        stop()
    with durable_door(kind, state) as (door, stop):
        door.advance(first["NextAttemptAt"] - door.now() + 1)
        second = waiting(door, request_id, 2)  # Lambda's second retry two minutes after the second attempt
        # two minutes after the second attempt began, which was when the first retry was due or later, before now
        assert first["NextAttemptAt"] + 120 <= second["NextAttemptAt"] <= door.now() + 120
        assert second["QueuedAt"] == first["QueuedAt"]
        stop()
    with durable_door(kind, state) as (door, _):
        sqs = door.client("sqs")
        queues = urls(door)
        door.advance(second["NextAttemptAt"] - door.now() + 1)
        with pytest.raises(NotDeliveredError) as raised:
            door.assert_delivered(60)
        message = str(raised.value)
        assert "asynchronous invocation of worker" in message and request_id in message
        assert "RetriesExhausted after 3 attempts" in message and "failing as asked" in message
        [failure] = raised.value.report["Failures"]
        assert (failure["RequestId"], failure["Condition"], failure["ApproximateInvokeCount"]) == (
            request_id, "RetriesExhausted", 3)
        assert door.wait_idle(60)["Failures"] == []  # reported once
        assert wait_for_messages(sqs, queues["attempts"], 2) == [{"n": 1}, {"n": 1}]  # attempts 2 and 3
        assert nothing_in(sqs, queues["attempts"])  # none repeated
        [record] = wait_for_messages(sqs, queues["outcomes"], 1)
        assert record["requestContext"] == {"requestId": request_id, "functionArn": f"{FUNCTION_ARN}:$LATEST",
                                            "condition": "RetriesExhausted", "approximateInvokeCount": 3}
        assert record["responsePayload"]["errorMessage"] == "failing as asked"
        [dead] = sqs.receive_message(QueueUrl=queues["worker-dlq"], MessageAttributeNames=["All"],
                                     WaitTimeSeconds=5)["Messages"]
        assert json.loads(dead["Body"]) == {"n": 1}
        assert dead["MessageAttributes"]["RequestID"]["StringValue"] == request_id
        assert nothing_in(sqs, queues["outcomes"])


def test_the_event_age_counts_from_when_it_was_first_queued_across_a_restart(tmp_path):
    state = str(tmp_path / "state")
    with durable_door("inprocess", state) as (door, _):
        request_id = start(door, "python")
        door.client("lambda").put_function_event_invoke_config(FunctionName="worker", MaximumEventAgeInSeconds=100)
        first = waiting(door, request_id, 1)
    with durable_door("inprocess", state) as (door, _):
        door.advance(first["NextAttemptAt"] - door.now() + 1)
        # the retry after this one would come past 100 s from the first queueing: given up on at once (AWS-recorded,
        # functions/async_invocation/events.py)
        [failure] = door.wait_idle(60)["Failures"]
        assert (failure["Condition"], failure["ApproximateInvokeCount"]) == ("EventAgeExceeded", 2)
        assert door.wait_idle(60)["Pending"] == []

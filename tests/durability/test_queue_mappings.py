"""A restart in the middle of queue mappings' work (a standard queue, a FIFO queue, and a queue whose poison message
goes to its dead-letter queue after maxReceiveCount receives): nothing is lost, nothing is delivered again but the
batches in flight at a kill -9 (at least once, each repeat with a higher receive count), FIFO order per
MessageGroupId holds across the restart, the mappings resume by themselves, and the receive counts the mappings
made before the restart still count toward the RedrivePolicy. Both doors: the server killed with SIGKILL or stopped
cleanly, and emulate() closed and opened again on its state directory."""

from __future__ import annotations

import itertools
import json
import os
import signal
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from eddy import emulate
from tests.conftest import QUIET, InProcessDoor, ServerDoor, eddy_server
from tests.emulator.functions.test_functions import create_function
from tests.emulator.helpers import create_table

ACCOUNT = "123456789012"
BATCH = 5
POLLERS = 5  # sqs_mappings.DEFAULT_POLLERS: at most this many batches of a mapping are in flight at once
VISIBILITY = 60  # at least the function's Timeout, as Lambda requires of a queue mapping
# enough that the restart comes in the middle (start_work checks it): more than the batches in flight at the kill
# (POLLERS * BATCH), several batches per FIFO group (300 and 3 x 100 took 21 s a test and proved no more)
STANDARD = [f"m{n:03}" for n in range(120)]
GROUPS = {f"g{g}": [f"g{g}-{n:03}" for n in range(40)] for g in range(3)}

# appends "<body>@<ApproximateReceiveCount>" to the sink item of its message (a FIFO message: of its group);
# fails on a poison message after noting it
COUNTER = '''
import boto3
dynamodb = boto3.client("dynamodb")
def handler(event, context):
    for record in event["Records"]:
        attributes = record["attributes"]
        dynamodb.update_item(
            TableName="sink", Key={"pk": {"S": attributes.get("MessageGroupId", record["body"])}},
            UpdateExpression="SET seen = list_append(if_not_exists(seen, :none), :this)",
            ExpressionAttributeValues={":none": {"L": []}, ":this": {"L": [
                {"S": record["body"] + "@" + attributes["ApproximateReceiveCount"]}]}})
        if record["body"].startswith("poison"):
            raise RuntimeError("cannot digest " + record["body"])
'''


def seen(door: Any) -> dict[str, list[str]]:
    items = door.client("dynamodb").scan(TableName="sink", ConsistentRead=True)["Items"]
    return {item["pk"]["S"]: [value["S"] for value in item["seen"]["L"]] for item in items}


def settled(door: Any) -> dict[str, list[str]]:
    """What the function noted, once the mappings are idle: no batch in flight, nothing they can receive now (the
    emulator's wait_idle, with a generous bound: the machine may be busy)."""
    assert door.wait_idle(120)["Idle"]
    return seen(door)


def send(sqs: Any, work: str, fifo: str, half: int) -> None:
    """The first (0) or second (1) half of each queue's messages sent: the FIFO queue's first, the groups interleaved
    as a busy producer sends them, then the standard queue's, ten at a time."""
    for sent in zip(*(halves(bodies)[half] for bodies in GROUPS.values())):
        for group, body in zip(GROUPS, sent):
            sqs.send_message(QueueUrl=fifo, MessageBody=body, MessageGroupId=group)
    standard = halves(STANDARD)[half]
    for start in range(0, len(standard), 10):
        sqs.send_message_batch(QueueUrl=work, Entries=[{"Id": body, "MessageBody": body}
                                                       for body in standard[start:start + 10]])


def halves(bodies: list[str]) -> tuple[list[str], list[str]]:
    return bodies[:len(bodies) // 2], bodies[len(bodies) // 2:]


def url_of(door: Any, name: str) -> str:
    return door.client("sqs").get_queue_url(QueueName=name)["QueueUrl"]


def start_work(door: Any) -> None:
    """Queues made, mappings made; answers once the poison message was received twice, the first half of the other
    two queues' messages was delivered, and the second half was sent: the restart comes while the mappings handle it."""
    sqs, lam = door.client("sqs"), door.client("lambda")
    create_table(door.client("dynamodb"), "sink", view_type=None)
    function = create_function(lam, "count", COUNTER, Timeout=60)["FunctionArn"]
    work = sqs.create_queue(QueueName="work", Attributes={"VisibilityTimeout": str(VISIBILITY)})["QueueUrl"]
    fifo = sqs.create_queue(QueueName="work.fifo", Attributes={
        "FifoQueue": "true", "ContentBasedDeduplication": "true", "VisibilityTimeout": str(VISIBILITY)})["QueueUrl"]
    sqs.create_queue(QueueName="poison-dlq")
    poison = sqs.create_queue(QueueName="poison", Attributes={"VisibilityTimeout": str(VISIBILITY), "RedrivePolicy": json.dumps(
        {"deadLetterTargetArn": f"arn:aws:sqs:us-east-1:{ACCOUNT}:poison-dlq", "maxReceiveCount": 3})})["QueueUrl"]
    sqs.send_message(QueueUrl=poison, MessageBody="poison")
    lam.create_event_source_mapping(EventSourceArn=f"arn:aws:sqs:us-east-1:{ACCOUNT}:poison", FunctionName=function,
                                    BatchSize=1)
    assert settled(door) == {"poison": ["poison@1"]}  # failed: invisible until its visibility timeout runs out
    door.control("/_eddy/clock", {"advance": VISIBILITY + 1})
    assert settled(door) == {"poison": ["poison@1", "poison@2"]}
    send(sqs, work, fifo, 0)
    for name in ("work", "work.fifo"):
        lam.create_event_source_mapping(EventSourceArn=f"arn:aws:sqs:us-east-1:{ACCOUNT}:{name}",
                                        FunctionName=function, BatchSize=BATCH)
    assert settled(door) == dict(  # the first half, each once
        {body: [body + "@1"] for body in halves(STANDARD)[0]}, poison=["poison@1", "poison@2"],
        **{group: [body + "@1" for body in halves(bodies)[0]] for group, bodies in GROUPS.items()})
    send(sqs, work, fifo, 1)
    progress = seen(door)
    handled = [body for body in STANDARD if body in progress] + [
        entry.split("@")[0] for group in GROUPS for entry in progress.get(group, ())]
    assert len(handled) < len(STANDARD) + sum(map(len, GROUPS.values()))  # the restart comes in the middle


def finish_and_check(door: Any, killed: bool) -> None:
    lam = door.client("lambda")
    mappings = lam.list_event_source_mappings(FunctionName="count")["EventSourceMappings"]
    assert len(mappings) == 3 and {m["State"] for m in mappings} == {"Enabled"}
    for _ in range(3):  # batches in flight at a kill return after their visibility timeout; so does the poison
        assert door.wait_idle(120)["Idle"]  # (a batch still running when its visibility timeout ran out would
        door.control("/_eddy/clock", {"advance": VISIBILITY + 1})  # be received again, as on AWS)
    assert door.wait_idle(120)["Idle"]
    delivered = seen(door)

    assert delivered.pop("poison") == ["poison@1", "poison@2", "poison@3"]  # receive counts survived the restart
    sqs = door.client("sqs")
    dead = sqs.receive_message(QueueUrl=url_of(door, "poison-dlq"), MaxNumberOfMessages=10,
                               AttributeNames=["All"])["Messages"]
    assert [(m["Body"], m["Attributes"]["ApproximateReceiveCount"]) for m in dead] == [("poison", "4")]

    standard = {body: delivered.pop(body) for body in STANDARD if body in delivered}
    assert sorted(standard) == STANDARD  # nothing lost
    repeated = [body for body, times in standard.items() if len(times) > 1]
    for body in STANDARD:  # a repeat only ever after a receive that did not end in a delete: a higher count
        counts = [int(entry.split("@")[1]) for entry in standard[body]]
        assert counts == sorted(set(counts)), (body, standard[body])
    assert len(repeated) <= (POLLERS * BATCH if killed else 0)

    assert sorted(delivered) == sorted(GROUPS)
    for group, bodies in GROUPS.items():
        order = [entry.split("@")[0] for entry in delivered[group]]
        assert sorted(set(order)) == bodies  # nothing lost
        positions = [bodies.index(body) for body in order]
        # in order; a repeat (kill -9 only) goes back to the batch in flight and goes on from there
        assert all(b <= a + 1 for a, b in itertools.pairwise(positions)), order
        assert len(order) - len(bodies) <= (BATCH if killed else 0)
    for url in (url_of(door, "work"), url_of(door, "work.fifo"), url_of(door, "poison")):
        counts = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["All"])["Attributes"]
        assert (counts["ApproximateNumberOfMessages"], counts["ApproximateNumberOfMessagesNotVisible"]) == ("0", "0")


@contextmanager
def server(state_dir: str) -> Iterator[tuple[ServerDoor, Any]]:
    with eddy_server("--state-dir", state_dir, "--housekeeping-interval", "0") as (url, process):
        yield ServerDoor(url), process


@pytest.mark.parametrize("stop", ["kill -9", "clean stop"])
def test_a_server_restart_in_the_middle_of_queue_mappings_loses_and_repeats_nothing(tmp_path, stop):
    state_dir = str(tmp_path / "state")
    with server(state_dir) as (door, process):
        start_work(door)
        if stop == "kill -9":
            os.kill(process.pid, signal.SIGKILL)
            process.wait(timeout=10)
    with server(state_dir) as (door, _):
        finish_and_check(door, killed=stop == "kill -9")


def test_an_in_process_restart_in_the_middle_of_queue_mappings_loses_and_repeats_nothing(tmp_path):
    state_dir = str(tmp_path / "state")
    with emulate(state_dir=state_dir, **QUIET) as emu:
        start_work(InProcessDoor(emu))
    with emulate(state_dir=state_dir, **QUIET) as emu:
        finish_and_check(InProcessDoor(emu), killed=False)

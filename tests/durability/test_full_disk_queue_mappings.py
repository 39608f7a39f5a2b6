"""A queue mapping on a real disk that fills while it works: at least once, as Lambda documents for SQS, and nothing lost.

A poller writes each receive and each delete to the log before it makes it (moto_seam/sqs_polling.py `write_down`). On a full
disk whose reserve is used, a delete the disk refuses is not made: the message comes back after its visibility timeout
and is delivered again; a receive the disk refuses is not made either (the message stays visible, its receive count
unchanged), and the poller keeps trying until the disk has room. A kill -9 while the disk is full loses no message:
one whose delete was refused is back after the restart and delivered again, once.

The disk is a real tmpfs of 8 MB (tests/durability/small_disk.py, skipped where it cannot be mounted). The function
fills it itself while it handles the batch, and takes the log's reserve with it (the state a disk is in once the reserve
was given back to an earlier entry), so the refusal falls exactly between the invocation and the delete. Both doors:
emulate() in this process, and `eddy serve` killed with SIGKILL.
"""

from __future__ import annotations

import json
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from tests.durability.small_disk import SmallDisk
from tests.durability.test_disk_full import Eddy, running
from tests.durability.test_small_disk import disk, door  # noqa: F401  (the fixtures: a real tmpfs, both doors)
from tests.emulator.functions.test_functions import create_function

pytestmark = pytest.mark.slow

#: the queue's VisibilityTimeout (at least the function's Timeout, as Lambda requires of a mapping): how long a test
#: has to see the refused delete before the messages are visible again and their receive is refused
VISIBILITY = 10
#: messages in a batch: their ids (36 characters each) make a receive's or delete's log entry larger than a page, so the
#: entry needs a new page of the full disk and cannot slip into the free end of the log's last one
BATCH = 120
QUEUE_ARN = "arn:aws:sqs:us-east-1:123456789012:work"
FUNCTION_ARN = "arn:aws:lambda:us-east-1:123456789012:function:consumer"
DELETE_REFUSED = "the disk refused the log entry of a delete, which was not made: a write to "
RECEIVE_REFUSED = "the disk refused the log entry of a receive, which was not made: a write to "

# notes each message it is handed as "<body>@<ApproximateReceiveCount>" (outside the small disk); while ARMED exists,
# it then takes the log's reserve and fills the disk, so the poller's delete that follows is refused
CONSUMER = '''
import errno, os
def handler(event, context):
    with open(os.environ["DELIVERIES"], "a") as out:
        for record in event["Records"]:
            out.write(record["body"] + "@" + record["attributes"]["ApproximateReceiveCount"] + "\\n")
    if os.path.exists(os.environ["ARMED"]):
        if os.path.exists(os.environ["RESERVE"]):
            os.remove(os.environ["RESERVE"])
        descriptor = os.open(os.environ["FILLER"], os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        for size in (1 << 20, 4096, 1):
            try:
                while os.write(descriptor, b"f" * size) == size:
                    pass
            except OSError as error:
                if error.errno != errno.ENOSPC:
                    raise
        os.close(descriptor)
'''


#: how long a wait for the mapping may take at most (generous: the machine may be busy)
WAIT = 120


def settled(eddy: Eddy) -> dict[str, Any]:
    """wait_idle's answer (POST /_eddy/idle, in-process through the same router): once no batch is in flight and the
    mapping can receive nothing now, or once the disk refused its receive during the wait."""
    return eddy.control("/_eddy/idle", {"timeout": WAIT})


class Consumer:
    """The queue, its mapping and what the function was handed."""

    def __init__(self, eddy: Eddy, small: SmallDisk, notes: Path) -> None:
        self.eddy, self.disk = eddy, small
        self.deliveries, self.armed = notes / "deliveries", notes / "armed"
        self.sqs, self.lam = eddy.client("sqs"), eddy.client("lambda")

    def set_up(self, state: Path) -> None:
        create_function(self.lam, "consumer", CONSUMER, Timeout=VISIBILITY, Environment={"Variables": {
            "DELIVERIES": str(self.deliveries), "ARMED": str(self.armed), "RESERVE": str(state / "disk.reserve"),
            "FILLER": str(self.disk.filler)}})
        self.sqs.create_queue(QueueName="work", Attributes={"VisibilityTimeout": str(VISIBILITY)})
        # a window long enough to gather a round's messages whatever the machine's load: a batch is a round
        self.lam.create_event_source_mapping(FunctionName="consumer", BatchSize=BATCH,
                                             MaximumBatchingWindowInSeconds=60, EventSourceArn=QUEUE_ARN)

    @property
    def uuid(self) -> str:
        [mapping] = self.lam.list_event_source_mappings(FunctionName="consumer")["EventSourceMappings"]
        return mapping["UUID"]

    @property
    def url(self) -> str:
        return self.sqs.get_queue_url(QueueName="work")["QueueUrl"]

    def handed(self) -> list[str]:
        return self.deliveries.read_text().split() if self.deliveries.exists() else []

    def queue(self) -> dict[str, str]:
        """The queue's counts (reads are served on a full disk)."""
        names = ["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"]
        return self.sqs.get_queue_attributes(QueueUrl=self.url, AttributeNames=names)["Attributes"]

    def last_error(self) -> str | None:
        """The mapping's LastError among its figures (GET /_eddy/mappings; an SQS mapping shows no
        LastProcessingResult on AWS)."""
        if self.eddy.url is None:
            figures = self.eddy.emu.mapping_figures(None)
        else:
            with urllib.request.urlopen(self.eddy.url + "/_eddy/mappings", timeout=60) as answer:
                figures = json.load(answer)
        [mapping] = figures["EventSourceMappings"]
        return mapping["LastError"]

    def send(self, name: str) -> list[str]:
        """A round of BATCH messages; answers their bodies."""
        bodies = [f"{name}{n:03}" for n in range(BATCH)]
        for start in range(0, BATCH, 10):
            answer = self.sqs.send_message_batch(QueueUrl=self.url, Entries=[
                {"Id": body, "MessageBody": body} for body in bodies[start:start + 10]])
            assert len(answer["Successful"]) == 10
        return bodies

    def send_while_armed(self, name: str) -> list[str]:
        """A round sent; the function fills the disk as it handles it: the delete is refused, and once the messages
        are visible again so is every receive of them."""
        self.armed.touch()
        bodies = self.send(name)
        assert settled(self.eddy)["Idle"]  # handed over, the delete refused: nothing visible until the timeout
        assert (self.last_error() or "").startswith(DELETE_REFUSED)
        assert self.queue() == {"ApproximateNumberOfMessages": "0", "ApproximateNumberOfMessagesNotVisible": str(BATCH)}
        # The visibility timeout runs out in real time, on purpose: the emulator's clock cannot be moved on a full
        # disk (an advance is a log entry, refused: test_full_disk_clock.py), so this wait is the behaviour under test
        time.sleep(VISIBILITY)
        started = time.monotonic()
        report = settled(self.eddy)  # visible again: the pollers' receive is refused, which the wait answers at once
        assert time.monotonic() - started < WAIT  # the wait did not run out: it does not wait for the disk
        [pending] = report["Pending"]
        assert pending["LastError"].startswith(RECEIVE_REFUSED)
        assert report == {"Idle": False, "Delivered": False, "Failures": [], "Pending": [{
            "UUID": self.uuid, "Mapping": f"consumer <- work ({self.uuid[:8]})", "FunctionArn": FUNCTION_ARN,
            "EventSourceArn": QUEUE_ARN, "LastProcessingResult": "PROBLEM: " + pending["LastError"],
            "LastError": pending["LastError"], "Retrying": []}]}
        assert self.last_error() == pending["LastError"]
        assert self.queue() == {"ApproximateNumberOfMessages": str(BATCH), "ApproximateNumberOfMessagesNotVisible": "0"}
        return bodies

    def room(self) -> None:
        self.armed.unlink()
        self.disk.room()

    def drained(self, handed: list[str]) -> None:
        assert settled(self.eddy)["Idle"]
        assert self.handed() == handed
        assert self.queue() == {"ApproximateNumberOfMessages": "0", "ApproximateNumberOfMessagesNotVisible": "0"}


def test_a_full_disk_delays_a_queue_mappings_deletes_and_receives_and_loses_no_message(
        door: str, disk: SmallDisk, tmp_path: Path) -> None:  # noqa: F811  (the fixtures imported above)
    state = disk.mount_point / "state"
    with running(door, state) as eddy:
        work = Consumer(eddy, disk, tmp_path)
        work.set_up(state)
        a = work.send("a")
        work.drained(received(a, 1))
        b = work.send_while_armed("b")
        assert work.handed() == received(a, 1) + received(b, 1)  # handed once, its delete refused: not deleted
        work.room()  # room again, no restart: received again (its count as if no refused receive happened), deleted
        handed = received(a, 1) + received(b, 1) + received(b, 2)
        work.drained(handed)
        c = work.send_while_armed("c")  # then kill -9 (server) or the block's end (in-process) on the full disk
    work.room()
    handed += received(c, 1) + received(c, 2)
    with running(door, state) as eddy:  # c's receive was logged, its delete refused: back, and delivered again
        work = Consumer(eddy, disk, tmp_path)
        work.drained(handed)
    with running(door, state, kill=False) as eddy:  # nothing more to deliver
        work = Consumer(eddy, disk, tmp_path)
        assert settled(eddy)["Idle"]
        assert work.handed() == handed
        assert work.queue() == {"ApproximateNumberOfMessages": "0", "ApproximateNumberOfMessagesNotVisible": "0"}


def received(bodies: list[str], count: int) -> list[str]:
    """What the function notes of `bodies` handed the `count`th time."""
    return [f"{body}@{count}" for body in bodies]

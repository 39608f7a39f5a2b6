"""A snapshot is never taken between a change's log entry and the change (storage/persistence.py, units_of_work.py).

Some changes are logged before they are made (log_all: a DynamoDB commit, whose commit version is set once its entry
is written; a Kinesis record, put into moto once its entry is written). A snapshot ends the log generation that holds
the entry, so one taken by that very entry (the log reaching `snapshot_every`) held the entry's effect only if the
change was made already. It was not: after a crash right then, the acknowledged Kinesis record was gone, and the
table's next commit took the commit version of the one before (two commits with one version in the change log,
which Spark's table history counts as one). Probed on 2026-11-28 (/tmp/writes-exp/probe.py): 2 Kinesis records put,
1 after the restart; commit versions 3, 4, 4. Now such a snapshot waits for the end of the thread's outermost unit of
work, or outside one for the next entry. The same rule keeps a unit inside another (a function's own request in
process, a stack's resource) from snapshotting its enclosing request half made.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import signal
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Callable

import pytest

from eddy import emulate
from eddy.emulator.storage.service_log import SERVICE_REQUEST_WEIGHT
from eddy.emulator.storage.wal import read_entries
from tests.conftest import eddy_server
from tests.durability.test_disk_full import Eddy, disk, running  # noqa: F401 (the disk fixture)
from tests.durability.test_units_of_work import KEY, door  # noqa: F401 (the door fixture)

pytestmark = pytest.mark.slow

SNAPSHOT_EVERY = 9


@contextmanager
def crashing(door: str, state: Path, snapshot_every: int = SNAPSHOT_EVERY, **settings: int) -> Iterator[Eddy]:
    """An Eddy that snapshots every `snapshot_every` log entries (and takes `settings`, emulate()'s and `eddy serve`'s
    flags alike) and ends as a crash does: kill -9 (server); in-process no snapshot at the end and nothing more
    written (what a crash leaves)."""
    eddy = Eddy(door, state)
    if door == "inprocess":
        with emulate(state_dir=state, housekeeping_interval=None, snapshot_every=snapshot_every, **settings) as emu:
            eddy.emu = emu
            yield eddy
            emu.persistence.leave_as_is()
        return
    flags = [word for name, value in settings.items() for word in ("--" + name.replace("_", "-"), str(value))]
    with eddy_server("--state-dir", str(state), "--housekeeping-interval", "0",
                     "--snapshot-every", str(snapshot_every), *flags) as (url, server):
        eddy.url, eddy.pid = url, server.pid
        yield eddy
        os.kill(server.pid, signal.SIGKILL)
        server.wait(timeout=30)


def until_a_snapshot(state: Path, write: Callable[[int], None]) -> None:
    """`write(n)` for n = 0, 1, ... until the write that made a new snapshot."""
    for n in range(4 * SNAPSHOT_EVERY):
        before = sorted((state / "snapshots").glob("*.snapshot"))
        write(n)
        if sorted((state / "snapshots").glob("*.snapshot")) != before:
            return
    raise AssertionError("no snapshot was taken")


def kinesis_records(eddy: Eddy) -> list[tuple[str, bytes]]:
    kinesis = eddy.client("kinesis")
    [shard] = kinesis.describe_stream(StreamName="events")["StreamDescription"]["Shards"]
    iterator = kinesis.get_shard_iterator(StreamName="events", ShardId=shard["ShardId"],
                                          ShardIteratorType="TRIM_HORIZON")["ShardIterator"]
    return [(record["SequenceNumber"], record["Data"]) for record in kinesis.get_records(ShardIterator=iterator)["Records"]]


def test_a_kinesis_record_whose_entry_is_due_for_a_snapshot_survives_a_crash(door: str, tmp_path: Path) -> None:
    state = tmp_path / "state"
    with crashing(door, state) as eddy:
        kinesis = eddy.client("kinesis")
        kinesis.create_stream(StreamName="events", ShardCount=1)
        kinesis.get_waiter("stream_exists").wait(StreamName="events")
        until_a_snapshot(state, lambda n: kinesis.put_record(StreamName="events", Data=f"r{n}".encode(),
                                                             PartitionKey="p"))
        acknowledged = kinesis_records(eddy)
        assert acknowledged[-1][1] == f"r{len(acknowledged) - 1}".encode()
    with running(door, state, kill=False) as eddy:
        assert kinesis_records(eddy) == acknowledged


def change_log(state: Path, table: str) -> list[tuple[str, int]]:
    """The table's change log as a reader of the state directory reads it: (key, commit version) per record."""
    lines = [json.loads(line) for segment in sorted((state / "streams").glob(f"*/*/{table}/*/*/*.jsonl"))
             for line in segment.read_text().splitlines()]
    return [(line["keys"]["pk"]["S"], line["commit_version"]) for line in lines]


def test_a_commit_whose_entry_is_due_for_a_snapshot_keeps_its_version_after_a_crash(door: str, tmp_path: Path) -> None:
    state = tmp_path / "state"
    with crashing(door, state) as eddy:
        ddb = eddy.client("dynamodb")
        ddb.create_table(TableName="orders", BillingMode="PAY_PER_REQUEST", **KEY,
                         StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_IMAGE"})
        until_a_snapshot(state, lambda n: ddb.put_item(TableName="orders", Item={"pk": {"S": f"k{n}"}}))
        acknowledged = change_log(state, "orders")
    with running(door, state, kill=False) as eddy:
        eddy.client("dynamodb").put_item(TableName="orders", Item={"pk": {"S": "after"}})
        logged = change_log(state, "orders")
    versions = [version for _, version in logged]
    assert logged[:-1] == acknowledged
    assert versions == list(range(versions[0], versions[0] + len(versions)))  # one version per commit, none twice



def test_snapshots_due_by_writes_that_fail_fail_no_write_and_lose_nothing(door: str, tmp_path: Path,
                                                                           disk: Path) -> None:
    """The snapshot fault point through the path writes take (a snapshot due, put off to the end of its request):
    refused (ENOSPC), every write is still answered, no snapshot file is left, the log is kept whole and a crash
    loses nothing."""
    state = tmp_path / "state"
    disk.write_text("snapshot")
    with crashing(door, state) as eddy:
        ddb = eddy.client("dynamodb")
        ddb.create_table(TableName="orders", BillingMode="PAY_PER_REQUEST", **KEY,
                         StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_IMAGE"})
        for n in range(3 * SNAPSHOT_EVERY):
            ddb.put_item(TableName="orders", Item={"pk": {"S": f"k{n:02}"}})
        assert list((state / "snapshots").glob("*")) == []
        acknowledged = change_log(state, "orders")
    disk.unlink()
    with running(door, state, kill=False) as eddy:
        assert sorted(item["pk"]["S"] for item in eddy.client("dynamodb").scan(TableName="orders")["Items"]) == \
            [f"k{n:02}" for n in range(3 * SNAPSHOT_EVERY)]
        assert change_log(state, "orders") == acknowledged == [(f"k{n:02}", 3 + n) for n in range(3 * SNAPSHOT_EVERY)]


def messages(eddy: Eddy, queue: str) -> list[str]:
    """The bodies of every message the queue holds, each received once."""
    sqs = eddy.client("sqs")
    url = sqs.get_queue_url(QueueName=queue)["QueueUrl"]
    bodies: list[str] = []
    while page := sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10, VisibilityTimeout=600).get("Messages"):
        bodies += [message["Body"] for message in page]
    return sorted(bodies)


def test_a_snapshot_put_off_holds_no_change_whose_entry_the_next_log_generation_holds(door: str, tmp_path: Path) -> None:
    """The order on disk: each change is in the newest snapshot or in the log after it, never in both.

    In-process, `emu.clock.advance` logs its move outside any request, before making it (log_all), so the snapshot
    its entry makes due is put off. The next request's commit took that snapshot before appending its own entries:
    the snapshot held the message SendMessage put in the queue, the next log generation held its entry, and after a
    crash the queue held the message twice (probed 2026-11-28: ['m0', 'm0']). Now a snapshot put off is taken after
    the next entries are written. A queue's creation counts SERVICE_REQUEST_WEIGHT entries toward a snapshot, a clock
    move one, so with snapshot_every one more than the creation's weight the first move makes a snapshot due. Over
    HTTP the move is a request's, taken at its end: the same workload keeps the same order."""
    state, sent = tmp_path / "state", []
    with crashing(door, state, snapshot_every=SERVICE_REQUEST_WEIGHT + 1) as eddy:
        sqs = eddy.client("sqs")
        url = sqs.create_queue(QueueName="orders")["QueueUrl"]

        def move_then_send(n: int) -> None:
            if eddy.emu is not None:
                eddy.emu.clock.advance(1)
            else:
                eddy.control("/_eddy/clock", {"advance": 1})
            sqs.send_message(QueueUrl=url, MessageBody=f"m{n}")
            sent.append(f"m{n}")

        until_a_snapshot(state, move_then_send)
    snapshot = sorted((state / "snapshots").glob("*.snapshot"))[-1]
    logged_after = [entry for log in sorted((state / "wal").glob("*.log")) if int(log.stem) >= int(snapshot.stem)
                    for entry in read_entries(log, repair=False)]
    requests_after = [json.loads(base64.b64decode(entry["body"])) for entry in logged_after if entry["op"] == "request"]
    sent_after = [request["MessageBody"] for request in requests_after if "MessageBody" in request]  # SendMessage's
    snapshot_only = tmp_path / "snapshot-only"  # what the snapshot holds, read back through SQS without the log after it
    shutil.copytree(state, snapshot_only, ignore=lambda folder, names: [name for name in names if name.endswith(".log")])
    with running(door, snapshot_only, kill=False) as eddy:
        in_snapshot = messages(eddy, "orders")
    assert sorted(in_snapshot + sent_after) == sorted(sent)  # each message in exactly one of them
    with running(door, state, kill=False) as eddy:
        assert messages(eddy, "orders") == sorted(sent)

"""A global table's group is changed with the request's unit of work: its journal line (global_tables/journal.py, a
file of its own) is written at the unit's commit, just before the log's entries, and cut off if they are refused; a
refused line refuses the unit, whose undos put the group back. So a change of the group the disk refuses answers
DynamoDB's 500 InternalServerError (which the SDKs retry) and leaves every region's DescribeTable as it was, then and
after a restart.

Before, ReplicaUpdates Delete (`remove_replica`) and the end of a replica's deletion (`_settle`) wrote the journal at
once without an undo, and a replica's DeleteTable wrote it after the commit (a refusal logged, the request answered
200). The fault is injected at the journal alone (EDDY_TEST_DISK_FULL naming the point `replicas`: ENOSPC on each of
its appends), since a group change other than a DeleteTable writes no log entry of its own.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from botocore.config import Config
from botocore.exceptions import ConnectionClosedError

from tests.durability.test_disk_full import Eddy, disk, refused, running  # noqa: F401 (the disk fixture)
from tests.durability.test_units_of_work import KEY, door, regional, replicas_held  # noqa: F401 (the door fixture)
from tests.emulator.global_tables.helpers import EAST, WEST

pytestmark = pytest.mark.slow

DELETE = {"TableName": "scores", "ReplicaUpdates": [{"Delete": {"RegionName": WEST}}]}


def global_table(eddy: Eddy) -> dict[str, Any]:
    """`scores` in EAST with an item, and its replica in WEST made and ACTIVE; what both regions answer of it."""
    east = regional(eddy, EAST)
    east.create_table(TableName="scores", BillingMode="PAY_PER_REQUEST", **KEY)
    east.put_item(TableName="scores", Item={"pk": {"S": "a"}})
    east.update_table(TableName="scores", ReplicaUpdates=[{"Create": {"RegionName": WEST}}])
    eddy.control("/_eddy/clock", {"advance": 120})  # the replica's creation is over: ACTIVE
    assert eddy.control("/_eddy/replication/wait", {"timeout": 60})["Converged"]
    made = replicas_held(eddy)
    assert [made[region]["table"]["Replicas"] for region in (EAST, WEST)] == \
        [[{"RegionName": WEST, "ReplicaStatus": "ACTIVE"}], [{"RegionName": EAST, "ReplicaStatus": "ACTIVE"}]]
    return made


def test_group_changes_the_journal_refuses_leave_the_group_as_it_was(door: str, tmp_path: Path, disk: Path) -> None:
    state = tmp_path / "state"
    with running(door, state) as eddy:
        east, west = regional(eddy, EAST), regional(eddy, WEST)
        before = global_table(eddy)
        disk.write_text("replicas")
        assert refused(lambda: east.update_table(**DELETE), "dynamodb")  # was: a 500 with the replica DELETING
        assert replicas_held(eddy) == before
        assert refused(lambda: west.delete_table(TableName="scores"), "dynamodb")  # was: a 200, its line lost
        assert replicas_held(eddy) == before
        disk.write_text("replicas 1")  # the first attempt refused, then the journal takes writes again
        retrying = regional(eddy, EAST, Config(retries={"mode": "standard", "total_max_attempts": 3}))
        answer = retrying.update_table(**DELETE)
        assert (answer["ResponseMetadata"]["HTTPStatusCode"], answer["ResponseMetadata"]["RetryAttempts"]) == (200, 1)
        deleting = replicas_held(eddy)
        assert [deleting[region]["table"]["Replicas"] for region in (EAST, WEST)] == \
            [[{"RegionName": WEST, "ReplicaStatus": "DELETING"}], [{"RegionName": EAST, "ReplicaStatus": "ACTIVE"}]]
        disk.write_text("replicas")
        eddy.control("/_eddy/clock", {"advance": 120})  # the deletion's time is over: its end is refused, kept back
        assert replicas_held(eddy) == deleting  # the replica and its table are still there, and DescribeTable answers
        disk.unlink()
        expected = replicas_held(eddy)  # settled now: the replica gone
        assert (expected[WEST], "Replicas" in expected[EAST]["table"], expected[EAST]["items"]) == \
            ("ResourceNotFoundException", False, ["a"])
    with running(door, state, kill=False) as eddy:  # after kill -9 (server) or the block's end (in-process)
        assert replicas_held(eddy) == expected
        east = regional(eddy, EAST)
        east.put_item(TableName="scores", Item={"pk": {"S": "b"}})  # a plain table now: nothing replicated
        assert replicas_held(eddy)[EAST]["items"] == ["a", "b"]


KILLED_DELETE = f"""
import boto3, sys
from eddy import emulate
with emulate(state_dir=sys.argv[1], housekeeping_interval=None):
    boto3.client("dynamodb", region_name={WEST!r}).delete_table(TableName="scores")
"""


def test_a_group_line_whose_requests_log_entries_a_kill_cut_off_is_dropped_at_recovery(
    door: str, tmp_path: Path, disk: Path
) -> None:
    """A group's line is written just before its request's log entries; a kill -9 between the two (the fault point
    `replicas-written`, at which the process kills itself) left the line of a request never answered: after the
    restart the replica's DeleteTable, never answered nor logged, had taken the replica out of its group (the
    source's DescribeTable listed no Replicas) while its table was still there. The line now says where the entries
    start in the log, and recovery drops it when the log did not grow past that point."""
    state = tmp_path / "state"
    with running(door, state) as eddy:
        before = global_table(eddy)
    disk.write_text("replicas-written kill")
    if door == "inprocess":  # a process of its own running emulate(), which the fault point kills
        died = subprocess.run([sys.executable, "-c", KILLED_DELETE, str(state)], capture_output=True, timeout=300)
        assert died.returncode == -signal.SIGKILL, died.stderr
    else:
        with running(door, state, kill=False) as eddy:
            with pytest.raises(ConnectionClosedError):  # the server killed itself in the middle of the request
                regional(eddy, WEST).delete_table(TableName="scores")
            assert eddy.pid is not None and os.waitpid(eddy.pid, 0)[1] == signal.SIGKILL
    journal = [json.loads(line) for line in (state / "global_tables" / "journal.jsonl").read_text().splitlines()]
    assert journal[-1]["ungroup"] == ["123456789012", "scores"]  # the killed request's line is there
    disk.unlink()
    with running(door, state, kill=False) as eddy:
        assert replicas_held(eddy) == before

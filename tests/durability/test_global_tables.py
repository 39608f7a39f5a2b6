"""Global tables across restarts: the replica groups come back, writes that had not yet reached a region reach it
after the restart, and none is applied twice (a clean restart in-process, kill -9 of a server)."""

from __future__ import annotations

import os
import signal

import boto3

from eddy import emulate
from tests.conftest import eddy_server, http_json
from tests.emulator.global_tables.helpers import EAST, WEST, changes, scan
from tests.emulator.helpers import create_table, read_stream


def item(pk: str, v: str) -> dict:
    return {"pk": {"S": pk}, "v": {"S": v}}


def west_changes(dynamodb_west, streams_west) -> list:
    arn = dynamodb_west.describe_table(TableName="scores")["Table"]["LatestStreamArn"]
    return changes(read_stream(streams_west, arn))


def test_a_clean_restart_in_the_middle_loses_and_repeats_nothing(tmp_path):
    state = tmp_path / "state"
    with emulate(state_dir=state, housekeeping_interval=None) as emu:
        east, west = boto3.client("dynamodb", region_name=EAST), boto3.client("dynamodb", region_name=WEST)
        create_table(east, "scores")
        east.update_table(TableName="scores", ReplicaUpdates=[{"Create": {"RegionName": WEST}}])
        east.put_item(TableName="scores", Item=item("a", "1"))
        assert emu.replication.wait_replicated(30)["Converged"]
        emu.replication.pause(WEST)
        east.put_item(TableName="scores", Item=item("a", "2"))
        east.put_item(TableName="scores", Item=item("b", "1"))
        west.put_item(TableName="scores", Item=item("c", "1"))
        assert scan(west, "scores") == [item("a", "1"), item("c", "1")]
    with emulate(state_dir=state, housekeeping_interval=None) as emu:
        east, west = boto3.client("dynamodb", region_name=EAST), boto3.client("dynamodb", region_name=WEST)
        assert west.describe_table(TableName="scores")["Table"]["Replicas"] == [
            {"RegionName": EAST, "ReplicaStatus": "ACTIVE"}]
        assert emu.replication.wait_replicated(30) == {"Converged": True, "Backlog": []}  # a pause is not kept
        assert scan(east, "scores") == scan(west, "scores") == [item("a", "2"), item("b", "1"), item("c", "1")]
        assert west_changes(west, boto3.client("dynamodbstreams", region_name=WEST)) == [
            ("INSERT", "a", "1"), ("INSERT", "c", "1"), ("MODIFY", "a", "2"), ("INSERT", "b", "1")]
        # the stamps came back too: a write made before the restart still loses to a later one
        emu.replication.pause(EAST)
        emu.clock.advance(1)
        west.put_item(TableName="scores", Item=item("a", "west"))
        emu.replication.resume(EAST)
        assert emu.replication.wait_replicated(30)["Converged"]
        assert scan(east, "scores")[0] == item("a", "west")


def test_kill_9_in_the_middle_loses_nothing_acknowledged(tmp_path):
    args = ("--state-dir", str(tmp_path / "state"), "--housekeeping-interval", "0")
    with eddy_server(*args) as (url, server):
        east, west = (boto3.client("dynamodb", endpoint_url=url, region_name=region, aws_access_key_id="k",
                                   aws_secret_access_key="s") for region in (EAST, WEST))
        create_table(east, "scores")
        east.update_table(TableName="scores", ReplicaUpdates=[{"Create": {"RegionName": WEST}}])
        for n in range(20):
            east.put_item(TableName="scores", Item=item(f"k{n:02}", "1"))
        assert http_json(url + "/_eddy/replication/wait", {"timeout": 30})["Converged"]
        http_json(url + "/_eddy/replication", {"Pause": WEST})
        for n in range(10):
            east.put_item(TableName="scores", Item=item(f"k{n:02}", "2"))
        os.kill(server.pid, signal.SIGKILL)
        server.wait(timeout=10)
    with eddy_server(*args) as (url, _):
        east, west = (boto3.client("dynamodb", endpoint_url=url, region_name=region, aws_access_key_id="k",
                                   aws_secret_access_key="s") for region in (EAST, WEST))
        assert http_json(url + "/_eddy/replication/wait", {"timeout": 30})["Converged"]
        expected = [item(f"k{n:02}", "2" if n < 10 else "1") for n in range(20)]
        assert scan(east, "scores") == scan(west, "scores") == expected
        west_streams = boto3.client("dynamodbstreams", endpoint_url=url, region_name=WEST, aws_access_key_id="k",
                                    aws_secret_access_key="s")
        applied = west_changes(west, west_streams)
        assert sorted(applied) == sorted([("INSERT", f"k{n:02}", "1") for n in range(20)]
                                         + [("MODIFY", f"k{n:02}", "2") for n in range(10)])  # none twice

"""What the global tables tests share: a replica made through boto3, replication's controls through either door."""

from __future__ import annotations

from typing import Any

from tests.conftest import Door
from tests.emulator.helpers import read_stream

EAST, WEST, ASIA = "us-east-1", "eu-west-1", "ap-northeast-1"


def replication(door: Door, **change: Any) -> dict:
    """Pause= / Resume= / DelaySeconds=, then the replication's state: in-process the Python API, else the control."""
    if door.name == "inprocess":
        replication = door.emu.replication
        if "Pause" in change:
            replication.pause(change["Pause"])
        if "Resume" in change:
            replication.resume(change["Resume"])
        if "DelaySeconds" in change:
            replication.set_delay(change["DelaySeconds"])
        return replication.state()
    return door.control("/_eddy/replication", change) if change else door.control("/_eddy/replication")


def wait_replicated(door: Door, timeout: float = 30) -> dict:
    if door.name == "inprocess":
        return door.emu.replication.wait_replicated(timeout)
    return door.control("/_eddy/replication/wait", {"timeout": timeout})


def add_replica(dynamodb: Any, table: str, region: str) -> dict:
    return dynamodb.update_table(TableName=table, ReplicaUpdates=[{"Create": {"RegionName": region}}])[
        "TableDescription"]


def scan(dynamodb: Any, table: str) -> list[dict]:
    return sorted(dynamodb.scan(TableName=table, ConsistentRead=True)["Items"], key=lambda item: item["pk"]["S"])


def stream_records(door: Door, region: str, table: str) -> list[dict]:
    arn = door.client("dynamodb", region).describe_table(TableName=table)["Table"]["LatestStreamArn"]
    return read_stream(door.client("dynamodbstreams", region), arn)


def changes(records: list[dict]) -> list[tuple[str, str, str | None]]:
    """Each record as (eventName, pk, the new image's v)."""
    return [(record["eventName"], record["dynamodb"]["Keys"]["pk"]["S"],
             record["dynamodb"].get("NewImage", {}).get("v", {}).get("S")) for record in records]

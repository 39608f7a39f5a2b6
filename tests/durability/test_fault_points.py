"""Each point where a write can fail leaves the state consistent, after the failure and after a crash and a restart,
in both doors (emulate() in this process, ending as a crash leaves it: no snapshot, nothing more written; `eddy serve`
killed with kill -9): the log write, a segment's write, a segment roll, a snapshot (injected with storage/disk.py's
EDDY_TEST_DISK_FULL: ENOSPC), moto failing midway through applying a batch, and a listener failing after the commit
(the flag's `moto-apply` and `notify`: disk.fail_point). A refused write answers DynamoDB's 500 InternalServerError,
which the SDKs retry: botocore's model lists it for every DynamoDB operation, and its retry handler retries any 500."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from botocore.config import Config
from botocore.exceptions import ClientError

from tests.durability.test_disk_full import Eddy, disk, running  # noqa: F401 (the disk fixture)
from tests.durability.test_snapshot_points import crashing, until_a_snapshot
from tests.durability.test_units_of_work import door  # noqa: F401 (the door fixture)

pytestmark = pytest.mark.slow

KEY = {"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
       "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}], "BillingMode": "PAY_PER_REQUEST",
       "StreamSpecification": {"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"}}
#: no snapshot but the ones a test asks for
RARELY = 100_000
RETRYING = Config(retries={"mode": "standard", "total_max_attempts": 3})


def held(eddy: Eddy) -> dict[str, Any]:
    """The table's items and its stream's records (event name, key), in order."""
    ddb, streams = eddy.client("dynamodb"), eddy.client("dynamodbstreams")
    arn = ddb.describe_table(TableName="orders")["Table"]["LatestStreamArn"]
    records = []
    for shard in streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"]:
        iterator = streams.get_shard_iterator(StreamArn=arn, ShardId=shard["ShardId"],
                                              ShardIteratorType="TRIM_HORIZON")["ShardIterator"]
        while iterator:
            page = streams.get_records(ShardIterator=iterator)
            records += [(int(r["dynamodb"]["SequenceNumber"]), r["eventName"], r["dynamodb"]["Keys"]["pk"]["S"])
                        for r in page["Records"]]
            iterator = page.get("NextShardIterator") if page["Records"] else None
    items = sorted((item["pk"]["S"], item.get("v", {}).get("S")) for item in ddb.scan(TableName="orders")["Items"])
    return {"items": items, "records": [(name, key) for _, name, key in sorted(records)]}


def put(eddy: Eddy, key: str, value: str = "x") -> str:
    """'ok', or the error code the put was refused with (with its HTTP status)."""
    try:
        eddy.client("dynamodb").put_item(TableName="orders", Item={"pk": {"S": key}, "v": {"S": value}})
        return "ok"
    except ClientError as error:
        return f'{error.response["ResponseMetadata"]["HTTPStatusCode"]} {error.response["Error"]["Code"]}'


def retried_put(eddy: Eddy, key: str) -> tuple[int, int]:
    """A put through the SDK's standard retries: its status and how many retries it took."""
    answer = eddy.client("dynamodb", RETRYING).put_item(TableName="orders", Item={"pk": {"S": key}, "v": {"S": "x"}})
    return answer["ResponseMetadata"]["HTTPStatusCode"], answer["ResponseMetadata"]["RetryAttempts"]


@pytest.mark.parametrize("point", ["wal", "segment"])
def test_a_refused_log_or_segment_write_leaves_nothing_seen_then_or_after_a_crash(point, door, disk, tmp_path):
    state = tmp_path / "state"
    with crashing(door, state, RARELY) as eddy:
        eddy.client("dynamodb").create_table(TableName="orders", **KEY)
        assert put(eddy, "a", "1") == "ok"
        disk.write_text(point)
        assert [put(eddy, "a", "2"), put(eddy, "b")] == ["500 InternalServerError"] * 2
        assert held(eddy) == {"items": [("a", "1")], "records": [("INSERT", "a")]}
        disk.unlink()
        assert put(eddy, "c") == "ok"  # room again: accepted, no restart
        disk.write_text(f"{point} 1")  # the first attempt refused, the SDK's retry accepted
        assert retried_put(eddy, "d") == (200, 1)
        expected = {"items": [("a", "1"), ("c", "x"), ("d", "x")],
                    "records": [("INSERT", "a"), ("INSERT", "c"), ("INSERT", "d")]}
        assert held(eddy) == expected
    with running(door, state, kill=False) as eddy:
        assert held(eddy) == expected


def test_a_segment_roll_that_fails_leaves_the_segments_as_they_were(door, disk, tmp_path):
    state = tmp_path / "state"
    with crashing(door, state, RARELY, segment_max_bytes=1) as eddy:  # every append starts a segment
        eddy.client("dynamodb").create_table(TableName="orders", **KEY)
        assert put(eddy, "a") == "ok"
        segments = {path: path.read_bytes() for path in (state / "streams").rglob("*.jsonl")}
        disk.write_text("roll")
        assert put(eddy, "b") == "500 InternalServerError"
        assert {path: path.read_bytes() for path in (state / "streams").rglob("*.jsonl")} == segments
        disk.write_text("roll 1")
        assert retried_put(eddy, "c") == (200, 1)
        expected = {"items": [("a", "x"), ("c", "x")], "records": [("INSERT", "a"), ("INSERT", "c")]}
        assert held(eddy) == expected
    with running(door, state, kill=False) as eddy:
        assert held(eddy) == expected


def test_a_snapshot_that_fails_leaves_the_previous_one_and_fails_no_write(door, disk, tmp_path):
    state = tmp_path / "state"
    with crashing(door, state, 5) as eddy:
        eddy.client("dynamodb").create_table(TableName="orders", **KEY)
        until_a_snapshot(state, lambda n: put(eddy, f"k{n:02}"))
        [previous] = [(path, path.read_bytes()) for path in (state / "snapshots").glob("*.snapshot")]
        disk.write_text("snapshot")
        assert [put(eddy, f"m{n:02}") for n in range(15)] == ["ok"] * 15  # three snapshots due, each failing
        assert [(path, path.read_bytes()) for path in (state / "snapshots").glob("*.snapshot")] == [previous]
        assert sorted(path.suffix for path in (state / "snapshots").iterdir()) == [".services", ".snapshot"]
        expected = held(eddy)
        assert [key for key, _ in expected["items"]][-15:] == [f"m{n:02}" for n in range(15)]
    disk.unlink()
    with running(door, state, kill=False) as eddy:  # the previous snapshot and the log kept whole after it
        assert held(eddy) == expected


def test_moto_failing_midway_through_a_batch_puts_back_what_it_wrote(door, disk, tmp_path):
    state = tmp_path / "state"
    batch = {"orders": [{"PutRequest": {"Item": {"pk": {"S": key}, "v": {"S": "2"}}}} for key in ("a", "b", "c")]}
    with crashing(door, state, RARELY) as eddy:
        ddb = eddy.client("dynamodb")
        ddb.create_table(TableName="orders", **KEY)
        assert put(eddy, "a", "1") == "ok"
        disk.write_text("moto-apply 1")  # moto stores the batch's first item, then fails
        with pytest.raises(ClientError) as refused:
            ddb.batch_write_item(RequestItems=batch)
        assert (refused.value.response["ResponseMetadata"]["HTTPStatusCode"],
                refused.value.response["Error"]["Code"]) == (500, "InternalServerError")
        assert held(eddy) == {"items": [("a", "1")], "records": [("INSERT", "a")]}
        disk.write_text("moto-apply 1")
        answer = eddy.client("dynamodb", RETRYING).batch_write_item(RequestItems=batch)
        assert (answer["ResponseMetadata"]["RetryAttempts"], answer["UnprocessedItems"]) == (1, {})
        expected = {"items": [("a", "2"), ("b", "2"), ("c", "2")],
                    "records": [("INSERT", "a"), ("MODIFY", "a"), ("INSERT", "b"), ("INSERT", "c")]}
        assert held(eddy) == expected
    with running(door, state, kill=False) as eddy:
        assert held(eddy) == expected


def test_a_listener_that_fails_after_the_commit_leaves_the_write_standing(door, disk, tmp_path):
    state = tmp_path / "state"
    with crashing(door, state, RARELY) as eddy:
        eddy.client("dynamodb").create_table(TableName="orders", **KEY)
        disk.write_text("notify 1")  # the first listener told of the commit fails (global tables' replication)
        assert put(eddy, "a") == "ok"
        assert not disk.exists()  # it failed: the fault point counted its one failure down
        expected = {"items": [("a", "x")], "records": [("INSERT", "a")]}
        assert held(eddy) == expected
    with running(door, state, kill=False) as eddy:
        assert held(eddy) == expected


def test_a_table_definition_is_refused_before_moto_makes_it_when_the_disk_has_no_room(door, disk, tmp_path):
    state = tmp_path / "state"
    with crashing(door, state, RARELY) as eddy:
        ddb = eddy.client("dynamodb")
        disk.write_text("wal")
        with pytest.raises(ClientError) as refused:
            ddb.create_table(TableName="orders", **KEY)
        assert (refused.value.response["ResponseMetadata"]["HTTPStatusCode"],
                refused.value.response["Error"]["Code"]) == (500, "InternalServerError")
        assert ddb.list_tables()["TableNames"] == []
        disk.write_text("wal 1")
        eddy.client("dynamodb", RETRYING).create_table(TableName="orders", **KEY)
        assert ddb.list_tables()["TableNames"] == ["orders"]
    with running(door, state, kill=False) as eddy:
        assert eddy.client("dynamodb").list_tables()["TableNames"] == ["orders"]

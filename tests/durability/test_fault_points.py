"""Each point where a write can fail leaves the state consistent, after the failure and after a restart: the log
write, a segment's write, a segment roll, a snapshot (injected with storage/disk.py's EDDY_TEST_DISK_FULL: ENOSPC),
moto failing midway through applying a batch, and a listener failing after the commit."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import boto3
import pytest
from botocore.config import Config
from botocore.exceptions import ClientError

from eddy import emulate
from eddy.emulator.moto_seam.tables import batch_writes
from eddy.emulator.storage.disk import FAULT_FLAG, WriteFailed

KEY = {"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
       "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}], "BillingMode": "PAY_PER_REQUEST",
       "StreamSpecification": {"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"}}


@pytest.fixture
def disk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    flag = tmp_path / "disk-full"
    monkeypatch.setenv(FAULT_FLAG, str(flag))
    return flag


def clients() -> tuple[Any, Any]:
    config = Config(retries={"total_max_attempts": 1})
    return (boto3.client("dynamodb", region_name="us-east-1", config=config),
            boto3.client("dynamodbstreams", region_name="us-east-1", config=config))


def held(ddb: Any, streams: Any) -> dict[str, Any]:
    """The table's items and its stream's records (event name, key, new image's value), in order."""
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


def put(ddb: Any, key: str, value: str = "x") -> str:
    """'ok', or the error code the put was refused with (with its HTTP status)."""
    try:
        ddb.put_item(TableName="orders", Item={"pk": {"S": key}, "v": {"S": value}})
        return "ok"
    except ClientError as error:
        return f'{error.response["ResponseMetadata"]["HTTPStatusCode"]} {error.response["Error"]["Code"]}'


@pytest.mark.parametrize("point", ["wal", "segment"])
def test_a_refused_log_or_segment_write_leaves_nothing_seen_then_or_after_a_restart(point, disk, tmp_path):
    state = tmp_path / "state"
    with emulate(state_dir=state, housekeeping_interval=None):
        ddb, streams = clients()
        ddb.create_table(TableName="orders", **KEY)
        assert put(ddb, "a", "1") == "ok"
        disk.write_text(point)
        assert [put(ddb, "a", "2"), put(ddb, "b")] == ["500 InternalServerError"] * 2
        expected = {"items": [("a", "1")], "records": [("INSERT", "a")]}
        assert held(ddb, streams) == expected
        disk.unlink()
        assert put(ddb, "c") == "ok"  # room again: accepted, no restart
        expected = {"items": [("a", "1"), ("c", "x")], "records": [("INSERT", "a"), ("INSERT", "c")]}
        assert held(ddb, streams) == expected
    with emulate(state_dir=state, housekeeping_interval=None):
        assert held(*clients()) == expected


def test_a_segment_roll_that_fails_leaves_the_segments_as_they_were(disk, tmp_path):
    state = tmp_path / "state"
    with emulate(state_dir=state, housekeeping_interval=None, segment_max_bytes=1):  # every append starts a segment
        ddb, streams = clients()
        ddb.create_table(TableName="orders", **KEY)
        assert put(ddb, "a") == "ok"
        segments = {path: path.read_bytes() for path in (state / "streams").rglob("*.jsonl")}
        disk.write_text("roll")
        assert put(ddb, "b") == "500 InternalServerError"
        assert {path: path.read_bytes() for path in (state / "streams").rglob("*.jsonl")} == segments
        disk.unlink()
        assert put(ddb, "c") == "ok"
        expected = {"items": [("a", "x"), ("c", "x")], "records": [("INSERT", "a"), ("INSERT", "c")]}
        assert held(ddb, streams) == expected
    with emulate(state_dir=state, housekeeping_interval=None, segment_max_bytes=1):
        assert held(*clients()) == expected


def test_a_snapshot_that_fails_leaves_the_previous_one_and_fails_no_write(disk, tmp_path):
    state = tmp_path / "state"
    with emulate(state_dir=state, housekeeping_interval=None) as emu:
        ddb, streams = clients()
        ddb.create_table(TableName="orders", **KEY)
        assert put(ddb, "a") == "ok"
        previous = emu.persistence.snapshot()
        written = previous.read_bytes()
        assert put(ddb, "b") == "ok"
        disk.write_text("snapshot")
        with pytest.raises(WriteFailed):
            emu.persistence.snapshot()
        assert sorted(p.name for p in (state / "snapshots").iterdir() if "snapshot" in p.suffix) == [previous.name]
        assert previous.read_bytes() == written
        assert put(ddb, "c") == "ok"  # a snapshot's failure refuses no write: the log is kept whole
        expected = {"items": [("a", "x"), ("b", "x"), ("c", "x")],
                    "records": [("INSERT", "a"), ("INSERT", "b"), ("INSERT", "c")]}
        assert held(ddb, streams) == expected
    # the block's end took a snapshot, which failed too: the log after the previous one is replayed
    with emulate(state_dir=state, housekeeping_interval=None):
        assert held(*clients()) == expected


def test_moto_failing_midway_through_a_batch_puts_back_what_it_wrote(tmp_path, monkeypatch):
    state = tmp_path / "state"
    stored = batch_writes.store_item

    def fails_on_b(table: Any, item: Any) -> None:
        stored(table, item)  # written, then the failure: what was written must not stay
        if item.hash_key.value == "b":
            raise RuntimeError("moto failed midway")

    with emulate(state_dir=state, housekeeping_interval=None):
        ddb, streams = clients()
        ddb.create_table(TableName="orders", **KEY)
        assert put(ddb, "a", "1") == "ok"
        monkeypatch.setattr(batch_writes, "store_item", fails_on_b)
        with pytest.raises(ClientError) as refused:
            ddb.batch_write_item(RequestItems={"orders": [{"PutRequest": {"Item": {"pk": {"S": key}, "v": {"S": "2"}}}}
                                                          for key in ("a", "b", "c")]})
        assert (refused.value.response["ResponseMetadata"]["HTTPStatusCode"],
                refused.value.response["Error"]["Code"]) == (500, "InternalServerError")
        monkeypatch.undo()
        expected = {"items": [("a", "1")], "records": [("INSERT", "a")]}
        assert held(ddb, streams) == expected
    with emulate(state_dir=state, housekeeping_interval=None):
        assert held(*clients()) == expected


def test_a_listener_that_fails_after_the_commit_leaves_the_write_standing(tmp_path):
    state = tmp_path / "state"
    with emulate(state_dir=state, housekeeping_interval=None) as emu:
        def fails(stream: Any, records: Any) -> None:
            raise RuntimeError("a listener failed")

        emu.on_records(fails)
        ddb, streams = clients()
        ddb.create_table(TableName="orders", **KEY)
        assert put(ddb, "a") == "ok"
        expected = {"items": [("a", "x")], "records": [("INSERT", "a")]}
        assert held(ddb, streams) == expected
    with emulate(state_dir=state, housekeeping_interval=None):
        assert held(*clients()) == expected


def test_a_table_definition_is_refused_before_moto_makes_it_when_the_disk_has_no_room(disk, tmp_path):
    state = tmp_path / "state"
    with emulate(state_dir=state, housekeeping_interval=None):
        ddb, _ = clients()
        disk.write_text("wal")
        with pytest.raises(ClientError) as refused:
            ddb.create_table(TableName="orders", **KEY)
        assert (refused.value.response["ResponseMetadata"]["HTTPStatusCode"],
                refused.value.response["Error"]["Code"]) == (500, "InternalServerError")
        assert ddb.list_tables()["TableNames"] == []
        disk.unlink()
        ddb.create_table(TableName="orders", **KEY)
        assert ddb.list_tables()["TableNames"] == ["orders"]
    with emulate(state_dir=state, housekeeping_interval=None):
        assert clients()[0].list_tables()["TableNames"] == ["orders"]

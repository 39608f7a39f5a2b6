"""Table streams read what the Streams API would let them: whole commits, the table's own history, nothing
trimmed; they need change tracking; their offsets move on request; the clock is the emulator's."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import boto3
import pytest

from eddy import Clock, emulate
from eddy.spark_batch.errors import ChangeTrackingError, StaleStreamError, TableDroppedError
from eddy.spark_batch.table_streams import TableStreams

from .segments import ChangeLog, epoch, insert

#: a fixed amount of work, not a time (it was 30 s of consuming; bench/table_stream_consume.py measures the rates over
#: --seconds): the writer commits CHUNKS chunks of COMMITS_PER_CHUNK 8-item transactions, and starts each chunk after
#: the consumer has finished another round that read rows, so every round after the first reads while commits land
CHUNKS, COMMITS_PER_CHUNK = 6, 8


def create_table(dynamodb, name: str, stream: bool = True) -> None:
    params = dict(TableName=name, KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                  AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}], BillingMode="PAY_PER_REQUEST")
    if stream:
        params["StreamSpecification"] = {"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"}
    dynamodb.create_table(**params)


def put(dynamodb, table: str, *pks: str) -> None:
    dynamodb.transact_write_items(TransactItems=[{"Put": {"TableName": table, "Item": {"pk": {"S": pk}}}} for pk in pks])


def item(pk: str) -> dict:
    return {"pk": {"S": pk}}


def test_a_commit_not_yet_in_every_shard_is_not_read(spark, tmp_path: Path) -> None:
    log = ChangeLog(tmp_path / "state", "t")
    log.commit(1, "2025-05-01 10:00:00.000", insert(item("a"), item("a")))
    log.commit(2, "2025-05-01 10:00:01.000", insert(item("b"), item("b")), insert(item("c"), item("c")))
    # commit 3 wrote 2 records: one shard's line is there, the other shard's not yet
    line = log.line(3, epoch("2025-05-01 10:00:02.000"), "INSERT", item("d"), None, item("d"), None)
    with open(log.path, "a") as segment:
        segment.write(json.dumps({**line, "commit_records": 2}) + "\n")
    streams = TableStreams(spark, tmp_path / "state", tmp_path / "offsets")
    stream = streams.create("s", "t", at_version=0)
    assert sorted(row["pk"] for row in stream.read().collect()) == ["a", "b", "c"]
    assert stream.consume(lambda rows, batch_id: None) == 2  # the offset moves to exactly the version read
    assert streams.create("now", "t").offset == 2            # 'now' is the latest whole commit too


def test_consuming_while_transactions_commit_across_four_shards_loses_and_repeats_nothing(spark, tmp_path: Path) -> None:
    with emulate(state_dir=tmp_path / "state", housekeeping_interval=None) as emu:
        dynamodb = boto3.client("dynamodb", region_name="us-east-1")
        create_table(dynamodb, "busy")
        arn = dynamodb.describe_table(TableName="busy")["Table"]["LatestStreamArn"]
        [root] = [shard.shard_id for shard in emu.streams.get(arn).open_shards]
        for child in emu.split_shard(arn, root):
            emu.split_shard(arn, child)
        assert len(emu.streams.get(arn).open_shards) == 4
        streams = TableStreams(spark, emu.state_dir, tmp_path / "offsets", clock=emu.clock)
        stream = streams.create("busy_stream", "busy", at_version=0)
        written: list[str] = []
        consumed: list[str] = []
        reading_rounds = 0  # consume rounds that read rows
        progress = threading.Condition()

        def writer() -> None:
            client = boto3.client("dynamodb", region_name="us-east-1")
            for chunk in range(CHUNKS):
                with progress:  # a condition, not a pause: the consumer's rounds so far (bounded on a busy machine)
                    if not progress.wait_for(lambda: reading_rounds >= chunk, timeout=600):
                        raise TimeoutError(f"no consume round read chunk {chunk}")
                for commit in range(chunk * COMMITS_PER_CHUNK, (chunk + 1) * COMMITS_PER_CHUNK):
                    pks = [f"{commit}-{i}" for i in range(8)]
                    put(client, "busy", *pks)
                    written.extend(pks)

        thread = threading.Thread(target=writer)
        thread.start()
        try:
            while thread.is_alive():
                before = len(consumed)
                stream.consume(lambda rows, batch_id: consumed.extend(row["pk"] for row in rows.collect()))
                with progress:
                    reading_rounds += len(consumed) > before
                    progress.notify_all()
        finally:
            thread.join()
        stream.consume(lambda rows, batch_id: consumed.extend(row["pk"] for row in rows.collect()))
        assert (reading_rounds >= CHUNKS - 1, len(written)) == (True, CHUNKS * COMMITS_PER_CHUNK * 8)
        assert len(consumed) == len(set(consumed))   # nothing twice
        assert sorted(consumed) == sorted(written)   # nothing lost
        assert stream.offset == 2 + len(written) // 8  # after the creation and the stream's enabling


def test_a_dropped_and_recreated_table_is_a_new_history(spark, tmp_path: Path) -> None:
    with emulate(state_dir=tmp_path / "state", housekeeping_interval=None) as emu:
        dynamodb = boto3.client("dynamodb", region_name="us-east-1")
        create_table(dynamodb, "people")
        streams = TableStreams(spark, emu.state_dir, tmp_path / "offsets", clock=emu.clock)
        old = streams.create("old", "people", at_version=0)
        put(dynamodb, "people", "first-table")
        dynamodb.delete_table(TableName="people")
        with pytest.raises(TableDroppedError, match="table people, which table stream old was created on, was dropped"):
            old.read()
        with pytest.raises(ChangeTrackingError, match="table people has no change tracking"):
            streams.create("none", "people")
        create_table(dynamodb, "people")
        put(dynamodb, "people", "second-table")
        new = streams.create("new", "people", at_version=0)
        assert [(row["__commit_version"], row["pk"]) for row in new.read().collect()] == [(3, "second-table")]
        with pytest.raises(TableDroppedError):
            old.read()


def test_change_tracking_is_required(spark, tmp_path: Path) -> None:
    with emulate(state_dir=tmp_path / "state", housekeeping_interval=None) as emu:
        dynamodb = boto3.client("dynamodb", region_name="us-east-1")
        create_table(dynamodb, "plain", stream=False)
        streams = TableStreams(spark, emu.state_dir, tmp_path / "offsets", clock=emu.clock)
        for table in ("plain", "missing"):
            with pytest.raises(ChangeTrackingError, match=f"table {table} has no change tracking: it does not "
                                                          "exist, or its DynamoDB stream is not enabled"):
                streams.create("s", table)
        dynamodb.update_table(TableName="plain", StreamSpecification={"StreamEnabled": True,
                                                                      "StreamViewType": "NEW_AND_OLD_IMAGES"})
        stream = streams.create("s", "plain")
        assert stream.read().columns[-1] == "pk"  # nothing returned yet, and still the key column


def test_without_a_clock_now_is_the_emulator_clock_in_the_state_directory(spark, tmp_path: Path) -> None:
    with emulate(state_dir=tmp_path / "state", housekeeping_interval=None) as emu:
        create_table(boto3.client("dynamodb", region_name="us-east-1"), "ahead")
        emu.clock.advance(7200)
        streams = TableStreams(spark, emu.state_dir, tmp_path / "offsets")
        assert streams.now() - time.time() == pytest.approx(7200, abs=60)
        assert streams.create("s", "ahead").state["created_at"] == pytest.approx(emu.clock.now(), abs=60)


def test_retention_and_now_are_the_emulator_clock(spark, tmp_path: Path) -> None:
    clock = Clock(source=lambda: epoch("2025-05-01 10:00:00.000"))
    with emulate(state_dir=tmp_path / "state", clock=clock, housekeeping_interval=None) as emu:
        dynamodb = boto3.client("dynamodb", region_name="us-east-1")
        create_table(dynamodb, "kept")
        emu.clock.advance(3600)
        streams = TableStreams(spark, emu.state_dir, tmp_path / "offsets", clock=emu.clock)
        stream = streams.create("late", "kept")
        assert (stream.offset, stream.state["created_at"]) == (2, epoch("2025-05-01 11:00:00.000"))
        emu.clock.advance(1)
        put(dynamodb, "kept", "a")
        assert [row["pk"] for row in stream.read().collect()] == ["a"]
        # 25 hours on, past the 24-hour retention, before the emulator has deleted the segment file
        later = TableStreams(spark, emu.state_dir, tmp_path / "offsets", clock=Clock(source=lambda: emu.clock.now() + 25 * 3600))
        with pytest.raises(StaleStreamError, match="table stream late is stale"):
            later.get("late").read()
        assert later.get("late").is_stale() and not stream.is_stale()
        emu.clock.advance(25 * 3600)
        assert stream.is_stale()
        stream.move_to(at_version=3)  # past the trimmed commit: nothing to read, and not stale
        assert stream.read().count() == 0 and not stream.is_stale()
        emu.clock.advance(1)
        put(dynamodb, "kept", "b")
        assert [row["pk"] for row in stream.read().collect()] == ["b"]
        stream.move_to()  # now: after b
        assert stream.offset == 4 and stream.read().count() == 0


def test_key_columns_have_the_tables_key_types_before_any_row(spark, tmp_path: Path) -> None:
    with emulate(state_dir=tmp_path / "state", housekeeping_interval=None) as emu:
        dynamodb = boto3.client("dynamodb", region_name="us-east-1")
        dynamodb.create_table(TableName="typed", BillingMode="PAY_PER_REQUEST",
                              KeySchema=[{"AttributeName": "id", "KeyType": "HASH"},
                                         {"AttributeName": "blob", "KeyType": "RANGE"}],
                              AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "N"},
                                                    {"AttributeName": "blob", "AttributeType": "B"}],
                              StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"})
        streams = TableStreams(spark, emu.state_dir, tmp_path / "offsets", clock=emu.clock)
        empty = streams.create("typed_stream", "typed").read()
        assert dict(empty.dtypes)["id"] == "decimal(38,0)" and dict(empty.dtypes)["blob"] == "binary"
        dynamodb.put_item(TableName="typed", Item={"id": {"N": "7"}, "blob": {"B": b"x"}})
        assert dict(streams.get("typed_stream").read().dtypes) == dict(empty.dtypes)
        # DescribeStream still answers AWS's KeySchema (no AttributeType in it)
        arn = dynamodb.describe_table(TableName="typed")["Table"]["LatestStreamArn"]
        described = boto3.client("dynamodbstreams", region_name="us-east-1").describe_stream(StreamArn=arn)
        assert described["StreamDescription"]["KeySchema"] == [{"AttributeName": "id", "KeyType": "HASH"},
                                                               {"AttributeName": "blob", "KeyType": "RANGE"}]


def test_move_to_now_after_every_record_was_trimmed(spark, tmp_path: Path) -> None:
    with emulate(state_dir=tmp_path / "state", housekeeping_interval=None) as emu:
        dynamodb = boto3.client("dynamodb", region_name="us-east-1")
        create_table(dynamodb, "old")
        put(dynamodb, "old", "a")
        streams = TableStreams(spark, emu.state_dir, tmp_path / "offsets", clock=emu.clock)
        stream = streams.create("old_stream", "old", at_version=0)
        emu.clock.advance(25 * 3600)
        emu.housekeeping()  # past the retention: the segment files are gone
        assert stream.is_stale()
        stream.move_to()
        assert not stream.is_stale() and stream.read().count() == 0
        emu.clock.advance(1)
        put(dynamodb, "old", "b")
        assert [row["pk"] for row in stream.read().collect()] == ["b"]
        stream.consume(lambda rows, batch_id: None)
        assert stream.read().count() == 0

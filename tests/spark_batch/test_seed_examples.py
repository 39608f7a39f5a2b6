"""The Lakehouse Table Stream documentation's two examples, reproduced row for row.

Source: Singdata (ClickZetta) Lakehouse, "TABLE STREAM Function Introduction", Use Cases: "APPEND_ONLY Mode
Case" (table test_table, stream test_stream) and "STANDARD Mode Case" (table test_table_offset, stream
test_table_offset_stream, consumed by INSERT INTO ... SELECT and by MERGE INTO test_table_offset_consume).
Its commit versions (3 for the INSERT, 4 for the UPDATE) and times are reproduced exactly by writing the
change log by hand: in the Lakehouse versions 1 and 2 were CREATE TABLE and ALTER TABLE, which write no
records, so the streams start at version 2. The second test runs the STANDARD case through Eddy itself,
where CREATE TABLE (with its stream) is version 1, enabling the stream version 2, and so the INSERT, UPDATE
and DELETE are versions 3, 4 and 5, as printed in the seed.
"""

from __future__ import annotations

from decimal import Decimal as D
from pathlib import Path

import boto3
from pyspark.sql import Row
from pyspark.testing import assertDataFrameEqual

from eddy import Clock, emulate
from eddy.spark_batch.table_streams import TableStreams

from .segments import ChangeLog, at, epoch, insert, key, modify, person, remove

COLUMNS = ["__change_type", "__commit_version", "__commit_timestamp", "id", "name", "age"]
PEOPLE = [(1, "Alice", 20), (2, "Bob", 25), (3, "Charlie", 30), (4, "David", 35), (5, "Eve", 40)]


def change(change_type: str, version: int, when: str, id: int, name: str, age: int) -> Row:
    return Row(__change_type=change_type, __commit_version=version, __commit_timestamp=at(when),
               id=D(id), name=name, age=D(age))


def member(id: int, name: str, age: int) -> Row:
    return Row(id=D(id), name=name, age=D(age))


def test_append_only_mode_case(spark, tmp_path: Path) -> None:
    log = ChangeLog(tmp_path / "state", "test_table")
    log.describe(key_schema=[{"AttributeName": "id", "KeyType": "HASH"}])  # the table with change tracking on
    streams = TableStreams(spark, tmp_path / "state", tmp_path / "offsets")
    stream = streams.create("test_stream", "test_table", mode="APPEND_ONLY", at_version=2)
    log.commit(3, "2025-04-28 17:37:25.785", *[insert(person(*p), key(p[0])) for p in PEOPLE])
    inserted = [change("INSERT", 3, "2025-04-28 17:37:25.785", *p) for p in PEOPLE]
    assertDataFrameEqual(stream.read().select(COLUMNS), inserted)

    # UPDATE test_table SET age = age + 5 WHERE id = 1 OR id = 3: not recorded
    log.commit(4, "2025-04-28 17:38:02.114", modify(person(1, "Alice", 20), person(1, "Alice", 25), key(1)),
               modify(person(3, "Charlie", 30), person(3, "Charlie", 35), key(3)))
    assertDataFrameEqual(stream.read().select(COLUMNS), inserted)

    # DELETE FROM test_table WHERE id = 2 OR id = 4: not recorded
    log.commit(5, "2025-04-28 17:38:40.530", remove(person(2, "Bob", 25), key(2)), remove(person(4, "David", 35), key(4)))
    assertDataFrameEqual(stream.read().select(COLUMNS), inserted)

    # DELETE FROM test_table (the rest): still the five inserts
    log.commit(6, "2025-04-28 17:39:11.002", remove(person(1, "Alice", 25), key(1)),
               remove(person(3, "Charlie", 35), key(3)), remove(person(5, "Eve", 40), key(5)))
    assertDataFrameEqual(stream.read().select(COLUMNS), inserted)
    assert stream.offset == 2  # reading never moved it


def test_standard_mode_case(spark, tmp_path: Path) -> None:
    log = ChangeLog(tmp_path / "state", "test_table_offset")
    log.describe(key_schema=[{"AttributeName": "id", "KeyType": "HASH"}])
    streams = TableStreams(spark, tmp_path / "state", tmp_path / "offsets")
    stream = streams.create("test_table_offset_stream", "test_table_offset", mode="STANDARD", at_version=2)
    log.commit(3, "2025-04-28 17:40:54.626", *[insert(person(*p), key(p[0])) for p in PEOPLE])

    consume = tmp_path / "test_table_offset_consume"
    spark.sql(f"CREATE TABLE test_table_offset_consume (id DECIMAL(38,0), name STRING, age DECIMAL(38,0)) "
              f"USING parquet LOCATION '{consume}'")
    try:
        stream.consume_sql("INSERT INTO test_table_offset_consume SELECT id, name, age FROM test_table_offset_stream")
        assertDataFrameEqual(stream.read().select(COLUMNS), [])
    finally:
        spark.sql("DROP TABLE test_table_offset_consume")
    assert stream.offset == 3

    # UPDATE test_table_offset SET age = age + 5 WHERE id = 1 OR id = 3
    log.commit(4, "2025-04-28 17:41:18.507", modify(person(1, "Alice", 20), person(1, "Alice", 25), key(1)),
               modify(person(3, "Charlie", 30), person(3, "Charlie", 35), key(3)))
    assertDataFrameEqual(stream.read().select(COLUMNS), [
        change("UPDATE_AFTER", 4, "2025-04-28 17:41:18.507", 1, "Alice", 25),
        change("UPDATE_AFTER", 4, "2025-04-28 17:41:18.507", 3, "Charlie", 35),
        change("UPDATE_BEFORE", 3, "2025-04-28 17:40:54.626", 1, "Alice", 20),
        change("UPDATE_BEFORE", 3, "2025-04-28 17:40:54.626", 3, "Charlie", 30),
    ])

    # MERGE INTO test_table_offset_consume ... (apply_changes), then the stream is empty
    stream.apply_changes(str(consume), keys=["id"])
    assertDataFrameEqual(spark.read.parquet(str(consume)).select("id", "name", "age"), [
        member(1, "Alice", 25), member(3, "Charlie", 35), member(2, "Bob", 25), member(4, "David", 35),
        member(5, "Eve", 40)])
    assertDataFrameEqual(stream.read().select(COLUMNS), [])

    # DELETE FROM test_table_offset WHERE id = 2 OR id = 4
    log.commit(5, "2025-04-28 17:41:47.209", remove(person(2, "Bob", 25), key(2)), remove(person(4, "David", 35), key(4)))
    assertDataFrameEqual(stream.read().select(COLUMNS), [
        change("DELETE", 3, "2025-04-28 17:40:54.626", 2, "Bob", 25),
        change("DELETE", 3, "2025-04-28 17:40:54.626", 4, "David", 35),
    ])
    stream.apply_changes(str(consume), keys=["id"])
    assertDataFrameEqual(spark.read.parquet(str(consume)).select("id", "name", "age"), [
        member(1, "Alice", 25), member(3, "Charlie", 35), member(5, "Eve", 40)])
    assertDataFrameEqual(stream.read().select(COLUMNS), [])
    assert streams.get("test_table_offset_stream").offset == 5


def test_standard_mode_case_through_eddy(spark, tmp_path: Path) -> None:
    clock = Clock(source=lambda: epoch("2025-04-28 17:40:54.626"))
    with emulate(state_dir=tmp_path / "state", clock=clock, housekeeping_interval=None) as emu:
        dynamodb = boto3.client("dynamodb", region_name="us-east-1")
        dynamodb.create_table(TableName="test_table_offset", KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
                              AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "N"}],
                              BillingMode="PAY_PER_REQUEST",
                              StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"})
        streams = TableStreams(spark, emu.state_dir, tmp_path / "offsets", clock=emu.clock)
        stream = streams.create("test_table_offset_stream", "test_table_offset")  # now: after the stream's enabling
        assert stream.offset == 2  # version 1: CREATE TABLE, version 2: change tracking on, as in the seed
        dynamodb.transact_write_items(TransactItems=[
            {"Put": {"TableName": "test_table_offset", "Item": person(*p)}} for p in PEOPLE])
        replica = str(tmp_path / "test_table_offset_consume")
        stream.apply_changes(replica, keys=["id"])
        assertDataFrameEqual(stream.read().select(COLUMNS), [])

        emu.clock.advance(23.881)  # 17:41:18.507
        dynamodb.transact_write_items(TransactItems=[
            {"Update": {"TableName": "test_table_offset", "Key": key(id), "UpdateExpression": "SET age = age + :five",
                        "ExpressionAttributeValues": {":five": {"N": "5"}}}} for id in (1, 3)])
        assertDataFrameEqual(stream.read().select(COLUMNS), [
            change("UPDATE_AFTER", 4, "2025-04-28 17:41:18.507", 1, "Alice", 25),
            change("UPDATE_AFTER", 4, "2025-04-28 17:41:18.507", 3, "Charlie", 35),
            change("UPDATE_BEFORE", 3, "2025-04-28 17:40:54.626", 1, "Alice", 20),
            change("UPDATE_BEFORE", 3, "2025-04-28 17:40:54.626", 3, "Charlie", 30),
        ])
        stream.apply_changes(replica, keys=["id"])

        emu.clock.advance(28.702)
        dynamodb.transact_write_items(TransactItems=[
            {"Delete": {"TableName": "test_table_offset", "Key": key(id)}} for id in (2, 4)])
        assertDataFrameEqual(stream.read().select(COLUMNS), [
            change("DELETE", 3, "2025-04-28 17:40:54.626", 2, "Bob", 25),
            change("DELETE", 3, "2025-04-28 17:40:54.626", 4, "David", 35),
        ])
        stream.apply_changes(replica, keys=["id"])
        assertDataFrameEqual(spark.read.parquet(replica).select("id", "name", "age"), [
            member(1, "Alice", 25), member(3, "Charlie", 35), member(5, "Eve", 40)])
        assert stream.offset == 5

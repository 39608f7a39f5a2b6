"""The seed's table-stream SQL, run from its own text against Eddy's tables (DML through boto3) and Spark."""

from __future__ import annotations

from pathlib import Path

import boto3
import pytest
from pyspark.sql import Row
from pyspark.testing import assertDataFrameEqual

from eddy import emulate
from eddy.spark_batch.errors import ChangeTrackingError, StreamExistsError, StreamNotFoundError
from eddy.spark_batch.merge import MergeError
from eddy.spark_batch.table_streams import TableStreams

PEOPLE = [(1, "Alice", 20), (2, "Bob", 25), (3, "Charlie", 30), (4, "David", 35), (5, "Eve", 40)]
SEED_MERGE = """
MERGE INTO test_table_offset_consume AS t
USING test_table_offset_stream AS s
ON t.id = s.id
WHEN MATCHED AND s.__change_type = 'UPDATE_AFTER' THEN
  UPDATE SET t.name = s.name, t.age = s.age
WHEN MATCHED AND s.__change_type = 'DELETE' THEN
  DELETE
WHEN NOT MATCHED AND s.__change_type = 'INSERT' THEN
  INSERT VALUES (s.id, s.name, s.age);
"""


def create_table(dynamodb, name: str) -> None:
    """The seed's CREATE TABLE, as a DynamoDB table (no stream: change tracking comes with ALTER TABLE)."""
    dynamodb.create_table(TableName=name, KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
                          AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "N"}],
                          BillingMode="PAY_PER_REQUEST")


def insert_people(dynamodb, table: str) -> None:
    dynamodb.transact_write_items(TransactItems=[{"Put": {"TableName": table, "Item": {
        "id": {"N": str(id)}, "name": {"S": name}, "age": {"N": str(age)}}}} for id, name, age in PEOPLE])


def add_five_years(dynamodb, table: str, *ids: int) -> None:
    dynamodb.transact_write_items(TransactItems=[{"Update": {
        "TableName": table, "Key": {"id": {"N": str(id)}}, "UpdateExpression": "SET age = age + :five",
        "ExpressionAttributeValues": {":five": {"N": "5"}}}} for id in ids])


def delete(dynamodb, table: str, *ids: int) -> None:
    dynamodb.transact_write_items(TransactItems=[{"Delete": {"TableName": table, "Key": {"id": {"N": str(id)}}}}
                                                 for id in ids])


def changes(frame) -> list[tuple]:
    return sorted((row["__change_type"], int(row["id"]), row["name"], int(row["age"])) for row in frame.collect())


def test_the_append_only_example_from_its_sql(spark, tmp_path: Path) -> None:
    with emulate(state_dir=tmp_path / "state", housekeeping_interval=None) as emu:
        dynamodb = boto3.client("dynamodb", region_name="us-east-1")
        streams = TableStreams(spark, emu.state_dir, tmp_path / "offsets", clock=emu.clock)
        create_table(dynamodb, "test_table")
        with pytest.raises(ChangeTrackingError, match="table test_table has no change tracking"):
            streams.sql("CREATE TABLE STREAM test_stream ON TABLE test_table "
                        "WITH PROPERTIES ('TABLE_STREAM_MODE' = 'APPEND_ONLY')")
        assert streams.sql("ALTER TABLE test_table SET PROPERTIES ('change_tracking' = 'true')") is None
        streams.sql("CREATE TABLE STREAM test_stream ON TABLE test_table WITH PROPERTIES ('TABLE_STREAM_MODE' = 'APPEND_ONLY');")
        insert_people(dynamodb, "test_table")
        inserted = [("INSERT", id, name, age) for id, name, age in PEOPLE]
        assert changes(streams.sql("SELECT * FROM test_stream")) == inserted
        add_five_years(dynamodb, "test_table", 1, 3)
        delete(dynamodb, "test_table", 2, 4)
        assert changes(streams.sql("SELECT * FROM test_stream")) == inserted  # updates and deletes: not recorded
        assert streams.get("test_stream").offset == 2  # SELECT never moves it
        shown = streams.sql("SHOW TABLE STREAMS").select("name", "table_name", "mode", "offset").collect()
        assert shown == [Row(name="test_stream", table_name="test_table", mode="APPEND_ONLY", offset=2)]
        with pytest.raises(StreamExistsError):
            streams.sql("CREATE TABLE STREAM test_stream ON TABLE test_table")
        streams.sql("CREATE TABLE STREAM IF NOT EXISTS test_stream ON TABLE test_table")
        streams.sql("DROP TABLE STREAM test_stream")
        streams.sql("DROP STREAM IF EXISTS test_stream")
        with pytest.raises(StreamNotFoundError):
            streams.sql("DROP STREAM test_stream")


def tracked(spark, emu, tmp_path: Path, table: str, stream: str, target: str):
    """The seed's set-up, in its SQL: the source table with change tracking, a STANDARD stream, the target."""
    dynamodb = boto3.client("dynamodb", region_name="us-east-1")
    streams = TableStreams(spark, emu.state_dir, tmp_path / "offsets", clock=emu.clock)
    create_table(dynamodb, table)
    streams.sql(f"ALTER TABLE {table} SET PROPERTIES ('change_tracking' = 'true')")
    streams.sql(f"CREATE TABLE STREAM {stream} ON TABLE {table} WITH PROPERTIES ('TABLE_STREAM_MODE' = 'STANDARD')")
    streams.sql(f"CREATE TABLE {target} (id INT, name VARCHAR, age INT)")
    return dynamodb, streams


def test_the_standard_example_from_its_sql(spark, tmp_path: Path) -> None:
    with emulate(state_dir=tmp_path / "state", housekeeping_interval=None) as emu:
        dynamodb, streams = tracked(spark, emu, tmp_path, "test_table_offset", "test_table_offset_stream",
                                    "test_table_offset_consume")
        try:
            insert_people(dynamodb, "test_table_offset")
            streams.sql("INSERT INTO test_table_offset_consume SELECT id, name, age FROM test_table_offset_stream")
            assert changes(streams.sql("SELECT * FROM test_table_offset_stream")) == []
            assert sorted(spark.table("test_table_offset_consume").collect()) == [Row(id=i, name=n, age=a)
                                                                                  for i, n, a in PEOPLE]

            add_five_years(dynamodb, "test_table_offset", 1, 3)
            assert changes(streams.sql("SELECT * FROM test_table_offset_stream")) == [
                ("UPDATE_AFTER", 1, "Alice", 25), ("UPDATE_AFTER", 3, "Charlie", 35),
                ("UPDATE_BEFORE", 1, "Alice", 20), ("UPDATE_BEFORE", 3, "Charlie", 30)]
            streams.sql(SEED_MERGE)
            assert sorted(spark.table("test_table_offset_consume").collect()) == [
                Row(id=1, name="Alice", age=25), Row(id=2, name="Bob", age=25), Row(id=3, name="Charlie", age=35),
                Row(id=4, name="David", age=35), Row(id=5, name="Eve", age=40)]
            assert changes(streams.sql("SELECT * FROM test_table_offset_stream")) == []

            delete(dynamodb, "test_table_offset", 2, 4)
            assert changes(streams.sql("SELECT * FROM test_table_offset_stream")) == [
                ("DELETE", 2, "Bob", 25), ("DELETE", 4, "David", 35)]
            streams.sql(SEED_MERGE)
            assertDataFrameEqual(spark.table("test_table_offset_consume"), [
                Row(id=1, name="Alice", age=25), Row(id=3, name="Charlie", age=35), Row(id=5, name="Eve", age=40)])
            assert streams.get("test_table_offset_stream").offset == 5  # versions 3, 4, 5 as in the seed
        finally:
            spark.sql("DROP TABLE IF EXISTS test_table_offset_consume")


def test_a_merge_that_fails_leaves_the_offset(spark, tmp_path: Path) -> None:
    with emulate(state_dir=tmp_path / "state", housekeeping_interval=None) as emu:
        dynamodb, streams = tracked(spark, emu, tmp_path, "src", "src_stream", "merge_target")
        try:
            insert_people(dynamodb, "src")
            streams.sql("INSERT INTO merge_target SELECT id, name, age FROM src_stream")
            add_five_years(dynamodb, "src", 1)
            # UPDATE_BEFORE and UPDATE_AFTER both match id 1, and this clause applies to both
            with pytest.raises(MergeError, match="a target row matches more than one source row"):
                streams.sql("MERGE INTO merge_target t USING src_stream s ON t.id = s.id "
                            "WHEN MATCHED THEN UPDATE SET age = s.age")
            assert streams.get("src_stream").offset == 3
            assert sorted(row["age"] for row in spark.table("merge_target").collect()) == [20, 25, 30, 35, 40]
            streams.sql("MERGE INTO merge_target t USING src_stream s ON t.id = s.id "
                        "WHEN MATCHED AND s.__change_type = 'UPDATE_AFTER' THEN UPDATE SET age = s.age")
            assert streams.get("src_stream").offset == 4
            assert sorted(row["age"] for row in spark.table("merge_target").collect()) == [25, 25, 30, 35, 40]
        finally:
            spark.sql("DROP TABLE IF EXISTS merge_target")

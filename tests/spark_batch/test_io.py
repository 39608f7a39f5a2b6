"""Reading the change log and DynamoDB exports; s3a:// without hadoop-aws fails plainly."""

from __future__ import annotations

import gzip
import json
from datetime import datetime
from decimal import Decimal as D
from pathlib import Path

import pytest
from pyspark.sql import Row
from pyspark.testing import assertDataFrameEqual, assertSchemaEqual

from eddy.spark_batch import io
from eddy.spark_batch.errors import MissingChangeLogError, MissingFileSystemError

from .segments import TTL, ChangeLog, at, insert, remove


def test_the_change_log_as_one_typed_dataframe(spark, tmp_path: Path) -> None:
    orders = ChangeLog(tmp_path, "orders", label="2025-05-01T10-00-00.000")
    orders.commit(1, "2025-05-01 10:00:00.250", insert({"pk": {"S": "a"}}, {"pk": {"S": "a"}}))
    orders.commit(2, "2025-05-01 10:00:01.500", remove({"pk": {"S": "a"}}, {"pk": {"S": "a"}}, ttl=True))
    with open(orders.path, "a") as segment:
        segment.write('{"table":"orders","shard":"torn')  # a line still being written
    ChangeLog(tmp_path, "users", region="eu-west-1").commit(1, "2025-05-01 10:00:00.000",
                                                            insert({"id": {"S": "u"}}, {"id": {"S": "u"}}))
    log = io.read_change_log(spark, tmp_path, tables=["orders"])
    assertSchemaEqual(log.schema, io.CHANGE_LOG_SCHEMA)
    shard = "shardId-00000001745859600000-0a1b2c3d"
    assertDataFrameEqual(log, [
        Row(account="123456789012", region="us-east-1", stream_label="2025-05-01T10:00:00.000", table="orders",
            shard=shard, sequence_number=D("100000000000000000001"), commit_version=1,
            commit_timestamp=at("2025-05-01 10:00:00.250"), commit_records=1, event_id="e100000000000000000001", event_name="INSERT",
            keys='{"pk":{"S":"a"}}', old_image=None, new_image='{"pk":{"S":"a"}}', user_identity=None),
        Row(account="123456789012", region="us-east-1", stream_label="2025-05-01T10:00:00.000", table="orders",
            shard=shard, sequence_number=D("100000000000000000002"), commit_version=2,
            commit_timestamp=at("2025-05-01 10:00:01.500"), commit_records=1, event_id="e100000000000000000002", event_name="REMOVE",
            keys='{"pk":{"S":"a"}}', old_image='{"pk":{"S":"a"}}', new_image=None,
            user_identity=Row(type=TTL["type"], principalId=TTL["principalId"])),
    ])
    assert sorted(io.read_change_log(spark, tmp_path).select("table").distinct().collect()) == [
        Row(table="orders"), Row(table="users")]
    # a wrong path is an error naming it, not a log without changes (issue 26)
    with pytest.raises(MissingChangeLogError, match=f"state directory {tmp_path / 'nothing-here'} does not exist"):
        io.read_change_log(spark, tmp_path / "nothing-here")
    (tmp_path / "not-eddy").mkdir()
    with pytest.raises(MissingChangeLogError, match=f"{tmp_path / 'not-eddy'} holds no change log"):
        io.read_ttl_deletion_candidates(spark, tmp_path / "not-eddy")


def test_full_and_incremental_exports_gzip_or_not(spark, tmp_path: Path) -> None:
    full = tmp_path / "full" / "data"
    full.mkdir(parents=True)
    with gzip.open(full / "a.json.gz", "wt") as data:
        data.write('{"Item":{"pk":{"S":"a"},"n":{"N":"1"}}}\n')
    (full / "b.json").write_text('{"Item":{"pk":{"S":"b"}}}\n')
    assertDataFrameEqual(io.read_full_export(spark, str(tmp_path / "full")), [
        Row(item='{"pk":{"S":"a"},"n":{"N":"1"}}'), Row(item='{"pk":{"S":"b"}}')])
    assert io.export_type(spark, str(tmp_path / "full")) == "FULL_EXPORT"

    incremental = tmp_path / "incremental"
    (incremental / "data").mkdir(parents=True)
    with gzip.open(incremental / "data" / "c.json.gz", "wt") as data:
        data.write('{"Metadata":{"WriteTimestampMicros":{"N":"1746093600000000"}},"Keys":{"pk":{"S":"a"}},'
                   '"NewImage":{"pk":{"S":"a"},"n":{"N":"2"}},"OldImage":{"pk":{"S":"a"},"n":{"N":"1"}}}\n')
        data.write('{"Metadata":{"WriteTimestampMicros":1746093601500000},"Keys":{"pk":{"S":"b"}},'
                   '"OldImage":{"pk":{"S":"b"}}}\n')
    (incremental / "manifest-summary.json").write_text(json.dumps({"exportType": "INCREMENTAL_EXPORT"}))
    assertDataFrameEqual(io.read_incremental_export(spark, str(incremental)), [
        Row(write_timestamp=datetime(2025, 5, 1, 10, 0, 0), keys='{"pk":{"S":"a"}}',
            old_image='{"pk":{"S":"a"},"n":{"N":"1"}}', new_image='{"pk":{"S":"a"},"n":{"N":"2"}}'),
        Row(write_timestamp=datetime(2025, 5, 1, 10, 0, 1, 500000), keys='{"pk":{"S":"b"}}',
            old_image='{"pk":{"S":"b"}}', new_image=None),
    ])
    assert io.export_type(spark, str(incremental)) == "INCREMENTAL_EXPORT"


def test_s3a_without_hadoop_aws_is_a_clear_error(spark) -> None:
    with pytest.raises(MissingFileSystemError, match=r"no Hadoop FileSystem for s3a:// \(s3a://bucket/state\): "
                                                     r"s3a:// needs the hadoop-aws jar .* the pyspark wheel has neither"):
        io.read_change_log(spark, "s3a://bucket/state")
    with pytest.raises(MissingFileSystemError, match="hadoop-aws"):
        io.append_parquet(spark.range(1), "s3a://bucket/archive")


def test_small_state_files_are_swapped_in_whole(tmp_path: Path) -> None:
    io.write_json_file(tmp_path / "offsets" / "s.json", {"offset": 3})
    io.write_json_file(tmp_path / "offsets" / "s.json", {"offset": 4})
    assert [path.name for path in (tmp_path / "offsets").iterdir()] == ["s.json"]
    assert io.read_json_file(None, str(tmp_path / "offsets" / "s.json")) == {"offset": 4}

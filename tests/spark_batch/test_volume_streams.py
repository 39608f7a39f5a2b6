"""Volume streams over the emulator's S3 capture, and the seed's image example from its SQL."""

from __future__ import annotations

from pathlib import Path

import boto3
from pyspark.sql.types import StringType

from eddy import emulate
from eddy.spark_batch.table_streams import TableStreams


def test_the_image_example(spark, tmp_path: Path) -> None:
    with emulate(state_dir=tmp_path / "state", housekeeping_interval=None) as emu:
        s3 = boto3.client("s3", region_name="us-east-1")
        s3.create_bucket(Bucket="photos")
        streams = TableStreams(spark, emu.state_dir, tmp_path / "offsets", clock=emu.clock)
        streams.sql("CREATE EXTERNAL VOLUME image_volume LOCATION 's3://photos/images/' "
                    "DIRECTORY = (ENABLE = TRUE) RECURSIVE = TRUE")
        streams.sql("CREATE STREAM image_stream ON VOLUME image_volume")
        s3.put_object(Bucket="photos", Key="images/cat.jpg", Body=b"cat")
        s3.put_object(Bucket="photos", Key="images/2025/dog.jpg", Body=b"dog")
        s3.put_object(Bucket="photos", Key="images/notes.txt", Body=b"text")
        s3.put_object(Bucket="photos", Key="elsewhere/bird.jpg", Body=b"bird")   # not under the volume
        rows = streams.sql("SELECT __change_type, relative_path, url, size FROM image_stream ORDER BY relative_path")
        assert [tuple(row) for row in rows.collect()] == [
            ("INSERT", "2025/dog.jpg", "s3://photos/images/2025/dog.jpg", 3),
            ("INSERT", "cat.jpg", "s3://photos/images/cat.jpg", 3),
            ("INSERT", "notes.txt", "s3://photos/images/notes.txt", 4)]
        spark.udf.register("recognize", lambda url: "cat" if "cat" in url else "dog", StringType())
        streams.sql("CREATE TABLE image_results (relative_path VARCHAR, label VARCHAR)")
        try:
            insert = ("INSERT INTO image_results SELECT relative_path, recognize(url) FROM image_stream "
                      "WHERE __change_type IN ('INSERT', 'UPDATE_AFTER') AND relative_path LIKE '%.jpg'")
            streams.sql(insert)
            before = streams.get("image_stream").offset
            s3.put_object(Bucket="photos", Key="images/cat.jpg", Body=b"a new cat")   # replaced
            s3.delete_object(Bucket="photos", Key="images/2025/dog.jpg")
            changed = streams.sql("SELECT __change_type, relative_path, size FROM image_stream")
            assert sorted(tuple(row) for row in changed.collect()) == [
                ("DELETE", "2025/dog.jpg", 3), ("UPDATE_AFTER", "cat.jpg", 9), ("UPDATE_BEFORE", "cat.jpg", 3)]
            streams.sql(insert)
            assert streams.get("image_stream").offset > before
            assert sorted(tuple(row) for row in spark.table("image_results").collect()) == [
                ("2025/dog.jpg", "dog"), ("cat.jpg", "cat"), ("cat.jpg", "cat")]
            assert streams.sql("SELECT * FROM image_stream").count() == 0
        finally:
            spark.sql("DROP TABLE IF EXISTS image_results")


def test_create_volume_stream_not_recursive_append_only(spark, tmp_path: Path) -> None:
    with emulate(state_dir=tmp_path / "state", housekeeping_interval=None) as emu:
        s3 = boto3.client("s3", region_name="us-east-1")
        s3.create_bucket(Bucket="docs")
        streams = TableStreams(spark, emu.state_dir, tmp_path / "offsets", clock=emu.clock)
        stream = streams.create_volume_stream("top", "s3://docs/in", mode="APPEND_ONLY", recursive=False)
        s3.put_object(Bucket="docs", Key="in/a.pdf", Body=b"a")
        s3.put_object(Bucket="docs", Key="in/deeper/b.pdf", Body=b"b")
        s3.delete_object(Bucket="docs", Key="in/a.pdf")
        [row] = stream.read().collect()
        etag = row["etag"]
        assert (row["__change_type"], row["relative_path"], row["size"], row["__commit_version"]) == ("INSERT", "a.pdf", 1, 1)
        assert len(etag) == 32 and row["last_modified_time"] is not None
        assert stream.read().columns == ["__change_type", "__commit_version", "__commit_timestamp", "relative_path",
                                         "url", "size", "last_modified_time", "etag"]


def test_a_volume_stream_timestamp_as_of(spark, tmp_path: Path) -> None:
    with emulate(state_dir=tmp_path / "state", housekeeping_interval=None) as emu:
        s3 = boto3.client("s3", region_name="us-east-1")
        s3.create_bucket(Bucket="docs")
        s3.put_object(Bucket="docs", Key="in/early.pdf", Body=b"e")
        emu.clock.advance(60)
        between = emu.clock.now()
        emu.clock.advance(60)
        s3.put_object(Bucket="docs", Key="in/late.pdf", Body=b"l")
        streams = TableStreams(spark, emu.state_dir, tmp_path / "offsets", clock=emu.clock)
        since = streams.create_volume_stream("since", "s3://docs/in/", at_timestamp=between)
        assert [row["relative_path"] for row in since.read().collect()] == ["late.pdf"]
        streams.sql("CREATE EXTERNAL VOLUME docs_volume LOCATION 's3://docs/in/'")
        moment = f"timestamp_seconds({int(between) - 90})"  # before the first object
        streams.sql(f"CREATE STREAM everything ON VOLUME docs_volume TIMESTAMP AS OF {moment}")
        rows = streams.sql("SELECT relative_path FROM everything ORDER BY relative_path").collect()
        assert [row[0] for row in rows] == ["early.pdf", "late.pdf"]

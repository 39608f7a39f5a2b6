"""Volume streams: a table stream over a bucket prefix's object changes (the emulator's S3 capture).

    streams.create_volume_stream("images_stream", "s3://photos/cats/", mode="STANDARD", recursive=True)
    streams.get("images_stream").read()   # relative_path, url, size, last_modified_time, etag + __change_type ...

The object change log (`<state_dir>/objects/<account>/<region>/<bucket>/changes.jsonl`, written by
emulator/objects/) has the change log's shape, the bucket as its table and the object key as the item key,
so a volume stream is a TableStream whose log is the bucket's: offsets, the consistent cut, net change sets
(INSERT; UPDATE_BEFORE / UPDATE_AFTER for a replaced object; DELETE) and consuming work the same. The cut
is taken over the whole bucket (versions count per bucket), then the rows are narrowed to the prefix
(`recursive=False`: only objects directly under it).
"""

from __future__ import annotations

import os
import re

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from .io.change_log import _LOG_LINE, _typed_schema, change_log_rows, require_state_dir
from .io.files import read_json_lines

VOLUME_COLUMNS = ["relative_path", "url", "size", "last_modified_time", "etag"]
_LOCATION = re.compile(r"^s3a?://(?P<bucket>[a-z0-9][a-z0-9.-]{1,61}[a-z0-9])/(?P<prefix>.*)$")


def parse_location(location: str) -> tuple[str, str]:
    """('bucket', 'prefix/') of 's3://bucket/prefix/' (the prefix '' for a whole bucket)."""
    match = _LOCATION.match(location)
    if match is None:
        raise ValueError(f"a volume's location is s3://bucket/prefix/, not {location!r}")
    prefix = match["prefix"]
    return match["bucket"], prefix if not prefix or prefix.endswith("/") else prefix + "/"


def read_object_changes(spark: SparkSession, state_dir: str | os.PathLike[str], bucket: str) -> DataFrame:
    """The bucket's object changes, as CHANGE_LOG_SCHEMA rows (account, region from the path)."""
    require_state_dir(spark, state_dir, change_log=False)  # no objects/ yet: no object written yet
    pattern = f"{str(state_dir).rstrip('/')}/objects/*/*/{bucket}/changes.jsonl"
    lines = read_json_lines(spark, pattern, _LOG_LINE)
    if lines is None:
        return spark.createDataFrame([], _typed_schema(_LOG_LINE))
    path = F.col("_metadata.file_path")
    return change_log_rows(
        lines,
        account=F.regexp_extract(path, r"/objects/([^/]+)/", 1),
        region=F.regexp_extract(path, r"/objects/[^/]+/([^/]+)/", 1),
        stream_label=F.lit("objects"),
    )


def under_prefix(log: DataFrame, prefix: str, recursive: bool) -> DataFrame:
    """The changes of objects under `prefix` (directly under it only, unless `recursive`)."""
    key = F.get_json_object("keys", "$.key.S")
    rows = log.where(key.startswith(prefix)) if prefix else log
    return rows if recursive else rows.where(~F.substring(key, len(prefix) + 1, 1 << 20).contains("/"))


def volume_rows(decoded: DataFrame, bucket: str, prefix: str, metadata: list[str]) -> DataFrame:
    """A table stream's decoded rows (key, size, etag, last_modified_time) as a volume stream's columns."""
    return decoded.select(
        *metadata,
        F.expr(f"substring(key, {len(prefix) + 1})").alias("relative_path"),
        F.concat(F.lit(f"s3://{bucket}/"), F.col("key")).alias("url"),
        F.col("size").cast("bigint").alias("size"),
        F.to_timestamp("last_modified_time").alias("last_modified_time"),
        "etag",
    )

"""Every read and write of the Spark batch path: the edges around the transforms.

Sources
- Eddy's change log: the segment files under `<state_dir>/streams/` (layout in the README), as one typed
  DataFrame, CHANGE_LOG_SCHEMA. Keys and images stay DynamoDB JSON text; `dynamodb_json` decodes them.
- DynamoDB exports to S3 (or a local copy): full exports, `{"Item": {...}}` per line, and incremental
  exports, `{"Metadata": {"WriteTimestampMicros": ...}, "Keys": ..., "NewImage": ..., "OldImage": ...}`,
  gzip or not, in `<export>/data/`, described by `<export>/manifest-summary.json`.

Sinks: Parquet (appended, or a directory replaced whole), export files, items in a DynamoDB table through
boto3, the search index's SQLite file, and small JSON state files (written to a temp file, os.replace).

Paths may be local or any Hadoop URL (s3a://...); a scheme Spark has no FileSystem for is refused up front
with MissingFileSystemError (the pyspark wheel has no hadoop-aws: see session.py).
"""

from __future__ import annotations

import json
import os
import uuid
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

from pyspark.errors import AnalysisException
from pyspark.sql import Column, DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import (DecimalType, DoubleType, LongType, StringType, StructField, StructType,
                               TimestampType)

from .session import require_filesystem, scheme_of

TTL_PRINCIPAL = "dynamodb.amazonaws.com"

#: a change-log line as the emulator writes it (emulator/records.py ChangeRecord.to_log_line)
_LOG_LINE = StructType([
    StructField("table", StringType()), StructField("shard", StringType()),
    StructField("sequence_number", StringType()), StructField("commit_version", LongType()),
    StructField("commit_timestamp", DoubleType()), StructField("event_id", StringType()),
    StructField("event_name", StringType()), StructField("keys", StringType()),
    StructField("old_image", StringType()), StructField("new_image", StringType()),
    StructField("user_identity", StructType([StructField("type", StringType()),
                                             StructField("principalId", StringType())])),
])

#: the change log as a DataFrame: one row per change, in this order and with these types
CHANGE_LOG_SCHEMA = StructType([
    StructField("account", StringType()), StructField("region", StringType()),
    StructField("stream_label", StringType()), StructField("table", StringType()),
    StructField("shard", StringType()), StructField("sequence_number", DecimalType(21, 0)),
    StructField("commit_version", LongType()), StructField("commit_timestamp", TimestampType()),
    StructField("event_id", StringType()), StructField("event_name", StringType()),
    StructField("keys", StringType()), StructField("old_image", StringType()),
    StructField("new_image", StringType()), _LOG_LINE["user_identity"],
])

_EXPORT_LINE = StructType([StructField(name, StringType()) for name in
                           ("Item", "Metadata", "Keys", "NewImage", "OldImage")])
FULL_EXPORT_SCHEMA = StructType([StructField("item", StringType())])
INCREMENTAL_EXPORT_SCHEMA = StructType([
    StructField("write_timestamp", TimestampType()), StructField("keys", StringType()),
    StructField("old_image", StringType()), StructField("new_image", StringType()),
])

_SEGMENT_PATH = r"/streams/([^/]+)/([^/]+)/([^/]+)/([^/]+)/([^/]+)/[^/]+$"


# -- the change log --------------------------------------------------------------------------------

def read_change_log(spark: SparkSession, state_dir: str | os.PathLike[str], *, tables: Iterable[str] | None = None,
                    attributes: Iterable[str] | None = None) -> DataFrame:
    """Every change in the segment files under `state_dir` (or only `tables`'), as CHANGE_LOG_SCHEMA.

    `attributes`: the images are parsed in the scan, as structs of only these attributes (each a
    dynamodb_json.ATTRIBUTE_VALUE) instead of their JSON text: a job that needs a few attributes of
    every image skips the rest of each image instead of copying it out and parsing it again.
    A line being written while this reads (a torn tail) is skipped; so is anything that is not a segment.
    """
    schema = _LOG_LINE
    if attributes is not None:
        from .dynamodb_json import ATTRIBUTE_VALUE

        image = StructType([StructField(name, ATTRIBUTE_VALUE) for name in dict.fromkeys(attributes)])
        schema = StructType([StructField(f.name, image) if f.name in ("old_image", "new_image") else f
                             for f in _LOG_LINE.fields])
    pattern = _segments(spark, state_dir, tables)
    lines = _read_json(spark, pattern, schema) if pattern else None
    if lines is None:
        return spark.createDataFrame([], _typed_schema(schema))
    return _typed(lines, F.col("_metadata.file_path"))


def read_ttl_deletion_candidates(spark: SparkSession, state_dir: str | os.PathLike[str], *,
                                 tables: Iterable[str] | None = None,
                                 observe: Callable[[DataFrame], DataFrame] | None = None) -> DataFrame:
    """The change-log lines that mention the TTL service (CHANGE_LOG_SCHEMA): every TTL deletion, and
    maybe a few more (filter them exactly). The lines are picked by their text before any JSON is parsed:
    TTL deletions are a small part of a log, and parsing is most of what reading a log costs.
    `observe` gets every line of the log (to count them)."""
    pattern = _segments(spark, state_dir, tables)
    if pattern is None or not _matches(spark, pattern):
        return spark.createDataFrame([], CHANGE_LOG_SCHEMA)
    lines = spark.read.text(pattern).select("value", F.col("_metadata.file_path").alias("path"))
    lines = observe(lines) if observe else lines
    # The identity is a line's last member: a line torn before it does not match, so from_json's partial
    # results (for a line torn inside the last few characters) never lack anything a deletion needs.
    candidates = lines.where(F.col("value").contains(TTL_PRINCIPAL))
    # inline(array(...)) parses each line once: a plain projection would let Spark copy from_json into every
    # filter and column that reads a member of it, and parse the line again for each
    parsed = candidates.select(F.inline(F.array(F.struct(F.from_json("value", _LOG_LINE).alias("line"), "path"))))
    return _typed(parsed.select("line.*", "path"), F.col("path")).where(F.col("sequence_number").isNotNull())


def _segments(spark: SparkSession, state_dir: str | os.PathLike[str], tables: Iterable[str] | None) -> str | None:
    """The glob of the segment files of `tables` (None: every table) under `state_dir`; None for no tables."""
    state_dir = str(state_dir).rstrip("/")
    require_filesystem(spark, state_dir)
    names = sorted(set(tables)) if tables is not None else None
    if names == []:
        return None
    table_glob = "*" if names is None else (names[0] if len(names) == 1 else "{" + ",".join(names) + "}")
    return f"{state_dir}/streams/*/*/{table_glob}/*/*/*.jsonl"


def _typed(lines: DataFrame, path: Column) -> DataFrame:
    """Log lines (parsed) as CHANGE_LOG_SCHEMA: account, region and stream label from the file's path."""
    label = F.regexp_extract(path, _SEGMENT_PATH, 4)
    return lines.select(
        F.regexp_extract(path, _SEGMENT_PATH, 1).alias("account"),
        F.regexp_extract(path, _SEGMENT_PATH, 2).alias("region"),
        # the folder spells the label's ':' as '-': 2015-05-11T21-21-33.291 is 2015-05-11T21:21:33.291
        F.regexp_replace(label, r"T(\d\d)-(\d\d)-", "T$1:$2:").alias("stream_label"),
        "table", "shard",
        F.col("sequence_number").cast(DecimalType(21, 0)).alias("sequence_number"),
        "commit_version",
        F.timestamp_micros(F.round(F.col("commit_timestamp") * 1_000_000).cast(LongType())).alias("commit_timestamp"),
        "event_id", "event_name", "keys", "old_image", "new_image", "user_identity",
    )


def _typed_schema(line: StructType) -> StructType:
    images = {f.name: f for f in line.fields if f.name in ("old_image", "new_image")}
    return StructType([images.get(f.name, f) for f in CHANGE_LOG_SCHEMA.fields])


def _read_json(spark: SparkSession, path: str, schema: StructType) -> DataFrame | None:
    """JSON lines under a glob, or None if nothing matches (asked first: a failed read is logged loudly)."""
    if not _matches(spark, path):
        return None
    return spark.read.schema(schema).option("mode", "DROPMALFORMED").json(path)


# -- DynamoDB exports ------------------------------------------------------------------------------

def export_summary(spark: SparkSession, export_dir: str) -> dict[str, Any] | None:
    """The export's manifest-summary.json, or None if it has none."""
    return read_json_file(spark, f"{str(export_dir).rstrip('/')}/manifest-summary.json")


def read_full_export(spark: SparkSession, export_dir: str) -> DataFrame:
    """A full export's items (FULL_EXPORT_SCHEMA: `item`, DynamoDB JSON text)."""
    lines = _export_lines(spark, export_dir)
    return lines.where(F.col("Item").isNotNull()).select(F.col("Item").alias("item"))


def read_incremental_export(spark: SparkSession, export_dir: str) -> DataFrame:
    """An incremental export's changes (INCREMENTAL_EXPORT_SCHEMA), one per item changed in its period."""
    lines = _export_lines(spark, export_dir)
    micros = F.coalesce(F.get_json_object("Metadata", "$.WriteTimestampMicros.N"),
                        F.get_json_object("Metadata", "$.WriteTimestampMicros"))
    return lines.where(F.col("Keys").isNotNull()).select(
        F.timestamp_micros(micros.cast(LongType())).alias("write_timestamp"),
        F.col("Keys").alias("keys"), F.col("OldImage").alias("old_image"), F.col("NewImage").alias("new_image"))


def export_type(spark: SparkSession, export_dir: str) -> str:
    """FULL_EXPORT or INCREMENTAL_EXPORT: from the manifest, else from what the first line holds."""
    summary = export_summary(spark, export_dir)
    if summary and summary.get("exportType"):
        return summary["exportType"]
    first = _export_lines(spark, export_dir).limit(1).collect()
    if not first:
        raise ValueError(f"{export_dir}: no export data")
    return "FULL_EXPORT" if first[0]["Item"] is not None else "INCREMENTAL_EXPORT"


def _export_lines(spark: SparkSession, export_dir: str) -> DataFrame:
    export_dir = str(export_dir).rstrip("/")
    require_filesystem(spark, export_dir)
    for pattern in (f"{export_dir}/data/*.json*", export_dir):
        lines = _read_json(spark, pattern, _EXPORT_LINE)
        if lines is not None:
            return lines
    raise FileNotFoundError(f"{export_dir}: no export data (looked for data/*.json.gz and data/*.json)")


def write_export(lines: DataFrame, export_dir: str, summary: dict[str, Any], *, compress: bool = True) -> dict:
    """Write an export: `lines` (one column of JSON text) as data/*.json[.gz], then the manifests.

    The manifests go last, so a reader that finds manifest-summary.json finds the whole export.
    """
    export_dir = str(export_dir).rstrip("/")
    require_filesystem(lines.sparkSession, export_dir)
    staging = f"{export_dir}/.staging-{uuid.uuid4().hex}"
    lines.write.mode("overwrite").option("compression", "gzip" if compress else "none").text(staging)
    spark = lines.sparkSession
    files = []
    for source in _list_files(spark, staging):
        name = source.rsplit("/", 1)[1]
        if not name.startswith("part-"):
            continue
        target = f"{export_dir}/data/{name.split('.', 1)[0][5:]}{'.json.gz' if compress else '.json'}"
        _rename(spark, source, target)
        count = spark.read.text(target).count()
        files.append({"itemCount": count, "md5Checksum": "", "etag": "", "dataFileS3Key": target[len(export_dir) + 1:]})
    _delete(spark, staging)
    manifest_files = "".join(json.dumps(entry) + "\n" for entry in files)
    write_text_file(spark, f"{export_dir}/manifest-files.json", manifest_files)
    summary = {**summary, "itemCount": sum(entry["itemCount"] for entry in files),
               "manifestFilesS3Key": f"{export_dir}/manifest-files.json",
               "outputFormat": "DYNAMODB_JSON", "exportStatus": "COMPLETED"}
    write_text_file(spark, f"{export_dir}/manifest-summary.json", json.dumps(summary, indent=2) + "\n")
    return summary


# -- Parquet ---------------------------------------------------------------------------------------

def read_parquet(spark: SparkSession, path: str) -> DataFrame | None:
    """The Parquet data under `path`, or None if there is none yet."""
    require_filesystem(spark, path)
    if not _matches(spark, f"{str(path).rstrip('/')}/*"):
        return None
    return spark.read.option("mergeSchema", "true").parquet(str(path))


def append_parquet(df: DataFrame, path: str, *, partition_by: Iterable[str] = ()) -> None:
    """Append `df` to the Parquet data under `path` (Spark's job commit: a failed write adds nothing)."""
    require_filesystem(df.sparkSession, path)
    df.write.mode("append").partitionBy(*partition_by).parquet(str(path))


def replace_parquet(df: DataFrame, path: str) -> None:
    """Make `df` the whole content of `path`: written beside it first, then swapped in by renames.

    If the swap is interrupted, the next replace (or `recover_replaced`) finds the previous content in
    `<path>.previous` and puts it back first.
    """
    spark = df.sparkSession
    path = str(path).rstrip("/")
    require_filesystem(spark, path)
    recover_replaced(spark, path)
    staging = f"{path}.staging-{uuid.uuid4().hex}"
    df.write.mode("overwrite").parquet(staging)
    previous = f"{path}.previous"
    had_previous = _exists(spark, path)
    if had_previous:
        _rename(spark, path, previous)
    _rename(spark, staging, path)
    if had_previous:
        _delete(spark, previous)


def recover_replaced(spark: SparkSession, path: str) -> None:
    """Undo a replace_parquet that stopped between its two renames."""
    previous = f"{str(path).rstrip('/')}.previous"
    if _exists(spark, previous):
        if _exists(spark, path):
            _delete(spark, previous)
        else:
            _rename(spark, previous, path)


@contextmanager
def staged_parquet(df: DataFrame, path: str) -> Iterator[DataFrame]:
    """Write `df` to Parquet at `path`, give it back read from there, and delete it afterwards (for a
    driver-side sink that iterates over the rows: the write runs the job once, whole)."""
    spark = df.sparkSession
    df.write.mode("overwrite").parquet(path)
    try:
        yield spark.read.parquet(path)
    finally:
        _delete(spark, path)


# -- other sinks -----------------------------------------------------------------------------------

def put_items(rows: Iterable[dict[str, Any]], table: str, *, endpoint_url: str | None = None,
              region: str | None = None) -> int:
    """PutItem each item (DynamoDB JSON) into `table` through boto3, batched; returns how many."""
    import boto3

    client = boto3.client("dynamodb", endpoint_url=endpoint_url, region_name=region)
    batch, written = [], 0
    for item in rows:
        batch.append({"PutRequest": {"Item": item}})
        if len(batch) == 25:
            written += _batch_write(client, table, batch)
            batch = []
    if batch:
        written += _batch_write(client, table, batch)
    return written


def _batch_write(client: Any, table: str, batch: list[dict]) -> int:
    pending = {table: batch}
    while pending:
        pending = client.batch_write_item(RequestItems=pending).get("UnprocessedItems") or {}
    return len(batch)


def write_search_index(documents: Iterable[tuple[str, str, int, dict | None]], path: str) -> int:
    """A new search index file (handlers.search_index's format) from (table, id, sequence, fields|None).

    Built beside `path` and swapped in with os.replace: readers see the old index or the new one.
    """
    from handlers import search_index

    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    building = target.with_name(f".{target.name}.{uuid.uuid4().hex}")
    count = 0
    try:
        with search_index._index(str(building)) as db:
            for table, id, sequence, fields in documents:
                search_index._apply(db, table, id, sequence, fields)
                count += fields is not None
        os.replace(building, target)
    finally:
        building.unlink(missing_ok=True)
    return count


def read_json_file(spark: SparkSession | None, path: str) -> dict[str, Any] | None:
    """A small JSON file (local or remote), or None if it does not exist."""
    if scheme_of(path) in ("", "file"):
        local = Path(path.removeprefix("file://"))
        return json.loads(local.read_text()) if local.is_file() else None
    try:
        text = spark.read.text(path, wholetext=True).first()
    except AnalysisException:
        return None
    return json.loads(text[0]) if text else None


def write_json_file(path: str | os.PathLike[str], value: dict[str, Any]) -> None:
    """A small local JSON file, written to a temp file and swapped in with os.replace (never half-written)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{uuid.uuid4().hex}")
    temporary.write_text(json.dumps(value, indent=2, sort_keys=True) + "\n")
    os.replace(temporary, path)


def write_text_file(spark: SparkSession, path: str, text: str) -> None:
    if scheme_of(path) in ("", "file"):
        local = Path(path.removeprefix("file://"))
        local.parent.mkdir(parents=True, exist_ok=True)
        temporary = local.with_name(f".{local.name}.{uuid.uuid4().hex}")
        temporary.write_text(text)
        os.replace(temporary, local)
        return
    fs, hadoop_path = _hadoop(spark, path)
    stream = fs.create(hadoop_path, True)
    try:
        stream.write(bytearray(text.encode()))
    finally:
        stream.close()


# -- Hadoop FileSystem (local paths and remote URLs alike) -------------------------------------------

def _hadoop(spark: SparkSession, path: str) -> tuple[Any, Any]:
    jvm = spark.sparkContext._jvm
    hadoop_path = jvm.org.apache.hadoop.fs.Path(str(path))
    return hadoop_path.getFileSystem(spark.sparkContext._jsc.hadoopConfiguration()), hadoop_path


def _matches(spark: SparkSession, pattern: str) -> bool:
    """Whether a path or glob matches anything."""
    fs, hadoop_path = _hadoop(spark, pattern)
    found = fs.globStatus(hadoop_path)
    return found is not None and len(found) > 0


def _exists(spark: SparkSession, path: str) -> bool:
    fs, hadoop_path = _hadoop(spark, path)
    return fs.exists(hadoop_path)


def _rename(spark: SparkSession, source: str, target: str) -> None:
    fs, source_path = _hadoop(spark, source)
    _, target_path = _hadoop(spark, target)
    fs.mkdirs(target_path.getParent())
    if not fs.rename(source_path, target_path):
        raise OSError(f"could not rename {source} to {target}")


def _delete(spark: SparkSession, path: str) -> None:
    fs, hadoop_path = _hadoop(spark, path)
    fs.delete(hadoop_path, True)


def _list_files(spark: SparkSession, directory: str) -> list[str]:
    fs, hadoop_path = _hadoop(spark, directory)
    return sorted(status.getPath().toString() for status in fs.listStatus(hadoop_path) if status.isFile())

"""Eddy's change log as a DataFrame: the segment files under `<state_dir>/streams/` (layout in docs/guides/durability.md).

Keys and images stay DynamoDB JSON text; `dynamodb_json` decodes them.
"""

from __future__ import annotations

import os
import time
from typing import Callable, Iterable, NamedTuple

from pyspark.sql import Column, DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import (
    DecimalType,
    LongType,
    StringType,
    StructField,
    StructType,
    TimestampType,
)

from ..errors import MissingChangeLogError
from ..session import require_filesystem, scheme_of
from .columnar_copies import LOG_LINE, as_log_lines, read_copies
from .files import exists, hadoop, read_json_file

TTL_PRINCIPAL = "dynamodb.amazonaws.com"

#: a change-log line as the emulator writes it (columnar_copies.py's LOG_LINE)
_LOG_LINE = LOG_LINE

#: the change log as a DataFrame: one row per change, in this order and with these types
CHANGE_LOG_SCHEMA = StructType(
    [
        StructField("account", StringType()),
        StructField("region", StringType()),
        StructField("stream_label", StringType()),
        StructField("table", StringType()),
        StructField("shard", StringType()),
        StructField("sequence_number", DecimalType(21, 0)),
        StructField("commit_version", LongType()),
        StructField("commit_timestamp", TimestampType()),
        StructField("commit_records", LongType()),
        StructField("event_id", StringType()),
        StructField("event_name", StringType()),
        StructField("keys", StringType()),
        StructField("old_image", StringType()),
        StructField("new_image", StringType()),
        _LOG_LINE["user_identity"],
    ]
)

_SEGMENT_PATH = r"/streams/([^/]+)/([^/]+)/([^/]+)/([^/]+)/([^/]+)/[^/]+$"


def read_change_log(
    spark: SparkSession,
    state_dir: str | os.PathLike[str],
    *,
    tables: Iterable[str] | None = None,
    attributes: Iterable[str] | None = None,
) -> DataFrame:
    """Every change in the segment files under `state_dir` (or only `tables`'), as CHANGE_LOG_SCHEMA.

    `attributes`: the images are parsed in the scan, as structs of only these attributes (each a
    dynamodb_json.ATTRIBUTE_VALUE) instead of their JSON text: a job that needs a few attributes of
    every image skips the rest of each image instead of copying it out and parsing it again.
    A sealed segment with a columnar copy is read from the copy (no JSON to parse), any other from its lines.
    A line being written while this reads (a torn tail) is skipped; so is anything that is not a segment.
    """
    schema = _LOG_LINE
    if attributes is not None:
        from ..dynamodb_json import ATTRIBUTE_VALUE

        image = StructType([StructField(name, ATTRIBUTE_VALUE) for name in dict.fromkeys(attributes)])
        schema = StructType(
            [StructField(f.name, image) if f.name in ("old_image", "new_image") else f for f in _LOG_LINE.fields]
        )
    files = _segment_files(spark, state_dir, tables)
    # input_file_name(), not _metadata.file_path: a projection of the latter makes Spark build the whole _metadata
    # struct for every line even when no path-derived column is read (a fifth of a job's scan)
    parts = []
    if files.lines:
        parts.append(_typed(_read_lines(spark, files.lines, schema), F.input_file_name()))
    if files.copies:
        parts.append(_typed(as_log_lines(read_copies(spark, files.copies), attributes), F.input_file_name()))
    if not parts:
        return spark.createDataFrame([], _typed_schema(schema))
    return parts[0] if len(parts) == 1 else parts[0].unionByName(parts[1])


def read_ttl_deletion_candidates(
    spark: SparkSession,
    state_dir: str | os.PathLike[str],
    *,
    tables: Iterable[str] | None = None,
    observe: Callable[[DataFrame], DataFrame] | None = None,
) -> DataFrame:
    """The change-log lines that mention the TTL service (CHANGE_LOG_SCHEMA): every TTL deletion, and
    maybe a few more (filter them exactly). The lines are picked by their text before any JSON is parsed:
    TTL deletions are a small part of a log, and parsing is most of what reading a log costs; in a columnar
    copy, by their user identity. `observe` gets every line of the log (to count them): the JSON lines and
    the copies' rows, one DataFrame each."""
    files = _segment_files(spark, state_dir, tables)
    parts = []
    if files.lines:
        lines = spark.read.text(files.lines).select("value", F.input_file_name().alias("path"))
        lines = observe(lines) if observe else lines
        # The identity is a line's last member: a line torn before it does not match, so from_json's partial
        # results (for a line torn inside the last few characters) never lack anything a deletion needs.
        candidates = lines.where(F.col("value").contains(TTL_PRINCIPAL))
        # inline(array(...)) parses each line once: a plain projection would let Spark copy from_json into every
        # filter and column that reads a member of it, and parse the line again for each
        parsed = candidates.select(F.inline(F.array(F.struct(F.from_json("value", _LOG_LINE).alias("line"), "path"))))
        parts.append(_typed(parsed.select("line.*", "path"), F.col("path")).where(F.col("sequence_number").isNotNull()))
    if files.copies:
        copies = read_copies(spark, files.copies)
        copies = observe(copies) if observe else copies
        candidates = copies.where(F.col("user_identity.principalId") == TTL_PRINCIPAL)
        parts.append(_typed(as_log_lines(candidates), F.input_file_name()))
    if not parts:
        return spark.createDataFrame([], CHANGE_LOG_SCHEMA)
    return parts[0] if len(parts) == 1 else parts[0].unionByName(parts[1])


class _SegmentFiles(NamedTuple):
    lines: list[str]  #: segments read from their JSON lines
    copies: list[str]  #: columnar copies read instead of their segments' lines


def _segment_files(
    spark: SparkSession, state_dir: str | os.PathLike[str], tables: Iterable[str] | None
) -> _SegmentFiles:
    """The segment files of `tables` (None: every table) under `state_dir`: a sealed segment's columnar copy
    where it has one (a copy without its segment is a segment trimmed while listing), else its lines."""
    state_dir = str(state_dir).rstrip("/")
    require_filesystem(spark, state_dir)
    require_state_dir(spark, state_dir)
    names = sorted(set(tables)) if tables is not None else None
    if names == []:
        return _SegmentFiles([], [])
    table_glob = "*" if names is None else (names[0] if len(names) == 1 else "{" + ",".join(names) + "}")
    fs, pattern = hadoop(spark, f"{state_dir}/streams/*/*/{table_glob}/*/*/*.{{jsonl,parquet}}")
    found = sorted(status.getPath().toString() for status in fs.globStatus(pattern) or [])
    segments = {path.removesuffix(".jsonl") for path in found if path.endswith(".jsonl")}
    copies = [path for path in found if path.endswith(".parquet") and path.removesuffix(".parquet") in segments]
    copied = {path.removesuffix(".parquet") for path in copies}
    return _SegmentFiles(
        [path for path in found if path.endswith(".jsonl") and path.removesuffix(".jsonl") not in copied], copies
    )


def _read_lines(spark: SparkSession, paths: list[str], schema: StructType) -> DataFrame:
    return spark.read.schema(schema).option("mode", "DROPMALFORMED").json(paths)


def _typed(lines: DataFrame, path: Column) -> DataFrame:
    """Log lines (parsed) as CHANGE_LOG_SCHEMA: account, region and stream label from the file's path."""
    label = F.regexp_extract(path, _SEGMENT_PATH, 4)
    return change_log_rows(
        lines,
        account=F.regexp_extract(path, _SEGMENT_PATH, 1),
        region=F.regexp_extract(path, _SEGMENT_PATH, 2),
        # the folder spells the label's ':' as '-': 2015-05-11T21-21-33.291 is 2015-05-11T21:21:33.291
        stream_label=F.regexp_replace(label, r"T(\d\d)-(\d\d)-", "T$1:$2:"),
    )


def change_log_rows(lines: DataFrame, *, account: Column, region: Column, stream_label: Column) -> DataFrame:
    """Change-log lines (_LOG_LINE: a table's segments, a bucket's object changes) as CHANGE_LOG_SCHEMA rows, with
    where they came from (account, region, stream label)."""
    return lines.select(
        account.alias("account"),
        region.alias("region"),
        stream_label.alias("stream_label"),
        "table",
        "shard",
        F.col("sequence_number").cast(DecimalType(21, 0)).alias("sequence_number"),
        "commit_version",
        F.timestamp_micros(F.round(F.col("commit_timestamp") * 1_000_000).cast(LongType())).alias("commit_timestamp"),
        "commit_records",
        "event_id",
        "event_name",
        "keys",
        "old_image",
        "new_image",
        "user_identity",
    )


def _typed_schema(line: StructType) -> StructType:
    images = {f.name: f for f in line.fields if f.name in ("old_image", "new_image")}
    return StructType([images.get(f.name, f) for f in CHANGE_LOG_SCHEMA.fields])


def read_stream_descriptions(spark: SparkSession, state_dir: str | os.PathLike[str], table: str) -> list[dict]:
    """Every `stream.json` of `table`'s streams under `state_dir` (key schema, status, whether the table was
    deleted, its stream label), oldest stream first; [] if the table never had a stream."""
    state_dir = str(state_dir).rstrip("/")
    require_filesystem(spark, state_dir)
    require_state_dir(spark, state_dir, change_log=False)  # none: ChangeTrackingError says more than 'no log'
    fs, pattern = hadoop(spark, f"{state_dir}/streams/*/*/{table}/*/stream.json")
    found = fs.globStatus(pattern) or []
    descriptions = [read_json_file(spark, status.getPath().toString().removeprefix("file:")) for status in found]
    return sorted((d for d in descriptions if d), key=lambda d: d["label"])


def read_emulator_time(spark: SparkSession, state_dir: str | os.PathLike[str]) -> float:
    """The emulator's time now, in epoch seconds: the computer's plus the emulator clock's offset from it, which
    the emulator keeps in `<state_dir>/clock.json` (emulator/storage/clock_file.py: an advanced clock, a custom
    source); the computer's time if there is no such file."""
    clock = read_json_file(spark, f"{str(state_dir).rstrip('/')}/clock.json")
    return time.time() + (float(clock["offset"]) if clock else 0.0)


def require_state_dir(spark: SparkSession, state_dir: str | os.PathLike[str], *, change_log: bool = True) -> None:
    """Raise MissingChangeLogError, naming the path, unless `state_dir` exists and (`change_log`) holds the tables'
    change log (its streams/ folder), so that a wrong path is never read as a log without changes."""
    path = str(state_dir).rstrip("/") or "/"
    shown = os.path.abspath(path) if scheme_of(path) in ("", "file") else path
    if not exists(spark, path):
        raise MissingChangeLogError(
            f"state directory {shown} does not exist: give the directory `eddy serve --state-dir` or "
            f"emulate(state_dir=...) writes (--state-dir; default .eddy in the current directory)"
        )
    if change_log and not exists(spark, f"{path}/streams"):
        raise MissingChangeLogError(
            f"{shown} holds no change log (no streams/ folder): it is not an Eddy state directory, or no table "
            f"in it has had a DynamoDB stream yet"
        )

"""The Lakehouse's table-stream SQL, run against Eddy's tables and Spark's catalog: TableStreams.sql(statement).

    CREATE [OR REPLACE] TABLE STREAM [IF NOT EXISTS] s ON TABLE t [TIMESTAMP AS OF expr]
    CREATE [OR REPLACE] STREAM [IF NOT EXISTS] s ON VOLUME v [TIMESTAMP AS OF expr]   -- after CREATE EXTERNAL VOLUME
        [WITH PROPERTIES ('TABLE_STREAM_MODE' = 'STANDARD' | 'APPEND_ONLY', 'SHOW_INITIAL_ROWS' = 'TRUE')]
    DROP [TABLE] STREAM [IF EXISTS] s          SHOW [TABLE] STREAMS
    ALTER TABLE t SET PROPERTIES ('change_tracking' = 'true' | 'false')    -- the table's DynamoDB stream
    CREATE TABLE x (id INT, name VARCHAR, age INT)                          -- a Parquet table in Spark's catalog
    SELECT ... FROM s ...                      -- reads the stream; never moves its offset
    INSERT INTO x SELECT ... FROM s ...        -- consumes: the offset moves once the insert has run
    MERGE INTO x USING s ON ... WHEN ...       -- consumes; Eddy runs the MERGE on the Parquet table (merge.py)

Any other statement goes to Spark SQL as it is (with the streams it names as views of their change sets).
A statement names a stream by its name, as it would a table. A DML statement consumes the one stream it
reads; a failure leaves the offset where it was.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any, Protocol

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from . import merge
from .errors import StreamExistsError, StreamNotFoundError


class TableStreams(Protocol):
    """What the statements use of table_streams.TableStreams (which runs them: TableStreams.sql)."""

    spark: Any
    offsets_dir: Path

    def create(self, name: str, table: str, **options: Any) -> Any: ...

    def create_volume_stream(self, name: str, location: str, **options: Any) -> Any: ...

    def get(self, name: str) -> Any: ...

    def drop(self, name: str) -> None: ...

    def names(self) -> list[str]: ...


_FLAGS = re.I | re.S
_CREATE_STREAM = re.compile(
    r"^CREATE\s+(?P<replace>OR\s+REPLACE\s+)?TABLE\s+STREAM\s+(?P<if_not>IF\s+NOT\s+EXISTS\s+)?(?P<name>\w+)"
    r"\s+ON\s+TABLE\s+(?P<table>[\w.-]+)(?:\s+TIMESTAMP\s+AS\s+OF\s+(?P<at>.+?))?"
    r"(?:\s+WITH\s+PROPERTIES\s*\((?P<properties>.*)\))?$",
    _FLAGS,
)
_DROP_STREAM = re.compile(r"^DROP\s+(?:TABLE\s+)?STREAM\s+(?P<if_exists>IF\s+EXISTS\s+)?(?P<name>\w+)$", _FLAGS)
_SHOW_STREAMS = re.compile(r"^SHOW\s+(?:TABLE\s+)?STREAMS$", _FLAGS)
_ALTER_TABLE = re.compile(
    r"^ALTER\s+TABLE\s+(?P<table>[\w.-]+)\s+SET\s+(?:TBL)?PROPERTIES\s*\((?P<properties>.*)\)$", _FLAGS
)
_CREATE_TABLE = re.compile(
    r"^CREATE\s+(?:OR\s+REPLACE\s+)?TABLE\s+(?!STREAM\b)(?:IF\s+NOT\s+EXISTS\s+)?[\w.`]+\s*\(", _FLAGS
)
_PROPERTY = re.compile(
    r"""['"]?(?P<key>[\w.]+)['"]?\s*=\s*(?:'(?P<quoted>[^']*)'|"(?P<double>[^"]*)"|(?P<bare>[\w.]+))"""
)
_CREATE_VOLUME = re.compile(
    r"^CREATE\s+(?:OR\s+REPLACE\s+)?EXTERNAL\s+VOLUME\s+(?:IF\s+NOT\s+EXISTS\s+)?(?P<name>\w+)\s+LOCATION\s+'(?P<location>[^']+)'"
    r"(?:\s+DIRECTORY\s*=\s*\(\s*ENABLE\s*=\s*(?P<directory>TRUE|FALSE)\s*\))?"
    r"(?:\s+RECURSIVE\s*=\s*(?P<recursive>TRUE|FALSE))?$",
    _FLAGS,
)
_VOLUME_STREAM = re.compile(
    r"^CREATE\s+(?P<replace>OR\s+REPLACE\s+)?STREAM\s+(?P<if_not>IF\s+NOT\s+EXISTS\s+)?(?P<name>\w+)\s+ON\s+VOLUME\s+"
    r"(?P<volume>\w+)(?:\s+TIMESTAMP\s+AS\s+OF\s+(?P<at>.+?))?(?:\s+WITH\s+PROPERTIES\s*\((?P<properties>.*)\))?$",
    _FLAGS,
)
_DML = re.compile(r"^(INSERT|MERGE)\b", re.I)


class StreamSqlError(ValueError):
    """A statement of the table-stream dialect that Eddy cannot run as written."""


def run(streams: "TableStreams", statement: str, *, dynamodb: Any = None) -> DataFrame | None:
    """Run one statement; a query's rows as a DataFrame, None for anything else."""
    text = statement.strip().rstrip(";").strip()
    for pattern, handler in (
        (_CREATE_STREAM, _create_stream),
        (_DROP_STREAM, _drop_stream),
        (_SHOW_STREAMS, _show_streams),
        (_ALTER_TABLE, _alter_table),
        (_CREATE_VOLUME, _create_volume),
        (_VOLUME_STREAM, _volume_stream),
    ):
        match = pattern.match(text)
        if match is not None:
            return handler(streams, match, dynamodb)
    if _CREATE_TABLE.match(text):
        streams.spark.sql(_parquet_table(text))
        return None
    named = _streams_named(streams, text)
    if _DML.match(text):
        if len(named) > 1:
            raise StreamSqlError(f"a statement consumes one stream at a time; this one reads {', '.join(named)}")
        if named:
            stream = streams.get(named[0])
            if merge.is_merge(text):
                stream.consume(lambda rows, batch_id: _merge(streams, stream.name, rows, text))
            else:
                stream.consume_sql(text)
            return None
        if merge.is_merge(text):
            merge.merge_into(streams.spark, text)
            return None
        streams.spark.sql(text).collect()
        return None
    for name in named:
        streams.get(name).create_temp_view()
    result = streams.spark.sql(text)
    return result if result.columns else None


def _merge(streams: "TableStreams", name: str, rows: DataFrame, text: str) -> None:
    rows.createOrReplaceTempView(name)
    merge.merge_into(streams.spark, text)


def _create_stream(streams: "TableStreams", match: re.Match[str], dynamodb: Any) -> None:
    properties = _properties(match["properties"])
    unknown = set(properties) - {"table_stream_mode", "show_initial_rows"}
    if unknown:
        raise StreamSqlError(
            f"unknown table stream properties: {', '.join(sorted(unknown))} (TABLE_STREAM_MODE, SHOW_INITIAL_ROWS)"
        )
    mode = properties.get("table_stream_mode", "STANDARD").upper()
    initial = properties.get("show_initial_rows", "false").lower() == "true"
    name = match["name"]
    if match["if_not"] and name in streams.names():
        return None
    if match["replace"] is None and name in streams.names():
        raise StreamExistsError(f"table stream {name} exists already (CREATE OR REPLACE TABLE STREAM starts it over)")
    at = _epoch(streams, match["at"]) if match["at"] else None
    streams.create(name, match["table"], mode=mode, at_timestamp=at, show_initial_rows=initial, replace=True)
    return None


def _create_volume(streams: "TableStreams", match: re.Match[str], dynamodb: Any) -> None:
    """An external volume: a name for an S3 location (kept in <offsets_dir>/volumes/<name>.json)."""
    from .io import write_json_file
    from .volume_streams import parse_location

    parse_location(match["location"])
    write_json_file(
        streams.offsets_dir / "volumes" / f"{match['name']}.json",
        {
            "name": match["name"],
            "location": match["location"],
            "recursive": (match["recursive"] or "TRUE").upper() == "TRUE",
        },
    )
    return None


def _volume_stream(streams: "TableStreams", match: re.Match[str], dynamodb: Any) -> None:
    from .io import read_json_file

    volume = read_json_file(None, str(streams.offsets_dir / "volumes" / f"{match['volume']}.json"))
    if volume is None:
        raise StreamSqlError(f"no external volume named {match['volume']} (CREATE EXTERNAL VOLUME ... LOCATION ...)")
    properties = _properties(match["properties"])
    mode = properties.get("table_stream_mode", "STANDARD").upper()
    if match["if_not"] and match["name"] in streams.names():
        return None
    at = _epoch(streams, match["at"]) if match["at"] else None
    streams.create_volume_stream(
        match["name"],
        volume["location"],
        mode=mode,
        recursive=volume["recursive"],
        at_timestamp=at,
        replace=match["replace"] is not None,
    )
    return None


def _drop_stream(streams: "TableStreams", match: re.Match[str], dynamodb: Any) -> None:
    try:
        streams.drop(match["name"])
    except StreamNotFoundError:
        if not match["if_exists"]:
            raise
    return None


def _show_streams(streams: "TableStreams", match: re.Match[str], dynamodb: Any) -> DataFrame:
    rows = []
    for name in streams.names():
        state = streams.get(name).state
        rows.append((name, state["table"], state["mode"], state["offset"], float(state["created_at"])))
    frame = streams.spark.createDataFrame(
        rows, "name string, table_name string, mode string, offset bigint, created_at double"
    )
    return frame.withColumn("created_at", F.timestamp_micros((F.col("created_at") * 1_000_000).cast("bigint")))


def _alter_table(streams: "TableStreams", match: re.Match[str], dynamodb: Any) -> None:
    properties = _properties(match["properties"])
    if set(properties) != {"change_tracking"}:
        raise StreamSqlError(
            "ALTER TABLE ... SET PROPERTIES takes 'change_tracking' = 'true' | 'false' "
            "(a table's change tracking is its DynamoDB stream)"
        )
    table, enable = match["table"], properties["change_tracking"].lower() == "true"
    client = dynamodb or _dynamodb_client()
    current = client.describe_table(TableName=table)["Table"].get("StreamSpecification") or {}
    if bool(current.get("StreamEnabled")) == enable:
        return None
    specification = (
        {"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"} if enable else {"StreamEnabled": False}
    )
    client.update_table(TableName=table, StreamSpecification=specification)
    return None


def _dynamodb_client() -> Any:
    import boto3

    return boto3.client(
        "dynamodb", region_name=os.environ.get("AWS_DEFAULT_REGION") or os.environ.get("AWS_REGION") or "us-east-1"
    )


def _properties(text: str | None) -> dict[str, str]:
    if not text:
        return {}
    found = {}
    for part in merge.split_top_level(text):
        match = _PROPERTY.fullmatch(part.strip())
        if match is None:
            raise StreamSqlError(f"'key' = 'value' expected in PROPERTIES, not {part!r}")
        value = (
            match["quoted"]
            if match["quoted"] is not None
            else match["double"]
            if match["double"] is not None
            else match["bare"]
        )
        found[match["key"].lower()] = value
    return found


def _parquet_table(text: str) -> str:
    """The seed's CREATE TABLE as Spark's: a bare VARCHAR is a STRING, and the table is Parquet."""
    text = re.sub(r"\bVARCHAR\b(?!\s*\()", "STRING", text, flags=re.I)
    return text if re.search(r"\)\s*USING\s+\w+", text, re.I) else re.sub(r"\)\s*$", ") USING parquet", text)


def _streams_named(streams: "TableStreams", text: str) -> list[str]:
    """The streams a statement names (a stream's name as a word outside quotes)."""
    bare = re.sub(r"'[^']*'", "''", text)
    words = {word.lower() for word in re.findall(r"[A-Za-z_][A-Za-z0-9_]*", bare)}
    return [name for name in streams.names() if name.lower() in words]


def _epoch(streams: "TableStreams", expression: str) -> float:
    """TIMESTAMP AS OF's expression (a literal or any Spark SQL expression) as epoch seconds."""
    micros = streams.spark.sql(f"SELECT unix_micros(CAST({expression} AS TIMESTAMP))").first()[0]
    if micros is None:
        raise StreamSqlError(f"TIMESTAMP AS OF {expression}: not a timestamp")
    return micros / 1_000_000

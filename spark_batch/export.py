"""`eddy export`: a table's DynamoDB export files, full and incremental, made from Eddy.

    eddy export --table orders --to exports/ [--state-dir .eddy] [--format both|full|incremental]
                [--endpoint-url http://127.0.0.1:4566] [--from-time ISO] [--to-time ISO]

Both land where DynamoDB's ExportTableToPointInTime puts them, `<to>/AWSDynamoDB/<export id>/`:
_started, manifest-summary.json and manifest-files.json with their .checksum files, and data/*.json.gz.

- Full export: one `{"Item": {...}}` line per item, the table as of its latest commit (or `--to-time`). By
  default rebuilt from the change log, which needs the table's whole history there (its stream on since
  its first write, nothing trimmed; IncompleteHistoryError says otherwise). With `--endpoint-url` the
  items come from a Scan of the live table instead (boto3; Eddy's server or any DynamoDB), and the
  export's time is that of the last commit in the log before the scan began, so that "the export plus
  every change from its exportTime on" is the table whatever was written during the scan.
- Incremental export: one line per item changed in [from, to) (default: all the retained log),
  `{"Metadata": {"WriteTimestampMicros": {"N": ...}}, "Keys": ..., "OldImage": ..., "NewImage": ...}`
  with the item as it was at `from` (OldImage, absent if it did not exist) and at `to` (NewImage,
  absent if deleted); an item created and deleted inside the period is left out, as on AWS.
"""

from __future__ import annotations

import uuid
from datetime import datetime, timezone
from typing import Any, Callable

from pyspark.sql import Column, DataFrame, SparkSession
from pyspark.sql import functions as F

from . import changes, io
from .table_history import consistent_cut, current_history, since_last_deletion, unlogged_silent_versions

DEFAULT_ACCOUNT, DEFAULT_REGION = "123456789012", "us-east-1"


def full_export_lines(
    log: DataFrame, table: str, *, silent: dict[int, float] | None = None, to_time: datetime | None = None
) -> tuple[DataFrame, int]:
    """(`{"Item": ...}` lines, commit version) of the table as of `to_time` (None: its latest whole commit), from
    its change log. `silent`: the table's commit versions that have no records (its creation, each enabling of
    its stream: table_history.unlogged_silent_versions) and their times; any other version missing from the log
    (trimmed, or written while its stream was off) raises IncompleteHistoryError. Reads `log` more than once."""
    records = log if to_time is None else log.where(F.col("commit_timestamp") < F.lit(to_time))
    quiet = [version for version, at in (silent or {}).items() if to_time is None or at < to_time.timestamp()]
    cut = consistent_cut(records, table, after=None, horizon=float("-inf"), silent=quiet)
    lines = changes.table_state(records, at=cut).select(F.concat(F.lit('{"Item":'), "item", F.lit("}")).alias("value"))
    return lines, cut


def incremental_export_lines(
    log: DataFrame, *, from_time: datetime | None = None, to_time: datetime | None = None
) -> DataFrame:
    """Incremental-export lines of the items changed in [from_time, to_time)."""
    records = log
    if from_time is not None:
        records = records.where(F.col("commit_timestamp") >= F.lit(from_time))
    if to_time is not None:
        records = records.where(F.col("commit_timestamp") < F.lit(to_time))
    items = changes.net_per_item(records)
    existed = F.col("first.event_name") != "INSERT"
    exists = F.col("last.event_name") != "REMOVE"
    line = F.concat(
        F.lit('{"Metadata":{"WriteTimestampMicros":{"N":"'),
        F.unix_micros("last.commit_timestamp").cast("string"),
        F.lit('"}},"Keys":'),
        F.col("last.keys"),
        _member("OldImage", F.when(existed, F.col("first.old_image"))),
        _member("NewImage", F.when(exists, F.col("last.new_image"))),
        F.lit("}"),
    )
    return items.where(existed | exists).select(line.alias("value"))


def _member(name: str, value: Column) -> Column:
    return F.coalesce(F.concat(F.lit(f',"{name}":'), value), F.lit(""))


def scan_export_lines(spark: SparkSession, table: str, *, endpoint_url: str | None, region: str | None) -> DataFrame:
    """`{"Item": ...}` lines from a Scan of the live table, through boto3."""
    import json

    from eddy.emulator.aws_environment import session_for

    # at Eddy's endpoint, a machine without AWS configuration still has a region and (fake) credentials
    client = session_for(endpoint_url, region).client("dynamodb", endpoint_url=endpoint_url)
    lines = [
        json.dumps({"Item": item}, separators=(",", ":"))
        for page in client.get_paginator("scan").paginate(TableName=table)
        for item in page["Items"]
    ]
    return spark.createDataFrame([(line,) for line in lines], "value string")


def export_table(
    spark: SparkSession,
    state_dir: str,
    table: str,
    to: str,
    *,
    formats: tuple[str, ...] = ("full", "incremental"),
    scan: bool = False,
    endpoint_url: str | None = None,
    region: str | None = None,
    from_time: datetime | None = None,
    to_time: datetime | None = None,
) -> list[dict[str, Any]]:
    """Write the export(s) of `table` under `<to>/AWSDynamoDB/`; returns their manifest summaries (with the
    `directory` each went to). `scan`: the full export from a Scan (boto3, at `endpoint_url`), not the log."""
    # the table now under that name (a table deleted and created again is a new one): its streams' folders
    history = since_last_deletion(io.read_stream_descriptions(spark, state_dir, table))
    log = io.read_change_log(spark, state_dir, tables=[table]).where(F.col("table") == table)
    if history:
        log = log.where(F.col("stream_label").isin([d["label"] for d in history]))
    log = log.cache()
    where = log.select("account", "region").limit(1).collect()
    account, table_region = (
        (where[0]["account"], where[0]["region"]) if where else (DEFAULT_ACCOUNT, region or DEFAULT_REGION)
    )
    table_arn = f"arn:aws:dynamodb:{table_region}:{account}:table/{table}"

    def now() -> float:  # the emulator's time (clock.json), not the computer's
        return io.read_emulator_time(spark, state_dir)

    summaries = []
    if "full" in formats:
        started = _moment(now())
        if scan:
            export_time = _latest(log) or datetime.fromtimestamp(0, timezone.utc)
            lines = scan_export_lines(spark, table, endpoint_url=endpoint_url, region=region or table_region)
        else:
            if history or not log.take(1):  # (a log without stream.json, not Eddy's, is read as it is)
                current_history(history, table)  # ChangeTrackingError: no such table, or its stream is off
            lines, cut = full_export_lines(log, table, silent=unlogged_silent_versions(log, history), to_time=to_time)
            export_time = to_time or _latest(log.where(F.col("commit_version") <= cut)) or started
        summaries.append(
            _write(lines, to, table_arn, started, now, {"exportType": "FULL_EXPORT", "exportTime": _iso(export_time)})
        )
    if "incremental" in formats:
        started = _moment(now())
        lines = incremental_export_lines(log, from_time=from_time, to_time=to_time)
        first = log.agg(F.min("commit_timestamp")).first()[0]
        period = {
            "exportType": "INCREMENTAL_EXPORT",
            "outputView": "NEW_AND_OLD_IMAGES",
            "exportFromTime": _iso(from_time or (first.replace(tzinfo=timezone.utc) if first else started)),
            "exportToTime": _iso(to_time or started),
        }
        summaries.append(_write(lines, to, table_arn, started, now, period))
    log.unpersist()
    return summaries


def _write(
    lines: DataFrame, to: str, table_arn: str, started: datetime, now: Callable[[], float], fields: dict[str, Any]
) -> dict[str, Any]:
    export_id = f"{int(started.timestamp() * 1000):014d}-{uuid.uuid4().hex[:8]}"
    directory = f"{str(to).rstrip('/')}/AWSDynamoDB/{export_id}"
    summary = {
        "version": "2020-06-30",
        "exportArn": f"{table_arn}/export/{export_id}",
        "startTime": _iso(started),
        "tableArn": table_arn,
        "s3Prefix": str(to),
        **fields,
    }
    summary = io.write_export(lines, directory, summary)
    summary["endTime"] = _iso(_moment(now()))
    summary["directory"] = directory
    return summary


def _latest(log: DataFrame) -> datetime | None:
    last = log.agg(F.max("commit_timestamp")).first()[0]
    return last.replace(tzinfo=timezone.utc) if last else None


def _moment(epoch: float) -> datetime:
    return datetime.fromtimestamp(epoch, timezone.utc)


def _iso(moment: datetime) -> str:
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def parse_time(text: str | None) -> datetime | None:
    """An ISO 8601 time (UTC unless it says otherwise), or epoch seconds."""
    if not text:
        return None
    try:
        return datetime.fromtimestamp(float(text), timezone.utc)
    except ValueError:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
        return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)

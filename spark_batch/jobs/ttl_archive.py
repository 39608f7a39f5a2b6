"""Archive the items DynamoDB's TTL deleted: their old images, to Parquet partitioned by table and date.

    eddy spark ttl-archive --state-dir .eddy --out archive/          # or s3a://bucket/archive/

Only REMOVE records whose user identity is the TTL service ({"type": "Service", "principalId":
"dynamodb.amazonaws.com"}) count; a user's delete does not. One row per deleted item:

| column | type | |
| --- | --- | --- |
| table | string | partition column |
| date | date | partition column: the deletion's UTC date |
| deleted_at | timestamp | the REMOVE's commit time |
| sequence_number | decimal(21,0) | the REMOVE's sequence number |
| event_id | string | the REMOVE's eventID |
| keys | string | the item's Keys, DynamoDB JSON |
| item | string | the deleted item (the OldImage), DynamoDB JSON, so that no type is lost |

Running it again over the same (or an overlapping) change log adds nothing twice: rows whose (table,
date, sequence_number) the archive already holds are left out, then the rest is appended in one Spark job
(which commits whole or not at all). Only the lines that mention the TTL service are parsed as JSON
(io.read_ttl_deletion_candidates): that is what keeps the job close to the cost of a plain scan.
"""

from __future__ import annotations

import argparse
import sys

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from .. import io
from . import Counter, Summary, job_main, split_names, timed

ARCHIVE_KEY = ["table", "date", "sequence_number"]


def transform(log: DataFrame) -> DataFrame:
    """The TTL deletions among CHANGE_LOG_SCHEMA rows, as archive rows (the log holds each change once)."""
    by_ttl = (
        (F.col("event_name") == "REMOVE")
        & (F.col("user_identity.type") == "Service")
        & (F.col("user_identity.principalId") == io.TTL_PRINCIPAL)
    )
    return log.where(by_ttl).select(
        "table",
        F.to_date("commit_timestamp").alias("date"),
        F.col("commit_timestamp").alias("deleted_at"),
        "sequence_number",
        "event_id",
        "keys",
        F.col("old_image").alias("item"),
    )


def not_archived(rows: DataFrame, archive: DataFrame | None) -> DataFrame:
    """The rows the archive does not hold yet."""
    if archive is None:
        return rows
    return rows.join(archive.select(*ARCHIVE_KEY), ARCHIVE_KEY, "left_anti")


def run(spark: SparkSession, args: argparse.Namespace) -> Summary:
    def work(summary: Summary) -> None:
        counted_in, counted_out = Counter("in"), Counter("out")
        log = io.read_ttl_deletion_candidates(
            spark, args.state_dir, tables=split_names(args.tables) or None, observe=counted_in.through
        )
        rows = counted_out.through(not_archived(transform(log), io.read_parquet(spark, args.out)))
        io.append_parquet(rows, args.out, partition_by=["table", "date"])
        summary.rows_in, summary.rows_out, summary.output = counted_in.rows, counted_out.rows, args.out

    return timed("ttl-archive", work)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--state-dir", default=".eddy", help="Eddy's state directory (local or s3a://...)")
    parser.add_argument("--out", required=True, help="the archive: Parquet, partitioned by table and date")
    parser.add_argument("--tables", default="", help="only these tables (comma-separated; default all)")


def main(argv: list[str] | None = None) -> int:
    return job_main("ttl-archive", __doc__, add_arguments, run, argv)


if __name__ == "__main__":
    sys.exit(main())

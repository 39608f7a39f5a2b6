"""Usage metrics per time window and group: counts per event type, and sum/avg/min/max of chosen numbers.

    eddy spark aggregate --state-dir .eddy --out metrics/ --window 60 --numbers amount,quantity \\
        [--group-by customer] [--tables orders] [--dynamodb-table metrics --endpoint-url http://127.0.0.1:4566]

One row per (table, window, group values):

| column | type | |
| --- | --- | --- |
| table | string | the source table |
| window_start, window_end | timestamp | the tumbling window [start, end) the commit time falls in |
| <group attribute> | string | the attribute's value in the new image (the old one for a REMOVE), as text |
| records | bigint | changes in the window |
| INSERT, MODIFY, REMOVE | bigint | changes per event type |
| <number>_sum, _avg, _min, _max | decimal(38, scale) | over the new images that have the attribute as an N |

Written to Parquet (replacing what `--out` held), and with `--dynamodb-table` as one item per row, keyed
pk = "<table>#<window start, ISO 8601 UTC>[#<group values>]" (handlers.usage_metrics' key) and put whole,
so running the job again writes the same items.
"""

from __future__ import annotations

import argparse
import sys
from datetime import timezone
from decimal import Context, Decimal
from typing import Iterable, Iterator

from pyspark.sql import DataFrame, Observation, SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import DecimalType, StringType

from .. import io
from ..dynamodb_json import attribute_values
from . import Summary, job_main, split_names, timed

EVENTS = ("INSERT", "MODIFY", "REMOVE")
STATS = ("sum", "avg", "min", "max")


def transform(
    log: DataFrame,
    *,
    window_seconds: int = 60,
    numbers: Iterable[str] = (),
    group_by: Iterable[str] = (),
    scale: int = 6,
) -> DataFrame:
    """The metrics of CHANGE_LOG_SCHEMA rows (only `table`, `event_name`, `commit_timestamp` and the
    images are read; the images as text, or parsed down to these attributes in the scan)."""
    numbers, group_by = list(numbers), list(group_by)
    number = DecimalType(38, scale)
    new = attribute_values(log, "new_image", numbers + group_by)
    old = attribute_values(log, "old_image", group_by)
    width = int(window_seconds) * 1_000_000
    start = F.timestamp_micros(F.floor(F.unix_micros("commit_timestamp") / width) * width)
    rows = log.select(
        "table",
        "event_name",
        start.alias("window_start"),
        *[_text(F.coalesce(new[name], old[name])).alias(name) for name in group_by],
        *[new[name]["N"].try_cast(number).alias(f"__{name}") for name in numbers],
    )
    keys = ["table", "window_start", *group_by]
    # per event type first (the fewest updates per change), then the event types side by side
    fine = [F.count(F.lit(1)).alias("__records")]
    for name in numbers:
        value = F.col(f"__{name}")
        fine += [
            F.sum(value).alias(f"__{name}_sum"),
            F.count(value).alias(f"__{name}_count"),
            F.min(value).alias(f"__{name}_min"),
            F.max(value).alias(f"__{name}_max"),
        ]
    metrics = [
        F.sum("__records").alias("records"),
        *[
            F.coalesce(F.sum(F.when(F.col("event_name") == event, F.col("__records"))), F.lit(0)).alias(event)
            for event in EVENTS
        ],
    ]
    for name in numbers:
        total = F.sum(f"__{name}_sum")
        metrics += [
            total.cast(number).alias(f"{name}_sum"),
            (total / F.sum(f"__{name}_count")).cast(number).alias(f"{name}_avg"),
            F.min(f"__{name}_min").alias(f"{name}_min"),
            F.max(f"__{name}_max").alias(f"{name}_max"),
        ]
    end = F.col("window_start") + F.make_dt_interval(secs=F.lit(int(window_seconds)))
    return (
        rows.groupBy(*keys, "event_name")
        .agg(*fine)
        .groupBy(*keys)
        .agg(*metrics)
        .select(
            "table",
            "window_start",
            end.alias("window_end"),
            *group_by,
            "records",
            *EVENTS,
            *[f"{name}_{stat}" for name in numbers for stat in STATS],
        )
    )


def _text(value) -> F.Column:
    return F.coalesce(value["S"], value["N"], value["BOOL"].cast(StringType()))


def metric_items(rows: Iterable, group_by: list[str], window_seconds: int) -> Iterator[dict]:
    """Each metrics row as a DynamoDB item (DynamoDB JSON)."""
    for row in rows:
        start = row["window_start"].replace(tzinfo=timezone.utc)
        pk = "#".join([row["table"], start.strftime("%Y-%m-%dT%H:%M:%SZ"), *[str(row[name]) for name in group_by]])
        item = {
            "pk": {"S": pk},
            "table": {"S": row["table"]},
            "bucket_start": {"N": str(int(start.timestamp()))},
            "window_seconds": {"N": str(window_seconds)},
        }
        for name, value in row.asDict().items():
            if name in ("table", "window_start", "window_end") or value is None:
                continue
            item[name] = {"S": value} if name in group_by else {"N": _number(value)}
        yield item


def _number(value: int | Decimal) -> str:
    return format(value.normalize(Context(prec=38)), "f") if isinstance(value, Decimal) else str(value)


def run(spark: SparkSession, args: argparse.Namespace) -> Summary:
    numbers, group_by = split_names(args.numbers), split_names(args.group_by)

    def work(summary: Summary) -> None:
        log = io.read_change_log(
            spark, args.state_dir, tables=split_names(args.tables) or None, attributes=(numbers + group_by) or None
        )
        totals = Observation("totals")  # every change is in one row's `records`: no counting pass over the input
        metrics = transform(log, window_seconds=args.window, numbers=numbers, group_by=group_by, scale=args.scale)
        io.replace_parquet(
            metrics.observe(
                totals, F.count(F.lit(1)).alias("rows"), F.coalesce(F.sum("records"), F.lit(0)).alias("records")
            ),
            args.out,
        )
        summary.rows_in, summary.rows_out, summary.output = totals.get["records"], totals.get["rows"], args.out
        if args.dynamodb_table:
            written = io.put_items(
                metric_items(io.read_parquet(spark, args.out).toLocalIterator(), group_by, args.window),
                args.dynamodb_table,
                endpoint_url=args.endpoint_url,
                region=args.region,
            )
            summary.output += f" and {written:,} items in DynamoDB table {args.dynamodb_table}"

    return timed("aggregate", work)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--state-dir", default=".eddy", help="Eddy's state directory (local or s3a://...)")
    parser.add_argument("--out", required=True, help="where the metrics go, as Parquet (replaced)")
    parser.add_argument("--window", type=int, default=60, help="window width in seconds (default 60)")
    parser.add_argument("--numbers", default="", help="numeric attributes of the new images to sum/avg/min/max")
    parser.add_argument("--group-by", default="", help="attributes to group by besides table and window")
    parser.add_argument("--tables", default="", help="only these tables (comma-separated; default all)")
    parser.add_argument("--scale", type=int, default=6, help="digits after the point of the number metrics")
    parser.add_argument("--dynamodb-table", help="also put the metrics into this DynamoDB table (key pk, a String)")
    parser.add_argument("--endpoint-url", help="the DynamoDB endpoint for --dynamodb-table (e.g. Eddy's)")
    parser.add_argument("--region", help="the region for --dynamodb-table")


def main(argv: list[str] | None = None) -> int:
    return job_main("aggregate", __doc__, add_arguments, run, argv)


if __name__ == "__main__":
    sys.exit(main())

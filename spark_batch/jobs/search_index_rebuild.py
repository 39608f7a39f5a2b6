"""Rebuild the search index (handlers.search_index's SQLite FTS5 file) from a full export plus the changes
after it, to the same contents the handler keeps incrementally (`index_contents` compares them).

    eddy spark search-index-rebuild --export exports/AWSDynamoDB/<id> --state-dir .eddy \\
        --attributes title,body --index search.sqlite [--table books] [--keys pk]
    eddy spark search-index-rebuild --export <full export> --incremental <incremental export> ...

Each item's document is its last change at or after the export's exportTime (the change log's, or an
incremental export's), else its line in the export. Changes from before the export that are still in
the source do no harm: an item's last change is the item as the export has it. The change source must
hold every change from the exportTime on. Documents carry the sequence number of their last change (0
for items taken from the export; for incremental exports, the write time in microseconds), so the
handler can go on from the rebuilt index; deleted items stay as tombstones, as the handler leaves them.

The key attributes (to make a document's id from an exported item) come from `--keys`, else from the
Keys of the changes. The source table is `--table`, else the one the export's manifest names; documents
are filed under `--label` (the handler's SEARCH_TABLE_NAME), else the table's name.
"""

from __future__ import annotations

import argparse
import json
import sys
from datetime import datetime, timezone
from typing import Iterable, Iterator

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import MapType, StringType

from .. import io
from ..changes import canonical_json
from . import Counter, Summary, job_main, split_names, timed

DOCUMENT_COLUMNS = ["__key", "sequence_number", "keys", "item"]


def transform(items: DataFrame, changes: DataFrame, *, keys: list[str], since: datetime | None) -> DataFrame:
    """The final document source per item: `__key`, `sequence_number` (0: from the export), `keys` (the
    Keys JSON, null for exported items), `item` (the new image; null: deleted).

    `items`: FULL_EXPORT_SCHEMA; `changes`: CHANGE_LOG_SCHEMA columns sequence_number, commit_timestamp,
    keys, new_image (a REMOVE has none)."""
    attributes = F.from_json("item", MapType(StringType(), StringType()))
    exported = items.select(
        F.to_json(F.array_sort(F.map_entries(F.map_filter(attributes, lambda name, _: name.isin(*keys))))).alias(
            "__key"
        ),
        F.lit(0).cast("decimal(21,0)").alias("sequence_number"),
        F.lit(None).cast(StringType()).alias("keys"),
        "item",
    )
    later = changes if since is None else changes.where(F.col("commit_timestamp") >= F.lit(since))
    changed = later.select(
        canonical_json("keys").alias("__key"), "sequence_number", "keys", F.col("new_image").alias("item")
    )
    last = F.max(F.struct("sequence_number", "keys", "item")).alias("last")
    return exported.unionByName(changed).groupBy("__key").agg(last).select("__key", "last.*")


def documents(rows: Iterable, *, table: str, keys: list[str], attributes: list[str]) -> Iterator[tuple]:
    """(table, id, sequence, fields or None) per final row, as handlers.search_index files them."""
    from eddy.handlers import search_index
    from eddy.handlers.stream_records import canonical

    for row in rows:
        item = json.loads(row["item"]) if row["item"] is not None else None
        item_keys = json.loads(row["keys"]) if row["keys"] is not None else {name: item[name] for name in keys}
        fields = None if item is None else search_index._fields(item, attributes)
        yield table, canonical(item_keys), int(row["sequence_number"]), fields


def changes_from_incremental(export: DataFrame) -> DataFrame:
    """An incremental export's lines as changes: sequence number = write time in microseconds."""
    return export.select(
        F.unix_micros("write_timestamp").cast("decimal(21,0)").alias("sequence_number"),
        F.col("write_timestamp").alias("commit_timestamp"),
        "keys",
        "new_image",
    )


def run(spark: SparkSession, args: argparse.Namespace) -> Summary:
    def work(summary: Summary) -> None:
        manifest = io.export_summary(spark, args.export) or {}
        table = args.table or _table_name(manifest.get("tableArn"))
        if not table:
            raise SystemExit("search-index-rebuild: --table is needed (the export has no manifest naming it)")
        label = args.label or table
        since = _time(manifest.get("exportTime"))
        if args.incremental:
            changes = changes_from_incremental(io.read_incremental_export(spark, args.incremental))
        else:
            changes = io.read_change_log(spark, args.state_dir, tables=[table]).where(F.col("table") == table)
        keys = split_names(args.keys) or _key_names(changes)
        if not keys:
            raise SystemExit("search-index-rebuild: --keys is needed (no change names the key attributes)")
        counted_items, counted_changes, counted_out = Counter("items"), Counter("changes"), Counter("out")
        final = counted_out.through(
            transform(
                counted_items.through(io.read_full_export(spark, args.export)),
                counted_changes.through(changes),
                keys=keys,
                since=since,
            )
        )
        with io.staged_parquet(final, f"{args.index}.documents") as rows:  # the driver takes them a part at a time
            written = io.write_search_index(
                documents(rows.toLocalIterator(), table=label, keys=keys, attributes=split_names(args.attributes)),
                args.index,
            )
        summary.rows_in = counted_items.rows + counted_changes.rows
        summary.rows_out, summary.output = written, args.index

    return timed("search-index-rebuild", work)


def _key_names(changes: DataFrame) -> list[str]:
    first = changes.where(F.col("keys").isNotNull()).select("keys").limit(1).collect()
    return sorted(json.loads(first[0][0])) if first else []


def _table_name(table_arn: str | None) -> str | None:
    return table_arn.rsplit("/", 1)[-1] if table_arn else None


def _time(text: str | None) -> datetime | None:
    return datetime.fromisoformat(text.replace("Z", "+00:00")).astimezone(timezone.utc) if text else None


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--export", required=True, help="the full export: its directory (with data/ and manifests)")
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--state-dir", default=".eddy", help="the changes: Eddy's change log (default)")
    source.add_argument("--incremental", help="the changes: an incremental export's directory instead")
    parser.add_argument("--attributes", required=True, help="the indexed attributes (SEARCH_ATTRIBUTES)")
    parser.add_argument("--index", required=True, help="the SQLite file to write (replaced whole)")
    parser.add_argument("--table", help="the source table (default: the one the export's manifest names)")
    parser.add_argument("--label", help="the label documents are filed under (SEARCH_TABLE_NAME; default: the table)")
    parser.add_argument("--keys", help="the table's key attributes (default: from the changes)")


def main(argv: list[str] | None = None) -> int:
    return job_main("search-index-rebuild", __doc__, add_arguments, run, argv)


if __name__ == "__main__":
    sys.exit(main())

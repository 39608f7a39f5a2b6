"""What a range of one table's change log amounts to: net changes per item, and the table's state.

All transforms, DataFrame -> DataFrame, over CHANGE_LOG_SCHEMA rows of ONE table (filter first). Items are
told apart by their Keys; within an item, records are in sequence-number order (the order Eddy wrote
them, which is also commit order).

- `net_changes`: the minimal change set between two commit versions, as a Lakehouse table stream returns
  it: an item inserted and deleted inside the range nets to nothing; an item that existed before and
  still exists nets to UPDATE_BEFORE (its first old image) and UPDATE_AFTER (its last new image), or to
  nothing if the two are equal; an item that existed and is gone is one DELETE; a new one is one INSERT.
  INSERT and UPDATE_AFTER rows carry the version and time of the item's last commit in the range;
  UPDATE_BEFORE and DELETE rows carry those of the commit that wrote the old image (null if that commit
  is no longer in the log), as the Lakehouse does.
- `inserts`: every INSERT in the range, each with its own image (APPEND_ONLY streams).
- `table_state`: every item as of a commit version (the last record of each item, unless a REMOVE).
- `net_per_item`: first and last record of each item in a range (incremental exports are built on it).
- `item_columns`: a change set's rows with each item attribute a column (TableStream.read's shape).
- `apply_changes`: a replica (items' columns) after a table stream's change set (TableStream.apply_changes).
"""

from __future__ import annotations

import json

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F
from pyspark.sql.types import MapType, StringType

from .dynamodb_json import ItemType, ValueType


NET_CHANGES_COLUMNS = ["__change_type", "__commit_version", "__commit_timestamp", "__key", "__image"]


def canonical_json(column: Column | str) -> Column:
    """One spelling for a DynamoDB JSON object whatever the order of its attributes (to group and compare)."""
    parsed = F.from_json(F.col(column) if isinstance(column, str) else column, MapType(StringType(), StringType()))
    return F.to_json(F.array_sort(F.map_entries(parsed)))


def in_range(log: DataFrame, after: int | None, upto: int) -> DataFrame:
    """Records of commits after version `after` (None: from the first) up to and including `upto`."""
    rows = log.where(F.col("commit_version") <= upto)
    return rows if after is None else rows.where(F.col("commit_version") > after)


def net_per_item(records: DataFrame) -> DataFrame:
    """Per item: `__key`, `first` (sequence_number, event_name, old_image) and `last` (sequence_number,
    event_name, new_image, keys, commit_version, commit_timestamp) of its records."""
    return (
        records.withColumn("__key", canonical_json("keys"))
        .groupBy("__key")
        .agg(
            F.min(F.struct("sequence_number", "event_name", "old_image")).alias("first"),
            F.max(
                F.struct("sequence_number", "event_name", "new_image", "keys", "commit_version", "commit_timestamp")
            ).alias("last"),
        )
    )


def net_changes(log: DataFrame, *, after: int | None, upto: int) -> DataFrame:
    """The minimal change set of commits (after, upto]: NET_CHANGES_COLUMNS (`__image`: DynamoDB JSON)."""
    items = net_per_item(in_range(log, after, upto))
    existed = F.col("first.event_name") != "INSERT"
    exists = F.col("last.event_name") != "REMOVE"
    if after is None:
        items = items.withColumn("prior", F.lit(None).cast("struct<commit_version:bigint,commit_timestamp:timestamp>"))
    else:
        prior = (
            log.where(F.col("commit_version") <= after)
            .withColumn("__key", canonical_json("keys"))
            .groupBy("__key")
            .agg(F.max(F.struct("sequence_number", "commit_version", "commit_timestamp")).alias("prior"))
        )
        items = items.join(prior, "__key", "left")
    unchanged = existed & exists & (canonical_json("first.old_image") == canonical_json("last.new_image"))
    before = F.when(
        existed & ~unchanged,
        F.struct(
            F.when(exists, F.lit("UPDATE_BEFORE")).otherwise(F.lit("DELETE")).alias("__change_type"),
            F.col("prior.commit_version").alias("__commit_version"),
            F.col("prior.commit_timestamp").alias("__commit_timestamp"),
            F.col("first.old_image").alias("__image"),
        ),
    )
    after_ = F.when(
        exists & ~unchanged,
        F.struct(
            F.when(existed, F.lit("UPDATE_AFTER")).otherwise(F.lit("INSERT")).alias("__change_type"),
            F.col("last.commit_version").alias("__commit_version"),
            F.col("last.commit_timestamp").alias("__commit_timestamp"),
            F.col("last.new_image").alias("__image"),
        ),
    )
    return (
        items.select("__key", F.explode(F.array(before, after_)).alias("change"))
        .where(F.col("change").isNotNull())
        .select(
            "change.__change_type", "change.__commit_version", "change.__commit_timestamp", "__key", "change.__image"
        )
    )


def inserts(log: DataFrame, *, after: int | None, upto: int) -> DataFrame:
    """Every INSERT of commits (after, upto], each with its own new image: NET_CHANGES_COLUMNS."""
    return (
        in_range(log, after, upto)
        .where(F.col("event_name") == "INSERT")
        .select(
            F.lit("INSERT").alias("__change_type"),
            F.col("commit_version").alias("__commit_version"),
            F.col("commit_timestamp").alias("__commit_timestamp"),
            canonical_json("keys").alias("__key"),
            F.col("new_image").alias("__image"),
        )
    )


def table_state(log: DataFrame, *, at: int | None = None) -> DataFrame:
    """Every item as of commit version `at` (None: the latest): `keys`, `item` (DynamoDB JSON), and the
    `commit_version` and `commit_timestamp` of its last write. Needs the whole history: see table_history.consistent_cut."""
    records = log if at is None else log.where(F.col("commit_version") <= at)
    last = net_per_item(records).select("last.*")
    return last.where(F.col("event_name") != "REMOVE").select(
        "keys", F.col("new_image").alias("item"), "commit_version", "commit_timestamp"
    )


def version_range(log: DataFrame, after: int | None = None) -> tuple[int | None, int | None, int]:
    """(first, last, how many distinct) commit versions after `after` in `log`, in one pass."""
    rows = log if after is None else log.where(F.col("commit_version") > after)
    first, last, count = rows.agg(
        F.min("commit_version"), F.max("commit_version"), F.countDistinct("commit_version")
    ).first()
    return first, last, count


#: the columns a table stream adds to an item's (table_streams.py), in its rows' order
METADATA_COLUMNS = ["__change_type", "__commit_version", "__commit_timestamp"]


def apply_changes(replica: DataFrame | None, rows: DataFrame, keys: list[str]) -> DataFrame:
    """The replica after a change set: rows whose keys have a DELETE, INSERT or UPDATE_AFTER go, and the
    INSERT and UPDATE_AFTER rows come in (item columns only; new attributes become new columns)."""
    items = [name for name in rows.columns if name not in METADATA_COLUMNS and name != "__image"]
    incoming = rows.where(F.col("__change_type").isin("INSERT", "UPDATE_AFTER")).select(*items)
    if replica is None:
        return incoming
    touched = rows.where(F.col("__change_type").isin("DELETE", "INSERT", "UPDATE_AFTER")).select(*keys)
    kept = replica.join(touched, keys, "left_anti")
    return kept.unionByName(incoming, allowMissingColumns=True)


def stream_key_names(rows: DataFrame) -> list[str]:
    """The key attribute names, from one row's `__key` (cheap: the rows are cached)."""
    first = rows.where(F.col("__key").isNotNull()).select("__key").limit(1).collect()
    if not first:
        return []
    return [entry["key"] for entry in json.loads(first[0][0])]


def item_columns(
    rows: DataFrame, item_type: ItemType, keys: list[str], key_types: dict[str, str], *, raw: bool = False
) -> DataFrame:
    """A change set's rows with each item attribute its own column, the keys first, after the metadata columns (and
    `__image` when `raw`): an attribute no row has shown yet is a null of its type in `key_types` (a string if none)."""
    ordered = keys + [name for name in item_type.columns if name not in keys]
    return rows.withColumn("__item", item_type.decode("__image")).select(
        *METADATA_COLUMNS,
        *[
            (
                F.col("__item")[name]
                if name in item_type.columns
                else F.lit(None).cast(ValueType({key_types.get(name, "S")}).spark_type())
            ).alias(name)
            for name in ordered
        ],
        *(["__image"] if raw else []),
    )

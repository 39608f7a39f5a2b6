"""Parquet sinks: appended, or a directory replaced whole (staged, then swapped in; recovered after a crash)."""

from __future__ import annotations

import uuid
from contextlib import contextmanager
from typing import Iterable, Iterator

from pyspark.sql import DataFrame, SparkSession

from ..session import require_filesystem
from .files import delete, exists, matches, rename


def read_parquet(spark: SparkSession, path: str) -> DataFrame | None:
    """The Parquet data under `path`, or None if there is none yet (nothing there, or only the marker of a
    write that had no rows)."""
    require_filesystem(spark, path)
    if not matches(spark, f"{str(path).rstrip('/')}/[^_.]*"):  # data files or partition folders, not _SUCCESS
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
    had_previous = exists(spark, path)
    if had_previous:
        rename(spark, path, previous)
    rename(spark, staging, path)
    if had_previous:
        delete(spark, previous)


def recover_replaced(spark: SparkSession, path: str) -> None:
    """Undo a replace_parquet that stopped between its two renames."""
    previous = f"{str(path).rstrip('/')}.previous"
    if exists(spark, previous):
        if exists(spark, path):
            delete(spark, previous)
        else:
            rename(spark, previous, path)


@contextmanager
def staged_parquet(df: DataFrame, path: str) -> Iterator[DataFrame]:
    """Write `df` to Parquet at `path`, give it back read from there, and delete it afterwards (for a
    driver-side sink that iterates over the rows: the write runs the job once, whole)."""
    spark = df.sparkSession
    df.write.mode("overwrite").parquet(path)
    try:
        yield spark.read.parquet(path)
    finally:
        delete(spark, path)

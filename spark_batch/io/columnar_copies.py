"""Sealed segments' columnar copies (emulator/storage/columnar_segments.py) read as change-log lines.

A copy holds what its segment's lines hold (keys and images as their DynamoDB JSON text) and each image once
more as a map of attribute name -> AttributeValue (a struct: dynamodb_json.ATTRIBUTE_VALUE). Read here into
the very shape change_log reads the JSON lines in: images as their text, or, when a job names the attributes
it needs, as structs of only those, looked up in the maps: nothing to parse either way.
"""

from __future__ import annotations

from typing import Iterable

from pyspark.sql import Column, DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import (
    DoubleType,
    LongType,
    MapType,
    StringType,
    StructField,
    StructType,
)

from ..dynamodb_json import ATTRIBUTE_VALUE

_ITEM = MapType(StringType(), ATTRIBUTE_VALUE)
#: a change-log line as the emulator writes it (emulator/streams/records.py ChangeRecord.to_log_line)
LOG_LINE = StructType(
    [
        StructField("table", StringType()),
        StructField("shard", StringType()),
        StructField("sequence_number", StringType()),
        StructField("commit_version", LongType()),
        StructField("commit_timestamp", DoubleType()),
        StructField("commit_records", LongType()),
        StructField("event_id", StringType()),
        StructField("event_name", StringType()),
        StructField("keys", StringType()),
        StructField("old_image", StringType()),
        StructField("new_image", StringType()),
        StructField(
            "user_identity", StructType([StructField("type", StringType()), StructField("principalId", StringType())])
        ),
    ]
)
#: a copy's columns (emulator/storage/columnar_segments.py SCHEMA): a log line's, and each image's attributes
COPY_SCHEMA = StructType(
    [*LOG_LINE.fields, StructField("old_image_attributes", _ITEM), StructField("new_image_attributes", _ITEM)]
)
_LINE_MEMBERS = COPY_SCHEMA.names[:-2]


def read_copies(spark: SparkSession, paths: list[str]) -> DataFrame:
    """The copies' rows as they are (COPY_SCHEMA)."""
    return spark.read.schema(COPY_SCHEMA).parquet(*paths)


def as_log_lines(copies: DataFrame, attributes: Iterable[str] | None = None) -> DataFrame:
    """Copy rows as change_log's parsed lines: keys and images as JSON text, or images as structs of only
    `attributes` (each an ATTRIBUTE_VALUE) when given."""
    if attributes is None:
        return copies.select(*_LINE_MEMBERS)
    names = list(dict.fromkeys(attributes))

    def image(name: str) -> Column:
        item = F.col(f"{name}_attributes")
        return F.when(item.isNotNull(), F.struct(*[item[attribute].alias(attribute) for attribute in names])).alias(
            name
        )

    return copies.select(*[image(c) if c in ("old_image", "new_image") else c for c in _LINE_MEMBERS])

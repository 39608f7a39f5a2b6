"""DynamoDB exports to S3 (or a local copy): full and incremental, gzip or not, read and written.

Full exports hold `{"Item": {...}}` per line; incremental exports `{"Metadata": {"WriteTimestampMicros": ...},
"Keys": ..., "NewImage": ..., "OldImage": ...}`; both in `<export>/data/`, described by
`<export>/manifest-summary.json`. An export written here holds what DynamoDB's holds (DynamoDB developer guide,
"DynamoDB table export output format"): `_started`, `manifest-summary.json` and `manifest-files.json` each with its
`.checksum` (the MD5 of the file, hex), and `data/`; each manifest-files entry has the data file's MD5 (base64) as
`md5Checksum` and its S3 ETag (the MD5, hex, of a file written in one part) as `etag`.
"""

from __future__ import annotations

import base64
import hashlib
import json
import uuid
from typing import Any

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import (
    LongType,
    StringType,
    StructField,
    StructType,
    TimestampType,
)

from ..session import require_filesystem
from .files import (
    delete,
    list_files,
    read_bytes,
    read_json_file,
    read_json_lines,
    rename,
    write_text_file,
)

_EXPORT_LINE = StructType(
    [StructField(name, StringType()) for name in ("Item", "Metadata", "Keys", "NewImage", "OldImage")]
)
FULL_EXPORT_SCHEMA = StructType([StructField("item", StringType())])
INCREMENTAL_EXPORT_SCHEMA = StructType(
    [
        StructField("write_timestamp", TimestampType()),
        StructField("keys", StringType()),
        StructField("old_image", StringType()),
        StructField("new_image", StringType()),
    ]
)


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
    micros = F.coalesce(
        F.get_json_object("Metadata", "$.WriteTimestampMicros.N"),
        F.get_json_object("Metadata", "$.WriteTimestampMicros"),
    )
    return lines.where(F.col("Keys").isNotNull()).select(
        F.timestamp_micros(micros.cast(LongType())).alias("write_timestamp"),
        F.col("Keys").alias("keys"),
        F.col("OldImage").alias("old_image"),
        F.col("NewImage").alias("new_image"),
    )


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
        lines = read_json_lines(spark, pattern, _EXPORT_LINE)
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
    spark = lines.sparkSession
    write_text_file(spark, f"{export_dir}/_started", "")
    lines.write.mode("overwrite").option("compression", "gzip" if compress else "none").text(staging)
    files = []
    for source in list_files(spark, staging):
        name = source.rsplit("/", 1)[1]
        if not name.startswith("part-"):
            continue
        target = f"{export_dir}/data/{name.split('.', 1)[0][5:]}{'.json.gz' if compress else '.json'}"
        rename(spark, source, target)
        count = spark.read.text(target).count()
        digest = hashlib.md5(read_bytes(spark, target))
        files.append(
            {
                "itemCount": count,
                "md5Checksum": base64.b64encode(digest.digest()).decode(),
                "etag": digest.hexdigest(),
                "dataFileS3Key": target[len(export_dir) + 1 :],
            }
        )
    delete(spark, staging)
    _write_manifest(spark, f"{export_dir}/manifest-files", "".join(json.dumps(entry) + "\n" for entry in files))
    summary = {
        **summary,
        "itemCount": sum(entry["itemCount"] for entry in files),
        "manifestFilesS3Key": f"{export_dir}/manifest-files.json",
        "outputFormat": "DYNAMODB_JSON",
        "exportStatus": "COMPLETED",
    }
    _write_manifest(spark, f"{export_dir}/manifest-summary", json.dumps(summary, indent=2) + "\n")
    return summary


def _write_manifest(spark: SparkSession, name: str, text: str) -> None:
    """`<name>.json` and `<name>.checksum` (the JSON's MD5, hex)."""
    write_text_file(spark, f"{name}.json", text)
    write_text_file(spark, f"{name}.checksum", hashlib.md5(text.encode()).hexdigest())

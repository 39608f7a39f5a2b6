"""Small files on any Hadoop path: JSON state files (temp file, then os.replace), text files, and the
Hadoop FileSystem calls the other edges share."""

from __future__ import annotations

import json
import os
import uuid
from pathlib import Path
from typing import Any

from pyspark.errors import AnalysisException
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql.types import StructType

from ..jvm import java_class
from ..session import scheme_of


def read_json_file(spark: SparkSession | None, path: str) -> dict[str, Any] | None:
    """A small JSON file (local or remote), or None if it does not exist."""
    if scheme_of(path) in ("", "file"):
        local = Path(path.removeprefix("file://"))
        return json.loads(local.read_text()) if local.is_file() else None
    try:
        text = spark.read.text(path, wholetext=True).first()
    except AnalysisException:
        return None
    return json.loads(text[0]) if text else None


def write_json_file(path: str | os.PathLike[str], value: dict[str, Any]) -> None:
    """A small local JSON file, written to a temp file and swapped in with os.replace (never half-written)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{uuid.uuid4().hex}")
    temporary.write_text(json.dumps(value, indent=2, sort_keys=True) + "\n")
    os.replace(temporary, path)


def write_text_file(spark: SparkSession, path: str, text: str) -> None:
    if scheme_of(path) in ("", "file"):
        local = Path(path.removeprefix("file://"))
        local.parent.mkdir(parents=True, exist_ok=True)
        temporary = local.with_name(f".{local.name}.{uuid.uuid4().hex}")
        temporary.write_text(text)
        os.replace(temporary, local)
        return
    fs, hadoop_path = hadoop(spark, path)
    stream = fs.create(hadoop_path, True)
    try:
        stream.write(bytearray(text.encode()))
    finally:
        stream.close()


def hadoop(spark: SparkSession, path: str) -> tuple[Any, Any]:
    hadoop_path = java_class(spark, "org.apache.hadoop.fs.Path")(str(path))
    return hadoop_path.getFileSystem(spark.sparkContext._jsc.hadoopConfiguration()), hadoop_path


def matches(spark: SparkSession, pattern: str) -> bool:
    """Whether a path or glob matches anything."""
    fs, hadoop_path = hadoop(spark, pattern)
    found = fs.globStatus(hadoop_path)
    return found is not None and len(found) > 0


def exists(spark: SparkSession, path: str) -> bool:
    fs, hadoop_path = hadoop(spark, path)
    return fs.exists(hadoop_path)


def rename(spark: SparkSession, source: str, target: str) -> None:
    """Move one file. Only the file: on a local path Hadoop's checksum file system would move the hidden
    `.<name>.crc` beside it too, which is no part of what was written (it stays in the source's directory)."""
    fs, source_path = hadoop(spark, source)
    _, target_path = hadoop(spark, target)
    fs.mkdirs(target_path.getParent())
    checksummed = java_class(spark, "java.lang.Class").forName("org.apache.hadoop.fs.ChecksumFileSystem")
    files = fs.getRawFileSystem() if checksummed.isInstance(fs) else fs
    if not files.rename(source_path, target_path):
        raise OSError(f"could not rename {source} to {target}")


def read_bytes(spark: SparkSession, path: str) -> bytes:
    """A whole file's bytes, from any file system Spark reads."""
    return bytes(spark.read.format("binaryFile").load(path).select("content").first()[0])


def delete(spark: SparkSession, path: str) -> None:
    fs, hadoop_path = hadoop(spark, path)
    fs.delete(hadoop_path, True)


def list_files(spark: SparkSession, directory: str) -> list[str]:
    fs, hadoop_path = hadoop(spark, directory)
    return sorted(status.getPath().toString() for status in fs.listStatus(hadoop_path) if status.isFile())


def read_json_lines(spark: SparkSession, path: str, schema: StructType) -> DataFrame | None:
    """JSON lines under a glob, or None if nothing matches (asked first: a failed read is logged loudly)."""
    if not matches(spark, path):
        return None
    return spark.read.schema(schema).option("mode", "DROPMALFORMED").json(path)

"""Every read and write of the Spark batch path: the edges around the transforms.

change_log.py, exports.py, parquet.py, sinks.py and files.py hold them; this package names them all, so a job
writes `io.read_change_log(...)`.

Sources
- Eddy's change log: the segment files under `<state_dir>/streams/` (layout in docs/guides/durability.md), as one typed
  DataFrame, CHANGE_LOG_SCHEMA. Keys and images stay DynamoDB JSON text; `dynamodb_json` decodes them.
- DynamoDB exports to S3 (or a local copy): full exports, `{"Item": {...}}` per line, and incremental
  exports, `{"Metadata": {"WriteTimestampMicros": ...}, "Keys": ..., "NewImage": ..., "OldImage": ...}`,
  gzip or not, in `<export>/data/`, described by `<export>/manifest-summary.json`.

Sinks: Parquet (appended, or a directory replaced whole), export files, items in a DynamoDB table through
boto3, the search index's SQLite file, and small JSON state files (written to a temp file, os.replace).

Paths may be local or any Hadoop URL (s3a://...); a scheme Spark has no FileSystem for is refused up front
with MissingFileSystemError (the pyspark wheel has no hadoop-aws: see session.py).
"""

from .change_log import (
    CHANGE_LOG_SCHEMA,
    TTL_PRINCIPAL,
    read_change_log,
    read_emulator_time,
    read_stream_descriptions,
    read_ttl_deletion_candidates,
    require_state_dir,
)
from .exports import (
    FULL_EXPORT_SCHEMA,
    INCREMENTAL_EXPORT_SCHEMA,
    export_summary,
    export_type,
    read_full_export,
    read_incremental_export,
    write_export,
)
from .files import read_json_file, write_json_file, write_text_file
from .parquet import (
    append_parquet,
    read_parquet,
    recover_replaced,
    replace_parquet,
    staged_parquet,
)
from .sinks import put_items, write_search_index

__all__ = [
    "CHANGE_LOG_SCHEMA",
    "FULL_EXPORT_SCHEMA",
    "INCREMENTAL_EXPORT_SCHEMA",
    "TTL_PRINCIPAL",
    "append_parquet",
    "export_summary",
    "export_type",
    "put_items",
    "read_change_log",
    "read_emulator_time",
    "read_stream_descriptions",
    "read_full_export",
    "read_incremental_export",
    "read_json_file",
    "read_parquet",
    "read_ttl_deletion_candidates",
    "recover_replaced",
    "replace_parquet",
    "require_state_dir",
    "staged_parquet",
    "write_export",
    "write_json_file",
    "write_search_index",
    "write_text_file",
]

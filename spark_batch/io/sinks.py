"""Sinks outside Spark's files: items in a DynamoDB table through boto3, and the search index's SQLite file."""

from __future__ import annotations

import os
import uuid
from pathlib import Path
from typing import Any, Iterable


def put_items(
    rows: Iterable[dict[str, Any]], table: str, *, endpoint_url: str | None = None, region: str | None = None
) -> int:
    """PutItem each item (DynamoDB JSON) into `table` through boto3, batched; returns how many."""
    import boto3

    client = boto3.client("dynamodb", endpoint_url=endpoint_url, region_name=region)
    batch, written = [], 0
    for item in rows:
        batch.append({"PutRequest": {"Item": item}})
        if len(batch) == 25:
            written += _batch_write(client, table, batch)
            batch = []
    if batch:
        written += _batch_write(client, table, batch)
    return written


def _batch_write(client: Any, table: str, batch: list[dict]) -> int:
    pending = {table: batch}
    while pending:
        pending = client.batch_write_item(RequestItems=pending).get("UnprocessedItems") or {}
    return len(batch)


def write_search_index(documents: Iterable[tuple[str, str, int, dict | None]], path: str) -> int:
    """A new search index file (handlers.search_index's format) from (table, id, sequence, fields|None).

    Built beside `path` and swapped in with os.replace: readers see the old index or the new one.
    """
    from eddy.handlers import search_index

    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    building = target.with_name(f".{target.name}.{uuid.uuid4().hex}")
    count = 0
    try:
        with search_index._index(str(building)) as db:
            for table, id, sequence, fields in documents:
                search_index._apply(db, table, id, sequence, fields)
                count += fields is not None
        os.replace(building, target)
    finally:
        building.unlink(missing_ok=True)
    return count

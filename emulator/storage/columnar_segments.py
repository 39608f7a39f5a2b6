"""A sealed segment's columnar copy: `<first sequence number>.parquet` beside `<first sequence number>.jsonl`.

A segment is sealed once no record will be appended to it: a newer segment started, its shard closed, or the
emulator restarted (appends after a restart start a new segment). Its records then never change, so Spark can
read a Parquet copy instead of parsing the JSON lines again on every job: the JSON file stays the record of
truth (recovery reads it), the copy is what spark_batch reads when it is there. Written by a background thread,
to a hidden temporary file first and swapped in with os.replace, so a reader sees a whole copy or none.

The copy holds the lines' members, keys and images as their JSON text (byte for byte as the line has them),
and each image once more as a map of attribute name -> that attribute's AttributeValue as a struct of its
members (L and M as their JSON text, as spark_batch.dynamodb_json.ATTRIBUTE_VALUE has them): a reader of
whole images takes the text as it is, a job that names the attributes it needs looks them up, with no JSON
to parse either way.
"""

from __future__ import annotations

import contextlib
import functools
import gc
import importlib.util
import itertools
import json
import logging
import os
import queue
import subprocess
import sys
import threading
import uuid
from pathlib import Path
from typing import Any, Iterator

log = logging.getLogger(__name__)

SUFFIX = ".parquet"


def copies_possible() -> bool:
    """Whether this install can write columnar copies (pyarrow comes with `pip install "eddy[spark]"`); asked
    without importing pyarrow, which only the writer (a child process) loads."""
    return importlib.util.find_spec("pyarrow") is not None


@functools.cache
def arrow() -> tuple[Any, Any, Any]:
    """pyarrow, pyarrow.parquet and a copy's schema, loaded by the first copy written (the writer's process)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    #: one AttributeValue: every member as its type, L and M as their JSON text (spark_batch.dynamodb_json.ATTRIBUTE_VALUE)
    attribute_value = pa.struct(
        [
            ("S", pa.string()),
            ("N", pa.string()),
            ("B", pa.string()),
            ("BOOL", pa.bool_()),
            ("NULL", pa.bool_()),
            ("SS", pa.list_(pa.string())),
            ("NS", pa.list_(pa.string())),
            ("BS", pa.list_(pa.string())),
            ("L", pa.string()),
            ("M", pa.string()),
        ]
    )
    item = pa.map_(pa.string(), attribute_value)
    #: the columns of a copy, in the order of a change-log line's members (records.ChangeRecord.to_log_line)
    schema = pa.schema(
        [
            ("table", pa.string()),
            ("shard", pa.string()),
            ("sequence_number", pa.string()),
            ("commit_version", pa.int64()),
            ("commit_timestamp", pa.float64()),
            ("commit_records", pa.int64()),
            ("event_id", pa.string()),
            ("event_name", pa.string()),
            ("keys", pa.string()),
            ("old_image", pa.string()),
            ("new_image", pa.string()),
            ("user_identity", pa.struct([("type", pa.string()), ("principalId", pa.string())])),
            ("old_image_attributes", item),
            ("new_image_attributes", item),
        ]
    )
    return pa, pq, schema


#: the members held as text, and the maps made of images
_TEXTS = frozenset({"keys", "old_image", "new_image"})
_MAPS = {"old_image_attributes": "old_image", "new_image_attributes": "new_image"}
_NESTED = frozenset({"L", "M"})
_ROWS_PER_GROUP = 65_536
_ROWS_PER_BATCH = 2_048
_encode = json.JSONEncoder(separators=(",", ":")).encode  # as the line spells each value


def copy_path(segment: Path) -> Path:
    return segment.with_suffix(SUFFIX)


def write_columnar_copy(segment: Path) -> Path | None:
    """Write `segment`'s Parquet copy; None (and no copy) if the segment is gone or holds a line that is not a
    whole record (a reader then keeps reading the JSON lines, which skip it)."""
    target = copy_path(segment)
    temporary = target.with_name(f".{target.name}.{uuid.uuid4().hex}")
    try:
        _, pq, schema = arrow()
        with open(segment, "rb") as lines, pq.ParquetWriter(temporary, schema, compression="snappy") as writer:
            for table in _tables(lines):
                writer.write_table(table, row_group_size=_ROWS_PER_GROUP)
        os.replace(temporary, target)
        return target
    except (FileNotFoundError, ValueError, KeyError, TypeError, AttributeError) as error:
        log.debug("no columnar copy of %s: %s", segment, error)
        with contextlib.suppress(FileNotFoundError):
            os.remove(temporary)
        return None


def remove_columnar_copy(segment: Path) -> None:
    with contextlib.suppress(FileNotFoundError):
        os.remove(copy_path(segment))


def remove_temporary_copies(directory: Path) -> None:
    """Half-written copies a crash left behind."""
    for leftover in directory.glob(f".*{SUFFIX}.*"):
        with contextlib.suppress(FileNotFoundError):
            os.remove(leftover)


def _tables(lines: Any) -> Iterator[Any]:
    """The lines as tables of _ROWS_PER_GROUP rows, parsed a few thousand at a time, so that only that many
    lines are Python objects at once (Arrow arrays hold the rest)."""
    pa, _, schema = arrow()
    batches: list[Any] = []
    rows = 0
    while True:
        read = list(itertools.islice(lines, _ROWS_PER_BATCH))
        chunk = [line for line in read if line.strip()]
        if chunk:
            records = [json.loads(line) for line in chunk]
            # a line without '"L":' or '"M":' has no nested value: its items' entries are their attributes as they are
            nested = [b'"L":' in line or b'"M":' in line for line in chunk]
            columns = {name: [record.get(name) for record in records] for name in schema.names if name not in _MAPS}
            for name, image in _MAPS.items():
                columns[name] = [_entries(item, deep) for item, deep in zip(columns[image], nested)]
            for name in _TEXTS:
                columns[name] = [None if item is None else _encode(item) for item in columns[name]]
            batches.append(pa.RecordBatch.from_pydict(columns, schema=schema))
            rows += len(records)
        if rows >= _ROWS_PER_GROUP or (not read and rows):
            yield pa.Table.from_batches(batches, schema=schema)
            batches, rows = [], 0
        if not read:
            return


def _entries(item: dict[str, dict[str, Any]] | None, nested: bool) -> list[tuple[str, dict[str, Any]]] | None:
    """An item as the entries of an _ITEM map: L and M members become their JSON text."""
    if item is None:
        return None
    if nested:
        return [
            (name, {tag: _encode(member) if tag in _NESTED else member for tag, member in value.items()})
            for name, value in item.items()
        ]
    return list(item.items())


class ColumnarCopier:
    """Writes the copies of sealed segments, oldest first, in a child process (`python columnar_segments.py
    SEGMENT...`): off the write path, off this process's lock and garbage collector. One at a time."""

    def __init__(self) -> None:
        self._queue: queue.Queue[Path] = queue.Queue()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def seal(self, segment: Path) -> None:
        """`segment` will not change again: write its copy soon (if this install can: copies_possible())."""
        if not copies_possible():
            return
        with self._lock:
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="eddy-columnar-segments", daemon=True)
                self._thread.start()
        self._queue.put(segment)

    def wait(self) -> None:
        """Until every segment sealed so far has its copy (or was found unable to have one)."""
        self._queue.join()

    def _run(self) -> None:
        from eddy.emulator.processes import children  # here: the writer runs this file as a script

        while True:
            segments = [self._queue.get()]
            while not self._queue.empty():
                segments.append(self._queue.get_nowait())
            try:
                pending = [str(s) for s in segments if s.exists() and not copy_path(s).exists()]
                if pending:
                    writer = children.start(
                        [sys.executable, __file__, *pending], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
                    )  # it dies with this process
                    _, errors = writer.communicate()
                    if writer.returncode != 0:
                        log.warning("columnar copies of %d segments failed: %s", len(pending), errors[-2000:])
            except OSError:
                log.exception("could not start the writer of columnar copies")
            finally:
                for _ in segments:
                    self._queue.task_done()


#: the copier every SegmentLog of this process uses
copier = ColumnarCopier()


def main(segments: list[str]) -> int:
    """Write the copies of these segments (this process does nothing else, so it runs without the garbage
    collector: the JSON it parses holds no reference cycles)."""
    gc.disable()
    for segment in segments:
        write_columnar_copy(Path(segment))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

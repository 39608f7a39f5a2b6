"""The object change log: one line per object per operation, for every bucket, durable in the state directory.

    <state_dir>/objects/<account>/<region>/<bucket>/changes.jsonl

Each line has the change log's shape (docs/guides/durability.md, "The change log on disk"), with the bucket as the table and the
object's key as the item's key, so a volume stream reads it as a table stream reads a table:

    {"table": "photos", "shard": "objects", "sequence_number": "7", "commit_version": 7,
     "commit_timestamp": 1795241225.497, "commit_records": 1, "event_id": "...", "event_name": "MODIFY",
     "keys": {"key": {"S": "cats/1.jpg"}}, "old_image": {...}, "new_image": {...}, "user_identity": null}

An image is {"key", "size", "etag", "last_modified_time"} of the object (DynamoDB JSON). PutObject, CopyObject
and CompleteMultipartUpload write an INSERT (a new key) or a MODIFY (a replaced object); DeleteObject and
each key of DeleteObjects a REMOVE (of an object that was there). Versions count per bucket; a line is
flushed (and fsynced if asked) before the operation returns.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable

from eddy.emulator.storage.disk import WriteFailed, append_whole, release_reserve

log = logging.getLogger("eddy")

ObjectImage = dict[str, Any]  # key, size, etag, last_modified_time: what an image holds


class ObjectChanges:
    def __init__(self, directory: Path, clock: Callable[[], float], *, fsync: bool = False) -> None:
        self.directory = directory
        self._clock = clock
        self._fsync = fsync
        self._lock = threading.Lock()
        self._versions: dict[Path, int] = {}
        #: this thread's lines written inside `taken_back_if_refused`: (file, its size before, its version before)
        self._local = threading.local()

    def reset(self) -> None:
        """Forget every bucket's changes (moto's S3 is reset with the rest)."""
        with self._lock:
            self._versions.clear()
            shutil.rmtree(self.directory, ignore_errors=True)

    @contextmanager
    def taken_back_if_refused(self) -> Iterator[None]:
        """The lines this thread writes inside are cut off again if it ends in WriteFailed: the request whose changes
        they record was refused on its way to the log (service_journal.py puts moto's services back as the log holds
        them), so no volume stream reads a change that is not there."""
        written: list[tuple[Path, int, int]] = []
        self._local.written = written
        try:
            yield
        except WriteFailed:
            with self._lock:
                for path, size, version in reversed(written):
                    try:
                        os.truncate(path, size)
                    except OSError:
                        log.exception("the object change log %s keeps a line of a refused request", path)
                        continue
                    self._versions[path] = version
            raise
        finally:
            self._local.written = None

    def changed(
        self, account_id: str, region: str, bucket: str, key: str, old: ObjectImage | None, new: ObjectImage | None
    ) -> None:
        """An object was written (new) or deleted (new None); `old`: the object it replaced, if any."""
        if old is None and new is None:
            return
        event = "REMOVE" if new is None else "INSERT" if old is None else "MODIFY"
        path = self.directory / account_id / region / bucket / "changes.jsonl"
        with self._lock:
            version = self._last_version(path) + 1
            line = {
                "table": bucket,
                "shard": "objects",
                "sequence_number": str(version),
                "commit_version": version,
                "commit_timestamp": self._clock(),
                "commit_records": 1,
                "event_id": os.urandom(16).hex(),
                "event_name": event,
                "keys": {"key": {"S": key}},
                "old_image": _image(old),
                "new_image": _image(new),
                "user_identity": None,
            }
            data = json.dumps(line, separators=(",", ":")).encode() + b"\n"
            path.parent.mkdir(parents=True, exist_ok=True)
            with open(path, "ab", buffering=0) as out:
                size = os.fstat(out.fileno()).st_size
                try:
                    append_whole(out, data, path, "objects")
                except WriteFailed as failure:  # moto has stored the object: its line goes in the reserve's room
                    if not (failure.disk_full and release_reserve(self.directory.parent)):
                        raise
                    append_whole(out, data, path, None)
                if self._fsync:
                    os.fsync(out.fileno())
            self._versions[path] = version
            written = getattr(self._local, "written", None)
            if written is not None:
                written.append((path, size, version - 1))

    def _last_version(self, path: Path) -> int:
        """The bucket's last commit version (read back from its file's last whole line after a restart)."""
        if path in self._versions:
            return self._versions[path]
        if not path.exists():
            return 0
        lines = [line for line in path.read_bytes().split(b"\n") if line.strip()]
        for line in reversed(lines):
            try:
                return int(json.loads(line)["commit_version"])
            except (ValueError, KeyError):
                continue  # a torn last line
        return 0


def _image(image: ObjectImage | None) -> dict[str, Any] | None:
    if image is None:
        return None
    return {
        "key": {"S": image["key"]},
        "size": {"N": str(image["size"])},
        "etag": {"S": image["etag"]},
        "last_modified_time": {"S": image["last_modified_time"]},
    }

"""Snapshots: the whole state at one moment, as JSON lines ending in a checksum, written to a temp file
and swapped in with os.replace.

A file is `<generation>.snapshot`: a header, then the entries of each durable channel (storage/channels.py), then
`{"kind": "end", "lines": N, "sha256": …}` over the lines before it. What the entries say is their channels'
business (persistence.py hands each back to the channel that declared its kind). An entry is a dict, written as
compact JSON, or already that text (bytes: a table's items written from the text their images are kept in), written
as it is. Reading one yields its entries and raises CorruptStateError when the checksum, the line count or the end
marker is wrong.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
from pathlib import Path
from typing import Any, Iterable, Iterator

from eddy.emulator.storage.disk import inject
from eddy.emulator.storage.wal import CorruptStateError

log = logging.getLogger("eddy")
_compact = json.JSONEncoder(separators=(",", ":")).encode  # json.dumps(..., separators=...) without a new encoder


def write_snapshot(directory: Path, generation: int, entries: Iterable[dict[str, Any] | bytes]) -> Path:
    """Write `entries` as `<directory>/<generation>.snapshot` and delete every older snapshot (an entry in bytes is
    its line's compact JSON text, without the newline)."""
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{generation:012d}.snapshot"
    temporary = path.with_suffix(".tmp")
    digest = hashlib.sha256()
    lines = 0
    try:
        inject("snapshot", temporary)
        with open(temporary, "wb") as out:
            for entry in entries:
                line = (entry if type(entry) is bytes else _compact(entry).encode()) + b"\n"
                digest.update(line)
                out.write(line)
                lines += 1
            out.write(json.dumps({"kind": "end", "lines": lines, "sha256": digest.hexdigest()}).encode() + b"\n")
            out.flush()
            os.fsync(out.fileno())
    except BaseException:  # a full disk, say: the previous snapshot stays the newest, and no half file is left
        temporary.unlink(missing_ok=True)
        raise
    os.replace(temporary, path)
    for old in directory.glob("*.snapshot"):
        if old != path:
            old.unlink()
    log.info("snapshot %s written (%d lines)", path, lines)
    return path


def read_snapshot(path: Path) -> Iterator[dict[str, Any]]:
    """The entries of a snapshot file, checked against its end marker (CorruptStateError otherwise)."""
    digest = hashlib.sha256()
    lines = 0
    try:
        with open(path, "rb") as snapshot:
            for raw in snapshot:
                entry = json.loads(raw)
                if entry.get("kind") == "end":
                    if entry.get("sha256") != digest.hexdigest() or entry.get("lines") != lines:
                        raise CorruptStateError(
                            f"{path}: snapshot is corrupt (its checksum does not match its contents)"
                        )
                    return
                digest.update(raw)
                lines += 1
                yield entry
    except (ValueError, KeyError, TypeError) as error:
        raise CorruptStateError(f"{path}: snapshot is corrupt ({type(error).__name__}: {error})") from None
    raise CorruptStateError(f"{path}: snapshot is incomplete (no end marker)")

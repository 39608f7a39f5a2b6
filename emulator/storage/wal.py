"""The write-ahead log: every change to Eddy's state, appended before the client hears it succeeded.

One file per generation, `wal/<generation>.log`, each line `<crc32 of the JSON, 8 hex digits> <JSON>`.
A line is written and flushed to the operating system before the write it records is acknowledged, so a
`kill -9` loses nothing acknowledged (`fsync=True` also survives a machine crash, at a cost).
Reading back: a torn last line (a crash mid-write) is detected and cut off; a bad line anywhere else is
corruption, reported with the file and line, never skipped.
"""

from __future__ import annotations

import json
import os
import zlib
from pathlib import Path
from typing import Any, BinaryIO, Iterable, Iterator

from eddy.emulator.storage.disk import WriteFailed, append_whole, release_reserve


class CorruptStateError(Exception):
    """A state file that cannot be trusted: Eddy will not start on it (the message names the file)."""


def encode(payload: bytes) -> bytes:
    """The log line of an entry encoded as compact JSON."""
    return b"%08x %s\n" % (zlib.crc32(payload), payload)


def decode(line: bytes) -> dict[str, Any] | None:
    """The entry on a complete line, or None if the line does not check out."""
    if len(line) < 10 or line[8:9] != b" " or not line.endswith(b"\n"):
        return None
    payload = line[9:-1]
    try:
        if int(line[:8], 16) != zlib.crc32(payload):
            return None
        return json.loads(payload)
    except ValueError:
        return None


def read_entries(path: Path, repair: bool = True) -> Iterator[dict[str, Any]]:
    """The entries of one log file; a torn tail is truncated (when `repair`), other damage raises."""
    with open(path, "rb") as log:
        data = log.read()
    position = 0
    number = 0
    while position < len(data):
        end = data.find(b"\n", position)
        line = data[position:] if end == -1 else data[position : end + 1]
        number += 1
        entry = decode(line)
        if entry is None:
            if end == -1 or end + 1 >= len(data):
                # the last line, torn by a crash mid-write: everything before it stands
                if repair:
                    with open(path, "r+b") as log:
                        log.truncate(position)
                return
            raise CorruptStateError(f"{path}: line {number} is corrupt (checksum or JSON does not match)")
        yield entry
        position = end + 1


class WriteAheadLog:
    def __init__(self, directory: Path, fsync: bool = False) -> None:
        self.directory = directory
        self.fsync = fsync
        self.generation = 0
        self.entries = 0
        self._file: BinaryIO | None = None

    def generations(self) -> list[int]:
        if not self.directory.exists():
            return []
        return sorted(int(p.stem) for p in self.directory.glob("*.log") if p.stem.isdigit())

    def path(self, generation: int) -> Path:
        return self.directory / f"{generation:012d}.log"

    def open(self, generation: int) -> None:
        """Append to `generation` from now on."""
        self.close()
        self.directory.mkdir(parents=True, exist_ok=True)
        self.generation = generation
        self.entries = 0
        self._file = open(self.path(generation), "ab", buffering=0)

    def position(self) -> list[int]:
        """Where the next append starts: [generation, the file's size]."""
        if self._file is None:
            self.open(self.generation)
        assert self._file is not None
        return [self.generation, os.fstat(self._file.fileno()).st_size]

    def append(self, payload: bytes, weight: int = 1) -> None:
        """Append an entry encoded as compact JSON; it counts as `weight` entries toward the next snapshot."""
        self.append_all((payload,), weight)

    def append_all(
        self, payloads: Iterable[bytes], weight: int = 1, reserve: bool = True, counted: int | None = None
    ) -> None:
        """Append entries in one write, all of them or none (storage/disk.py's WriteFailed), each counting as `weight`
        toward the next snapshot (or all of them as `counted`). On a full disk, entries of changes already applied
        (`reserve`) are written in the room the log's reserve leaves; a DynamoDB commit, which is put back instead,
        is not (reserve=False)."""
        if self._file is None:
            self.open(self.generation)
        lines = [encode(payload) for payload in payloads]
        data, path = b"".join(lines), self.path(self.generation)
        size = os.fstat(self._file.fileno()).st_size if self.fsync else 0
        try:
            append_whole(self._file, data, path, "wal")
        except WriteFailed as failure:  # a full disk: written in the room the reserve leaves, if there was one
            if not (reserve and failure.disk_full and release_reserve(self.directory.parent)):
                raise
            append_whole(self._file, data, path, None)
        if self.fsync:
            try:
                os.fsync(self._file.fileno())
            except OSError as error:  # not known to be kept: none of it, as a write that fails (disk.py)
                try:
                    os.ftruncate(self._file.fileno(), size)
                except OSError:
                    pass  # recovery reads whole entries only, and the append is refused anyway
                raise WriteFailed(path, error) from error
        self.entries += weight * len(lines) if counted is None else counted

    def delete_before(self, generation: int) -> None:
        for old in self.generations():
            if old < generation:
                os.remove(self.path(old))

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None

"""A shard's change log on disk: append-only segment files, each named by the first sequence number it holds.

Layout (documented in docs/guides/durability.md; spark_batch reads it):
    <state_dir>/streams/<account>/<region>/<table>/<stream label>/<shard id>/<first sequence number>.jsonl
One JSON object per line (see ChangeRecord.to_log_line). Appends go to the newest segment only; a new
segment starts once the newest passes `max_bytes`; trimming deletes whole segments. A sealed segment of at
least `copy_min_bytes` also gets a columnar copy beside it (columnar_segments.py), which Spark reads instead.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
from pathlib import Path
from typing import BinaryIO

from eddy.emulator.storage import columnar_segments
from eddy.emulator.storage.disk import WriteFailed, append_whole, inject
from eddy.emulator.storage.wal import CorruptStateError


class Segment:
    __slots__ = ("path", "first_sequence_number", "last_sequence_number", "size")

    def __init__(self, path: Path, first_sequence_number: int) -> None:
        self.path = path
        self.first_sequence_number = first_sequence_number
        self.last_sequence_number = first_sequence_number
        self.size = 0


class SegmentLog:
    def __init__(self, directory: Path, max_bytes: int, copy_min_bytes: int | None = None) -> None:
        self.directory = directory
        self.max_bytes = max_bytes
        self.copy_min_bytes = copy_min_bytes
        self.segments: list[Segment] = []
        self._active: BinaryIO | None = None

    def append(self, lines: bytes, first_sequence_number: int, last_sequence_number: int) -> tuple[Segment, int, int]:
        """Append encoded records (whose sequence numbers run from first to last) to the OS, all of them or none
        (storage/disk.py's WriteFailed); returns what `take_back` needs to remove them again."""
        if self._active is None or self.segments[-1].size >= self.max_bytes:
            self._start_segment(first_sequence_number)
        segment = self.segments[-1]
        mark = (segment, segment.size, segment.last_sequence_number)
        append_whole(self._active, lines, segment.path, "segment")
        segment.size += len(lines)
        segment.last_sequence_number = last_sequence_number
        return mark

    def take_back(self, mark: tuple[Segment, int, int]) -> None:
        """Remove an append again (its commit did not reach the write-ahead log): the segment as it was before it."""
        segment, size, last_sequence_number = mark
        with open(segment.path, "r+b") as appended:
            appended.truncate(size)
        segment.size, segment.last_sequence_number = size, last_sequence_number

    def _start_segment(self, first_sequence_number: int) -> None:
        """A new newest segment (a roll); if the disk refuses it, WriteFailed and the segments stay as they were."""
        segment = Segment(self.directory / f"{first_sequence_number}.jsonl", first_sequence_number)
        try:
            inject("roll", segment.path)
            self.directory.mkdir(parents=True, exist_ok=True)
            started = open(segment.path, "ab", buffering=0)
        except OSError as error:
            raise WriteFailed(segment.path, error) from error
        if self._active is not None:
            self._active.close()
            self._sealed(self.segments[-1])
        self._active = started
        self.segments.append(segment)

    def delete_through(self, sequence_number: int) -> int:
        """Delete every segment whose records all have sequence numbers <= sequence_number."""
        deleted = 0
        while self.segments and self.segments[0].last_sequence_number <= sequence_number:
            segment = self.segments.pop(0)
            if not self.segments and self._active is not None:
                self._active.close()
                self._active = None
            with contextlib.suppress(FileNotFoundError):
                os.remove(segment.path)
            columnar_segments.remove_columnar_copy(segment.path)
            deleted += 1
        return deleted

    def close(self) -> None:
        """Close the newest segment's file (shutting down: after a restart, appends start a new segment)."""
        if self._active is not None:
            self._active.close()
            self._active = None

    def seal(self) -> None:
        """No record will be appended again (the shard closed)."""
        self.close()
        if self.segments:
            self._sealed(self.segments[-1])

    def _sealed(self, segment: Segment) -> None:
        if self.copy_min_bytes is not None and segment.size >= self.copy_min_bytes:
            columnar_segments.copier.seal(segment.path)

    def load(self, confirmed_through: int) -> list[tuple[bytes, int, float]]:
        """Read the shard's segments back after a restart: (line, sequence number, commit time) of every record
        up to `confirmed_through`.

        A torn last line (a crash mid-write) and records past `confirmed_through` (written, but their commit
        never reached the write-ahead log, so never acknowledged) are cut off; a bad line elsewhere raises
        CorruptStateError naming the file. Lines are checked by their fixed prefix, not parsed in full: the
        rest of each record is parsed when it is first read.
        """
        self.close()
        self.segments = []
        if not self.directory.exists():
            return []
        columnar_segments.remove_temporary_copies(self.directory)
        paths = sorted(self.directory.glob("*.jsonl"), key=lambda p: int(p.stem) if p.stem.isdigit() else -1)
        loaded: list[tuple[bytes, int, float]] = []
        for path in paths:
            if not path.stem.isdigit():
                raise CorruptStateError(f"{path}: not a segment file (its name must be its first sequence number)")
            if int(path.stem) > confirmed_through:
                os.remove(path)
                columnar_segments.remove_columnar_copy(path)
                continue
            data = path.read_bytes()
            lines = data.split(b"\n")
            keep = 0
            segment = Segment(path, int(path.stem))
            for number, line in enumerate(lines, start=1):
                last_line = number >= len(lines) - 1
                match = _LINE_PREFIX.match(line) if line.endswith(b"}") else None
                if match is not None and last_line:
                    match = match if _parses(line) else None
                if match is None:
                    if not line or last_line:
                        break  # the end, or a line torn by a crash mid-write
                    raise CorruptStateError(f"{path}: line {number} is corrupt (not a complete record)")
                sequence_number = int(match.group(1))
                if sequence_number > confirmed_through:
                    break
                loaded.append((line, sequence_number, float(match.group(2))))
                keep += len(line) + 1
                segment.last_sequence_number = sequence_number
            if keep < len(data):
                with open(path, "r+b") as torn:
                    torn.truncate(keep)
                columnar_segments.remove_columnar_copy(path)  # it may hold records cut off just now
            if keep == 0:
                os.remove(path)
                continue
            segment.size = keep
            self.segments.append(segment)
        for segment in self.segments:  # appends after a restart start a new segment: every one here is sealed
            if not columnar_segments.copy_path(segment.path).exists():
                self._sealed(segment)
        return loaded


_LINE_PREFIX = re.compile(
    rb'^\{"table":"[^"]*","shard":"[^"]*","sequence_number":"(\d+)","commit_version":\d+,"commit_timestamp":([-+0-9.eE]+),'
)


def _parses(line: bytes) -> bool:
    try:
        json.loads(line)
        return True
    except ValueError:
        return False

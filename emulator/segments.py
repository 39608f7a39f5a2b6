"""A shard's change log on disk: append-only segment files, each named by the first sequence number it holds.

Layout (documented in the README; spark_batch reads it):
    <state_dir>/streams/<account>/<region>/<table>/<stream label>/<shard id>/<first sequence number>.jsonl
One JSON object per line (see ChangeRecord.to_log_line). Appends go to the newest segment only; a new
segment starts once the newest passes `max_bytes`; trimming deletes whole segments.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import BinaryIO


class Segment:
    __slots__ = ("path", "first_sequence_number", "last_sequence_number", "size")

    def __init__(self, path: Path, first_sequence_number: int) -> None:
        self.path = path
        self.first_sequence_number = first_sequence_number
        self.last_sequence_number = first_sequence_number
        self.size = 0


class SegmentLog:
    def __init__(self, directory: Path, max_bytes: int) -> None:
        self.directory = directory
        self.max_bytes = max_bytes
        self.segments: list[Segment] = []
        self._active: BinaryIO | None = None

    def append(self, lines: bytes, first_sequence_number: int, last_sequence_number: int) -> None:
        """Append encoded records (whose sequence numbers run from first to last) and flush them to the OS."""
        if self._active is None or self.segments[-1].size >= self.max_bytes:
            self._start_segment(first_sequence_number)
        segment = self.segments[-1]
        self._active.write(lines)
        self._active.flush()
        segment.size += len(lines)
        segment.last_sequence_number = last_sequence_number

    def _start_segment(self, first_sequence_number: int) -> None:
        if self._active is not None:
            self._active.close()
        self.directory.mkdir(parents=True, exist_ok=True)
        segment = Segment(self.directory / f"{first_sequence_number}.jsonl", first_sequence_number)
        self._active = open(segment.path, "ab")
        self.segments.append(segment)

    def delete_through(self, sequence_number: int) -> int:
        """Delete every segment whose records all have sequence numbers <= sequence_number."""
        deleted = 0
        while self.segments and self.segments[0].last_sequence_number <= sequence_number:
            segment = self.segments.pop(0)
            if not self.segments and self._active is not None:
                self._active.close()
                self._active = None
            try:
                os.remove(segment.path)
            except FileNotFoundError:
                pass
            deleted += 1
        return deleted

    def close(self) -> None:
        if self._active is not None:
            self._active.close()
            self._active = None

"""Checkpoints: how far each event source mapping has processed each shard.

Per mapping and shard: the last processed sequence number of each of the shard's lanes (one lane unless
ParallelizationFactor > 1), each lane's open tumbling window with its state, and whether the shard is finished. Disable/enable, UpdateEventSourceMapping and
restarts resume from here, so nothing is replayed or skipped by accident. Each mapping's checkpoints are
one small JSON file, written to a temporary file and swapped in with os.replace; an emulator that keeps nothing
(in memory: no state directory of the user's) holds them in memory only, as nothing would ever read the file (a
file written after every batch was a sixth of a no-op handler's drain).
"""

from __future__ import annotations

import contextlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from eddy.emulator.storage.wal import CorruptStateError


@dataclass
class ShardCheckpoint:
    lanes: list[int]
    finished: bool = False
    #: per lane, its open tumbling window ({"start", "end", "state", "invoked"}) or None
    windows: list[dict[str, Any] | None] = field(default_factory=list)


class Checkpoints:
    def __init__(self, directory: Path, *, on_disk: bool = True) -> None:
        self.directory = directory
        #: whether each change is written to `directory` (a durable emulator's) or held in memory only
        self.on_disk = on_disk
        self._mappings: dict[str, dict[str, ShardCheckpoint]] = {}

    def get(self, mapping_uuid: str, shard_id: str) -> ShardCheckpoint | None:
        return self._mappings.get(mapping_uuid, {}).get(shard_id)

    def save(self, mapping_uuid: str, shard_id: str, checkpoint: ShardCheckpoint) -> None:
        self._mappings.setdefault(mapping_uuid, {})[shard_id] = ShardCheckpoint(
            list(checkpoint.lanes), checkpoint.finished, list(checkpoint.windows)
        )
        if self.on_disk:
            self._write(mapping_uuid)

    def _write(self, mapping_uuid: str) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)
        path = self.directory / f"{mapping_uuid}.json"
        temporary = path.with_suffix(".json.tmp")
        shards = {
            shard_id: {"lanes": [str(n) for n in c.lanes], "finished": c.finished, "windows": c.windows}
            for shard_id, c in self._mappings[mapping_uuid].items()
        }
        temporary.write_text(json.dumps({"mapping": mapping_uuid, "shards": shards}))
        os.replace(temporary, path)

    def forget(self, mapping_uuid: str) -> None:
        self._mappings.pop(mapping_uuid, None)
        with contextlib.suppress(FileNotFoundError):
            os.remove(self.directory / f"{mapping_uuid}.json")

    def load(self) -> None:
        """Read every mapping's checkpoints back after a restart."""
        if not self.directory.exists():
            return
        for path in self.directory.glob("*.json"):
            try:
                saved = json.loads(path.read_text())
                self._mappings[saved["mapping"]] = {
                    shard_id: ShardCheckpoint([int(n) for n in c["lanes"]], c["finished"], c.get("windows") or [])
                    for shard_id, c in saved["shards"].items()
                }
            except (ValueError, KeyError, TypeError) as error:
                raise CorruptStateError(
                    f"{path}: checkpoint file is corrupt ({type(error).__name__}: {error})"
                ) from None

    def reset(self) -> None:
        for mapping_uuid in list(self._mappings):
            self.forget(mapping_uuid)

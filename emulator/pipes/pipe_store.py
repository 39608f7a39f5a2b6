"""Pipes on disk: <state_dir>/pipes/pipes.json, every pipe's definition and the reasons of those that could not
start, swapped in whole with os.replace on every change, before the answer; read back when the emulator starts on
the directory. (A pipe's positions are its checkpoints per shard, beside it: triggers/checkpoints.py.)"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Iterable

from eddy.emulator.pipes.pipe import Pipe
from eddy.emulator.storage.disk import WriteFailed
from eddy.emulator.storage.wal import CorruptStateError


def save(path: Path, pipes: Iterable[Pipe], state_reasons: dict[str, str]) -> None:
    """The file swapped in whole, or left as it was (WriteFailed: the disk refused the new one)."""
    temporary = path.with_suffix(".json.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary.write_text(json.dumps({"pipes": [pipe.to_state() for pipe in pipes], "state_reasons": state_reasons}))
        os.replace(temporary, path)
    except OSError as error:
        temporary.unlink(missing_ok=True)
        raise WriteFailed(path, error) from None


def as_saved(path: Path, pipes: dict[str, Pipe]) -> tuple[dict[str, Pipe], dict[str, str]]:
    """The pipes and state reasons as the file holds them (after a change the disk refused to write), keeping each of
    `pipes` that is as saved (its runner reads it)."""
    saved_pipes, state_reasons = load(path) or ([], {})
    kept = {}
    for saved in saved_pipes:
        current = pipes.get(saved.key)
        kept[saved.key] = current if current is not None and current.to_state() == saved.to_state() else saved
    return kept, state_reasons


def load(path: Path) -> tuple[list[Pipe], dict[str, str]] | None:
    """The pipes and state reasons saved at `path` (None: no file); CorruptStateError when it cannot be read back."""
    if not path.exists():
        return None
    try:
        saved = json.loads(path.read_text())
        return [Pipe(**state) for state in saved["pipes"]], dict(saved["state_reasons"])
    except (ValueError, KeyError, TypeError) as error:
        raise CorruptStateError(f"{path}: the pipes file is corrupt ({type(error).__name__}: {error})") from None

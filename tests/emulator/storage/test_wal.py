"""storage/wal.py alone: an append with fsync on is all or nothing when the fsync fails, as when the write does."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from eddy.emulator.storage.disk import WriteFailed
from eddy.emulator.storage.wal import WriteAheadLog, read_entries


def test_an_append_whose_fsync_fails_is_refused_and_not_kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # os.fsync's OSError went on as it was: not a WriteFailed, so the request's unit of work and the services'
    # journal did not take the change back, while its entry stayed in the log to be replayed after a restart
    wal = WriteAheadLog(tmp_path / "wal", fsync=True)
    wal.open(0)
    wal.append(b'{"op":"kept"}')

    def failing(descriptor: int) -> None:
        raise OSError(errno.EIO, "Input/output error")

    monkeypatch.setattr(os, "fsync", failing)
    with pytest.raises(WriteFailed) as refusal:
        wal.append_all([b'{"op":"refused"}'])
    monkeypatch.undo()
    wal.close()
    assert (refusal.value.error.errno, list(read_entries(wal.path(0))), wal.entries) == (errno.EIO, [{"op": "kept"}], 1)

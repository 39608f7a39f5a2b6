"""A state directory has one owner: an exclusive `fcntl.flock` on `<state_dir>/owner.lock`, held for the owner's life.

    ownership = Ownership.take(state_dir, "in-process")     # StateDirectoryInUseError if another process has it
    ownership.describe("eddy serve on http://127.0.0.1:4701")  # once the owner knows its port
    ownership.release()

The first process that opens a durable state directory (`eddy serve --state-dir` or `emulate(state_dir=...)`)
takes the lock before it reads or writes anything there; a second one is refused with the owner's pid, what it is
and since when. The kernel drops a `flock` when its holder's last descriptor closes, so a process killed with -9
leaves no stale lock: the file stays, but nothing holds it. The descriptor is not inherited by the processes Eddy
starts (function workers, the columnar writer), so none of them keeps the lock alive after its parent is gone.

The owner's description is the lock file's first line (JSON, rewritten in place, then the file cut to it), so a
refused process reads either the old line or the new one. Readers of the state directory (Spark jobs, table and
volume streams, `eddy tail` over HTTP) never take the lock: they only read, and write only their own files.
"""

from __future__ import annotations

import fcntl
import json
import os
import time
from pathlib import Path
from typing import BinaryIO

LOCK_FILE = "owner.lock"


class StateDirectoryInUseError(Exception):
    """Another process owns this state directory: one owner at a time, so no two of them write its log."""

    def __init__(self, directory: Path, owner: dict | None) -> None:
        self.directory, self.owner = directory, owner or {}
        super().__init__(
            f"state directory {directory} is in use by {describe_owner(self.owner)}: stop that process, "
            f"or give this one another state directory (or --in-memory)"
        )


def describe_owner(owner: dict) -> str:
    """'pid 4242 (eddy serve on http://127.0.0.1:4701) since 2026-11-25 10:20:31 UTC', as far as it is known."""
    if "pid" not in owner:
        return "another process (it is starting)"
    since = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(owner["since"])) if "since" in owner else "a moment ago"
    return f"pid {owner['pid']} ({owner.get('owner', 'unknown')}) since {since}"


class Ownership:
    """The lock a process holds on a state directory until `release()` (or its end, however it ends)."""

    def __init__(self, directory: Path, file: BinaryIO) -> None:
        self.directory, self._file = directory, file  # a file object: closed (and the lock dropped) if dropped
        self._since = time.time()

    @classmethod
    def take(cls, directory: str | os.PathLike[str], owner: str) -> "Ownership":
        """Own `directory` (created if missing), described as `owner`; refused if another process owns it."""
        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        descriptor = os.open(directory / LOCK_FILE, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = read_owner(descriptor)
            os.close(descriptor)
            raise StateDirectoryInUseError(directory.resolve(), holder) from None
        except BaseException:
            os.close(descriptor)
            raise
        ownership = cls(directory, os.fdopen(descriptor, "r+b", buffering=0))
        ownership.describe(owner)
        return ownership

    def describe(self, owner: str) -> None:
        """Say who owns the directory (e.g. once a server knows its port)."""
        line = json.dumps({"pid": os.getpid(), "owner": owner, "since": self._since}).encode() + b"\n"
        os.pwrite(self._file.fileno(), line, 0)
        os.ftruncate(self._file.fileno(), len(line))

    @property
    def held(self) -> bool:
        return not self._file.closed

    def release(self) -> None:
        """Let the next owner in (closing the descriptor drops the flock); the file stays, unheld."""
        self._file.close()


def current_owner(directory: str | os.PathLike[str]) -> dict | None:
    """Who owns `directory` now ({} while an owner is starting), or None if nobody does: asked without taking it
    (the lock is tried and, if it was free, let go at once)."""
    try:
        descriptor = os.open(Path(directory) / LOCK_FILE, os.O_RDONLY | os.O_CLOEXEC)
    except FileNotFoundError:
        return None
    try:
        fcntl.flock(descriptor, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return read_owner(descriptor) or {}
    finally:
        os.close(descriptor)  # (closing drops the shared lock if it was taken)
    return None


def read_owner(descriptor: int) -> dict | None:
    """The owner's description from the lock file's first line; None while it is being written."""
    first_line = os.pread(descriptor, 4096, 0).split(b"\n", 1)[0]
    try:
        owner = json.loads(first_line)
    except ValueError:
        return None
    return owner if isinstance(owner, dict) else None

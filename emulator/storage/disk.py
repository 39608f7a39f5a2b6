"""Writing to the state directory's disk: an append lands whole or not at all, and a full disk is told apart.

`append_whole` writes an append to an unbuffered file; if the disk refuses any of it (ENOSPC, EDQUOT, EIO, ...),
the file is cut back to where it was, so the next append starts on a clean line: a failed write leaves no torn
line in the middle of a log, and writes succeed again as soon as the disk takes them, without a restart. The
failure is raised as WriteFailed, which says which directory and how much room was left.

DiskState is what Eddy knows of its disk: whether writes are being refused (since which refusal, why), for the
front doors (one WARNING line per episode), the dashboard and `eddy doctor`. It also keeps the log's reserve,
`<state_dir>/disk.reserve` (RESERVE_BYTES, allocated for real): a change that cannot be taken back once applied (a
request to moto's services, a table definition, a function, a mapping, a Kinesis record) asks `room_for` before it
is applied, which makes sure the reserve is there; if the disk fills between that question and the change's log
entry (another process, a snapshot, a columnar copy), the write-ahead log (or S3's object change log) gives the
reserve back to the disk and writes the entry in the room it leaves (`release_reserve`). From then on `room_for`
refuses, until the disk has room for the reserve again. Changes that can be put back (a DynamoDB commit, a shard
rollover, split or merge) never use the reserve: refused, they are put back.

Tests inject failures without filling a real disk: while the file that EDDY_TEST_DISK_FULL names exists, every
write at the points its content lists (one word per point: wal, segment, roll, snapshot, objects, replicas: the
global tables' journal, stacks: CloudFormation's file; an empty file means all of them) fails as a full disk fails, with ENOSPC; a number among the
words fails only that many more writes. With the word `kill` the process kills itself there instead (SIGKILL, as a
crash at that moment), which `crash_point` also offers between two writes (`replicas-written`: a global table's
journal line written, the request's log entries not yet). `fail_point` fails what is not a write the same way, as a
fault of Eddy's own (`moto-apply`: moto failing midway through a batch; `notify`: a listener told of a commit).
"""

from __future__ import annotations

import errno
import logging
import os
import shutil
import signal
import threading
from pathlib import Path
from typing import Any

from eddy.emulator.aws_environment import variable  # os.environ.get without its KeyError: asked at every append

#: the environment variable naming the flag file of injected write failures (tests only)
FAULT_FLAG = "EDDY_TEST_DISK_FULL"
FULL = (errno.ENOSPC, errno.EDQUOT)
#: the room a request to moto's services needs beyond its body before moto sees it: its log entry is written after
#: moto answers, and a log entry is far smaller than this
SPARE_BYTES = 1 << 20
#: the log's reserve: room kept on the disk for the log entries of changes applied before the disk filled
RESERVE_BYTES = 1 << 20
RESERVE_NAME = "disk.reserve"

log = logging.getLogger("eddy")


#: the last WriteFailed made in each thread (`taken_refusal`): a server application that turns exceptions into 500
#: pages (moto's) does not lose the refusal
_last = threading.local()


class WriteFailed(Exception):
    """A write to the state directory the disk refused: nothing of it was kept."""

    def __init__(self, path: Path, error: OSError) -> None:
        self.path = Path(path)
        self.error = error
        super().__init__(self.reason)
        _last.failure = self

    @property
    def disk_full(self) -> bool:
        return self.error.errno in FULL

    @property
    def reason(self) -> str:
        directory = self.path.parent
        free = free_bytes(directory)
        shown = "unknown" if free is None else f"{free:,} bytes"
        what = "the disk is full" if self.disk_full else f"the disk refused it ({self.error.strerror or self.error})"
        return f"a write to {directory} failed: {what}; free there: {shown}"


def taken_refusal() -> WriteFailed | None:
    """The last WriteFailed made in this thread since the last call, if any (and forgets it)."""
    failure = getattr(_last, "failure", None)
    _last.failure = None
    return failure


def free_bytes(directory: Path) -> int | None:
    """What a write under `directory` (or its nearest existing parent) may still use, or None if unknown."""
    for candidate in (directory, *directory.parents):
        try:
            return shutil.disk_usage(candidate).free
        except OSError:
            continue
    return None


def inject(point: str, path: Path) -> None:
    """Raise ENOSPC if a test asked for failures at `point`, or kill the process if it asked for a crash there (see
    the module's docstring)."""
    flag = variable(FAULT_FLAG)
    words = _asked(flag)
    if flag is None or words is None:
        return
    points = [word for word in words if not word.isdigit() and word != "kill"]
    if points and point not in points:
        return
    if "kill" in words:
        os.kill(os.getpid(), signal.SIGKILL)
    _count_down(flag, words)  # the disk has room again after the last failure asked for
    raise WriteFailed(path, OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path)))


def crash_point(point: str) -> None:
    """Kill the process if a test asked for a crash at `point` (its flag naming the point and `kill`): a moment
    between two writes, where a failed write has no meaning."""
    words = _asked(variable(FAULT_FLAG))
    if words is not None and point in words and "kill" in words:
        os.kill(os.getpid(), signal.SIGKILL)


def fail_point(point: str) -> None:
    """Fail as a fault of Eddy's own (RuntimeError) if a test asked for a failure at `point` (its flag naming it: a
    failure that is no write's, such as moto failing midway through a change, `moto-apply`, or a listener told of a
    commit, `notify`); a number among the words fails only that many more times."""
    flag = variable(FAULT_FLAG)
    words = _asked(flag)
    if flag is None or words is None or point not in words:
        return
    _count_down(flag, words)
    raise RuntimeError(f"a test's fault point: {point}")


def _count_down(flag: str, words: list[str]) -> None:
    """A number among the flag's words: only this many more failures (the flag removed after the last)."""
    counts = [int(word) for word in words if word.isdigit()]
    if counts:
        if counts[0] <= 1:
            os.remove(flag)
        else:
            rest = [word for word in words if not word.isdigit()]
            Path(flag).write_text(" ".join([*rest, str(counts[0] - 1)]), encoding="utf-8")


def _asked(flag: str | None) -> list[str] | None:
    """The words of the flag file a test named (None: no flag, or none there now)."""
    if not flag:
        return None
    try:
        with open(flag, encoding="utf-8") as listed:
            return listed.read().split()
    except FileNotFoundError:
        return None


def append_whole(file: Any, data: bytes, path: Path, point: str | None) -> None:
    """Append `data` to an unbuffered file opened for appending: all of it, or nothing (WriteFailed). `point` names
    the fault point a test may fail (None: none, e.g. a write into the room the log's reserve just gave back)."""
    descriptor = file.fileno()
    size = os.fstat(descriptor).st_size
    try:
        if point is not None:
            inject(point, path)
        view = memoryview(data)
        while view:
            written = os.write(descriptor, view)
            view = view[written:]
    except WriteFailed:
        raise
    except OSError as error:
        try:
            os.ftruncate(descriptor, size)
        except OSError:
            pass  # nothing more to do here: recovery cuts a torn tail, and the write is refused anyway
        raise WriteFailed(path, error) from error


def release_reserve(state_dir: Path) -> bool:
    """Give the log's reserve in `state_dir` back to the disk (the next write uses its room); False if there was
    none. The logs find it beside their own directories (wal/, objects/)."""
    try:
        os.remove(state_dir / RESERVE_NAME)
    except FileNotFoundError:
        return False
    log.info(
        "the disk under %s is full: the log's reserve was given back to write an entry of a change already "
        "applied; writes are refused until the disk has room again",
        state_dir,
    )
    return True


def allocate(descriptor: int, size: int) -> None:
    """`size` bytes really allocated to a file (not a sparse hole the disk may fail to fill later)."""
    if hasattr(os, "posix_fallocate"):
        os.posix_fallocate(descriptor, 0, size)
        return
    block = b"\0" * 65536
    for _ in range(0, size, len(block)):
        os.write(descriptor, block)


class DiskState:
    """Whether Eddy's writes are being refused by its disk, since when and why."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.refused_since: float | None = None
        self.reason: str | None = None
        self.refusals = 0

    @property
    def refusing(self) -> bool:
        return self.refused_since is not None

    def refused(self, failure: WriteFailed, now: float) -> None:
        """Note a refused write: one WARNING line when writes start being refused, not one per request."""
        self.refusals += 1
        self.reason = failure.reason
        if self.refused_since is None:
            self.refused_since = now
            log.warning("writes refused until the disk has room: %s", failure.reason)

    def accepted(self) -> None:
        """Note that a write went through (an INFO line if writes were being refused)."""
        if self.refused_since is not None:
            self.refused_since = None
            log.info("writes are accepted again: %s has room", self.directory)

    def room_for(self, size: int, point: str = "wal") -> None:
        """WriteFailed unless a write of `size` bytes (and a log entry) fits and the log's reserve is there: asked
        before a change that cannot be taken back once applied (a request to moto's services) is applied."""
        path = self.directory / "wal"
        inject(point, path)
        free = free_bytes(self.directory)
        if free is not None and free < size + SPARE_BYTES:
            raise WriteFailed(path, OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path)))
        self.keep_reserve()

    @property
    def reserve(self) -> Path:
        return self.directory / RESERVE_NAME

    def keep_reserve(self) -> None:
        """The log's reserve allocated on the disk (made again after it was given back), or WriteFailed."""
        if self.reserve.exists():
            return
        temporary = self.reserve.with_suffix(".tmp")
        try:
            with open(temporary, "wb") as out:
                allocate(out.fileno(), RESERVE_BYTES)
                os.fsync(out.fileno())
            os.replace(temporary, self.reserve)
        except OSError as error:
            temporary.unlink(missing_ok=True)
            raise WriteFailed(self.reserve, error) from error

    def describe(self) -> dict[str, Any]:
        """The dashboard's and doctor's view: the directory, its free bytes, whether writes are refused and why."""
        return {
            "StateDirectory": str(self.directory),
            "FreeBytes": free_bytes(self.directory),
            "WritesRefused": self.refusing,
            "RefusedSince": self.refused_since,
            "Reason": self.reason if self.refusing else None,
            "Refusals": self.refusals,
        }

"""Units of work: what one request changed written down in one append, undone if the disk refuses it, and what it
queued released only once it is written.

A front door opens a unit for each request it dispatches (api/router.py, service_journal.py). Inside it, on the
thread that opened it:
  - every log entry is held, and the unit's entries are appended together when it ends (the commit point): all of
    them or none (storage/disk.py's WriteFailed);
  - a component that applied a change before its entry registers how to take it back (`on_undo`); if the append is
    refused, the unit's undos run, newest first, and the WriteFailed goes on to the door, which answers the
    service's 500 (the SDKs retry it; a retry succeeds once the disk takes writes again);
  - what a change hands on (an asynchronous invocation, a rule's delivery, a mapping's runner, files to delete) is
    registered with `after_commit` and done only once the append succeeded: nothing of a refused request is ever
    seen, kept or run;
  - a record kept in a file of its own (a global table's group, global_tables/journal.py) is registered with
    `alongside`: written at the commit just before the entries, under the emulator's lock, and cut off again if they
    are refused (a refused record refuses the unit). Two files are not one append: a crash between the record and
    the entries leaves the record of a request never answered. So the record is told where in the log its unit's
    entries start (`position`: the log's generation and size before them), and recovery drops a record whose log
    did not grow past it (journal.py's read_back).
A unit opened inside another on the same thread (a request Eddy makes of itself in-process: a function's own call,
a stack's resource) commits when it ends, with the entries its enclosing units hold before its own (they are
changes already made); refused, only its own changes are undone, and the enclosing units' entries wait for their
commit. Log entries that record a change before it is made (a DynamoDB commit, a Kinesis record, the clock) are
written at once with what the unit holds (persistence.py's log_all: a unit of their own, inside it).

Why nesting neither loses nor reorders an acknowledged write after a restart: the log's order is the order in which
the thread made its changes. An enclosing unit is suspended while the inner one runs (one thread), so every entry
it holds records a change made before any of the inner unit's, and the inner commit appends them first, in one
append with its own; what the enclosing unit logs after that goes in a later append. Other threads cannot come
between: the thread keeps the emulator's lock from its first held entry to the commit. Entries written by an inner
commit are acknowledged there (their undos and after-commit actions are dropped and run as for any commit), so an
enclosing unit refused later takes back only what it changed after them. Recovery replays the log in that order.
The one way order could break is a snapshot (it ends the log generation it follows) taken while a change is half
made: an inner commit's snapshot with the enclosing request's change made but not yet logged, or a log_all's with
its change not yet made (a Kinesis record lost, a commit version given twice after a crash: found and fixed, tests/
durability/test_snapshot_points.py). So the snapshot a commit brings waits for the end of the thread's outermost
unit (`defer_snapshot` for log_all inside a unit; persistence.py waits for the next entry outside one).

From a unit's first entry until its commit the thread keeps the emulator's lock (every change is made under it, so
taking it again never waits): no other change is logged between the unit's change and its entry, and no snapshot
is taken of a change the log does not hold yet.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from typing import Any, Callable, ContextManager

from eddy.emulator.storage.disk import WriteFailed

log = logging.getLogger("eddy")

#: how a unit's entries are appended: (entries as compact JSON, how many entries they count as toward the next
#: snapshot, whether the log's reserve may take them on a full disk); WriteFailed when the disk refuses them
Append = Callable[[list[bytes], int, bool], None]


class _Frame:
    """One open unit (its context manager): its held entries, its undos and what it releases once written."""

    __slots__ = ("work", "entries", "counted", "reserve", "put_back", "undos", "afters", "sides")

    def __init__(self, work: "UnitsOfWork", put_back: bool) -> None:
        self.work = work
        self.entries: list[bytes] = []
        self.counted = 0
        #: whether an entry of it records a change that cannot be put back (the log's reserve may write it)
        self.reserve = False
        #: whether everything logged in it is put back if refused (`together`): the reserve is not for it
        self.put_back = put_back
        self.undos: list[Callable[[], Any]] = []
        self.afters: list[Callable[[], Any]] = []
        #: records kept in files of their own, written at the commit just before the entries (`alongside`)
        self.sides: list[Callable[[Any], Callable[[], Any]]] = []

    def __enter__(self) -> None:
        self.work._frames().append(self)

    def __exit__(self, kind: Any, error: Any, traceback: Any) -> bool:
        frames = self.work._frames()
        if kind is not None and (issubclass(kind, WriteFailed) or self.put_back):  # refused inside (room, an inner
            self.work._refused(frames, self)  # commit), or its owner puts back what it changed: none of it written
        else:  # another exception too: what was changed before it is written down all the same
            self.work._commit(frames, self)
        return False


class UnitsOfWork:
    """The open units of each thread; `append` writes entries down, `committed` runs after each commit."""

    def __init__(
        self, append: Append, committed: Callable[[], None], lock: Any = None, position: Callable[[], Any] = None
    ) -> None:
        self._append = append
        self._committed = committed
        #: where the next append starts in the log (told to a record kept beside it: `alongside`)
        self._position = position if position is not None else (lambda: None)
        #: the emulator's lock (an RLock), kept from a unit's first entry to its commit
        self.lock = lock
        self._threads = threading.local()

    def _frames(self) -> list[_Frame]:
        try:
            return self._threads.frames  # type: ignore[no-any-return]
        except AttributeError:
            frames: list[_Frame] = []
            self._threads.frames = frames
            return frames

    @property
    def open(self) -> bool:
        """Whether this thread is inside a unit."""
        return bool(self._frames())

    @property
    def holding(self) -> bool:
        """Whether this thread's units hold entries not yet written."""
        return any(frame.entries for frame in self._frames())

    def unit(self, put_back: bool = False) -> ContextManager[None]:
        """A unit of work: what is logged inside is appended as one when it ends (WriteFailed: undone). `put_back`:
        its owner puts back everything it logs if refused or ended by any exception (a rollover's shards), so the
        log's reserve is not for it, and an exception writes none of it."""
        return _Frame(self, put_back)

    def hold(self, entry: bytes, weight: int, reserve: bool, kept: bool = True) -> None:
        """An entry kept for the commit of this thread's innermost unit (`kept`: past the call that logs it, the
        emulator's lock with it; not for one a flush writes at once)."""
        frames = self._frames()
        if kept and self.lock is not None and not getattr(self._threads, "locked", False):
            self.lock.acquire()  # kept until nothing is held (the thread's units committed or taken back)
            self._threads.locked = True
        frame = frames[-1]
        frame.entries.append(entry)
        frame.counted += weight
        frame.reserve = frame.reserve or (reserve and not frame.put_back)

    def on_undo(self, undo: Callable[[], Any]) -> None:
        """How to take back a change just made, should this unit's entries be refused (nothing outside a unit)."""
        frames = self._frames()
        if frames:
            frames[-1].undos.append(undo)

    def alongside(self, write: Callable[[Any], Callable[[], Any]]) -> None:
        """A record kept in a file of its own (a global table's group: global_tables/journal.py), written at this
        unit's commit, under the emulator's lock, just before the unit's entries: `write(position)` writes it
        (WriteFailed: the unit is refused) and returns how to cut it off again, which is done if the entries are
        refused; `position` is where the entries start in the log, for recovery to drop a record whose entries never
        reached it, or None when the unit has none (the record is all it writes). At once outside a unit (under the
        lock too, with None)."""
        frames = self._frames()
        if frames:
            frames[-1].sides.append(write)
        else:
            with self.lock if self.lock is not None else contextlib.nullcontext():
                write(None)

    def after_commit(self, action: Callable[[], Any]) -> None:
        """Done once this unit's entries are written (at once outside a unit)."""
        frames = self._frames()
        if frames:
            frames[-1].afters.append(action)
        else:
            action()

    def _commit(self, frames: list[_Frame], frame: _Frame) -> None:
        if not frame.entries and not frame.afters and not frame.sides and len(frames) == 1:  # nothing to do
            frames.pop()
            if getattr(self._threads, "snapshot_due", False):
                self._snapshot_due()
            return
        held = [open_frame for open_frame in frames if open_frame.entries or open_frame.sides]
        if len(held) == 1:  # the usual case: one unit's entries, appended as they are
            entries, counted, reserve = held[0].entries, held[0].counted, held[0].reserve
        else:
            entries = [entry for open_frame in held for entry in open_frame.entries]
            counted = sum(open_frame.counted for open_frame in held)
            reserve = any(open_frame.reserve for open_frame in held)
        sides = [write for open_frame in held for write in open_frame.sides]
        if entries or sides:
            try:
                if sides:
                    self._write_with(sides, entries, counted, reserve)
                else:
                    self._append(entries, counted, reserve)
            except BaseException:  # WriteFailed, or any other failure (an fsync's EIO): not written, taken back, and
                self._refused(frames, frame)  # the lock let go, or no other thread could ever change anything
                raise
            written = frames  # the enclosing units' entries went with this one's: their changes are done too
        else:
            written = [frame]
        afters = [action for done in written for action in done.afters]
        for done in written:
            done.entries, done.counted, done.reserve, done.undos, done.afters, done.sides = [], 0, False, [], [], []
        frames.pop()
        try:
            for action in afters:
                try:
                    action()
                except Exception:  # the request's entries are written: a 500 would have SDKs apply it twice
                    log.exception("an action after a request's entries were written failed")
            if frames:  # an inner unit: a snapshot waits for the outermost unit, whose changes may be half made
                if entries:
                    self._threads.snapshot_due = True
            elif entries or getattr(self._threads, "snapshot_due", False):
                self._snapshot_due()
        finally:
            if self.lock is not None:
                self._unlock_if_idle(frames)

    def _write_with(
        self, sides: list[Callable[[Any], Callable[[], Any]]], entries: list[bytes], counted: int, reserve: bool
    ) -> None:
        """The records kept beside the log written, then the entries appended; the records cut off again if anything
        of it is refused (under the emulator's lock, so nothing else is written to their files between)."""
        lock = self.lock if self.lock is not None else contextlib.nullcontext()
        with lock:
            cuts: list[Callable[[], Any]] = []
            position = self._position() if entries else None
            try:
                for write in sides:
                    cuts.append(write(position))
                if entries:
                    self._append(entries, counted, reserve)
            except BaseException:
                for cut in reversed(cuts):
                    try:
                        cut()
                    except Exception:  # one failing does not keep the others from being cut
                        log.exception("a record written beside a refused request's entries could not be cut off")
                raise

    def _refused(self, frames: list[_Frame], frame: _Frame) -> None:
        """The unit's entries were not written: its changes taken back, newest first (its enclosing units' entries
        wait for their own commit)."""
        frames.pop()
        try:
            for undo in reversed(frame.undos):
                try:
                    undo()
                except Exception:  # one undo failing does not keep the others from running
                    log.exception("a change the disk refused to log could not be taken back")
            if not frames and getattr(self._threads, "snapshot_due", False):
                self._snapshot_due()
        finally:
            self._unlock_if_idle(frames)

    def defer_snapshot(self) -> None:
        """Entries were written before the change they record is made (log_all inside a unit): a snapshot waits for
        the end of the thread's outermost unit."""
        self._threads.snapshot_due = True

    def _snapshot_due(self) -> None:
        """The thread's outermost unit ended: every change it made is made, and what it wrote may be snapshotted."""
        self._threads.snapshot_due = False
        with self.lock if self.lock is not None else contextlib.nullcontext():
            self._committed()

    def _unlock_if_idle(self, frames: list[_Frame]) -> None:
        if getattr(self._threads, "locked", False) and not any(open_frame.entries for open_frame in frames):
            self._threads.locked = False
            self.lock.release()

"""Durable state: Eddy's state survives a stop, a crash or a kill -9, the way a database's does.

Persistence keeps files and knows no component: each component that keeps state declares a durable channel
(storage/channels.py) in its own package, and the composition root registers it here. Two kinds of files under
the state directory, besides the change-log segments and checkpoints:
  - wal/<generation>.log: the write-ahead log (wal.py). Every change a channel logs is appended and flushed before
    it is acknowledged.
  - snapshots/<generation>.snapshot: the whole state at one moment (snapshots.py): a header (each channel's
    fields), then each channel's entries in the order the channels were registered, taken every `snapshot_every`
    log entries and at a clean stop. Log generations before the newest snapshot are deleted, so recovery replays
    only what came after it, and the directory does not grow without bound.

Recovery loads the newest snapshot, replays the log after it (each entry handed to the channel that declared its
"op"), then tells every channel it is done (the streams' channel then reads each shard's segment files back,
keeping exactly the records whose commits reached the log). A corrupt snapshot, a corrupt line anywhere but at the
end of a file, or an entry no channel declares stops start-up with CorruptStateError naming the file: never a
silent reset to empty. A snapshot that fails fails no request (the entry that was due to take it is logged
already): the log is kept whole and the snapshot tried again later.
"""

from __future__ import annotations

import gc
import json
import logging
import shutil
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, ContextManager, Iterator

from eddy.emulator.storage.channels import Channel
from eddy.emulator.storage.snapshots import read_snapshot, write_snapshot
from eddy.emulator.storage.units_of_work import UnitsOfWork
from eddy.emulator.storage.wal import CorruptStateError, WriteAheadLog, read_entries

log = logging.getLogger("eddy")

_compact_json = json.JSONEncoder(separators=(",", ":")).encode


def holds_nothing(directory: Path) -> bool:
    """Whether a state directory is new: missing, or an empty directory (nothing in it to recover)."""
    try:
        return not directory.exists() or (directory.is_dir() and not any(directory.iterdir()))
    except OSError:  # unreadable: not known to be new (what reads it says why)
        return False


class Persistence:
    durable = True

    def __init__(
        self, directory: Path, *, fsync: bool = False, snapshot_every: int = 100_000, lock: Any = None
    ) -> None:
        self.directory = directory
        self.fsync = fsync
        self.wal = WriteAheadLog(directory / "wal", fsync=fsync)
        self.snapshot_directory = directory / "snapshots"
        self.snapshot_every = snapshot_every
        #: the registered channels, by name, in registration order (the snapshot's order)
        self.channels: dict[str, Channel] = {}
        self._by_op: dict[str, Channel] = {}
        self._replaying = False
        self._leave_as_is = False
        #: log entries at which a snapshot that failed is tried again (0: none failed since the last one)
        self._retry_at = 0
        #: whether a snapshot was put off (log_all outside a unit: its entries written before their change is made);
        #: taken after the next entries written, or before the next log_all's (whose change is not made yet)
        self._deferred = False
        #: each request's unit of work (units_of_work.py): its entries in one append, undone if refused; `lock`, the
        #: emulator's, is kept from a unit's first entry to its commit
        self.work = UnitsOfWork(self._append, self._snapshot_when_due, lock, self.wal.position)

    def register(self, *channels: Channel) -> None:
        """Read each channel's entries back at recovery and write its part of every snapshot, in the order given (a
        channel of the same name registered again replaces the earlier one, in its place)."""
        for channel in channels:
            for name, other in self.channels.items():
                if name != channel.name and (
                    set(other.ops) & set(channel.ops) or set(other.kinds) & set(channel.kinds)
                ):
                    raise ValueError(f"channel {channel.name!r} declares entries channel {name!r} declares already")
            self.channels[channel.name] = channel
        self._by_op = {op: owner for owner in self.channels.values() for op in owner.ops}

    @property
    def replaying(self) -> bool:
        """Whether recovery is reading the state back (nothing is logged meanwhile)."""
        return self._replaying

    def replay(self, entry: dict[str, Any]) -> None:
        """A log entry handed to the channel that declared its "op" (CorruptStateError if none did)."""
        channel = self._by_op.get(entry["op"])
        if channel is None:
            raise CorruptStateError(f"{self.wal.directory}: unknown log entry {entry['op']!r}")
        channel.replay(entry)

    @contextmanager
    def replaying_now(self) -> Iterator[None]:
        """Nothing is logged inside: a channel puts its state back as the log holds it (ServicesChannel.put_back)."""
        replaying, self._replaying = self._replaying, True
        try:
            yield
        finally:
            self._replaying = replaying

    def logged_since_snapshot(self) -> Iterator[dict[str, Any]]:
        """The log's entries after the newest snapshot, as written so far (the log's current generation)."""
        path = self.wal.path(self.wal.generation)
        return read_entries(path, repair=False) if path.exists() else iter(())

    def leave_as_is(self) -> None:
        """Log nothing more and take no snapshot at close: the files stay as they are (Emulator.close(keep_state))."""
        self._replaying = True
        self._leave_as_is = True

    # -- writing down -----------------------------------------------------------------------------------

    def log(self, entry: dict[str, Any], weight: int = 1) -> None:
        if not self._replaying:
            self.log_encoded(_compact_json(entry).encode(), weight)

    def log_encoded(self, entry: bytes, weight: int = 1) -> None:
        """Log an entry encoded as compact JSON (the write-ahead log's lines are compact JSON); inside a unit of work,
        with the unit's other entries when it ends. The log's reserve may write it on a full disk."""
        if self._replaying:
            return
        if self.work.open:
            self.work.hold(entry, weight, reserve=True)
            return
        self.wal.append(entry, weight)  # a snapshot put off is taken after it (below), never before: the change
        self._snapshot_when_due()  # this entry records may be made already, and a snapshot before it would hold it

    def log_all(self, entries: list[bytes]) -> None:
        """Entries in the log now, together, all of them or none (WriteFailed), with what the thread's unit of work
        holds before them: the changes they record are made once they are written, or put back if refused (a
        DynamoDB commit, a Kinesis record), so the log's reserve is not theirs (wal.py)."""
        if self._replaying or not entries:
            return
        if not self.work.holding:  # nothing held before them: written as they are
            self._snapshot_if_deferred()
            self.wal.append_all(entries, reserve=False)
            # the change they record is made once they are written: a snapshot now would hold the entries but not
            # the change (a Kinesis record lost, a commit version given twice after a restart), so it waits
            if self.work.open:
                self.work.defer_snapshot()  # until the thread's outermost unit ends
            else:
                self._deferred = True  # until the next entry is written (the change is made under the lock by then)
            return
        with self.work.unit():
            for entry in entries:
                self.work.hold(entry, 1, reserve=False, kept=False)

    def together(self) -> ContextManager[None]:
        """What is logged inside in one append when it ends, all or none (a rollover's, split's or merge's shards):
        a unit of work of its own (units_of_work.py), which its owner puts back if refused (the reserve is not its)."""
        return self.work.unit(put_back=True)

    def unit(self) -> ContextManager[None]:
        """A request's unit of work (units_of_work.py): what it logs in one append, undone if refused."""
        return self.work.unit()

    def on_undo(self, undo: Callable[[], Any]) -> None:
        """How to take back a change just made, should its unit's entries be refused."""
        if not self._replaying:
            self.work.on_undo(undo)

    def after_commit(self, action: Callable[[], Any]) -> None:
        """Done once the unit's entries are written (at once outside a unit, and while recovery replays)."""
        if self._replaying:
            action()
        else:
            self.work.after_commit(action)

    def alongside(self, write: Callable[[Any], Callable[[], Any]]) -> None:
        """A record kept in a file of its own, written at the unit's commit just before its entries, cut off again
        (by what `write` returns) if they are refused (at once outside a unit, and while recovery replays); `write`
        is given where the entries start in the log (units_of_work.py), for `logged_past` at recovery."""
        if self._replaying:
            write(None)
        else:
            self.work.alongside(write)

    def logged_past(self, position: Any) -> bool:
        """Whether the log, as recovery found it, holds entries past `position` (a [generation, size] a record kept
        beside the log was given): false when a crash came between the record and its unit's entries. A generation
        a snapshot folded in is past (its file is gone: the unit ended, and a refused one cut its record)."""
        generation, size = position
        path = self.wal.path(generation)
        return not path.exists() or path.stat().st_size > size

    def _append(self, entries: list[bytes], counted: int, reserve: bool) -> None:
        """A unit's entries written (its changes are made already): the snapshot a log_all put off is taken once they
        are in the log (UnitsOfWork calls `_snapshot_when_due` after the commit), never before them, or it would hold
        their changes while they went to the next log generation, to be applied twice after a crash."""
        self.wal.append_all(entries, reserve=reserve, counted=counted)

    def _snapshot_if_deferred(self) -> None:
        """The snapshot a change logged before it was made put off, taken before the next log_all's entries (the
        writer holds the emulator's lock, under which that change was made, and its own change is not made yet)."""
        if self._deferred:
            self._deferred = False
            self._snapshot_when_due()

    def _snapshot_when_due(self) -> None:
        if self.wal.entries >= max(self.snapshot_every, self._retry_at):
            self._snapshot_keeping_the_log()

    # -- snapshots -----------------------------------------------------------------------------------------

    def snapshot(self) -> Path:
        """Write the whole state down, then start a new log generation and drop the old ones."""
        generation = self.wal.generation + 1
        path = write_snapshot(self.snapshot_directory, generation, self._snapshot_entries(generation))
        self.wal.open(generation)
        self.wal.delete_before(generation)
        for channel in self.channels.values():
            channel.snapshot_written(generation)
        self._retry_at = 0
        self._deferred = False
        return path

    def _snapshot_entries(self, generation: int) -> Iterator[dict[str, Any] | bytes]:
        header: dict[str, Any] = {"kind": "header", "generation": generation}
        for channel in self.channels.values():
            header.update(channel.header_fields())
        yield header
        for channel in self.channels.values():
            yield from channel.snapshot_entries(generation)

    def _snapshot_keeping_the_log(self) -> None:
        """A snapshot whose failure fails no request: the write that was due to take it is in the log already, and
        the log stays whole until a snapshot succeeds (tried again after `snapshot_every` more entries)."""
        try:
            self.snapshot()
        except Exception:
            self._retry_at = self.wal.entries + self.snapshot_every
            log.exception("a snapshot failed: nothing is lost, the log is kept whole and replayed at the next start")

    # -- recovery ------------------------------------------------------------------------------------------

    def recover(self) -> None:
        """Rebuild the state the directory holds (called before any front door opens)."""
        self._replaying = True
        collecting = gc.isenabled()
        gc.disable()  # recovery makes millions of objects that all live on: cyclic collection would only rescan them
        try:
            snapshots = sorted(self.snapshot_directory.glob("*.snapshot")) if self.snapshot_directory.exists() else []
            generation = 0
            if snapshots:
                generation = self._load_snapshot(snapshots[-1])
            for logged in self.wal.generations():
                if logged >= generation:
                    for entry in read_entries(self.wal.path(logged)):
                        self.replay(entry)
                    generation = max(generation, logged)
            for channel in self.channels.values():
                channel.recovered()
        finally:
            self._replaying = False
            if collecting:
                gc.enable()
        self.wal.open(generation)
        self.wal.delete_before(generation)

    def _load_snapshot(self, path: Path) -> int:
        by_kind = {kind: channel for channel in self.channels.values() for kind in channel.kinds}
        generation = 0
        try:
            for entry in read_snapshot(path):
                kind = entry["kind"]
                if kind == "header":
                    generation = entry["generation"]
                    for channel in self.channels.values():
                        channel.restore_header(entry)
                elif kind in by_kind:
                    by_kind[kind].restore(entry)
                else:
                    raise ValueError(f"unknown snapshot entry {kind!r}")
        except (ValueError, KeyError, TypeError) as error:
            raise CorruptStateError(f"{path}: snapshot is corrupt ({type(error).__name__}: {error})") from None
        return generation

    def close(self) -> None:
        if self._leave_as_is:
            self.wal.close()
            return
        try:
            self._snapshot_keeping_the_log()
        finally:
            self.wal.close()

    def reset(self) -> None:
        self.wal.close()
        shutil.rmtree(self.wal.directory, ignore_errors=True)
        shutil.rmtree(self.snapshot_directory, ignore_errors=True)
        for channel in self.channels.values():
            channel.reset()
        self.wal.open(0)

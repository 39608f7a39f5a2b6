"""A committed operation: the write path's order, so that a write is acknowledged and durable, or refused and never seen.

Change capture (capture.py) hands over one operation's changes, a list per table, with moto's tables already holding
them under the engine's lock (no reader sees them before the lock is released). `TableCommits.commit` then:
  1. numbers each table's records and encodes them as their segments' lines, and builds and encodes each table's
     log entry (a value that cannot be encoded stops the commit here, before anything is written);
  2. writes the records to their shards' segments (durable, not yet readable; recovery keeps only the records of
     commits that reached the log);
  3. writes every table's log entry in one append to the write-ahead log: the commit point;
  4. only then shows the records to readers, counts the write, puts the changes on Kinesis destinations and hands
     the records to listeners (global tables' replication) and to pollers (the `activity` condition).
A failure before 3 (the disk is full: storage/disk.py's WriteFailed) takes the segments' lines back and raises, and
capture puts moto's items back as they were: the client hears a 500 and nothing of the write is seen anywhere.
After 3 nothing fails the write: a step that fails (a Kinesis destination, a listener) is logged, the commit stands.
"""

from __future__ import annotations

import logging
import os
import threading
from typing import Any, Callable

from eddy.emulator.clock import Clock
from eddy.emulator.storage.clock_file import ClockFile
from eddy.emulator.storage.disk import DiskState, fail_point
from eddy.emulator.streams.durable import TablesChannel
from eddy.emulator.streams.records import ChangeRecord
from eddy.emulator.streams.stream import Change, Stream
from eddy.emulator.streams.stream_registry import StreamRegistry
from eddy.emulator.streams.write_rates import WriteRates

log = logging.getLogger("eddy")

TableKey = tuple[str, str, str]


class TableCommits:
    def __init__(
        self,
        *,
        versions: dict[TableKey, int],
        streams: StreamRegistry,
        persistence: TablesChannel,
        kinesis: Any,
        write_rates: WriteRates,
        clock: Clock,
        clock_file: ClockFile,
        disk: DiskState,
        listeners: list[Callable[[Stream, list[ChangeRecord]], None]],
        activity: threading.Condition,
    ) -> None:
        self.versions = versions
        self.streams = streams
        self.persistence = persistence
        self.kinesis = kinesis
        self.write_rates = write_rates
        self.clock = clock
        self.clock_file = clock_file
        self.disk = disk
        self.listeners = listeners
        self.activity = activity

    def commit(self, by_table: dict[TableKey, list[Change]], by_ttl: bool) -> None:
        """One operation's changes, in the order above (the caller holds the engine's lock)."""
        now = self.clock.now()
        prepared = []
        for table, changes in by_table.items():
            # a table's creation is its version 1 and enabling its stream a version too (the Lakehouse counts them)
            version = self.versions.get(table, 1) + 1
            stream = self.streams.enabled_stream(*table)
            appends = (
                None
                if stream is None
                else stream.prepare(
                    changes,
                    commit_version=version,
                    now=now,
                    event_ids=(os.urandom(16).hex() for _ in changes),
                    by_ttl=by_ttl,
                )
            )
            entry = self.persistence.commit_entry(
                table, version, now, changes, by_ttl, None if appends is None else appends.last_sequence_number
            )
            prepared.append((table, version, changes, stream, appends, entry))
        written = []
        try:
            for *_, appends, _ in prepared:
                if appends is not None:
                    appends.write()
                    written.append(appends)
            self.persistence.log_commits([entry for *_, entry in prepared if entry is not None])
        except BaseException:
            for appends in written:
                appends.take_back()
            raise
        if self.disk.refusing:
            self.disk.accepted()
        self.clock_file.refresh()
        for table, version, changes, stream, appends, _ in prepared:
            self.versions[table] = version
            self.write_rates.note(table, len(changes), now)
            if appends is not None and appends.records:  # shown first; a hot shard's split may fail on its own
                _after_commit(stream.show, appends, now)
            _after_commit(self.kinesis.publish, table, changes, now, by_ttl)
            if appends is not None and appends.records:
                for listener in self.listeners:
                    _after_commit(_notify, listener, stream, appends.records)
        self.activity.notify_all()


def _notify(listener: Callable[[Stream, list[ChangeRecord]], None], stream: Stream, records: list[ChangeRecord]) -> None:
    fail_point("notify")  # a test's: a listener failing after the commit, which stands (tests/durability/)
    listener(stream, records)


def _after_commit(step: Callable[..., None], *args: Any) -> None:
    """A step that follows the commit point: its failure is logged, and the commit (durable, shown) stands."""
    try:
        step(*args)
    except Exception:
        log.exception("after a commit (which stands), %s failed", getattr(step, "__qualname__", step))

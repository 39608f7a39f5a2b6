"""Durable state: Eddy's state survives a stop, a crash or a kill -9, the way a database's does.

Two kinds of files under the state directory, besides the change-log segments and checkpoints:
  - wal/<generation>.log: the write-ahead log (wal.py). Every change is appended and flushed before it is
    acknowledged: table definitions (the DynamoDB requests that made them), committed item changes (each
    commit's new images and the last stream sequence number it produced), streams and shards as they open,
    close and trim, functions, event source mappings, the asynchronous queues' work (async_queue.py: Lambda's
    asynchronous invocations, EventBridge rules' deliveries), and the clock's offset.
  - snapshots/<generation>.snapshot: the whole state at one moment (tables with their items, streams and
    shards, functions, mappings, clock, counters), taken every `snapshot_every` log entries and at a clean
    stop. Log generations before the newest snapshot are deleted, so recovery replays only what came after
    it, and the directory does not grow without bound.

moto's services (S3, SQS, SNS, layers, IAM, ...) are kept the same way: each request that changed one is a log
entry (service_journal.py, bodies as files: service_log.py), and a snapshot folds their state in.

Recovery loads the newest snapshot, replays the log after it, then reads each shard's segment files back,
keeping exactly the records whose commits reached the log (a torn or unacknowledged tail is cut off).
A corrupt snapshot, or a corrupt line anywhere but at the end of a file, stops start-up with
CorruptStateError naming the file: never a silent reset to empty.
"""

from __future__ import annotations

import gc
import logging
import shutil
from pathlib import Path
from typing import TYPE_CHECKING, Any, ContextManager

from eddy.emulator.moto_seam import bridge as moto_bridge
from eddy.emulator.functions.registry import Function
from eddy.emulator.moto_seam.kinesis import state as kinesis_state
from eddy.emulator.storage.snapshots import (
    function_state,
    mapping_state,
    read_snapshot,
    snapshot_entries,
    write_snapshot,
)
from eddy.emulator.storage.async_queue import ASYNC_EVENTS, RULE_DELIVERIES
from eddy.emulator.storage.replay import LogReplay, table_name
from eddy.emulator.storage.service_log import ServiceLog
from eddy.emulator.storage.wal import CorruptStateError, WriteAheadLog, read_entries
from eddy.emulator.streams.records import LoggedRecord, compact_json, image_json
from eddy.emulator.streams.shards import Shard
from eddy.emulator.storage.state_observer import NoPersistence
from eddy.emulator.streams.stream import Stream

if TYPE_CHECKING:
    from eddy.emulator.engine import Emulator
    from eddy.emulator.triggers.event_source_mappings import EventSourceMapping

log = logging.getLogger("eddy")

TableKey = tuple[str, str, str]
#: how many log entries a request to moto's services counts as toward the next snapshot (replaying one through
#: moto takes ~2 ms, a DynamoDB commit ~0.1 ms): at the default, a snapshot every 10,000 such requests
SERVICE_REQUEST_WEIGHT = 10


class Persistence(LogReplay, NoPersistence):
    durable = True

    def __init__(self, emulator: "Emulator", directory: Path, *, fsync: bool = False, snapshot_every: int = 100_000) -> None:
        self.emulator = emulator
        self.directory = directory
        self.wal = WriteAheadLog(directory / "wal", fsync=fsync)
        self.snapshot_directory = directory / "snapshots"
        self.snapshot_every = snapshot_every
        #: moto's services: request bodies as files, their state in snapshots
        self.services = ServiceLog(directory, fsync=fsync)
        #: the DynamoDB requests that made each live table's definition, replayed to rebuild it
        self.ddl: dict[TableKey, list[dict[str, Any]]] = {}
        self._replaying = False
        self._confirmed = 0
        #: log entries at which a snapshot that failed is tried again (0: none failed since the last one)
        self._retry_at = 0

    # -- writing down -----------------------------------------------------------------------------------

    def _log(self, entry: dict[str, Any], weight: int = 1) -> None:
        if not self._replaying:
            self._log_encoded(compact_json(entry), weight)

    def _log_encoded(self, entry: str, weight: int = 1) -> None:
        """Log an entry encoded as compact JSON (the write-ahead log's lines are compact JSON)."""
        if self._replaying:
            return
        self.wal.append(entry.encode(), weight)
        if self.wal.entries >= max(self.snapshot_every, self._retry_at):
            self._snapshot_keeping_the_log()

    def table_request(self, account_id: str, region: str, target: str, body: dict[str, Any]) -> None:
        entry = {"op": "ddl", "account": account_id, "region": region, "target": target, "body": body}
        if target == "CreateTable":
            table = moto_bridge.find_table(account_id, region, table_name(body))
            entry["created_at"] = moto_bridge.table_created_at(table)
        key = (account_id, region, table_name(body))
        if target == "CreateTable":
            self.ddl[key] = [entry]
        elif target == "DeleteTable":
            self.ddl.pop(key, None)
        elif key in self.ddl:
            self.ddl[key].append(entry)
        self._log(entry)

    def commit_entry(self, table: TableKey, version: int, now: float, changes: list[Any], by_ttl: bool,
                     last_sequence_number: int | None) -> bytes:
        """A commit's log entry, encoded whole before anything of the commit is written or shown."""
        # {"op": "commit", "table": [...], "version": ..., "ts": ..., "items": [[keys, new image], ...], "seq": ...},
        # the new images' text image_json's (the records' change-log lines have it already)
        items = ",".join(f"[{compact_json(keys)},{image_json(new)}]" for _, keys, _, new in changes)
        seq = "null" if last_sequence_number is None else f'"{last_sequence_number}"'
        return (f'{{"op":"commit","table":{compact_json(list(table))},"version":{version},'
                f'"ts":{compact_json(now)},"items":[{items}],"seq":{seq}}}').encode()

    def log_commits(self, entries: list[bytes]) -> None:
        """One operation's commits (a table each) in the log together, all of them or none (WriteFailed)."""
        if self._replaying:
            return
        self.wal.append_all(entries, reserve=False)  # put back if refused: the reserve is for what cannot be
        if self.wal.entries >= max(self.snapshot_every, self._retry_at):
            self._snapshot_keeping_the_log()

    def together(self) -> ContextManager[None]:
        """What is logged inside in one append, all or none: a rollover's, split's or merge's shards."""
        return self.wal.together()

    def stream_enabled(self, stream: Stream) -> None:
        self._log({"op": "stream", "state": stream.to_state()})

    def shard_opened(self, stream: Stream, shard: Shard) -> None:
        self._log({"op": "shard", "stream": stream.arn, "state": shard.to_state()})

    shard_closed = shard_opened
    shard_trimmed = shard_opened

    def stream_disabled(self, stream: Stream) -> None:
        self._log({"op": "stream_disabled", "stream": stream.arn, "at": stream.disabled_at})

    def clock(self, offset: float) -> None:
        self._log({"op": "clock", "offset": offset})

    def function_saved(self, function: Function) -> None:
        if function.target is None:  # a registered callable lives in its process; register it again after a restart
            self._log({"op": "function", "state": function_state(function, self.directory)})

    def function_deleted(self, function: Function) -> None:
        self._log({"op": "function_deleted", "arn": function.qualified_arn})  # a version's is qualified

    def mapping_saved(self, mapping: "EventSourceMapping", start_position: int) -> None:
        self._log({"op": "mapping", "state": mapping_state(mapping), "start": str(start_position)})

    def mapping_deleted(self, uuid: str) -> None:
        self._log({"op": "mapping_deleted", "uuid": uuid})

    def kinesis_stream_changed(self, stream: Any) -> None:
        self._log({"op": "kinesis_stream", "shape": kinesis_state.stream_shape(stream)})

    def kinesis_record_put(self, stream: Any, shard: Any, record: Any) -> None:
        self._log({"op": "kinesis_record", "stream": stream.arn, "record": kinesis_state.record_state(shard, record)})

    def kinesis_stream_deleted(self, stream: Any) -> None:
        self._log({"op": "kinesis_stream_deleted", "stream": stream.arn})

    def kinesis_destinations_saved(self, table: TableKey, destinations: list[dict[str, Any]]) -> None:
        self._log({"op": "kinesis_destinations", "table": list(table), "destinations": destinations})

    def queue_messages_changed(self, change: dict[str, Any]) -> None:
        self._log({"op": "sqs_messages", **change})

    def async_event_saved(self, state: dict[str, Any]) -> None:
        self._log(ASYNC_EVENTS.saved(state))

    def async_event_done(self, request_id: str) -> None:
        self._log(ASYNC_EVENTS.done(request_id))

    def rule_delivery_saved(self, state: dict[str, Any]) -> None:
        self._log(RULE_DELIVERIES.saved(state))

    def rule_delivery_done(self, delivery_id: str) -> None:
        self._log(RULE_DELIVERIES.done(delivery_id))

    def service_request(self, fields: dict[str, Any], body: bytes) -> None:
        if not self._replaying:  # its replay costs what ten DynamoDB commits' do: a snapshot comes sooner
            self._log(self.services.entry(fields, body), weight=SERVICE_REQUEST_WEIGHT)

    def function_logs(self, account_id: str, region: str, group: str, stream: str,
                      events: list[tuple[int, str]]) -> None:
        self._log({"op": "function_logs", "account": account_id, "region": region, "group": group, "stream": stream,
                   "events": events})

    # -- snapshots -----------------------------------------------------------------------------------------

    def snapshot(self) -> Path:
        """Write the whole state down, then start a new log generation and drop the old ones."""
        generation = self.wal.generation + 1
        services = self.services.write(generation, self.wal)
        path = write_snapshot(self.snapshot_directory, generation,
                              [*snapshot_entries(self.emulator, generation, self.ddl, self.directory), services])
        self.wal.open(generation)
        self.wal.delete_before(generation)
        self.services.collect(services)
        self._retry_at = 0
        return path

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
                        self._apply(entry)
                    generation = max(generation, logged)
            self._load_records()
            self._sync_moto_tables()
        finally:
            self._replaying = False
            if collecting:
                gc.enable()
        self.wal.open(generation)
        self.wal.delete_before(generation)

    def _load_snapshot(self, path: Path) -> int:
        generation = 0
        try:
            for entry in read_snapshot(path):
                if entry["kind"] == "header":
                    generation = self._apply_header(entry)
                else:
                    self._apply_snapshot_entry(entry)
        except (ValueError, KeyError, TypeError) as error:
            raise CorruptStateError(f"{path}: snapshot is corrupt ({type(error).__name__}: {error})") from None
        return generation

    def _load_records(self) -> None:
        """Each shard's records back from its segment files, up to the last acknowledged commit."""
        emulator = self.emulator
        highest = self._confirmed
        for stream in emulator.streams.streams.values():
            for shard in stream.shards.values():
                trimmed = shard.trimmed_through
                shard.records = [LoggedRecord(line, number, created_at)
                                 for line, number, created_at in shard.log.load(self._confirmed) if number > trimmed]
                highest = max(highest, shard.starting_sequence_number, shard.ending_sequence_number or 0)
        emulator.sequence_numbers.restore(highest)

    def _sync_moto_tables(self) -> None:
        for (account_id, region, name), stream in self.emulator.streams.latest.items():
            table = moto_bridge.find_table(account_id, region, name)
            if table is not None:
                view_type = stream.view_type.value if stream.status == "ENABLED" else None
                moto_bridge.set_table_stream(table, stream.label, view_type)

    def close(self) -> None:
        try:
            self._snapshot_keeping_the_log()
        finally:
            self.wal.close()

    def reset(self) -> None:
        self.wal.close()
        shutil.rmtree(self.wal.directory, ignore_errors=True)
        shutil.rmtree(self.snapshot_directory, ignore_errors=True)
        self.services.reset()
        self.ddl.clear()
        self._confirmed = 0
        self.wal.open(0)

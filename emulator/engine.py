"""The Emulator: the one object that holds all of Eddy's state.

Both front doors (the in-process hook and the HTTP server) reach the same Emulator. It knows nothing of
HTTP: it takes and returns plain values and raises AWSError subclasses.

    >>> emu = Emulator()
    >>> emu.clock.advance(3600)        # an hour passes for retention, iterators, TTL and rollover
    >>> emu.close()
"""

from __future__ import annotations

import logging
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any, Callable

from eddy.emulator import moto_seam, recovery_report
from eddy.emulator.moto_seam import bridge as moto_bridge
from eddy.emulator.moto_seam.tables import views as moto_tables, write_hook
from eddy.emulator.objects.object_changes import ObjectChanges
from eddy.emulator.streams.capture import Capture, TableKey
from eddy.emulator.streams.commits import TableCommits
from eddy.emulator.clock import Clock
from eddy.emulator.dynamodb.client_request_tokens import ClientRequestTokens
from eddy.emulator.kernel import Kernel
from eddy.emulator.streams.iterators import ShardIterators
from eddy.emulator.streams.read_limits import ReadLimits
from eddy.emulator.streams.stream_reads import StreamReads
from eddy.emulator.streams.records import ChangeRecord
from eddy.emulator.settings import Settings
from eddy.emulator.streams.shards import SequenceNumbers
from eddy.emulator.streams.stream_registry import StreamRegistry
from eddy.emulator.streams.write_rates import WriteRates
from eddy.emulator.streams.stream import Stream
from eddy.emulator.kinesis.destinations import KinesisDestinations
from eddy.emulator.housekeeper import Housekeeper
from eddy.emulator.moto_seam import kinesis as moto_kinesis
from eddy.emulator.storage.ownership import Ownership
from eddy.emulator.storage.clock_file import ClockFile
from eddy.emulator.storage.disk import DiskState, WriteFailed
from eddy.emulator.storage.channels import NOT_KEPT, Reserved
from eddy.emulator.storage.persistence import Persistence, holds_nothing
from eddy.emulator.streams.durable import TablesChannel
from eddy.emulator.service_journal import ServiceJournal
from eddy.emulator.controls import Controls
from eddy.emulator.deferred_components import (
    ASYNC_INVOCATIONS_CHANNEL,
    EVENTS_SEAM,
    FUNCTIONS_CHANNEL,
    HTTP_DELIVERIES_CHANNEL,
    RULE_DELIVERIES_CHANNEL,
    SEQUENCER_CHANNEL,
    DeferredComponents,
)

#: the seam of moto's Lambda layers (their Content.Location is where this emulator serves the zip)
LAYERS_SEAM = "eddy.emulator.moto_seam.layers"
from eddy.emulator.dynamodb.operations import DynamoDB
from eddy.emulator.dynamodb.tables import TableDefinitions
from eddy.emulator.dynamodb.table_streams import TableStreams


class Emulator(DeferredComponents, Controls):
    def __init__(
        self,
        *,
        state_dir: str | os.PathLike[str] | None = None,
        clock: Clock | None = None,
        settings: Settings | None = None,
        in_memory: bool | None = None,
        fsync: bool = False,
        snapshot_every: int = 100_000,
        owner: str = "in-process",
        **setting_overrides: Any,
    ) -> None:
        """`state_dir` given (and not `in_memory`): durable, recovered by `recover()`; else a temporary directory.
        A durable one is owned (its lock held until close(), for `owner`), or StateDirectoryInUseError."""
        settings = settings or Settings()
        for name, value in setting_overrides.items():
            if not hasattr(settings, name):
                raise TypeError(f"unknown setting: {name}")
            setattr(settings, name, value)
        #: what every component shares: settings, clock, the lock and its `activity` condition, Eddy's boto3 clients
        self.kernel = Kernel(settings, clock or Clock())
        self.settings, self.clock, self.lock = self.kernel.settings, self.kernel.clock, self.kernel.lock
        #: notified (with the lock held) whenever records are published, shards change, the clock moves or a
        #: trigger makes progress: pollers and wait_idle wait on it instead of sleeping
        self.activity = self.kernel.activity
        durable = state_dir is not None and not in_memory
        self._owns_state_dir = not durable
        self.state_dir = Path(state_dir) if durable else Path(tempfile.mkdtemp(prefix="eddy-"))
        # a new or empty state directory holds nothing to recover: its components made on first use stay unmade
        new_state = durable and holds_nothing(self.state_dir)
        #: taken before anything there is read or written; None for a temporary directory, which no one else knows
        self.ownership = Ownership.take(self.state_dir, owner) if durable else None
        self.state_dir.mkdir(parents=True, exist_ok=True)
        #: the write-ahead log and snapshots, with every component's durable channel (_register_channels)
        self.persistence = (
            Persistence(self.state_dir, fsync=fsync, snapshot_every=snapshot_every, lock=self.lock)
            if durable
            else NOT_KEPT
        )  # in memory: nothing kept
        self.capture = Capture(
            lambda by_table, by_ttl: self.commits.commit(by_table, by_ttl), self.lock, moto_bridge.put_back
        )
        #: whether the disk refuses writes (storage/disk.py): the front doors, the dashboard and `eddy doctor` say so
        self.disk = DiskState(self.state_dir)
        #: every bucket's object changes (volume streams read them), under <state_dir>/objects/
        self.objects = ObjectChanges(self.state_dir / "objects", self.clock.now, fsync=fsync)
        self.iterators = ShardIterators(self.clock, self.settings.iterator_ttl_seconds)
        #: TransactWriteItems' idempotency: the tokens of the last 10 minutes (a durable channel)
        self.client_request_tokens = ClientRequestTokens(self.clock.now, self.persistence)
        self._fsync = fsync
        #: each commit's records go to global tables' replication first (made anew on reset)
        self._listeners: list[Callable[[Stream, list[ChangeRecord]], None]] = [self._replicate]
        self._housekeeper: Housekeeper | None = None
        self._started = False
        self._no_deferred_components()  # each made on first use (deferred_components.py)
        self._stacks_file = self.state_dir / "cloudformation" / "stacks.json"
        self.clock.on_advance(self._clock_moved)
        self.clock_file = ClockFile(self.state_dir / "clock.json", self.clock, self.persistence, self.lock, self.disk)
        #: what the doors hand moto_bridge.connect: moto's Kinesis notifies pollers and its durable channel through it
        self.kinesis_observer = moto_kinesis.Observer(self.activity, self.clock.now, self._kinesis_channel())
        #: every request changing moto's services, run in its moment, logged
        self.services = ServiceJournal(self.kernel, self.persistence, self.disk, self.state_dir, fsync, self.objects)
        #: S3 Lifecycle's expirations: made by the first sweep (controls.py sweep_lifecycle), kept across resets (it
        #: holds no state of its own; its handler on Eddy's S3 client is its own)
        self._lifecycle = None
        self._init_state()
        self._register_channels()  # those of the components not made yet hold their places
        if self.persistence.durable and not new_state:  # its state may hold any of them: all made now, in their places
            self._make_deferred_components()
        #: moto patched while this emulator is open (moto_seam/__init__.py: the last one closed puts moto back)
        self._patched = True
        moto_seam.apply()

    def _init_state(self) -> None:
        self.sequence_numbers = SequenceNumbers()
        self.commit_versions: dict[TableKey, int] = {}
        self.streams = StreamRegistry(self.settings, self.sequence_numbers, self.state_dir / "streams")
        self.table_channel = TablesChannel(self.persistence, self.commit_versions, self.streams)  # and `.streams`
        self.write_rates = WriteRates()  # items changed per second by each table's writes (the dashboard's figure)
        self.read_limits = ReadLimits(lambda: self.settings.get_records_per_second_per_shard, self.clock.now)
        self.stream_reads = StreamReads(
            self.kernel, self.streams, self.sequence_numbers, self.iterators, self.read_limits
        )  # ListStreams, DescribeStream, GetShardIterator, GetRecords
        self._triggers = None  # the mappings' registry: made anew by its next use (the triggers property)
        #: the tables' Kinesis streaming destinations (Kinesis Data Streams for DynamoDB), put through moto's Kinesis
        self.kinesis = KinesisDestinations(moto_bridge.kinesis_put, moto_bridge.kinesis_stream_exists, self.persistence)
        #: a table's stream switched on and off with its definition; what a deleted table leaves closed
        self.table_streams = TableStreams(
            self.lock, self.clock.now, self.streams, self.commit_versions, self.write_rates, self.kinesis
        )
        #: DynamoDB's operations: under the lock, through moto, each write captured and committed before it answers
        self.dynamodb = DynamoDB(
            self.lock,
            self.capture,
            self._table_definition,
            TableDefinitions(
                self.lock,
                self._table_definition,
                self.table_streams,
                self.clock.now,
                self.table_channel.definition_changing,
            ),
            self.table_channel.definition_changing,
        )
        self._replication = None  # global tables' replication: made anew by its next use (the replication property)
        #: each operation's changes committed in the write path's order (log first, then shown)
        self.commits = TableCommits(
            versions=self.commit_versions,
            streams=self.streams,
            persistence=self.table_channel,
            kinesis=self.kinesis,
            write_rates=self.write_rates,
            clock=self.clock,
            clock_file=self.clock_file,
            disk=self.disk,
            listeners=self._listeners,
            activity=self.activity,
        )

    def _kinesis_channel(self) -> Any:
        """moto's Kinesis streams' durable channel; none in memory (nothing kept: moto's Kinesis is not loaded)."""
        if not self.persistence.durable:
            return None
        from eddy.emulator.kinesis.durable import KinesisStreamsChannel

        return KinesisStreamsChannel(self.persistence)

    def _register_channels(self) -> None:
        """Every component's durable channel, in the order snapshots keep them (a reset's new ones in their place);
        none in memory, where nothing is kept (and the components made on first use stay unmade)."""
        if not self.persistence.durable:
            return
        notifications, invocations, eventbridge = self._notifications, self._async_invocations, self._eventbridge
        self.persistence.register(
            self.clock_file.channel,
            notifications.channel if notifications is not None else Reserved(SEQUENCER_CHANNEL),
            self.table_channel,
            self.table_channel.streams,
            self._function_channel or Reserved(FUNCTIONS_CHANNEL),
            self.kinesis_observer.persistence,
            self.kinesis.channel,
            invocations.channel if invocations is not None else Reserved(ASYNC_INVOCATIONS_CHANNEL),
            eventbridge.deliveries.channel if eventbridge is not None else Reserved(RULE_DELIVERIES_CHANNEL),
            notifications.http_endpoints.channel if notifications is not None else Reserved(HTTP_DELIVERIES_CHANNEL),
            self.mapping_channel,
            self.services.channel,
            self.client_request_tokens,
        )

    def _clock_moved(self) -> None:
        with self.activity:
            self.clock_file.moved()
            self.streams.maintain(self.clock.now())
            moto_kinesis.trim(self.clock.now())
            self.activity.notify_all()

    # -- lifecycle ---------------------------------------------------------------------------------

    def recover(self) -> None:
        """Rebuild the state a durable state directory holds; call before any front door opens."""
        with self.lock:
            self._activate_pushes()  # moto's pushes are Eddy's while the log is replayed, as they were
            self.persistence.recover()
            if self.persistence.durable:  # what was restored, one line per service
                recovery_report.report(self.streams, self._functions, self.mappings_made)
                self.replication.recover()
            if self._triggers is not None or (self.state_dir / "checkpoints").exists():
                self.triggers.checkpoints.load()
            self._write_clock()

    def _write_clock(self) -> None:  # <state_dir>/clock.json: the emulator's time, for Spark and table streams
        self.clock_file.write()

    def start(self) -> None:
        """Start what runs in the background: the enabled mappings' pollers and the housekeeper."""
        # moto's SQS on this clock, telling pollers of messages; S3's object changes recorded (each once it loads)
        moto_seam.activate(write_hook.MODULE, self.capture)  # moto's item writes to change capture from now on
        moto_seam.activate("eddy.emulator.moto_seam.sqs", self.clock.now, self.activity)
        self._started = True  # a component made on first use from now on starts as it is made
        self._activate_pushes()
        if self._notifications is not None:
            self._notifications.start()
        elif self._async_invocations is not None:
            self._async_invocations.start()
        if self._triggers is not None:  # mappings recovered: their pollers, then EventBridge's rules and pipes
            self._triggers.start_all()
        elif self._eventbridge is not None:  # no mapping yet: each starts its poller when it is created
            self._eventbridge.start()
        if self._replication is not None:
            self._replication.start()
        moto_seam.activate("eddy.emulator.moto_seam.s3.object_changes", self.objects)
        moto_seam.activate(LAYERS_SEAM, self._layer_content_location)  # Content.Location: a URL Eddy serves
        if self.settings.housekeeping_interval and self._housekeeper is None:
            self._housekeeper = Housekeeper(self.housekeeping, self.settings.housekeeping_interval)
            self._housekeeper.start()

    def _layer_content_location(self, account_id: str, region: str, name: str, version: int) -> str:
        """Where a layer version's zip is downloaded (in-process, the loopback server that serves it starts here)."""
        from eddy.emulator.functions.layers import content_location  # Lambda's layers: loaded by their first answer

        return content_location(self.functions_endpoint(), account_id, region, name, version)

    def reset(self) -> None:
        """Forget every stream, record, function and mapping (moto's backends are reset by moto)."""
        if (self._triggers or self._eventbridge) is not None:  # the mappings' reset resets EventBridge's rules, pipes
            (self._triggers or self._eventbridge).reset()
        if self._replication is not None:  # the next one is made (and started, once started) by its next use
            self._replication.reset()
        if self._invoker is not None:
            self._invoker.stop_workers()  # busy ones too: their files go below
            self._invoker.recent.reset()
        if self._async_invocations is not None:
            self._async_invocations.reset()
        if self._notifications is not None:
            self._notifications.figures.reset()
            self._notifications.delivery_status_logs.reset()  # the sample rates' counts start again
        if self._cloudformation is not None or self._stacks_file.exists():
            self.cloudformation.reset()
        self.client_request_tokens.reset()
        with self.lock:
            self.persistence.reset()
            self.streams.reset()
            if self._functions is not None:
                self._functions.reset()
            shutil.rmtree(self.state_dir / "streams", ignore_errors=True)
            self.objects.reset()
            self._init_state()
            self._register_channels()

    def close(self, keep_state: bool = False) -> None:
        """Stop everything; a durable emulator writes a final snapshot (unless `keep_state`: leave the files as they are)."""
        self._started = False  # a component made from now on is not started
        if keep_state:
            self.persistence.leave_as_is()
        if self._housekeeper is not None:
            self._housekeeper.stop()
            self._housekeeper = None
        moto_seam.deactivate("eddy.emulator.moto_seam.s3.object_changes")
        moto_seam.deactivate(LAYERS_SEAM)
        self.close_triggers()
        if self._replication is not None:
            self._replication.close()
        moto_seam.deactivate("eddy.emulator.moto_seam.sqs")
        self._deactivate_pushes()
        if self._invoker is not None:
            self._invoker.close()
        with self.lock:
            self.clock_file.close()
            self.persistence.close()
            self.streams.close()
        self.services.close()
        if self._owns_state_dir:
            shutil.rmtree(self.state_dir, ignore_errors=True)
        if self.ownership is not None:
            self.ownership.release()
        moto_seam.deactivate(write_hook.MODULE)
        if self._patched:
            self._patched = False
            moto_seam.remove()

    def close_triggers(self) -> None:
        """Stop every mapping's poller (their batches in flight finish), then EventBridge's rules and pipes."""
        if (self._triggers or self._eventbridge) is not None:
            (self._triggers or self._eventbridge).close()
        else:  # the stand-in that would have made EventBridge (deferred_components.py)
            moto_seam.deactivate(EVENTS_SEAM)

    def on_records(self, listener: Callable[[Stream, list[ChangeRecord]], None]) -> None:
        """Call `listener(stream, records)` (with the lock held) after each commit that appends records."""
        self._listeners.append(listener)

    def _replica_deleted(self, account_id: str, region: str, table_name: str) -> None:
        """A global table's replica whose deletion is over: its table dropped from moto, logged as its DeleteTable,
        its stream and destinations closed, as a DeleteTable through the door does (put back if the disk refuses
        its unit of work)."""
        self.table_channel.definition_changing(account_id, region, {"TableName": table_name})
        moto_tables.drop((account_id, region, table_name))
        self.table_channel.table_request(account_id, region, "DeleteTable", {"TableName": table_name}, self.clock.now())
        self.table_streams.table_deleted(account_id, region, table_name)

    def _table_definition(self, account_id: str, region: str, operation: str, params: dict[str, Any]) -> None:
        """A table's definition changed (Create/Update/DeleteTable, TTL, tags, backups): logged; a deleted one closed."""
        self.table_channel.table_request(account_id, region, operation, params, self.clock.now())
        if operation == "DeleteTable":
            self.table_streams.table_deleted(account_id, region, params.get("TableName"))

    def housekeeping(self) -> None:
        try:
            self.sweep_ttl()
        except WriteFailed as failure:  # the disk refused the deletions (put back): tried again next round
            self.disk.refused(failure, self.clock.now())
        try:
            self.sweep_lifecycle()
        except Exception:  # a deletion refused (a full disk: a 500): the expiration is still due, next round
            logging.getLogger("eddy").warning("S3 Lifecycle's expirations were not all carried out", exc_info=True)
        with self.activity:
            self.clock_file.refresh()
            self.streams.maintain(self.clock.now())
            moto_kinesis.trim(self.clock.now())
            self.activity.notify_all()

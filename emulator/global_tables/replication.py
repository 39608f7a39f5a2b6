"""Replication between a global table's replicas, through Eddy's own streams engine.

Every commit to a replica table appends records to its stream (a replica always has one). The records that were
written locally, not applied by replication, are queued for each other replica and applied there once the
replication delay has passed on the emulator's clock, in the order they were committed: per item, the order of its
writes. Applying one is a write to the target replica like any other (captured, logged, in its own stream, without
userIdentity: AWS's replicated writes "do not contain type or principalID properties", its TTL guide says), so the
target's mappings and readers see it.

Conflicts are decided last writer wins, as AWS documents for multi-Region eventual consistency: every item version
carries a stamp (the time it was written, the region it was written in, its sequence number there), and a replicated
write is applied only over an older stamp. Two regions writing one item at once therefore converge on the later
write everywhere; a delete leaves its stamp behind, so an older put cannot bring the item back.

A paused region (a region outage, a control no cloud gives) neither receives nor sends: its queues wait, and on
resume they are applied in order, conflicts decided by the same stamps.

After a restart the queues are rebuilt: the journal says, per source and target, the last record applied; every
later record of the source replica's stream is queued again (at least once: one applied twice is passed over by its
own stamp).
"""

from __future__ import annotations

import threading
from collections import deque
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterable

from eddy.emulator.global_tables.backlog import Pending, Queues, Stamps, item_id, requeue
from eddy.emulator.global_tables.controls import ReplicationControls
from eddy.emulator.global_tables.journal import Journal
from eddy.emulator.global_tables.replica_groups import DELETING, ReplicaGroup, ReplicaGroups
from eddy.emulator.moto_seam import global_tables as moto_global_tables
from eddy.emulator.storage.disk import WriteFailed
from eddy.emulator.streams.capture import TableKey
from eddy.emulator.streams.records import ChangeRecord

if TYPE_CHECKING:
    from eddy.emulator.kernel import Kernel
    from eddy.emulator.storage.channels import DurableLog
    from eddy.emulator.storage.disk import DiskState
    from eddy.emulator.streams.capture import Capture
    from eddy.emulator.streams.stream import Stream
    from eddy.emulator.streams.stream_registry import StreamRegistry


class Replication(ReplicationControls):
    """Built with the kernel (lock and activity, clock, settings), the write capture (a replicated write is a write
    like any other), the disk's state, the stream registry (a replica's stream is its replication log), the state
    directory (the journal's), `table_deleted(account_id, region, table_name)`: what the Emulator does when a
    replica's table is gone (its DeleteTable logged, its stream closed), and the durable log, whose request's unit of
    work a group's change belongs to (put back if the disk refuses the request, journaled only once it is written)."""

    def __init__(
        self,
        kernel: Kernel,
        capture: Capture,
        disk: DiskState,
        streams: StreamRegistry,
        table_deleted: Callable[[str, str, str], None],
        state_dir: Path,
        log: DurableLog,
        *,
        fsync: bool = False,
    ) -> None:
        self._log = log
        self._kernel = kernel
        self._lock = kernel.lock
        self._activity = kernel.activity
        self._now = kernel.clock.now
        self._capture = capture
        self._disk = disk
        self._streams = streams
        self._table_deleted = table_deleted
        self.journal = Journal(state_dir, fsync=fsync)
        self.groups = ReplicaGroups()
        self._queues: Queues = {}  # the writes on their way (backlog.py)
        self._stamps: Stamps = {}
        self._paused: set[str] = set()
        #: how long after its commit a write reaches the other replicas (emulator's clock): set_delay changes it
        self.delay = kernel.settings.replication_delay_seconds
        self._applying = threading.local()
        self._thread: threading.Thread | None = None
        self._started = False  # by the emulator: the replicator's thread runs once there is a global table
        self._stopping = False
        #: replicated writes applied and passed over (an older stamp), since the emulator started
        self.applied = 0
        self.passed_over = 0

    # -- what the engine calls -------------------------------------------------------------------------

    def on_records(self, stream: Stream, records: list[ChangeRecord]) -> None:
        """After a commit that appended records (with the lock held): stamp them, and queue the local ones."""
        table = (stream.account_id, stream.region, stream.table_name)
        group = self.groups.of(table)
        if group is None:
            return
        stamps = self._stamps.setdefault(table, {})
        applying: Pending | None = getattr(self._applying, "entry", None)
        if applying is not None:  # a replicated write landing: it keeps its origin's stamp, and goes nowhere else
            for record in records:
                stamps[item_id(record.keys)] = applying.stamp
                self._applying.record = record.sequence_number
            return
        delay = self.delay
        targets = [region for region in group.replicating() if region != table[1]]
        for record in records:
            stamp = (record.created_at, table[1], record.sequence_number)
            stamps[item_id(record.keys)] = stamp
            entry = Pending(
                record.created_at + delay, table, record.sequence_number, stamp, record.keys, record.new_image
            )
            for region in targets:
                self._queues.setdefault((table, region), deque()).append(entry)

    def start(self) -> None:
        """Replicate from now on: the replicator's thread starts now if a global table was recovered, else with the
        first replica added (a server without global tables runs no replicator, woken by every commit)."""
        self._started = True
        if any(True for _ in self.groups):
            self._replicator()

    def _replicator(self) -> None:
        if self._thread is None:
            self._stopping = False
            self._thread = threading.Thread(target=self._run, name="eddy-replication", daemon=True)
            self._thread.start()

    @property
    def running(self) -> bool:
        return self._started

    def close(self) -> None:
        with self._activity:
            self._stopping = True
            self._activity.notify_all()
        if self._thread is not None:
            self._thread.join(timeout=30)
            self._thread = None
        self._started = False
        self.journal.close()

    def reset(self) -> bool:
        """Stop, and forget every global table (the emulator makes a new Replication); whether it was running."""
        running = self.running
        self.close()
        self.journal.rewrite([])
        return running

    # -- the replicator ---------------------------------------------------------------------------------

    def _run(self) -> None:
        activity = self._activity
        with activity:
            while not self._stopping:
                wait = self.step()
                activity.wait(wait)

    def step(self) -> float:
        """Settle replica states and apply every due replicated write (lock held); how long until the next is due."""
        now = self._now()
        self._settle(now)
        next_due = None
        for (source, region), queue in list(self._queues.items()):
            if region in self._paused or source[1] in self._paused:
                continue
            while queue and queue[0].due <= now:
                try:
                    self._apply(queue[0], (source[0], region, source[2]))
                except WriteFailed as failure:  # the disk refused it (its change put back): tried again later
                    self._disk.refused(failure, now)
                    return 1.0
                queue.popleft()
            if queue:
                next_due = queue[0].due if next_due is None else min(next_due, queue[0].due)
        if next_due is None:
            return 1.0
        return min(max(next_due - now, 0.001), 1.0)

    def _apply(self, entry: Pending, target: TableKey) -> None:
        if not moto_global_tables.has_table(target):  # the replica went (deleted in its own region)
            return
        stamps = self._stamps.setdefault(target, {})
        identity = item_id(entry.keys)
        current = stamps.get(identity)
        record = None
        if current is not None and current >= entry.stamp:
            self.passed_over += 1
        else:
            capture = self._capture
            self._applying.entry, self._applying.record = entry, None
            try:
                with capture.operation():
                    if entry.new_image is not None:
                        moto_global_tables.put_image(target, entry.new_image)
                    else:
                        moto_global_tables.delete_image(target, entry.keys)
            finally:
                record = self._applying.record
                self._applying.entry = None
            stamps[identity] = entry.stamp
            self.applied += 1
        self.journal.append(
            {
                "applied": [target[0], target[2], entry.source[1], target[1], entry.sequence_number],
                "stamp": list(entry.stamp),
                "record": record,
            }
        )

    def settle(self) -> None:
        """Move replicas whose CREATING or DELETING time is over (lock held): what a DescribeTable sees is now's."""
        self._settle(self._now())

    def _settle(self, now: float) -> None:
        transition = self._kernel.settings.replica_transition_seconds
        for group in list(self.groups):
            if not group.leaving(now, transition):  # nothing written: a CREATING replica's end is its time's
                group.settle(now, transition)
                continue
            try:
                with self._log.unit():  # the replicas' tables dropped and the group: all of it written, or none
                    self.changing(group.account_id, group.table_name)
                    for region in group.settle(now, transition):
                        self._forget_region(group, region)
                        self._table_deleted(group.account_id, region, group.table_name)
                    self._save(group)
            except WriteFailed as failure:  # put back as it was: the replicas leave at a later settling
                self._disk.refused(failure, now)

    # -- replica groups -----------------------------------------------------------------------------------

    def add_replica(self, group: ReplicaGroup, region: str, source_region: str) -> None:
        """A replica was created in `region` (its table made, filled from `source_region`): replicate to it. The
        writes still on their way to the source replica go to the new one too (its fill did not have them). Part of
        the request's unit of work: `changing` was called before the group was touched."""
        self.groups.put(group)
        if self._started:
            self._replicator()
        for (source, target), queue in list(self._queues.items()):
            if (
                target == source_region
                and source[1] != region
                and (source[0], source[2]) == (group.account_id, group.table_name)
            ):
                self._queues.setdefault((source, region), deque()).extend(queue)
        self._save(group)

    def backfill(self, source: TableKey, target: TableKey) -> int:
        """Copy every item of `source` into the new replica `target`, each with its stamp (lock held)."""
        stamps, new_stamps = self._stamps.setdefault(source, {}), self._stamps.setdefault(target, {})
        items = list(moto_global_tables.images(source))
        with self._capture.operation():  # all of the copy, or none of it
            for keys, image in items:
                moto_global_tables.put_image(target, image)
                identity = item_id(keys)
                if identity in stamps:
                    new_stamps[identity] = stamps[identity]
        return len(items)

    def expires_here(self, account_id: str, region: str, table_name: str) -> bool:
        """Whether Time to Live deletes expired items of this table here: a global table's in one region (the first
        of its group), whose deletes replicate to the others (AWS: "DynamoDB replicates TTL deletes to all replica
        tables"; the delete is the service's only where the expiry occurred)."""
        group = self.groups.of((account_id, region, table_name))
        return group is None or next(iter(group.replicas)) == region

    def remove_replica(self, group: ReplicaGroup, region: str, now: float) -> None:
        """A replica is being deleted (DELETING from `now`): nothing more is replicated to or from it. Part of the
        request's unit of work: the group is put back if the disk refuses it."""
        self.changing(group.account_id, group.table_name)
        group.replicas[region].status, group.replicas[region].since = DELETING, now
        self._forget_region(group, region)
        self._save(group)

    def table_deleted(self, table: TableKey) -> None:
        """A replica's table was deleted in its own region: it leaves its group at once (with its DeleteTable: put
        back if the disk refuses the request)."""
        group = self.groups.of(table)
        if group is None:
            return
        self.changing(table[0], table[2])
        group.replicas.pop(table[1], None)
        self._forget_region(group, table[1])
        self._save(group)

    def changing(self, account_id: str, table_name: str) -> None:
        """A request is about to change the table's group (lock held): should the disk refuse the request, its unit
        of work puts the group back as it is now (its replicas, whether it is a group at all, the queues and the
        stamps of every replica)."""
        group = self.groups.named(account_id, table_name)
        replicas = None if group is None else {region: replace(replica) for region, replica in group.replicas.items()}
        queues, stamps = dict(self._queues), dict(self._stamps)

        def put_back() -> None:
            current = self.groups.named(account_id, table_name)
            if current is not None and current is not group:  # made by the refused request
                current.replicas.clear()
                self.groups.drop_if_single(current)
            if group is not None and replicas is not None:
                group.replicas.clear()
                group.replicas.update(replicas)
                self.groups.put(group)
            self._queues.clear()
            self._queues.update(queues)
            self._stamps.clear()
            self._stamps.update(stamps)

        self._log.on_undo(put_back)

    def _forget_region(self, group: ReplicaGroup, region: str) -> None:
        for source, target in list(self._queues):
            if source[2] == group.table_name and source[0] == group.account_id and region in (source[1], target):
                del self._queues[(source, target)]
        self._stamps.pop(group.key(region), None)

    def _save(self, group: ReplicaGroup) -> None:
        """The group as it now is, journaled with the request's unit of work: written at its commit, just before its
        log entries, and cut off again if the disk refuses them (the unit puts the group back: `changing`); a
        refused line refuses the unit. So the journal holds no change the log does not, and the request answers its
        500 when either is refused. The line says where the entries start in the log, so a kill -9 between the two
        leaves no group of a request never answered (journal.py)."""
        if self.groups.drop_if_single(group):
            entry: dict[str, object] = {"ungroup": [group.account_id, group.table_name]}
        else:
            entry = {"group": group.to_state()}
        self._log.alongside(lambda log_position: self.journal.append(entry, log_position))

    # -- recovery -----------------------------------------------------------------------------------------

    def recover(self) -> None:
        """Rebuild groups, stamps and queues from the journal and the replicas' streams (lock held)."""
        through, replicated = self.journal.read_back(self.groups, self._log.logged_past)
        requeue(self.groups, self._records, through, replicated, self.delay, self._stamps, self._queues)
        self.journal.compact(self.groups, through, replicated)

    def _records(self, table: TableKey) -> Iterable[ChangeRecord]:
        """A replica's retained records, in commit order."""
        stream = self._streams.latest_stream(*table)
        if stream is None:
            return []
        return sorted(
            (record for shard in stream.shards.values() for record in shard.records),
            key=lambda record: record.sequence_number,
        )

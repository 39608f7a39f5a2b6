"""The writes on their way from one replica of a global table to the others: each one (Pending, its item's
identity by `item_id`), the queues they wait in per source replica and target region, what the backlog control
shows of them, and the queues and stamps a restart rebuilds from the replicas' streams.

After a restart (global_tables/journal.py: how far each source has been applied to each target, and the records
replication made), every record of a replica's stream is stamped again (its own stamp, or the one the write it
replicated carried), and each local record past the last one applied to another replica is queued for it again.
"""

from __future__ import annotations

import json
from collections import deque
from typing import Any, Callable, Iterable, NamedTuple

from eddy.emulator.global_tables.journal import Replicated, Stamp, Through
from eddy.emulator.global_tables.replica_groups import ReplicaGroups
from eddy.emulator.streams.capture import TableKey
from eddy.emulator.streams.records import ChangeRecord, Image


class Pending(NamedTuple):
    due: float
    source: TableKey
    sequence_number: int
    stamp: Stamp
    keys: Image
    new_image: Image | None


#: per (source replica, target region): the writes waiting, in commit order
Queues = dict[tuple[TableKey, str], deque[Pending]]
#: per replica: the stamp of each item's last write, by item_id
Stamps = dict[TableKey, dict[str, Stamp]]


def item_id(keys: Image) -> str:
    return json.dumps(keys, sort_keys=True, separators=(",", ":"))


def rows(queues: Queues, paused: set[str], now: float) -> list[dict[str, Any]]:
    """Per source and target replica: the writes not yet applied, the oldest one's age, whether either is paused."""
    found = []
    for (source, region), queue in queues.items():
        if queue:
            found.append(
                {
                    "TableName": source[2],
                    "SourceRegion": source[1],
                    "TargetRegion": region,
                    "PendingWrites": len(queue),
                    "OldestWriteAgeSeconds": round(now - queue[0].stamp[0], 3),
                    "Paused": region in paused or source[1] in paused,
                }
            )
    return found


def requeue(
    groups: ReplicaGroups,
    records_of: Callable[[TableKey], Iterable[ChangeRecord]],
    through: Through,
    replicated: Replicated,
    delay: float,
    stamps: Stamps,
    queues: Queues,
) -> None:
    """Rebuild, into `stamps` and `queues`, what a restart needs: every replica's records (`records_of`, in commit
    order) stamped, and each local one not yet applied to another replicating region queued for it, due `delay`
    seconds after its commit."""
    for group in groups:
        regions = group.replicating()
        for region in group.replicas:
            table = group.key(region)
            table_stamps = stamps.setdefault(table, {})
            landed = replicated.get(table, {})
            for record in records_of(table):
                stamp = landed.get(record.sequence_number)
                local = stamp is None
                if local:
                    stamp = (record.created_at, region, record.sequence_number)
                table_stamps[item_id(record.keys)] = stamp
                if not local or region not in regions:
                    continue
                for other in regions:
                    if other != region and record.sequence_number > through.get((table, other), 0):
                        queues.setdefault((table, other), deque()).append(
                            Pending(
                                record.created_at + delay,
                                table,
                                record.sequence_number,
                                stamp,
                                record.keys,
                                record.new_image,
                            )
                        )

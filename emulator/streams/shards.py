"""Shards: the ordered, append-only runs of stream records that a stream is made of.

A shard covers one partition of the table's key space (a range of the 128-bit hash of the partition
key). It is open until it rolls over or splits; then it is closed with an EndingSequenceNumber and its
children take over its key range. Sequence numbers are digits only, strictly increasing in a shard,
and a child's are above its parent's (one counter serves the whole emulator). A merge (two adjacent shards
closed, one child over both) gives the child a second parent, as Kinesis's MergeShards does.
"""

from __future__ import annotations

import bisect
import hashlib
import itertools
import threading
from typing import Any, Callable, Iterable

from eddy.emulator.streams.records import ChangeRecord
from eddy.emulator.storage.segments import SegmentLog

HASH_SPACE = 1 << 128
#: sequence numbers are shown as 21-digit strings, like AWS's "300000000000000499659"
SEQUENCE_NUMBER_BASE = 10**20


class SequenceNumbers:
    """The emulator-wide sequence number counter."""

    def __init__(self, start: int = 0) -> None:
        self._counter = itertools.count(SEQUENCE_NUMBER_BASE + start + 1)
        self._lock = threading.Lock()
        self._last = SEQUENCE_NUMBER_BASE + start

    def next(self) -> int:
        with self._lock:
            self._last = next(self._counter)
            return self._last

    @property
    def last(self) -> int:
        return self._last

    def restore(self, last: int) -> None:
        """Carry on after `last` (the highest sequence number recovered after a restart)."""
        with self._lock:
            self._last = max(self._last, last)
            self._counter = itertools.count(self._last + 1)


def partition_hash(hash_key_value: dict[str, Any]) -> int:
    """Where a partition key value falls in the key space."""
    ((kind, value),) = hash_key_value.items()
    if isinstance(value, bytes):
        value = value.hex()
    return int.from_bytes(hashlib.md5(f"{kind}:{value}".encode()).digest(), "big")


class Shard:
    def __init__(
        self,
        *,
        shard_id: str,
        parent_shard_id: str | None,
        hash_range: tuple[int, int],
        starting_sequence_number: int,
        created_at: float,
        log: SegmentLog,
    ) -> None:
        self.shard_id = shard_id
        self.parent_shard_id = parent_shard_id
        #: a merged shard's second parent (Kinesis's AdjacentParentShardId); DynamoDB streams never merge
        self.adjacent_parent_shard_id: str | None = None
        self.hash_range = hash_range
        self.starting_sequence_number = starting_sequence_number
        self.ending_sequence_number: int | None = None
        self.created_at = created_at
        self.closed_at: float | None = None
        self.records: list[ChangeRecord] = []
        #: every record with a sequence number up to this one has been trimmed (none yet)
        self.trimmed_through = starting_sequence_number - 1
        self.log = log
        self._rate_second = -1
        self._rate_count = 0

    @property
    def parent_shard_ids(self) -> tuple[str, ...]:
        """Every shard this one came from: none, one (rollover, split) or two (a merge)."""
        return tuple(p for p in (self.parent_shard_id, self.adjacent_parent_shard_id) if p)

    @property
    def is_open(self) -> bool:
        return self.ending_sequence_number is None

    @property
    def last_sequence_number(self) -> int:
        """The highest sequence number the shard holds or held."""
        if self.records:
            return self.records[-1].sequence_number
        return max(self.trimmed_through, self.starting_sequence_number)

    def covers(self, sequence_number: int) -> bool:
        end = self.ending_sequence_number
        return sequence_number >= self.starting_sequence_number and (end is None or sequence_number <= end)

    def count_writes(self, second: int, count: int) -> int:
        """Add `count` records to the clock second's tally and return the tally."""
        if second != self._rate_second:
            self._rate_second, self._rate_count = second, 0
        self._rate_count += count
        return self._rate_count

    def close(self, now: float) -> None:
        self.ending_sequence_number = self.last_sequence_number
        self.closed_at = now

    def index_at(self, sequence_number: int) -> int:
        """Index of the first retained record whose sequence number is >= sequence_number."""
        return bisect.bisect_left(self.records, sequence_number, key=_sequence_number)

    def trim_before(self, cutoff: float) -> int:
        """Drop records created before `cutoff`; their segment files go once wholly trimmed."""
        count = 0
        for record in self.records:
            if record.created_at >= cutoff:
                break
            count += 1
        if count:
            self.trimmed_through = self.records[count - 1].sequence_number
            del self.records[:count]
            self.log.delete_through(self.trimmed_through)
        return count

    def to_state(self) -> dict[str, Any]:
        """What persistence keeps of a shard (its records live in its segment files)."""
        return {
            "shard_id": self.shard_id,
            "parent_shard_id": self.parent_shard_id,
            "hash_range": [str(self.hash_range[0]), str(self.hash_range[1])],
            "starting_sequence_number": str(self.starting_sequence_number),
            "ending_sequence_number": None if self.ending_sequence_number is None else str(self.ending_sequence_number),
            "created_at": self.created_at,
            "closed_at": self.closed_at,
            "trimmed_through": str(self.trimmed_through),
            "adjacent_parent_shard_id": self.adjacent_parent_shard_id,
        }

    @classmethod
    def from_state(cls, state: dict[str, Any], log: SegmentLog) -> "Shard":
        shard = cls(
            shard_id=state["shard_id"],
            parent_shard_id=state["parent_shard_id"],
            hash_range=(int(state["hash_range"][0]), int(state["hash_range"][1])),
            starting_sequence_number=int(state["starting_sequence_number"]),
            created_at=state["created_at"],
            log=log,
        )
        if state["ending_sequence_number"] is not None:
            shard.ending_sequence_number = int(state["ending_sequence_number"])
        shard.closed_at = state["closed_at"]
        shard.trimmed_through = int(state["trimmed_through"])
        shard.adjacent_parent_shard_id = state.get("adjacent_parent_shard_id")
        return shard

    def describe(self) -> dict[str, Any]:
        sequence_range = {"StartingSequenceNumber": str(self.starting_sequence_number)}
        if self.ending_sequence_number is not None:
            sequence_range["EndingSequenceNumber"] = str(self.ending_sequence_number)
        shard: dict[str, Any] = {"ShardId": self.shard_id, "SequenceNumberRange": sequence_range}
        if self.parent_shard_id:
            shard["ParentShardId"] = self.parent_shard_id
        if self.adjacent_parent_shard_id:
            shard["AdjacentParentShardId"] = self.adjacent_parent_shard_id
        return shard


class ShardAppends:
    """One commit's records for a stream's shards, encoded as their segments' lines: written (durable, not yet
    readable), then shown by the stream once the commit is in the write-ahead log, or taken back if it is not."""

    def __init__(self, table_name: str, by_shard: dict[Shard, list[ChangeRecord]], commit_records: int) -> None:
        self.by_shard = by_shard
        self.records = [record for records in by_shard.values() for record in records]
        self.records.sort(key=_sequence_number)
        #: encoded before anything is written: a record that cannot be encoded stops the commit here
        self._lines = {
            shard: b"".join(record.to_log_line(table_name, shard.shard_id, commit_records) for record in records)
            for shard, records in by_shard.items()
        }
        self._written: list[tuple[Shard, Any]] = []

    @property
    def last_sequence_number(self) -> int | None:
        return self.records[-1].sequence_number if self.records else None

    def write(self) -> None:
        """Each shard's lines to its segment (storage/disk.py's WriteFailed: the ones written already taken back)."""
        try:
            for shard, records in self.by_shard.items():
                mark = shard.log.append(self._lines[shard], records[0].sequence_number, records[-1].sequence_number)
                self._written.append((shard, mark))
        except BaseException:
            self.take_back()
            raise

    def take_back(self) -> None:
        """Remove the lines written (the commit did not reach the write-ahead log)."""
        while self._written:
            shard, mark = self._written.pop()
            shard.log.take_back(mark)


def _sequence_number(record: ChangeRecord) -> int:
    return record.sequence_number


def split_range(hash_range: tuple[int, int]) -> Iterable[tuple[int, int]]:
    low, high = hash_range
    middle = (low + high) // 2
    return ((low, middle), (middle, high))

"""Streams: a table's change stream, its shards and their lineage.

A new stream starts with one open shard covering the whole key space. The key space is split into
partitions (ranges of the partition-key hash), each with exactly one open shard, so a key's records
always go to the same line of shards and per-item order holds across lineage:
  - rollover: after `shard_rollover_seconds` a shard closes and one child takes over its range;
  - split: on load (`split_records_per_second`) or on demand a shard closes and two children each take
    half of its range.
Disabling a stream closes its open shards; they stay readable through retention.
"""

from __future__ import annotations

import bisect
import contextlib
import json
import os
import shutil
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, ContextManager, Iterable, Iterator

from eddy.emulator.errors import ResourceNotFoundException, ValidationException
from eddy.emulator.settings import Settings
from eddy.emulator.storage.disk import WriteFailed
from eddy.emulator.storage.segments import SegmentLog
from eddy.emulator.streams.item_size import item_size
from eddy.emulator.streams.records import ChangeRecord, EventName, Image, ImageText, StreamViewType
from eddy.emulator.streams.shards import HASH_SPACE, SequenceNumbers, Shard, ShardAppends, partition_hash, split_range

#: a shard under load splits only while its key range is wider than this (a single hot key cannot be split
#: apart, so after 64 halvings load no longer splits it)
MIN_SPLIT_RANGE = HASH_SPACE >> 64

#: (event name, keys, old image's text, new image's text, old image's item size, new image's item size) of one item
#: changed by a commit (records.image_json's text: what the item keeps on moto's Item, the record holds and the logs
#: write; a size is 0 where there is no image)
Change = tuple[EventName, Image, ImageText | None, ImageText | None, int, int]


def stream_label(now: float) -> str:
    """AWS's StreamLabel: an ISO-8601 timestamp with milliseconds, e.g. 2015-05-11T21:21:33.291."""
    return datetime.fromtimestamp(now, timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3]


class Stream:
    def __init__(
        self,
        *,
        account_id: str,
        region: str,
        table_name: str,
        table_arn: str,
        label: str,
        view_type: StreamViewType,
        key_schema: list[dict[str, str]],
        created_at: float,
        settings: Settings,
        sequence_numbers: SequenceNumbers,
        directory: Path,
        observer: "StreamObserver | None" = None,
        first_shard: bool = True,
        enabled_version: int | None = None,
    ) -> None:
        self.account_id = account_id
        self.region = region
        self.table_name = table_name
        self.label = label
        self.arn = f"{table_arn}/stream/{label}"
        self.view_type = view_type
        self.key_schema = key_schema
        self.hash_key_name = next(k["AttributeName"] for k in key_schema if k["KeyType"] == "HASH")
        self.created_at = created_at
        self.status = "ENABLED"
        self.disabled_at: float | None = None
        #: its table was deleted (a table of that name created later is a new table, with a new history)
        self.table_deleted = False
        #: the table's commit version that enabling this stream took (no records: the reader knows it)
        self.enabled_version = enabled_version
        self.settings = settings
        self.directory = directory
        self._sequence_numbers = sequence_numbers
        self.shards: dict[str, Shard] = {}
        self._next_maintenance = created_at + 1.0
        #: the number part of the newest shard id (its creation in ms), kept strictly increasing
        self.last_shard_ms = 0
        self._open: list[Shard] = []  # the open shards, ordered by the start of their hash range
        self._open_starts: list[int] = []
        self.observer = observer or StreamObserver()
        if first_shard:
            self.open_first_shard()

    # -- shards ------------------------------------------------------------------------------------

    def open_first_shard(self) -> Shard:
        """A new stream's one open shard, over the whole key space."""
        shard = self._open_shard(None, (0, HASH_SPACE), self.created_at)
        self.write_description()
        return shard

    def write_description(self) -> None:
        """`<directory>/stream.json`: what a reader of the change log needs beside the records (the table's key
        schema, whether the stream is on, whether its table was deleted); written to a temp file, swapped in."""
        self.directory.mkdir(parents=True, exist_ok=True)
        description = {
            "table": self.table_name,
            "stream_arn": self.arn,
            "label": self.label,
            "key_schema": self.key_schema,
            "created_at": self.created_at,
            "status": self.status,
            "disabled_at": self.disabled_at,
            "table_deleted": self.table_deleted,
            "enabled_version": self.enabled_version,
        }
        temporary = self.directory / "stream.json.tmp"
        temporary.write_text(json.dumps(description))
        os.replace(temporary, self.directory / "stream.json")

    def _open_shard(
        self, parent: Shard | None, hash_range: tuple[int, int], now: float, adjacent_parent: Shard | None = None
    ) -> Shard:
        # the number part is the creation time in ms, kept strictly increasing so ids sort oldest first
        self.last_shard_ms = max(int(now * 1000), self.last_shard_ms + 1)
        shard_id = f"shardId-{self.last_shard_ms:020d}-{os.urandom(4).hex()}"
        shard = Shard(
            shard_id=shard_id,
            parent_shard_id=parent.shard_id if parent else None,
            hash_range=hash_range,
            starting_sequence_number=self._sequence_numbers.next(),
            created_at=now,
            log=SegmentLog(
                self.directory / shard_id, self.settings.segment_max_bytes, self.settings.columnar_copy_min_bytes
            ),
        )
        shard.adjacent_parent_shard_id = adjacent_parent.shard_id if adjacent_parent else None
        self._add_shard(shard)
        self.observer.shard_opened(self, shard)
        return shard

    def _add_shard(self, shard: Shard) -> None:
        self.shards[shard.shard_id] = shard
        if shard.is_open:
            index = bisect.bisect_left(self._open_starts, shard.hash_range[0])
            self._open.insert(index, shard)
            self._open_starts.insert(index, shard.hash_range[0])

    def _close_shard(self, shard: Shard, now: float) -> None:
        shard.close(now)
        shard.log.seal()
        index = self._open.index(shard)
        del self._open[index]
        del self._open_starts[index]
        self.observer.shard_closed(self, shard)

    def shard(self, shard_id: str) -> Shard:
        try:
            return self.shards[shard_id]
        except KeyError:
            raise ResourceNotFoundException("Requested resource not found: Shard does not exist") from None

    @property
    def open_shards(self) -> list[Shard]:
        return list(self._open)

    @contextlib.contextmanager
    def _shard_change(self) -> Iterator[None]:
        """A rollover, split or merge: its shards logged in one append, or none of it (the disk refused: WriteFailed),
        with the shards in memory put back as they were, so the lineage read back after a restart is the one shown."""
        put_back = self.kept()
        try:
            with self.observer.together():
                yield
        except BaseException:
            put_back()
            raise

    def kept(self) -> Callable[[], None]:
        """How to put the stream's shards and status back as they are now (a change the disk refused: a rollover,
        split or merge, a stream disabled). A status put back is written to stream.json again, where readers in other
        processes (Spark's table streams, exports) read it."""
        shards, opened, starts, last_ms = (
            dict(self.shards),
            list(self._open),
            list(self._open_starts),
            self.last_shard_ms,
        )
        ends = [(shard, shard.ending_sequence_number, shard.closed_at) for shard in opened]
        status, disabled_at, table_deleted = self.status, self.disabled_at, self.table_deleted

        def put_back() -> None:
            self.shards, self._open, self._open_starts, self.last_shard_ms = shards, opened, starts, last_ms
            for shard, ending, closed_at in ends:
                shard.ending_sequence_number, shard.closed_at = ending, closed_at
            described = (self.status, self.disabled_at, self.table_deleted)
            self.status, self.disabled_at, self.table_deleted = status, disabled_at, table_deleted
            if described != (status, disabled_at, table_deleted):
                self.write_description()

        return put_back

    def rollover(self, now: float, shards: Iterable[Shard] | None = None) -> list[str]:
        """Close the given open shards (all by default); each gets one child over the same key range."""
        children = []
        with self._shard_change():
            for shard in list(self._open if shards is None else shards):
                self._close_shard(shard, now)
                children.append(self._open_shard(shard, shard.hash_range, now).shard_id)
        return children

    def split(self, shard_id: str, now: float) -> list[str]:
        """Close an open shard and open two children, each covering half of its key range."""
        shard = self.shard(shard_id)
        if not shard.is_open:
            raise ValidationException(f"Shard {shard_id} is closed: only an open shard can be split")
        if shard.hash_range[1] - shard.hash_range[0] < 2:
            raise ValidationException(f"Shard {shard_id} covers too small a key range to split")
        with self._shard_change():
            self._close_shard(shard, now)
            return [self._open_shard(shard, half, now).shard_id for half in split_range(shard.hash_range)]

    def merge(self, shard_id: str, adjacent_shard_id: str, now: float) -> str:
        """Close two open shards with adjacent key ranges and open one child over both (ParentShardId and
        AdjacentParentShardId), as Kinesis's MergeShards does; AWS's DynamoDB streams never merge on their own."""
        shard, adjacent = self.shard(shard_id), self.shard(adjacent_shard_id)
        for one in (shard, adjacent):
            if not one.is_open:
                raise ValidationException(f"Shard {one.shard_id} is closed: only open shards can be merged")
        low, high = sorted((shard, adjacent), key=lambda one: one.hash_range[0])
        if shard is adjacent or low.hash_range[1] != high.hash_range[0]:
            raise ValidationException(f"Shards {shard_id} and {adjacent_shard_id} do not cover adjacent key ranges")
        with self._shard_change():
            self._close_shard(shard, now)
            self._close_shard(adjacent, now)
            return self._open_shard(shard, (low.hash_range[0], high.hash_range[1]), now, adjacent).shard_id

    def disable(self, now: float) -> None:
        for shard in list(self._open):
            self._close_shard(shard, now)
        self.status = "DISABLED"
        self.disabled_at = now
        self.write_description()
        self.observer.stream_disabled(self)

    # -- writing -----------------------------------------------------------------------------------

    def _shard_for(self, keys: Image) -> Shard:
        if len(self._open) == 1:
            return self._open[0]
        position = partition_hash(keys[self.hash_key_name])
        return self._open[bisect.bisect_right(self._open_starts, position) - 1]

    def publish(
        self, changes: list[Change], *, commit_version: int, now: float, event_ids: Iterable[str], by_ttl: bool = False
    ) -> list[ChangeRecord]:
        """Append one commit's changes, each to its partition's open shard; split shards that run hot."""
        appends = self.prepare(changes, commit_version=commit_version, now=now, event_ids=event_ids, by_ttl=by_ttl)
        appends.write()
        self.show(appends, now)
        return appends.records

    def prepare(
        self, changes: list[Change], *, commit_version: int, now: float, event_ids: Iterable[str], by_ttl: bool = False
    ) -> ShardAppends:
        """One commit's records, numbered and encoded for their shards' segments; nothing written or shown yet."""
        self.maintain(now)
        by_shard: dict[Shard, list[ChangeRecord]] = {}
        view_type = self.view_type
        for (event_name, keys, old_image, new_image, old_size, new_size), event_id in zip(changes, event_ids):
            record = ChangeRecord(
                sequence_number=self._sequence_numbers.next(),
                event_id=event_id,
                event_name=event_name,
                keys=keys,
                old_image=old_image,
                new_image=new_image,
                created_at=now,
                commit_version=commit_version,
                by_ttl=by_ttl,
            )
            record.sized(view_type, item_size(keys), new_size, old_size)  # SizeBytes kept for every reader
            by_shard.setdefault(self._shard_for(keys), []).append(record)
        return ShardAppends(self.table_name, by_shard, len(changes))

    def show(self, appends: ShardAppends, now: float) -> None:
        """A commit's records, written and logged, made readable; shards that run hot split."""
        threshold = self.settings.split_records_per_second
        for shard, records in appends.by_shard.items():
            shard.records.extend(records)
            hot = threshold is not None and shard.count_writes(int(now), len(records)) > threshold
            if hot and shard.hash_range[1] - shard.hash_range[0] > MIN_SPLIT_RANGE:
                with contextlib.suppress(WriteFailed):  # a full disk: the shard stays whole until it runs hot again
                    self.split(shard.shard_id, now)

    # -- time --------------------------------------------------------------------------------------

    def maintain(self, now: float) -> None:
        """Roll over shards that have been open long enough; trim records past retention (once a clock second)."""
        if now < self._next_maintenance:
            return
        self._next_maintenance = now + 1.0
        period = self.settings.shard_rollover_seconds
        due = [shard for shard in self._open if now - shard.created_at >= period]
        if due:
            with contextlib.suppress(WriteFailed):  # a full disk: the shards stay open (nothing half done), rolled
                self.rollover(now, due)  # at a maintenance once it has room
        cutoff = now - self.settings.retention_seconds
        for shard in list(self.shards.values()):
            if shard.records and shard.records[0].created_at < cutoff:
                shard.trim_before(cutoff)
                with contextlib.suppress(WriteFailed):  # a full disk: recovery trims the same records by their age
                    self.observer.shard_trimmed(self, shard)
            if not shard.is_open and not shard.records and shard.closed_at < cutoff:
                del self.shards[shard.shard_id]
                shutil.rmtree(shard.log.directory, ignore_errors=True)

    @property
    def expired(self) -> bool:
        """A disabled stream whose shards have all passed retention is gone."""
        return self.status == "DISABLED" and not self.shards

    def close_files(self) -> None:
        for shard in self.shards.values():
            shard.log.close()

    # -- recovery -------------------------------------------------------------------------------

    def restore_shard(self, state: dict[str, Any]) -> Shard:
        """A shard as persistence recorded it (opened, or closed since)."""
        existing = self.shards.get(state["shard_id"])
        if existing is not None and existing.is_open:
            index = self._open.index(existing)
            del self._open[index]
            del self._open_starts[index]
        log = (
            existing.log
            if existing is not None
            else SegmentLog(
                self.directory / state["shard_id"],
                self.settings.segment_max_bytes,
                self.settings.columnar_copy_min_bytes,
            )
        )
        shard = Shard.from_state(state, log)
        if existing is not None:
            shard.records = existing.records
        self._add_shard(shard)
        return shard


class StreamObserver:
    """Told of every change to a stream's shape (persistence writes them down); ignores them by default."""

    def together(self) -> ContextManager[None]:
        """What is told inside is written down all together, or none of it."""
        return contextlib.nullcontext()

    def stream_enabled(self, stream: Stream) -> None:
        """A new stream, before its first shard opens."""

    def shard_opened(self, stream: Stream, shard: Shard) -> None:
        """A shard opened (a stream's first, or a child of a rollover or split)."""

    def shard_closed(self, stream: Stream, shard: Shard) -> None:
        """A shard closed, with its EndingSequenceNumber."""

    def shard_trimmed(self, stream: Stream, shard: Shard) -> None:
        """Records at the front of a shard passed retention and were dropped."""

    def stream_disabled(self, stream: Stream) -> None:
        """A stream was disabled (its table's stream turned off, or its table deleted)."""

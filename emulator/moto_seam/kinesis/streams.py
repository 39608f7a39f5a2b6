"""moto's Kinesis, made to keep lineage: the seams Eddy needs there (state.py, beside it, is what persistence keeps).

moto 5.2's Kinesis, as shipped, puts new records on a closed parent after a split (it routes by hash range over
every shard), moves a split parent's records into its children, copies merged parents' records into the child
and numbers each shard's records from 1. Readers then see duplicates and lose per-key order across resharding.
Replaced here: a record goes to the open shard whose hash range holds its key; SplitShard and MergeShards close
the parents and open children with ParentShardId / AdjacentParentShardId, moving nothing; a stream numbers all
its records in one increasing sequence (so a child's are above its parents'), stamped with Eddy's clock. Every
change is made under Eddy's `activity` condition and notified, so pollers wake without polling, and told to
Eddy's persistence (a put as a record, any other change as the stream's shape), so streams survive a restart.
moto's readers (GetRecords, GetShardIterator, DescribeStream, ListShards) take the same lock: a shard's
records are never iterated while a put adds to them. `trim` drops records older than the stream's retention.
Pinned by tests/emulator/kinesis/.
"""

from __future__ import annotations

from base64 import b64decode
from contextlib import nullcontext
from datetime import datetime, timezone
from functools import wraps
from operator import attrgetter
from typing import Any, Callable, Iterator

from moto.kinesis.exceptions import InvalidArgumentError, StreamNotFoundError
from moto.kinesis.models import KinesisBackend, Record, Shard, Stream, kinesis_backends
from moto.utilities.utils import md5_hash

from eddy.emulator.moto_seam import bridge as moto_bridge
from eddy.emulator.moto_seam import Patches

#: a stream's sequence numbers start here: 21 digits, like Eddy's DynamoDB streams
SEQUENCE_BASE = 10**20
HASH_LIMIT = 1 << 128


def _observed() -> Any:
    observer = moto_bridge.kinesis_observer()
    return observer.activity if observer is not None else nullcontext()


def _notify() -> None:
    observer = moto_bridge.kinesis_observer()
    if observer is not None:
        observer.activity.notify_all()


def _tell(event: str, *args: Any) -> None:
    observer = moto_bridge.kinesis_observer()
    if observer is not None and observer.persistence is not None:
        getattr(observer.persistence, event)(*args)


def _now() -> float | None:
    observer = moto_bridge.kinesis_observer()
    return observer.now() if observer is not None else None


def stamp(record: Record, arrival: float) -> None:
    """The record's arrival time (what GetRecords and Lambda's event report), on Eddy's clock."""
    record.created_at = arrival
    record.created_at_datetime = datetime.fromtimestamp(arrival, timezone.utc).replace(tzinfo=None)


def _open_shard_for(stream: Stream, partition_key: str, explicit_hash_key: str | None) -> Shard:
    if not isinstance(partition_key, str) or not 1 <= len(partition_key) <= 256:
        raise InvalidArgumentError("partition_key")
    if explicit_hash_key:
        key = int(explicit_hash_key)
        if not 0 <= key < HASH_LIMIT:
            raise InvalidArgumentError("explicit_hash_key")
    else:
        key = int(md5_hash(partition_key.encode("utf-8")).hexdigest(), 16)
    for shard in stream.shards.values():
        if shard.is_open and shard.starting_hash <= key <= shard.ending_hash:
            return shard
    raise InvalidArgumentError(f"no open shard of {stream.stream_name} holds hash key {key}")


def _put_record(self: Stream, partition_key: str, explicit_hash_key: str, data: str) -> tuple[str, str]:
    with _observed():
        shard = _open_shard_for(self, partition_key, explicit_hash_key)
        sequence_number = max(getattr(self, "eddy_last_sequence", SEQUENCE_BASE), SEQUENCE_BASE) + 1
        record = Record(partition_key, data, sequence_number, explicit_hash_key)
        now = _now()
        if now is not None:
            stamp(record, now)
        _tell("kinesis_record_put", self, shard, record)  # logged first: refused by the disk, the record is not put
        self.eddy_last_sequence = sequence_number
        shard.records[sequence_number] = record
        _notify()
    return str(sequence_number), shard.shard_id


def _next_id(stream: Stream) -> int:
    return sorted(stream.shards.values(), key=attrgetter("_shard_id"))[-1]._shard_id + 1


def _not_open(stream: Stream, shard: Shard) -> InvalidArgumentError:
    return InvalidArgumentError(
        message=f"Shard {shard.shard_id} in stream {stream.stream_name} under account {stream.account_id} has "
        "already been merged or split, and thus is not eligible for merging or splitting."
    )


def _split_shard(self: Stream, shard_to_split: str, new_starting_hash_key: str) -> None:
    with _observed():
        shard = self.get_shard(shard_to_split)
        middle = int(new_starting_hash_key)
        if not shard.starting_hash < middle <= shard.ending_hash:
            raise InvalidArgumentError(
                message=f"NewStartingHashKey {middle} used in SplitShard() on shard {shard_to_split} in stream "
                f"{self.stream_name} under account {self.account_id} is not both greater than one plus the "
                f"shard's StartingHashKey {shard.starting_hash} and less than the shard's EndingHashKey "
                f"{shard.ending_hash - 1}."
            )
        if not shard.is_open:
            raise _not_open(self, shard)
        first = _next_id(self)
        for offset, (low, high) in enumerate(((shard.starting_hash, middle - 1), (middle, shard.ending_hash))):
            child = Shard(first + offset, low, high, parent=shard.shard_id)
            self.shards[child.shard_id] = child
        shard.is_open = False
        _tell("kinesis_stream_changed", self)
        _notify()


def _merge_shards(self: Stream, shard_to_merge: str, adjacent_shard_to_merge: str) -> None:
    with _observed():
        shard, adjacent = self.get_shard(shard_to_merge), self.get_shard(adjacent_shard_to_merge)
        for one in (shard, adjacent):
            if not one.is_open:
                raise _not_open(self, one)
        low, high = sorted((shard, adjacent), key=attrgetter("starting_hash"))
        if low.ending_hash + 1 != high.starting_hash:
            raise InvalidArgumentError(
                message=f"Shards {shard_to_merge} and {adjacent_shard_to_merge} in stream {self.stream_name} under "
                f"account {self.account_id} are not an adjacent pair of shards eligible for merging"
            )
        child = Shard(
            _next_id(self),
            low.starting_hash,
            high.ending_hash,
            parent=shard.shard_id,
            adjacent_parent=adjacent.shard_id,
        )
        self.shards[child.shard_id] = child
        shard.is_open = adjacent.is_open = False
        _tell("kinesis_stream_changed", self)
        _notify()


def _locked(method: Callable[..., Any]) -> Callable[..., Any]:
    """moto's method, run holding Eddy's lock: what it iterates is not changed meanwhile."""

    @wraps(method)
    def locked(*args: Any, **kwargs: Any) -> Any:
        with _observed():
            return method(*args, **kwargs)

    return locked


def _told(method: Callable[..., Any], event: str) -> Callable[..., Any]:
    """moto's backend method, under Eddy's lock, then the stream it made or changed told to persistence."""

    @wraps(method)
    def told(backend: KinesisBackend, *args: Any, **kwargs: Any) -> Any:
        with _observed():
            result = method(backend, *args, **kwargs)
            named = dict(zip(("stream_arn", "stream_name"), args), **kwargs)
            stream = (
                result
                if isinstance(result, Stream)
                else backend.describe_stream(stream_arn=named.get("stream_arn"), stream_name=named.get("stream_name"))
            )
            _tell(event, stream)
            _notify()
            return result

    return told


def _on_demand_unless_sized(create_stream: Callable[..., Stream]) -> Callable[..., Stream]:
    """CreateStream without ShardCount or StreamModeDetails makes an on-demand stream, as on AWS (Kinesis API
    reference, CreateStream: ShardCount is not required; on-demand is the mode that needs none), where moto fails
    dividing by None. moto gives an on-demand stream AWS's 4 shards to begin with."""

    @wraps(create_stream)
    def create(
        backend: KinesisBackend,
        stream_name: str,
        shard_count: int | None,
        stream_mode: dict[str, str] | None = None,
        **kwargs: Any,
    ) -> Stream:
        if shard_count is None and not stream_mode:
            stream_mode = {"StreamMode": "ON_DEMAND"}
        return create_stream(backend, stream_name, shard_count, stream_mode=stream_mode, **kwargs)

    return create


def _with_stream_mode(to_json: Callable[..., dict[str, Any]]) -> Callable[..., dict[str, Any]]:
    """DescribeStream's StreamDescription names the stream's mode, as AWS's does (moto's only in the summary)."""

    @wraps(to_json)
    def described(stream: Stream, *args: Any, **kwargs: Any) -> dict[str, Any]:
        answer = to_json(stream, *args, **kwargs)
        answer["StreamDescription"].setdefault("StreamModeDetails", dict(stream.stream_mode))
        return answer

    return described


_patches = Patches()


def install() -> None:
    """moto's Kinesis keeping lineage, read under Eddy's lock, CreateStream on demand without ShardCount."""
    _patches.set(Stream, "put_record", _put_record)
    _patches.set(Stream, "split_shard", _split_shard)
    _patches.set(Stream, "merge_shards", _merge_shards)
    for name in (
        "get_records",
        "get_min_sequence_number",
        "get_max_sequence_number",
        "get_sequence_number_at",
        "to_json",
    ):
        _patches.set(Shard, name, _locked(getattr(Shard, name)))
    for name in ("to_json", "to_json_summary"):
        _patches.set(Stream, name, _locked(getattr(Stream, name)))
    _patches.set(Stream, "to_json", _with_stream_mode(Stream.to_json))
    for name in ("list_shards", "update_shard_count"):
        _patches.set(KinesisBackend, name, _locked(getattr(KinesisBackend, name)))
    _patches.set(
        KinesisBackend,
        "create_stream",
        _on_demand_unless_sized(_told(KinesisBackend.create_stream, "kinesis_stream_changed")),
    )
    _patches.set(KinesisBackend, "delete_stream", _told(KinesisBackend.delete_stream, "kinesis_stream_deleted"))
    for name in ("increase_stream_retention_period", "decrease_stream_retention_period"):
        _patches.set(KinesisBackend, name, _told(getattr(KinesisBackend, name), "kinesis_stream_changed"))


def uninstall() -> None:
    _patches.restore()


# -- reading, for Eddy's pollers ---------------------------------------------------------------------------


def find_stream(stream_arn: str) -> Stream | None:
    parts = stream_arn.split(":")
    if len(parts) != 6 or parts[2] != "kinesis" or not parts[5].startswith("stream/"):
        return None
    try:
        return kinesis_backends[parts[4]][parts[3]].describe_stream(stream_arn=stream_arn, stream_name=None)
    except (StreamNotFoundError, KeyError):
        return None


def shards(stream: Stream) -> Iterator[tuple[str, tuple[str, ...], bool, Shard]]:
    """(shard id, parent shard ids, open?, moto's shard) of every shard of the stream."""
    with _observed():
        every = list(stream.shards.values())
    for shard in every:
        parents = tuple(p for p in (shard.parent, shard.adjacent_parent) if p)
        yield shard.shard_id, parents, shard.is_open, shard


def is_open(shard: Shard) -> bool:
    return shard.is_open


def records_after(shard: Shard, sequence_number: int) -> list[tuple[int, str, bytes, float]]:
    """(sequence number, partition key, data, arrival time) of the shard's records after `sequence_number`."""
    with _observed():
        if not shard.records or next(reversed(shard.records)) <= sequence_number:
            return []
        values = [record for number, record in shard.records.items() if number > sequence_number]
    return [(r.sequence_number, r.partition_key, b64decode(r.data), r.created_at) for r in values]


def trimmed_through(shard: Shard) -> int:
    """The highest sequence number trimmed from the shard (0: nothing trimmed yet)."""
    return getattr(shard, "eddy_trimmed_through", 0)


def trim(now: float) -> None:
    """Drop every record older than its stream's retention period (on Eddy's clock), as Kinesis does (the
    package's trim calls it once moto's Kinesis is loaded)."""
    with _observed():
        for backend in _backends():
            for stream in list(backend.streams.values()):
                horizon = now - stream.retention_period_hours * 3600
                for shard in stream.shards.values():
                    while shard.records:
                        first = next(iter(shard.records))
                        if shard.records[first].created_at >= horizon:
                            break
                        del shard.records[first]
                        shard.eddy_trimmed_through = first


def _backends() -> Iterator[KinesisBackend]:
    """Every backend moto's Kinesis has made (one per account and region used)."""
    for regions in list(kinesis_backends.values()):
        yield from list(regions.values())


def last_sequence_number(stream: Stream) -> int:
    return getattr(stream, "eddy_last_sequence", SEQUENCE_BASE)

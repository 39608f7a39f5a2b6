"""moto's Kinesis, made to keep lineage: the seams Eddy needs there, in this one module (moto_bridge's sibling).

moto 5.2's Kinesis, as shipped, puts new records on a closed parent after a split (it routes by hash range over
every shard), moves a split parent's records into its children, copies merged parents' records into the child
and numbers each shard's records from 1. Readers then see duplicates and lose per-key order across resharding.
Replaced here: a record goes to the open shard whose hash range holds its key; SplitShard and MergeShards close
the parents and open children with ParentShardId / AdjacentParentShardId, moving nothing; a stream numbers all
its records in one increasing sequence (so a child's are above its parents'), stamped with Eddy's clock. Every
change is made under Eddy's `activity` condition and notified, so pollers wake without polling.
Pinned by tests/emulator/kinesis/test_kinesis_triggers.py.
"""

from __future__ import annotations

from base64 import b64decode
from contextlib import nullcontext
from operator import attrgetter
from typing import Any, Callable, Iterator, NamedTuple

from moto.kinesis.exceptions import InvalidArgumentError, StreamNotFoundError
from moto.kinesis.models import Record, Shard, Stream, kinesis_backends
from moto.utilities.utils import md5_hash

from emulator import moto_bridge

#: a stream's sequence numbers start here: 21 digits, like Eddy's DynamoDB streams
SEQUENCE_BASE = 10**20
HASH_LIMIT = 1 << 128


class Observer(NamedTuple):
    """What moto's Kinesis tells Eddy of (given to moto_bridge.activate): records put and reshards."""

    activity: Any  # the emulator's threading.Condition: held while moto's Kinesis changes, notified after
    now: Callable[[], float]  # the emulator's clock: a record's arrival time


def _observed() -> Any:
    observer = moto_bridge.kinesis_observer()
    return observer.activity if observer is not None else nullcontext()


def _notify() -> None:
    observer = moto_bridge.kinesis_observer()
    if observer is not None:
        observer.activity.notify_all()


def _now() -> float | None:
    observer = moto_bridge.kinesis_observer()
    return observer.now() if observer is not None else None


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
        self.eddy_last_sequence = sequence_number
        record = Record(partition_key, data, sequence_number, explicit_hash_key)
        now = _now()
        if now is not None:
            record.created_at = now
        shard.records[sequence_number] = record
        _notify()
    return str(sequence_number), shard.shard_id


def _next_id(stream: Stream) -> int:
    return sorted(stream.shards.values(), key=attrgetter("_shard_id"))[-1]._shard_id + 1


def _not_open(stream: Stream, shard: Shard) -> InvalidArgumentError:
    return InvalidArgumentError(
        message=f"Shard {shard.shard_id} in stream {stream.stream_name} under account {stream.account_id} has "
                "already been merged or split, and thus is not eligible for merging or splitting.")


def _split_shard(self: Stream, shard_to_split: str, new_starting_hash_key: str) -> None:
    with _observed():
        shard = self.get_shard(shard_to_split)
        middle = int(new_starting_hash_key)
        if not shard.starting_hash < middle <= shard.ending_hash:
            raise InvalidArgumentError(
                message=f"NewStartingHashKey {middle} used in SplitShard() on shard {shard_to_split} in stream "
                        f"{self.stream_name} under account {self.account_id} is not both greater than one plus the "
                        f"shard's StartingHashKey {shard.starting_hash} and less than the shard's EndingHashKey "
                        f"{shard.ending_hash - 1}.")
        if not shard.is_open:
            raise _not_open(self, shard)
        first = _next_id(self)
        for offset, (low, high) in enumerate(((shard.starting_hash, middle - 1), (middle, shard.ending_hash))):
            child = Shard(first + offset, low, high, parent=shard.shard_id)
            self.shards[child.shard_id] = child
        shard.is_open = False
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
                        f"account {self.account_id} are not an adjacent pair of shards eligible for merging")
        child = Shard(_next_id(self), low.starting_hash, high.ending_hash, parent=shard.shard_id,
                      adjacent_parent=adjacent.shard_id)
        self.shards[child.shard_id] = child
        shard.is_open = adjacent.is_open = False
        _notify()


Stream.put_record = _put_record  # type: ignore[method-assign]
Stream.split_shard = _split_shard  # type: ignore[method-assign]
Stream.merge_shards = _merge_shards  # type: ignore[method-assign]


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
    for shard in list(stream.shards.values()):
        parents = tuple(p for p in (shard.parent, shard.adjacent_parent) if p)
        yield shard.shard_id, parents, shard.is_open, shard


def is_open(shard: Shard) -> bool:
    return shard.is_open


def records_from(shard: Shard, start: int) -> list[tuple[int, str, bytes, float]]:
    """(sequence number, partition key, data, arrival time) of the shard's records from the start-th on."""
    values = list(shard.records.values())[start:] if start < len(shard.records) else []
    return [(r.sequence_number, r.partition_key, b64decode(r.data), r.created_at) for r in values]


def last_sequence_number(stream: Stream) -> int:
    return getattr(stream, "eddy_last_sequence", SEQUENCE_BASE)

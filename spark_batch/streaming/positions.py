"""Where a streaming query stands in each shard of a DynamoDB stream: the offsets Spark checkpoints.

An offset is plain JSON, one entry per shard the query knows:

    {"streamArn": "arn:...", "shards": {"shardId-1": {"starting": "100", "parents": [], "position": "AFTER 142"}}}

A shard's position is one of
    TRIM_HORIZON   nothing read yet; read from the oldest record the stream keeps (root shards at the start)
    AT             nothing read yet; read from the shard's first sequence number (shards found later: their
                   records must all be there, or the query has lost some and says so)
    AFTER <n>      read through sequence number n
    END            read to the end of a closed shard

Pure functions: no boto3, no Spark. The source (source.py) calls them on the driver.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Mapping

TRIM_HORIZON, AT, END = "TRIM_HORIZON", "AT", "END"
AFTER = "AFTER "


@dataclass(frozen=True)
class Shard:
    """A shard as DescribeStream shows it: its id, its parents and its first sequence number."""

    shard_id: str
    parents: tuple[str, ...]
    starting: str
    closed: bool = False

    @classmethod
    def from_description(cls, shard: Mapping[str, Any]) -> "Shard":
        parents = tuple(p for p in (shard.get("ParentShardId"), shard.get("AdjacentParentShardId")) if p)
        sequence_range = shard.get("SequenceNumberRange", {})
        return cls(
            shard["ShardId"],
            parents,
            sequence_range.get("StartingSequenceNumber", "0"),
            "EndingSequenceNumber" in sequence_range,
        )


def after(sequence_number: str) -> str:
    return AFTER + sequence_number


def sequence_after(position: str) -> str | None:
    """The sequence number an AFTER position names, else None."""
    return position[len(AFTER) :] if position.startswith(AFTER) else None


def in_lineage_order(shards: Iterable[Shard]) -> list[Shard]:
    """Parents before children (a shard whose parent is gone counts as a root), else in the given order."""
    by_id = {shard.shard_id: shard for shard in shards}
    ordered: list[Shard] = []
    placed: set[str] = set()

    def place(shard: Shard) -> None:
        if shard.shard_id in placed:
            return
        placed.add(shard.shard_id)
        for parent in shard.parents:
            if parent in by_id:
                place(by_id[parent])
        ordered.append(shard)

    for shard in by_id.values():
        place(shard)
    return ordered


def entry(shard: Shard, position: str) -> dict[str, Any]:
    return {"starting": shard.starting, "parents": list(shard.parents), "position": position}


def initial_positions(shards: Iterable[Shard], starting_position: str) -> dict[str, dict[str, Any]]:
    """Each shard's position at a query's start from TRIM_HORIZON, before any read.

    Roots start at the trim horizon; a shard whose parent is in the stream starts at its first record, read once
    its parent is read to its end. (From LATEST the source reads each shard to its end first: see source.py.)
    """
    known = {shard.shard_id for shard in shards}
    return {
        shard.shard_id: entry(shard, AT if any(p in known for p in shard.parents) else starting_position)
        for shard in shards
    }


def readable(shard_id: str, shards: Mapping[str, Mapping[str, Any]]) -> bool:
    """A shard may be read once every parent the query knows has been read to its end."""
    if shards[shard_id]["position"] == END:
        return False
    return all(shards[parent]["position"] == END for parent in shards[shard_id]["parents"] if parent in shards)


def with_new_shards(shards: Mapping[str, Mapping[str, Any]], described: Iterable[Shard]) -> dict[str, dict[str, Any]]:
    """The query's shards plus those the stream has gained (splits, rollovers): each read from its first record.

    A shard read to its end that the stream no longer lists (trimmed away) is dropped: nothing is left to read.
    """
    described = list(described)
    listed = {shard.shard_id for shard in described}
    merged = {
        shard_id: dict(value) for shard_id, value in shards.items() if shard_id in listed or value["position"] != END
    }
    for shard in described:
        merged.setdefault(shard.shard_id, entry(shard, AT))
    return merged


def vanished(shards: Mapping[str, Mapping[str, Any]], now_listed: Iterable[str]) -> list[str]:
    """Shards the query has not read to their end that are no longer listed: their records were trimmed."""
    listed = set(now_listed)
    return sorted(shard_id for shard_id, value in shards.items() if shard_id not in listed and value["position"] != END)


@dataclass(frozen=True)
class ShardRange:
    """What one partition reads: a shard from one position (exclusive of what was read) to another."""

    shard_id: str
    starting: str
    start: str
    end: str


def ranges(start: Mapping[str, Any], end: Mapping[str, Any]) -> list[ShardRange]:
    """The shard ranges a micro-batch reads between two offsets (shards that did not move are left out)."""
    before = start.get("shards", {}) if start else {}
    result = []
    for shard_id, value in end["shards"].items():
        first = before.get(shard_id, {"position": AT})["position"]
        if first != value["position"] and first != END:
            result.append(ShardRange(shard_id, value["starting"], first, value["position"]))
    return result

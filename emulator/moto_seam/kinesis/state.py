"""moto's Kinesis streams as plain state and back: what persistence writes down and restores after a restart.

A stream's shape (its shards with their hash ranges, lineage, open or closed, how far each is trimmed; its
retention, mode and last sequence number) is written whenever it changes; each record as it is put. Recovery
rebuilds the streams in moto's Kinesis from those, so mappings on them resume from their checkpoints.
"""

from __future__ import annotations

from typing import Any, Iterator

from moto.kinesis.exceptions import StreamNotFoundError
from moto.kinesis.models import Record, Shard, Stream, kinesis_backends

from eddy.emulator.moto_seam.kinesis.streams import SEQUENCE_BASE, stamp, trimmed_through


def stream_shape(stream: Stream) -> dict[str, Any]:
    return {
        "account_id": stream.account_id,
        "region": stream.region,
        "name": stream.stream_name,
        "retention_hours": stream.retention_period_hours,
        "mode": dict(stream.stream_mode),
        "last_sequence": str(getattr(stream, "eddy_last_sequence", SEQUENCE_BASE)),
        "shards": [
            {
                "id": shard._shard_id,
                "start": str(shard.starting_hash),
                "end": str(shard.ending_hash),
                "parent": shard.parent,
                "adjacent_parent": shard.adjacent_parent,
                "open": shard.is_open,
                "trimmed_through": str(trimmed_through(shard)),
            }
            for shard in stream.shards.values()
        ],
    }


def record_state(shard: Shard, record: Record) -> list[Any]:
    return [
        shard.shard_id,
        str(record.sequence_number),
        record.partition_key,
        record.data,
        record.created_at,
        record.explicit_hash_key,
    ]


def restore_shape(shape: dict[str, Any]) -> None:
    """The stream as the shape says, in moto's Kinesis; the records of shards it already has are kept."""
    backend = kinesis_backends[shape["account_id"]][shape["region"]]
    stream = backend.streams.get(shape["name"])
    if stream is None:
        stream = Stream(
            shape["name"],
            1,
            stream_mode=shape["mode"],
            retention_period_hours=shape["retention_hours"],
            account_id=shape["account_id"],
            region_name=shape["region"],
        )
        stream.shards = {}
        backend.streams[shape["name"]] = stream
    stream.retention_period_hours = shape["retention_hours"]
    stream.stream_mode = shape["mode"]
    stream.eddy_last_sequence = int(shape["last_sequence"])
    shards: dict[str, Shard] = {}
    for state in shape["shards"]:
        shard = Shard(
            state["id"],
            int(state["start"]),
            int(state["end"]),
            parent=state["parent"],
            adjacent_parent=state["adjacent_parent"],
        )
        old = stream.shards.get(shard.shard_id)
        if old is not None:
            shard.records = old.records
        shard.is_open = state["open"]
        shard.eddy_trimmed_through = int(state["trimmed_through"])
        shards[shard.shard_id] = shard
    stream.shards = shards
    stream.shard_count = sum(1 for shard in shards.values() if shard.is_open)


def restore_record(stream_arn: str, state: list[Any]) -> None:
    shard_id, sequence_number, partition_key, data, created_at, explicit_hash_key = state
    shard = _stream(stream_arn).shards[shard_id]
    record = Record(partition_key, data, int(sequence_number), explicit_hash_key)
    stamp(record, created_at)
    shard.records[int(sequence_number)] = record


def delete_stream(stream_arn: str) -> None:
    stream = _stream(stream_arn, missing_ok=True)
    if stream is not None:
        kinesis_backends[stream.account_id][stream.region].streams.pop(stream.stream_name, None)


def all_streams() -> Iterator[Stream]:
    for regions in list(kinesis_backends.values()):
        for backend in list(regions.values()):
            yield from list(backend.streams.values())


def _stream(stream_arn: str, missing_ok: bool = False) -> Stream | None:
    _, _, _, region, account_id, resource = stream_arn.split(":", 5)
    try:
        return kinesis_backends[account_id][region].describe_stream(stream_arn=stream_arn, stream_name=None)
    except StreamNotFoundError:
        if missing_ok:
            return None
        raise

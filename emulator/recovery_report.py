"""What recovery restored, one line per service, logged at start-up:

    recovered dynamodb: 2 tables, 1,000 items, 1,500 stream records
    recovered lambda: 1 function, 1 event source mapping, 2 layer versions
    recovered s3: 1 bucket, 10,000 objects
    recovered sqs: 2 queues, 100,000 messages

so a user sees at once that a restart brought back what they had (or that the directory was new).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from eddy.emulator.moto_seam import bridge as moto_bridge
from eddy.emulator.moto_seam import kinesis as moto_kinesis
from eddy.emulator.moto_seam.services import state as service_state

if TYPE_CHECKING:
    from eddy.emulator.functions.registry import FunctionRegistry
    from eddy.emulator.streams.stream_registry import StreamRegistry

log = logging.getLogger("eddy")

#: the singular of each noun the lines use
_SINGULAR = {
    "tables": "table",
    "items": "item",
    "stream records": "stream record",
    "functions": "function",
    "event source mappings": "event source mapping",
    "layer versions": "layer version",
    "buckets": "bucket",
    "objects": "object",
    "queues": "queue",
    "messages": "message",
    "topics": "topic",
    "subscriptions": "subscription",
    "roles": "role",
    "role sessions": "role session",
    "users": "user",
    "policies": "policy",
    "streams": "stream",
    "records": "record",
    "backends": "backend",
}


def _figure(count: int, noun: str) -> str:
    return f"{count:,} {_SINGULAR.get(noun, noun) if count == 1 else noun}"


def lines(streams: StreamRegistry, functions: FunctionRegistry | None, mappings: int) -> list[str]:
    """One line per service holding anything; a single line when nothing was there. `mappings`: how many event
    source mappings recovery restored; `functions` None: not made (a new state directory holds none)."""
    tables = moto_bridge.table_summaries()
    services: dict[str, dict[str, int]] = {
        "dynamodb": {
            "tables": len(tables),
            "items": sum(table["ItemCount"] for table in tables),
            "stream records": sum(
                len(shard.records) for stream in streams.streams.values() for shard in stream.shards.values()
            ),
        },
        "lambda": {
            "functions": len(functions.functions) if functions is not None else 0,
            "event source mappings": mappings,
        },
    }
    streams = moto_kinesis.all_streams()
    if streams:
        services["kinesis"] = {
            "streams": len(streams),
            "records": sum(len(shard.records) for stream in streams for shard in stream.shards.values()),
        }
    for service, figures in service_state.inventory().items():
        services.setdefault(service, {}).update(figures)
    report = [
        f"recovered {service}: " + ", ".join(_figure(count, noun) for noun, count in figures.items())
        for service, figures in services.items()
        if any(figures.values())
    ]
    return report or ["recovered nothing: the state directory was new or empty"]


def report(streams: StreamRegistry, functions: FunctionRegistry | None, mappings: int) -> None:
    for line in lines(streams, functions, mappings):
        log.info("%s", line)

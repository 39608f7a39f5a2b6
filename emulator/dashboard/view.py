"""The dashboard's model: plain dicts built from the Emulator, named in AWS's words (no HTTP here).

    model = dashboard(emulator)
    model["Tables"][0]["Streams"][0]["Shards"]        # the shard lineage: roots, each with its "Children"
    model["EventSourceMappings"][0]["LastError"]      # a mapping's figures, and its position per shard
    model["Functions"][0]["RecentInvocations"]        # newest first, each with its duration, outcome and log tail
    model["GlobalTables"][0]["Replicas"]              # each region's replica, its status and replication backlog
    model["Queues"], model["Subscriptions"], model["BucketNotifications"], model["EventBridge"], model["Pipes"]
    model["Subscriptions"][0]["NumberOfNotificationsFailed"]   # a subscription's (or configuration's) deliveries
    model["Stacks"][0]["Resources"], model["Stacks"][0]["Events"]  # CloudFormation stacks (dashboard/stacks.py)
    stream_tail(emulator, stream_arn)["Lines"]        # the lines `eddy tail` prints, oldest first
    function_invocations(emulator, name)               # a function's last invocations, as `eddy tail --function`

Queues and a queue's message events are dashboard/queues.py's; subscriptions, notifications, rules, pipes and
asynchronous invocations dashboard/pipelines.py's. GET /_eddy/dashboard, /_eddy/dashboard/tail,
/_eddy/dashboard/queue and /_eddy/dashboard/invocations (api/dashboard_api.py) answer with these.
"""

from __future__ import annotations

import heapq
import json
import re
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from eddy.emulator.dashboard import pipelines, queues, stacks
from eddy.emulator.errors import ResourceNotFoundException
from eddy.emulator.kinesis.sources import find_source
from eddy.emulator.moto_seam import bridge as moto_bridge
from eddy.emulator.streams.record_lines import describe

if TYPE_CHECKING:
    from eddy.emulator.engine import Emulator
    from eddy.emulator.streams.shards import Shard
    from eddy.emulator.streams.stream import Stream
    from eddy.emulator.triggers.event_source_mappings import EventSourceMapping

TAIL_LINES = 100
#: a mapping's UUID, as an invocation's source names it
UUID_LIKE = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-")


def dashboard(emulator: "Emulator") -> dict[str, Any]:
    """Everything the page shows, at one moment of the emulator's clock."""
    with emulator.activity:  # every DynamoDB operation holds it too: moto's tables hold still while they are read
        tables = moto_bridge.table_summaries()
        now = emulator.clock.now()
        return {
            "Now": now,
            "Tables": table_views(emulator, tables, now),
            "EventSourceMappings": [
                mapping_view(emulator, mapping, now) for mapping in emulator.triggers.mappings.values()
            ],
            "Functions": function_views(emulator),
            "GlobalTables": global_table_views(emulator),
            "Queues": queues.queue_views(now),
            "Subscriptions": pipelines.subscription_views(emulator, now),
            "BucketNotifications": pipelines.bucket_notification_views(emulator, now),
            "EventBridge": pipelines.rule_views(emulator),
            "Pipes": pipelines.pipe_views(emulator),
            "AsynchronousInvocations": pipelines.asynchronous_invocations(emulator),
            "Stacks": stacks.stack_views(emulator.cloudformation),
            "Disk": emulator.disk.describe(),
        }


# -- tables, streams and their shard lineage -----------------------------------------------------------


def table_views(emulator: "Emulator", tables: list[dict[str, Any]], now: float) -> list[dict[str, Any]]:
    """Every table (moto's, and deleted ones whose streams are still retained) with its streams, by name."""
    by_key = {(t["AccountId"], t["Region"], t["TableName"]): t for t in tables}
    streams: dict[tuple[str, str, str], list["Stream"]] = {}
    for stream in emulator.streams.streams.values():
        streams.setdefault((stream.account_id, stream.region, stream.table_name), []).append(stream)
    views = []
    for key in sorted(set(by_key) | set(streams), key=lambda k: (k[2], k[1], k[0])):
        account_id, region, name = key
        table = by_key.get(key)
        views.append(
            {
                "TableName": name,
                "Region": region,
                "AccountId": account_id,
                "TableStatus": "ACTIVE" if table else "DELETED",
                "ItemCount": table["ItemCount"] if table else 0,
                "WritesPerSecond": emulator.write_rates.per_second(key, now),
                "Streams": [stream_view(stream, now) for stream in sorted(streams.get(key, []), key=lambda s: s.label)],
            }
        )
    return views


def stream_view(stream: "Stream", now: float) -> dict[str, Any]:
    return {
        "StreamArn": stream.arn,
        "StreamLabel": stream.label,
        "StreamViewType": stream.view_type.value,
        "StreamStatus": stream.status,
        "TableDeleted": stream.table_deleted,
        "RecordsRetained": sum(len(shard.records) for shard in stream.shards.values()),
        "Shards": lineage(list(stream.shards.values()), now),
    }


def lineage(shards: list["Shard"], now: float) -> list[dict[str, Any]]:
    """The shards as a tree: each shard under its parent (a merged shard under its ParentShardId, naming its
    AdjacentParentShardId); a shard whose parents have passed retention is a root. Oldest first."""
    nodes = {shard.shard_id: shard_view(shard, now) for shard in sorted(shards, key=lambda s: s.shard_id)}
    roots = []
    for node in nodes.values():
        parent = nodes.get(node.get("ParentShardId") or "")
        (parent["Children"] if parent is not None else roots).append(node)
    return roots


def shard_view(shard: "Shard", now: float) -> dict[str, Any]:
    records = shard.records
    view: dict[str, Any] = {
        "ShardId": shard.shard_id,
        "Open": shard.is_open,
        "StartingSequenceNumber": str(shard.starting_sequence_number),
        "EndingSequenceNumber": None if shard.is_open else str(shard.ending_sequence_number),
        "Records": len(records),
        "OldestRecordAgeSeconds": round(now - records[0].created_at, 3) if records else None,
        "Children": [],
    }
    if shard.parent_shard_id:
        view["ParentShardId"] = shard.parent_shard_id
    if shard.adjacent_parent_shard_id:
        view["AdjacentParentShardId"] = shard.adjacent_parent_shard_id
    return view


# -- event source mappings --------------------------------------------------------------------------------


def mapping_view(emulator: "Emulator", mapping: "EventSourceMapping", now: float) -> dict[str, Any]:
    """A mapping's configuration (as GetEventSourceMapping answers), its figures and its position per shard."""
    view = mapping.to_dict()
    view.update(emulator.triggers.figures[mapping.uuid].to_dict())
    view["FunctionName"] = mapping.function_arn.rsplit(":function:", 1)[-1]
    source = emulator.streams.find(mapping.event_source_arn) or find_source(mapping.event_source_arn)
    shards = sorted(source.shards.values(), key=lambda s: s.shard_id) if source is not None else []
    view["Shards"] = [shard_position(emulator, mapping, shard, now) for shard in shards]
    if mapping.is_queue:
        view["Queue"] = queues.mapping_queue(mapping.event_source_arn, now)
    return view


def shard_position(emulator: "Emulator", mapping: "EventSourceMapping", shard: Any, now: float) -> dict[str, Any]:
    """How far the mapping has got in one shard: the last sequence number processed, how many records are left
    and how old the oldest of them is (the shard's iterator age)."""
    triggers = emulator.triggers
    checkpoint = triggers.checkpoints.get(mapping.uuid, shard.shard_id)
    runner = triggers.runners.get(mapping.uuid)
    lanes = runner.lanes.get(shard.shard_id) if runner is not None else None
    if lanes:
        position = min(lane.position for lane in lanes)
    elif checkpoint is not None:
        position = min(checkpoint.lanes)
    else:
        position = max(shard.trimmed_through, triggers.start_positions.get(mapping.uuid, 0))
    finished = checkpoint is not None and checkpoint.finished
    left = [] if finished else shard.records[shard.index_at(position + 1) :]
    return {
        "ShardId": shard.shard_id,
        "State": "Finished" if finished else "Processing" if lanes else "Waiting",
        # the last sequence number processed (or skipped); None: still at the trim horizon
        "SequenceNumber": str(position) if position > shard.trimmed_through else None,
        "RecordsBehind": len(left),
        "IteratorAgeMilliseconds": round((now - left[0].created_at) * 1000) if left else 0,
    }


# -- functions -------------------------------------------------------------------------------------------


def function_views(emulator: "Emulator") -> list[dict[str, Any]]:
    """Every function with its recent invocations (newest first: duration, outcome, log tail)."""
    recent = emulator.invoker.recent
    return [
        {
            "FunctionName": function.name,
            "FunctionArn": function.arn,
            "Runtime": function.runtime,
            "Handler": function.handler,
            "Timeout": function.timeout,
            "MemorySize": function.memory_size,
            "PackageType": "Registered callable" if function.target is not None else "Zip",
            "RecentInvocations": recent.of(function.arn),
        }
        for function in sorted(emulator.functions.functions.values(), key=lambda f: f.name)
    ]


def function_invocations(emulator: "Emulator", function: str) -> dict[str, Any]:
    """A function's recent invocations (newest first, at most the last 20), each with the line `eddy tail
    --function` prints; `function` is its name or ARN."""
    found = emulator.functions.functions.get(function) or next(
        (f for f in emulator.functions.functions.values() if f.name == function), None
    )
    if found is None:
        raise ResourceNotFoundException(f"Function not found: {function}")
    invocations = emulator.invoker.recent.of(found.arn)
    for invocation in invocations:
        invocation["Line"] = invocation_line(invocation)
    return {"FunctionArn": found.arn, "RecentInvocations": invocations}


def invocation_line(invocation: dict[str, Any]) -> str:
    """One invocation as a line: time, outcome, duration, where it came from, its request id and error."""
    moment = datetime.fromtimestamp(invocation["Started"], UTC).strftime("%H:%M:%S")
    source = invocation["Source"]
    source = (
        source.split(":", 5)[-1]
        if source.startswith("arn:")
        else f"mapping {source[:8]}"
        if UUID_LIKE.match(source)
        else source
    )
    words = [
        moment,
        f"{invocation['Outcome']:<9}",
        f"{invocation['DurationMs']:>9.1f} ms",
        f"from {source}",
        invocation["RequestId"],
    ]
    if "Error" in invocation:
        words.append(invocation["Error"])
    return "  ".join(words)


# -- a stream's live tail ----------------------------------------------------------------------------------


def stream_tail(emulator: "Emulator", stream_arn: str, limit: int = TAIL_LINES) -> dict[str, Any]:
    """A stream's last `limit` retained records, oldest first, each as the line `eddy tail` prints."""
    with emulator.lock:
        stream = emulator.streams.get(stream_arn)
        last = heapq.nlargest(
            limit,
            (
                (record.sequence_number, shard.shard_id, record)
                for shard in stream.shards.values()
                for record in shard.records
            ),
            key=lambda entry: entry[0],
        )
        wires = [
            (number, shard_id, record.wire(stream.view_type, stream.region))
            for number, shard_id, record in reversed(last)
        ]
    return {
        "StreamArn": stream_arn,
        "Lines": [
            {"SequenceNumber": str(number), "ShardId": shard_id, "Line": describe(json.loads(wire))}
            for number, shard_id, wire in wires
        ],
    }


# -- global tables ---------------------------------------------------------------------------------------


def global_table_views(emulator: "Emulator") -> list[dict[str, Any]]:
    """Each global table's replicas: region, status, writes still on their way to it, and whether it is paused."""
    replication = emulator.replication
    replication.settle()
    pending: dict[tuple[str, str], int] = {}
    paused: dict[tuple[str, str], bool] = {}
    for row in replication.backlog():
        key = (row["TableName"], row["TargetRegion"])
        pending[key] = pending.get(key, 0) + row["PendingWrites"]
        paused[key] = paused.get(key, False) or row["Paused"]
    return [
        {
            "TableName": group.table_name,
            "AccountId": group.account_id,
            "Replicas": [
                {
                    "RegionName": region,
                    "ReplicaStatus": replica.status,
                    "PendingWrites": pending.get((group.table_name, region), 0),
                    "Paused": region in replication.paused_regions,
                }
                for region, replica in group.replicas.items()
            ],
        }
        for group in sorted(replication.groups, key=lambda group: group.table_name)
    ]

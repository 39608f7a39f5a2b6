"""What the emulator saw, for a failed test's report: each mapping's figures, failed batches and last error, each SNS
subscription's and S3 notification configuration's deliveries and last error, and the tail of each stream the test
wrote to.

    text = what_eddy_saw(dashboard(emulator), tails)    # tails: {StreamArn: [line, ...]} oldest first

Built from the dashboard's model (dashboard/view.py: in-process, or GET /_eddy/dashboard from a server), so a
report says what the dashboard would have shown at the moment the test failed.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, Callable

#: how many of a stream's last records a report shows
TAIL_LINES = 20
_FIGURES = (
    "Invocations",
    "Errors",
    "Retries",
    "RecordsDelivered",
    "RecordsFiltered",
    "RecordsSentToOnFailureDestination",
)
_DELIVERIES = ("NumberOfNotificationsDelivered", "NumberOfNotificationsFailed", "NumberOfNotificationsFilteredOut")


def streams_written(model: dict[str, Any], before: dict[str, int] | None = None) -> dict[str, int]:
    """Each stream holding records, with how many it retains (`before`: the counts when the test started; only the
    streams that gained records since then)."""
    counts = {
        stream["StreamArn"]: stream["RecordsRetained"]
        for table in model.get("Tables", [])
        for stream in table.get("Streams", [])
    }
    before = before or {}
    return {arn: count for arn, count in counts.items() if count > before.get(arn, 0)}


def what_eddy_saw(model: dict[str, Any], tail_of: Callable[[str], list[str]], streams: dict[str, int]) -> str:
    """The report's text ('' when the emulator saw nothing worth telling: no mapping, no record)."""
    parts = [_mapping_lines(mapping, model.get("Functions", [])) for mapping in model.get("EventSourceMappings", [])]
    parts += [
        _delivery_lines(
            f"SNS subscription {s['SubscriptionArn']} ({_short(s['TopicArn'])} -> {s['Protocol']} "
            f"{_short(s['Endpoint'])})",
            s,
        )
        for s in model.get("Subscriptions", [])
    ]
    parts += [
        _delivery_lines(
            f"S3 notification {n['Bucket']}/{n['Id']} ({', '.join(n['Events'])} -> {_short(n['Destination'])})", n
        )
        for n in model.get("BucketNotifications", [])
    ]
    for arn in streams:
        lines = tail_of(arn)[-TAIL_LINES:]
        parts.append([f"stream {arn}: last {len(lines)} of {streams[arn]} records", *(f"  {line}" for line in lines)])
    return "\n".join(line for part in parts for line in part)


def _mapping_lines(mapping: dict[str, Any], functions: list[dict[str, Any]]) -> list[str]:
    source = mapping.get("EventSourceArn", "")
    figures = ", ".join(f"{name} {mapping[name]}" for name in _FIGURES if name in mapping)
    lines = [
        f"event source mapping {mapping.get('UUID')} ({_short(source)} -> {mapping.get('FunctionName')}, "
        f"{mapping.get('State')}): {figures}"
    ]
    if mapping.get("LastError"):
        lines.append(f"  last error: {mapping['LastError']}")
    behind = [
        f"{shard['ShardId']} {shard['RecordsBehind']} behind"
        for shard in mapping.get("Shards", [])
        if shard.get("RecordsBehind")
    ]
    if behind:
        lines.append(f"  records not yet processed: {', '.join(behind)}")
    failed = [
        invocation
        for function in functions
        if function.get("FunctionName") == mapping.get("FunctionName")
        for invocation in function.get("RecentInvocations", [])
        if invocation.get("Source") == mapping.get("UUID") and invocation.get("Outcome") != "Succeeded"
    ]
    for invocation in failed:
        lines.append(
            f"  failed batch (request {invocation['RequestId']}): {invocation['Outcome']}: "
            f"{invocation.get('Error', '')}"
        )
        lines.extend(f"    {line}" for line in invocation.get("LogTail", [])[-12:])
    return lines


def _delivery_lines(trigger: str, view: dict[str, Any]) -> list[str]:
    """A push trigger that delivered (or failed, or filtered out) anything: its figures and last error."""
    if not any(view.get(name) for name in _DELIVERIES):
        return []
    lines = [f"{trigger}: " + ", ".join(f"{name} {view.get(name, 0)}" for name in _DELIVERIES)]
    if view.get("LastError"):
        moment = datetime.fromtimestamp(view["LastErrorTime"], UTC).strftime("%H:%M:%S")
        lines.append(f"  last error at {moment}: {view['LastError']}")
    return lines


def _short(arn: str) -> str:
    """A stream ARN as its table and label: table/orders/stream/2026-..."""
    return arn.split(":", 5)[-1] if arn.count(":") >= 5 else arn

"""The dashboard's CloudFormation stacks: each live stack's status, its resources with theirs, and its last events,
each event also as the line `eddy tail --stack` prints (one formatting for terminal and page).

    stack_views(emulator.cloudformation)[0]["Resources"][0]["ResourceStatus"]
    stack_event_line({"Timestamp": ..., "LogicalResourceId": ..., "ResourceStatus": ..., ...})

Read without the engine's stack lock (a stack operation holds it while it makes resources through Eddy's APIs,
whose locks the dashboard holds): copies of the lists and dicts, each taken whole.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from eddy.emulator.cloudformation.service import CloudFormation
    from eddy.emulator.cloudformation.stacks import Stack

#: how many of a stack's events the dashboard shows (newest first)
EVENTS_SHOWN = 10


def stack_views(cloudformation: "CloudFormation") -> list[dict[str, Any]]:
    """Every stack not deleted, by name and region, with its resources (in the order they were made) and last
    events."""
    stacks = [stack for stack in list(cloudformation.stacks) if stack.status != "DELETE_COMPLETE"]
    return [stack_view(stack) for stack in sorted(stacks, key=lambda s: (s.name, s.region, s.account))]


def stack_view(stack: "Stack") -> dict[str, Any]:
    view: dict[str, Any] = {
        "StackName": stack.name,
        "StackId": stack.stack_id,
        "Region": stack.region,
        "StackStatus": stack.status,
        "CreationTime": stack.created,
    }
    if stack.reason:
        view["StackStatusReason"] = stack.reason
    if stack.updated is not None:
        view["LastUpdatedTime"] = stack.updated
    view["Resources"] = [_resource(resource.summary()) for resource in list(stack.resources.values())]
    view["Events"] = [
        dict(_event(event), Line=stack_event_line(event)) for event in reversed(list(stack.events)[-EVENTS_SHOWN:])
    ]
    return view


def _resource(summary: dict[str, Any]) -> dict[str, Any]:
    return {
        key: summary[key]
        for key in (
            "LogicalResourceId",
            "ResourceType",
            "PhysicalResourceId",
            "ResourceStatus",
            "ResourceStatusReason",
            "LastUpdatedTimestamp",
        )
        if key in summary
    }


def _event(event: dict[str, Any]) -> dict[str, Any]:
    return {
        key: event[key]
        for key in (
            "EventId",
            "Timestamp",
            "LogicalResourceId",
            "ResourceType",
            "PhysicalResourceId",
            "ResourceStatus",
            "ResourceStatusReason",
        )
        if key in event
    }


def stack_event_line(event: dict[str, Any]) -> str:
    """A stack event as one line: time, status, logical id, type, reason (Timestamp a number or a datetime)."""
    moment = event["Timestamp"]
    if not isinstance(moment, datetime):
        moment = datetime.fromtimestamp(moment, UTC)
    words = [
        moment.astimezone(UTC).strftime("%H:%M:%S"),
        f"{event['ResourceStatus']:<20}",
        event["LogicalResourceId"],
        event["ResourceType"],
    ]
    if event.get("ResourceStatusReason"):
        words.append(event["ResourceStatusReason"])
    return "  ".join(words)

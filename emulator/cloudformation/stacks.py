"""A stack as CloudFormation describes it: its resources, events (newest first when described), outputs and
status, in the API's words (DescribeStacks' Stack, StackResource, StackResourceDetail, StackEvent, StackSummary)."""

from __future__ import annotations

import datetime
import json
import uuid
from dataclasses import dataclass, field
from typing import Any

STACK_TYPE = "AWS::CloudFormation::Stack"


@dataclass
class StackResource:
    logical_id: str
    type: str
    status: str = ""
    reason: str | None = None
    physical_id: str | None = None
    properties: dict[str, Any] = field(default_factory=dict)  # resolved, as last created or updated
    attributes: dict[str, Any] = field(default_factory=dict)
    updated: float = 0.0
    metadata: Any = None

    def summary(self) -> dict[str, Any]:
        answer = {
            "LogicalResourceId": self.logical_id,
            "PhysicalResourceId": self.physical_id or "",
            "ResourceType": self.type,
            "LastUpdatedTimestamp": self.updated,
            "ResourceStatus": self.status,
            "DriftInformation": {"StackResourceDriftStatus": "NOT_CHECKED"},
        }
        if self.reason:
            answer["ResourceStatusReason"] = self.reason
        return answer


@dataclass
class Stack:
    stack_id: str
    name: str
    created: float
    template: dict[str, Any]
    template_body: str
    status: str = "REVIEW_IN_PROGRESS"
    reason: str | None = None
    updated: float | None = None
    deleted: float | None = None
    disable_rollback: bool = False
    capabilities: list[str] = field(default_factory=list)
    tags: list[dict[str, str]] = field(default_factory=list)
    notification_arns: list[str] = field(default_factory=list)
    parameters: list[dict[str, Any]] = field(default_factory=list)  # as DescribeStacks shows them
    raw_parameters: dict[str, str] = field(default_factory=dict)  # as given or defaulted, for UsePreviousValue
    outputs: list[dict[str, Any]] = field(default_factory=list)
    resources: dict[str, StackResource] = field(default_factory=dict)
    events: list[dict[str, Any]] = field(default_factory=list)  # oldest first
    change_set_id: str | None = None
    imports: set[str] = field(default_factory=set)  # export names this stack imports
    #: a nested stack's: its direct parent's stack id, and the top-level stack's (DescribeStacks ParentId, RootId)
    parent_id: str | None = None
    root_id: str | None = None

    @property
    def region(self) -> str:
        return self.stack_id.split(":")[3]

    @property
    def account(self) -> str:
        return self.stack_id.split(":")[4]

    def event(
        self,
        now: float,
        logical_id: str,
        resource_type: str,
        status: str,
        physical_id: str | None,
        reason: str | None = None,
        properties: dict[str, Any] | None = None,
    ) -> None:
        entry: dict[str, Any] = {
            "StackId": self.stack_id,
            "EventId": str(uuid.uuid4()),
            "StackName": self.name,
            "LogicalResourceId": logical_id,
            "PhysicalResourceId": physical_id or "",
            "ResourceType": resource_type,
            "Timestamp": now,
            "ResourceStatus": status,
        }
        if resource_type != STACK_TYPE:
            # a resource's events: "<LogicalId>-<STATUS>-<timestamp>" (AWS's own, e.g. aws cloudformation
            # describe-stack-events output quoted in public issues)
            entry["EventId"] = f"{logical_id}-{status}-{_iso(now)}"
        if reason:
            entry["ResourceStatusReason"] = reason
        if properties is not None:
            entry["ResourceProperties"] = json.dumps(properties)
        self.events.append(entry)

    def stack_event(self, now: float, status: str, reason: str | None = None) -> None:
        self.status, self.reason = status, reason
        self.event(now, self.name, STACK_TYPE, status, self.stack_id, reason)

    def resource_event(
        self,
        now: float,
        resource: StackResource,
        status: str,
        reason: str | None = None,
        physical_id: str | None = None,
        properties: dict[str, Any] | None = None,
    ) -> None:
        resource.status, resource.reason, resource.updated = status, reason, now
        self.event(
            now,
            resource.logical_id,
            resource.type,
            status,
            physical_id if physical_id is not None else resource.physical_id,
            reason,
            properties,
        )

    def description(self) -> dict[str, Any]:
        answer: dict[str, Any] = {
            "StackId": self.stack_id,
            "StackName": self.name,
            "Parameters": self.parameters,
            "CreationTime": self.created,
            "RollbackConfiguration": {},
            "StackStatus": self.status,
            "DisableRollback": self.disable_rollback,
            "NotificationARNs": self.notification_arns,
            "Capabilities": self.capabilities,
            "Outputs": self.outputs,
            "Tags": self.tags,
            "EnableTerminationProtection": False,
            "DriftInformation": {"StackDriftStatus": "NOT_CHECKED"},
        }
        for key, value in (
            ("Description", self.template.get("Description")),
            ("StackStatusReason", self.reason),
            ("LastUpdatedTime", self.updated),
            ("DeletionTime", self.deleted),
            ("ChangeSetId", self.change_set_id),
            ("ParentId", self.parent_id),
            ("RootId", self.root_id),
        ):
            if value is not None:
                answer[key] = value
        if not self.outputs:
            del answer["Outputs"]
        return answer

    def summary(self) -> dict[str, Any]:
        answer = {
            "StackId": self.stack_id,
            "StackName": self.name,
            "CreationTime": self.created,
            "StackStatus": self.status,
            "DriftInformation": {"StackDriftStatus": "NOT_CHECKED"},
        }
        for key, value in (
            ("TemplateDescription", self.template.get("Description")),
            ("StackStatusReason", self.reason),
            ("LastUpdatedTime", self.updated),
            ("DeletionTime", self.deleted),
            ("ParentId", self.parent_id),
            ("RootId", self.root_id),
        ):
            if value is not None:
                answer[key] = value
        return answer

    def resource_description(self, resource: StackResource, detail: bool) -> dict[str, Any]:
        answer = {"StackName": self.name, "StackId": self.stack_id, **resource.summary()}
        if detail:
            answer["Metadata"] = json.dumps(resource.metadata) if resource.metadata is not None else ""
        else:
            answer["Timestamp"] = answer.pop("LastUpdatedTimestamp")
        return answer


def _iso(moment: float) -> str:
    instant = datetime.datetime.fromtimestamp(moment, datetime.timezone.utc)
    return instant.strftime("%Y-%m-%dT%H:%M:%S.") + f"{instant.microsecond // 1000:03d}Z"

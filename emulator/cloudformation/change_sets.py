"""Change sets: what an update (or a creation) would do, described before it is executed (CreateChangeSet,
DescribeChangeSet, ExecuteChangeSet, DeleteChangeSet, ListChangeSets). `aws cloudformation deploy`, sam and cdk
deploy through them."""

from __future__ import annotations

import threading
import uuid
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from eddy.emulator.cloudformation import templates_in
from eddy.emulator.cloudformation.errors import (
    ChangeSetNotFoundException,
    InvalidChangeSetStatusException,
    ValidationError,
)
from eddy.emulator.cloudformation.intrinsics import entities
from eddy.emulator.cloudformation.resource_types import kind_of
from eddy.emulator.cloudformation.stacks import Stack

if TYPE_CHECKING:
    from eddy.emulator.cloudformation.stack_operations import Deployment
    from eddy.emulator.cloudformation.values import StackValues

NO_CHANGES = "The submitted information didn't contain changes. Submit different information to create a change set."


class Stacks(Protocol):
    """What a change set's operations use of CloudFormation's stacks (service.py's CloudFormation is one): its lock
    and change sets, its clock, and the steps of a stack operation they share with CreateStack and UpdateStack."""

    lock: threading.RLock
    change_sets: dict[str, ChangeSet]
    #: the operations running (stack_commits.py's Operations): the stacks each works on
    operations: "Operations"

    def now(self) -> float: ...

    def live(self, account: str, region: str, name: str) -> Stack | None: ...

    def template_of(self, params: dict[str, Any], region: str) -> tuple[str, dict[str, Any]]: ...

    def processed(
        self,
        template: dict[str, Any],
        params: dict[str, Any],
        previous: dict[str, str] | None,
        region: str,
        change_set: bool = ...,
    ) -> dict[str, Any]: ...

    def new_stack(
        self, account: str, region: str, name: str, body: str, template: dict[str, Any], params: dict[str, Any]
    ) -> Stack: ...

    def configure(self, stack: Stack, params: dict[str, Any]) -> None: ...

    def values_for(
        self, stack: Stack, template: dict[str, Any], given: list[dict[str, Any]], previous: dict[str, str] | None
    ) -> StackValues: ...

    def deployment(self, stack: Stack, values: StackValues) -> Deployment: ...

    def updatable(self, stack: Stack) -> None: ...

    def run_update(
        self, stack: Stack, body: str, template: dict[str, Any], values: StackValues, params: dict[str, Any]
    ) -> None: ...


@dataclass
class ChangeSet:
    change_set_id: str
    name: str
    stack: Stack
    kind: str  # CREATE or UPDATE
    body: str
    template: dict[str, Any]
    params: dict[str, Any]
    created: float
    status: str = "CREATE_COMPLETE"
    execution_status: str = "AVAILABLE"
    reason: str | None = None
    changes: list[dict[str, Any]] = field(default_factory=list)

    def summary(self) -> dict[str, Any]:
        answer = {
            "StackId": self.stack.stack_id,
            "StackName": self.stack.name,
            "ChangeSetId": self.change_set_id,
            "ChangeSetName": self.name,
            "ExecutionStatus": self.execution_status,
            "Status": self.status,
            "CreationTime": self.created,
            "IncludeNestedStacks": False,
        }
        for key, value in (("StatusReason", self.reason), ("Description", self.params.get("Description"))):
            if value is not None:
                answer[key] = value
        return answer

    def description(self) -> dict[str, Any]:
        answer = self.summary()
        answer.update(
            {
                "Parameters": self.stack.parameters
                if self.execution_status == "EXECUTE_COMPLETE"
                else [
                    {"ParameterKey": entry["ParameterKey"], "ParameterValue": entry.get("ParameterValue", "")}
                    for entry in self.params.get("Parameters") or []
                ],
                "NotificationARNs": list(self.params.get("NotificationARNs") or []),
                "RollbackConfiguration": {},
                "Capabilities": list(self.params.get("Capabilities") or []),
                "Tags": list(self.params.get("Tags") or []),
                "Changes": self.changes,
            }
        )
        return answer


class Operations(Protocol):
    def touching(self, stack_id: str) -> None: ...


def create(service: Stacks, account: str, region: str, params: dict[str, Any]) -> ChangeSet:
    kind = params.get("ChangeSetType") or "UPDATE"
    name = params["StackName"]
    stack = service.live(account, region, name)
    if params.get("UsePreviousTemplate"):
        if stack is None:
            raise ValidationError(f"Stack [{name}] does not exist")
        body, template = stack.template_body, stack.template
    else:
        body, template = service.template_of(params, region)
        template = service.processed(
            template, params, dict(stack.raw_parameters) if stack is not None else None, region, change_set=True
        )
    if kind == "CREATE":
        if stack is not None and stack.status != "REVIEW_IN_PROGRESS":
            raise ValidationError(
                f"Stack [{name}] already exists and cannot be created again with the changeSet "
                f"[{params['ChangeSetName']}]."
            )
        if stack is None:
            stack = service.new_stack(account, region, name, body, template, params)
            stack.stack_event(service.now(), "REVIEW_IN_PROGRESS", "User Initiated")
    elif stack is None or stack.status == "REVIEW_IN_PROGRESS":
        raise ValidationError(f"Stack [{name}] does not exist")
    previous = dict(stack.raw_parameters) if kind == "UPDATE" else None
    kept = (stack.parameters, stack.raw_parameters)
    service.values_for(stack, template, params.get("Parameters") or [], previous)  # parameters checked now
    new_raw = stack.raw_parameters
    if kind == "UPDATE":
        stack.parameters, stack.raw_parameters = kept
    change_set = ChangeSet(
        f"arn:aws:cloudformation:{region}:{account}:changeSet/{params['ChangeSetName']}/{uuid.uuid4()}",
        params["ChangeSetName"],
        stack,
        kind,
        body,
        template,
        params,
        service.now(),
    )
    change_set.changes = _changes(stack if kind == "UPDATE" else None, template)
    if (
        kind == "UPDATE"
        and templates_in.canonical(template) == templates_in.canonical(stack.template)
        and new_raw == stack.raw_parameters
    ):
        change_set.status, change_set.execution_status, change_set.reason = "FAILED", "UNAVAILABLE", NO_CHANGES
    with service.lock:
        service.change_sets[change_set.change_set_id] = change_set
    return change_set


def _changes(stack: Stack | None, template: dict[str, Any]) -> list[dict[str, Any]]:
    """The resources a change set adds, modifies (and whether that replaces them) and removes, as its
    ResourceChange entries; a modification is judged on the template's properties as written."""
    old = (stack.template.get("Resources") or {}) if stack is not None else {}
    new = template.get("Resources") or {}
    changes = []
    for logical_id, definition in new.items():
        change: dict[str, Any] = {"LogicalResourceId": logical_id, "ResourceType": definition["Type"]}
        if logical_id not in old or stack is None or logical_id not in stack.resources:
            change.update(Action="Add", Scope=[], Details=[])
        elif old[logical_id] != definition:
            kind = kind_of(definition["Type"])
            before, after = old[logical_id].get("Properties") or {}, definition.get("Properties") or {}
            replaces = kind is not None and kind.needs_replacement(before, after)
            change.update(
                Action="Modify",
                PhysicalResourceId=stack.resources[logical_id].physical_id or "",
                Replacement="True" if replaces else "False",
                Scope=["Properties"],
                Details=[
                    {
                        "Target": _target(kind, name),
                        "Evaluation": "Static",
                        "ChangeSource": "DirectModification",
                    }
                    for name in sorted(set(before) | set(after))
                    if before.get(name) != after.get(name)
                ],
            )
        else:
            continue
        changes.append({"Type": "Resource", "ResourceChange": change})
    replaced = {
        entry["ResourceChange"]["LogicalResourceId"]
        for entry in changes
        if entry["ResourceChange"].get("Replacement") == "True"
    }
    for logical_id, definition in new.items():
        if replaced and stack is not None and old.get(logical_id) == definition and logical_id in stack.resources:
            change = _dynamic_change(logical_id, definition, stack.resources[logical_id].physical_id, replaced)
            if change is not None:
                changes.append({"Type": "Resource", "ResourceChange": change})
    order = list(new)  # in the template's order, as the direct changes are
    changes.sort(key=lambda entry: order.index(entry["ResourceChange"]["LogicalResourceId"]))
    for logical_id, definition in old.items():
        if logical_id not in new and stack is not None and logical_id in stack.resources:
            changes.append(
                {
                    "Type": "Resource",
                    "ResourceChange": {
                        "Action": "Remove",
                        "LogicalResourceId": logical_id,
                        "ResourceType": definition["Type"],
                        "PhysicalResourceId": stack.resources[logical_id].physical_id or "",
                        "Scope": [],
                        "Details": [],
                    },
                }
            )
    return changes


def _target(kind: Any, name: str) -> dict[str, str]:
    """A change detail's Target: the property, and whether changing it recreates the resource."""
    return {
        "Attribute": "Properties",
        "Name": name,
        "RequiresRecreation": "Always" if kind and name in kind.replacing else "Never",
    }


def _dynamic_change(
    logical_id: str, definition: dict[str, Any], physical_id: str | None, replaced: set[str]
) -> dict[str, Any] | None:
    """A resource the template leaves as it was whose properties refer to one being replaced: a Modify whose details
    are Dynamic, from a ResourceReference (Ref) or a ResourceAttribute (Fn::GetAtt) naming it as CausingEntity.
    Replacement is Conditional where such a property requires recreation, else False (botocore's cloudformation
    model, ResourceChange.Replacement: "If the RequiresRecreation field is Always and the Evaluation field is
    Dynamic, Replacement is Conditional")."""
    kind = kind_of(definition["Type"])
    details = [
        {
            "Target": _target(kind, name),
            "Evaluation": "Dynamic",
            "ChangeSource": "ResourceAttribute" if "." in entity else "ResourceReference",
            "CausingEntity": entity,
        }
        for name, value in sorted((definition.get("Properties") or {}).items())
        for entity in sorted(entities(value))
        if entity.split(".", 1)[0] in replaced
    ]
    if not details:
        return None
    conditional = any(detail["Target"]["RequiresRecreation"] == "Always" for detail in details)
    return {
        "Action": "Modify",
        "LogicalResourceId": logical_id,
        "PhysicalResourceId": physical_id or "",
        "ResourceType": definition["Type"],
        "Replacement": "Conditional" if conditional else "False",
        "Scope": ["Properties"],
        "Details": details,
    }


def find(service: Stacks, account: str, region: str, name: str, stack_name: str | None) -> ChangeSet:
    with service.lock:
        for change_set in service.change_sets.values():
            if (change_set.stack.account, change_set.stack.region) != (account, region):
                continue
            if change_set.change_set_id == name or (
                change_set.name == name and stack_name in (change_set.stack.name, change_set.stack.stack_id)
            ):
                return change_set
    if stack_name is None and not name.startswith("arn:"):
        raise ValidationError("StackName must be specified if ChangeSetName is not specified as an ARN.")
    raise ChangeSetNotFoundException(f"ChangeSet [{name}] does not exist")


def execute(service: Stacks, change_set: ChangeSet) -> None:
    if change_set.execution_status != "AVAILABLE":
        raise InvalidChangeSetStatusException(
            f"ChangeSet [{change_set.change_set_id}] cannot be executed in its current status of [{change_set.status}]"
        )
    stack, params = change_set.stack, change_set.params
    change_set.execution_status = "EXECUTE_IN_PROGRESS"
    stack.change_set_id = change_set.change_set_id
    if change_set.kind == "CREATE":
        service.configure(stack, params)
        values = service.values_for(stack, change_set.template, params.get("Parameters") or [], None)
        service.deployment(stack, values).create(change_set.template)
    else:
        service.updatable(stack)
        values = service.values_for(
            stack, change_set.template, params.get("Parameters") or [], dict(stack.raw_parameters)
        )
        service.run_update(stack, change_set.body, change_set.template, values, params)
    change_set.execution_status = (
        "EXECUTE_COMPLETE" if stack.status in ("CREATE_COMPLETE", "UPDATE_COMPLETE") else "EXECUTE_FAILED"
    )
    with service.lock:
        for other in service.change_sets.values():
            if other.stack is stack and other is not change_set and other.execution_status == "AVAILABLE":
                other.execution_status = "OBSOLETE"


def delete(service: Stacks, change_set: ChangeSet) -> None:
    if change_set.execution_status == "EXECUTE_IN_PROGRESS":
        raise InvalidChangeSetStatusException(
            f"Cannot delete ChangeSet [{change_set.change_set_id}] while it is being executed"
        )
    service.operations.touching(change_set.stack.stack_id)
    with service.lock:
        service.change_sets.pop(change_set.change_set_id, None)


def listed(service: Stacks, stack: Stack) -> list[dict[str, Any]]:
    with service.lock:
        return [change_set.summary() for change_set in service.change_sets.values() if change_set.stack is stack]

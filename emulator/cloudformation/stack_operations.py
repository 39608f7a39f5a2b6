"""One operation on one stack, in CloudFormation's order and words: create (and its rollback), update (in place
or by replacement, the cleanup after, and the update's rollback), delete. Each resource's events are the ones
AWS writes (CREATE_IN_PROGRESS, CREATE_IN_PROGRESS "Resource creation Initiated", CREATE_COMPLETE, ...)."""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable

from eddy.emulator.cloudformation import graph, intrinsics
from eddy.emulator.cloudformation.errors import ResourceFailed
from eddy.emulator.cloudformation.resource_types import kind_of
from eddy.emulator.cloudformation.resource_types.base import Provisioning, ResourceType, failure
from eddy.emulator.cloudformation.stacks import Stack, StackResource
from eddy.emulator.errors import AWSError

if TYPE_CHECKING:
    from eddy.emulator.cloudformation.values import StackValues

INITIATED = "Resource creation Initiated"
REPLACING = "Requested update requires the creation of a new physical resource; hence creating one."


@dataclass
class Deployment:
    """What an operation needs besides the stack: the clock, the stack's values, its provisioning, and its commit
    point (stack_commits.py: the stacks written down before what cannot be taken back, an update's cleanup and a
    delete's deletions; WriteFailed, and the operation is taken back), which runs the cleanup it is given once the
    stacks are written (a nested stack's, at its root stack's commit)."""

    stack: Stack
    now: Callable[[], float]
    values: "StackValues"
    provisioning: Callable[[str], Provisioning]
    commit: Callable[..., None] = lambda cleanup=None: cleanup() if cleanup is not None else None

    # -- create --------------------------------------------------------------------------------------------

    def create(self, template: dict[str, Any]) -> None:
        stack = self.stack
        stack.stack_event(self.now(), "CREATE_IN_PROGRESS", "User Initiated")
        failed = self._create_all(template, "CREATE")
        if failed is None and self._outputs(template):
            stack.stack_event(self.now(), "CREATE_COMPLETE")
            return
        reason = f"The following resource(s) failed to create: [{failed}]. " if failed else stack.reason
        if stack.disable_rollback:
            stack.stack_event(self.now(), "CREATE_FAILED", reason)
            return
        stack.stack_event(
            self.now(), "ROLLBACK_IN_PROGRESS", (reason or "") + ("Rollback requested by user." if failed else "")
        )
        self.values.release_imports()
        stack.outputs = []
        for logical_id in reversed(list(stack.resources)):
            self._delete(stack.resources[logical_id], rollback=True)
        stack.stack_event(self.now(), "ROLLBACK_COMPLETE")

    def _create_all(self, template: dict[str, Any], verb: str) -> str | None:
        """Every resource of `template` whose condition holds, in dependency order; the first that fails."""
        for logical_id in self._order(template):
            definition = template["Resources"][logical_id]
            resource = StackResource(logical_id, definition["Type"], metadata=definition.get("Metadata"))
            self.stack.resources[logical_id] = resource
            try:
                properties = self._properties(definition)
                self._create_one(resource, properties, verb)
            except ResourceFailed as error:
                self.stack.resource_event(self.now(), resource, f"{verb}_FAILED", error.reason)
                return logical_id
        return None

    def _create_one(self, resource: StackResource, properties: dict[str, Any], verb: str = "CREATE") -> None:
        kind = _served(resource.type)
        self.stack.resource_event(self.now(), resource, "CREATE_IN_PROGRESS", properties=properties)
        try:
            created = _attempt(lambda: kind.create(self.provisioning(resource.logical_id), properties))
        except ResourceFailed as error:
            if error.physical_id is not None:  # it exists although it failed: the rollback deletes it
                resource.physical_id, resource.properties = error.physical_id, properties
            raise
        resource.physical_id, resource.attributes, resource.properties = (
            created.physical_id,
            created.attributes,
            properties,
        )
        self.stack.resource_event(self.now(), resource, "CREATE_IN_PROGRESS", INITIATED, properties=properties)
        self.stack.resource_event(self.now(), resource, "CREATE_COMPLETE", properties=properties)

    def _order(self, template: dict[str, Any]) -> list[str]:
        resources = template["Resources"]
        needs = graph.dependencies(resources, self.values.parameter_names)
        return [
            logical_id
            for logical_id in graph.creation_order(needs)
            if self.values.holds(resources[logical_id].get("Condition"))
        ]

    def _properties(self, definition: dict[str, Any]) -> dict[str, Any]:
        try:
            return intrinsics.resolve(definition.get("Properties") or {}, self.values.values)
        except AWSError as error:
            raise ResourceFailed(error.message) from None

    def _outputs(self, template: dict[str, Any]) -> bool:
        """The stack's Outputs and Exports; False (and the stack's reason set) when one cannot be made."""
        try:
            self.stack.outputs = self.values.outputs(template.get("Outputs") or {})
            return True
        except (AWSError, ResourceFailed) as error:
            self.stack.reason = getattr(error, "message", None) or getattr(error, "reason", str(error))
            return False

    # -- delete --------------------------------------------------------------------------------------------

    def delete(self, order: list[str]) -> None:
        stack = self.stack
        stack.stack_event(self.now(), "DELETE_IN_PROGRESS", "User Initiated")
        in_use = self.values.exports_in_use()
        if in_use:
            stack.stack_event(self.now(), "DELETE_FAILED", in_use)
            return
        self.commit()  # no resource deleted before the file says the stack is being deleted
        failed = [logical_id for logical_id in order if not self._delete(stack.resources[logical_id])]
        if failed:
            stack.stack_event(
                self.now(), "DELETE_FAILED", f"The following resource(s) failed to delete: [{', '.join(failed)}]. "
            )
            return
        self.values.release_exports()
        self.values.release_imports()
        stack.deleted = self.now()
        stack.stack_event(stack.deleted, "DELETE_COMPLETE")

    def _delete(
        self,
        resource: StackResource,
        rollback: bool = False,
        physical_id: str | None = None,
        properties: dict[str, Any] | None = None,
        template: dict[str, Any] | None = None,
    ) -> bool:
        """Delete one resource (or an old physical resource it replaced, whose events leave the resource's own
        status as it is: UPDATE_COMPLETE after a replacement, as ListStackResources shows it); False when it failed.
        `template`: the one that declares it (an update's old template for a resource the update removes: its
        DeletionPolicy is the old template's, e.g. the Retain SAM gives each AutoPublishAlias version)."""
        definition = ((template or self.stack.template).get("Resources") or {}).get(resource.logical_id) or {}
        policy = definition.get("DeletionPolicy", "Delete")
        if physical_id is not None:
            policy = definition.get("UpdateReplacePolicy", "Delete")
        target = physical_id if physical_id is not None else resource.physical_id

        def event(status: str, reason: str | None = None) -> None:
            if physical_id is None:
                self.stack.resource_event(self.now(), resource, status, reason, physical_id=target)
            else:
                self.stack.event(self.now(), resource.logical_id, resource.type, status, target, reason)

        if policy in ("Retain", "Snapshot") or (policy == "RetainExceptOnCreate" and not rollback):
            event("DELETE_SKIPPED")
            return True
        if resource.status == "DELETE_COMPLETE" and physical_id is None:
            return True
        kind = kind_of(resource.type)
        if not target or kind is None:
            event("DELETE_COMPLETE")
            return True
        event("DELETE_IN_PROGRESS")
        try:
            _attempt(
                lambda: kind.delete(
                    self.provisioning(resource.logical_id),
                    target,
                    properties if properties is not None else resource.properties,
                )
            )
        except ResourceFailed as error:
            event("DELETE_FAILED", error.reason)
            return False
        event("DELETE_COMPLETE")
        return True

    # -- update --------------------------------------------------------------------------------------------

    def update(self, old_template: dict[str, Any], template: dict[str, Any], old_order: list[str]) -> bool:
        """Apply `template` to the stack; False when it failed and was rolled back to `old_template`."""
        stack = self.stack
        stack.stack_event(self.now(), "UPDATE_IN_PROGRESS", "User Initiated")
        before = {logical_id: copy.deepcopy(resource) for logical_id, resource in stack.resources.items()}
        replaced: list[tuple[StackResource, str, dict[str, Any]]] = []
        changed: list[str] = []
        failed, verb, problem = None, "update", None
        try:
            order = self._order(template)
        except AWSError as error:
            order, problem = [], error.message
        for logical_id in order:
            definition = template["Resources"][logical_id]
            resource = stack.resources.get(logical_id)
            try:
                properties = self._properties(definition)
                if resource is None or resource.status == "DELETE_COMPLETE":
                    resource = stack.resources[logical_id] = StackResource(
                        logical_id, definition["Type"], metadata=definition.get("Metadata")
                    )
                    changed.append(logical_id)
                    self._create_one(resource, properties)
                    continue
                resource.metadata = definition.get("Metadata")
                if properties == resource.properties and resource.status.endswith("_COMPLETE"):
                    continue
                changed.append(logical_id)
                old = self._update_one(resource, definition["Type"], properties)
                if old is not None:
                    replaced.append((resource, *old))
            except ResourceFailed as error:
                created = logical_id not in before
                verb = "create" if created else "update"
                stack.resource_event(
                    self.now(),
                    stack.resources[logical_id],
                    "CREATE_FAILED" if created else "UPDATE_FAILED",
                    error.reason,
                )
                failed = logical_id
                break
        if failed is None and problem is None and self._outputs(template):
            stack.template = template
            stack.stack_event(self.now(), "UPDATE_COMPLETE_CLEANUP_IN_PROGRESS")
            # the old resources deleted only once the file holds the update (a nested stack's: its root stack's)
            self.commit(lambda: self._clean_up(old_template, order, old_order, replaced))
            return True
        reason = f"The following resource(s) failed to {verb}: [{failed}]. " if failed else (problem or stack.reason)
        stack.stack_event(self.now(), "UPDATE_ROLLBACK_IN_PROGRESS", reason)
        self._roll_back(before, changed, replaced)
        stack.template = old_template
        stack.stack_event(self.now(), "UPDATE_ROLLBACK_COMPLETE")
        return False

    def _clean_up(
        self,
        old_template: dict[str, Any],
        order: list[str],
        old_order: list[str],
        replaced: list[tuple[StackResource, str, dict[str, Any]]],
    ) -> None:
        """An update's cleanup: the old physical resources replaced and the resources removed deleted, in the old
        template's reverse order (dependents first: a URL before the alias it names, as CloudFormation deletes a
        stack)."""
        stack = self.stack
        old_ones = {resource.logical_id: (resource, physical_id, properties)
                    for resource, physical_id, properties in replaced}  # fmt: skip
        kept = set(order)
        for logical_id in [*reversed(old_order), *(id_ for id_ in reversed(order) if id_ not in old_order)]:
            if logical_id in old_ones:
                resource, physical_id, properties = old_ones.pop(logical_id)
                self._delete(resource, physical_id=physical_id, properties=properties)
            elif logical_id not in kept and logical_id in stack.resources:
                self._delete(stack.resources[logical_id], rollback=False, template=old_template)
                del stack.resources[logical_id]
        stack.stack_event(self.now(), "UPDATE_COMPLETE")

    def _update_one(
        self, resource: StackResource, type_name: str, properties: dict[str, Any]
    ) -> tuple[str, dict[str, Any]] | None:
        """Update in place, or replace; the old physical id and properties when replaced."""
        if type_name != resource.type:
            raise ResourceFailed(
                f"Update of resource type is not permitted. The new template modifies resource "
                f"type of the following resources: [{resource.logical_id}]"
            )
        kind = _served(resource.type)
        old_properties = resource.properties
        if kind.needs_replacement(old_properties, properties):
            name = kind.name_property
            if name and name in properties and properties.get(name) == old_properties.get(name):
                raise ResourceFailed(
                    f"CloudFormation cannot update a stack when a custom-named resource requires "
                    f"replacing. Rename {properties[name]} and update the stack again."
                )
            old_physical = resource.physical_id or ""
            self.stack.resource_event(self.now(), resource, "UPDATE_IN_PROGRESS", REPLACING, properties=properties)
            created = _attempt(lambda: kind.create(self.provisioning(resource.logical_id), properties))
            resource.physical_id, resource.attributes, resource.properties = (
                created.physical_id,
                created.attributes,
                properties,
            )
            self.stack.resource_event(self.now(), resource, "UPDATE_IN_PROGRESS", INITIATED, properties=properties)
            self.stack.resource_event(self.now(), resource, "UPDATE_COMPLETE", properties=properties)
            return old_physical, old_properties
        self.stack.resource_event(self.now(), resource, "UPDATE_IN_PROGRESS", properties=properties)
        old_physical = resource.physical_id or ""
        updated = _attempt(
            lambda: kind.updated(self.provisioning(resource.logical_id), old_physical, old_properties, properties)
        )
        resource.physical_id, resource.attributes, resource.properties = (
            updated.physical_id,
            updated.attributes,
            properties,
        )
        self.stack.resource_event(self.now(), resource, "UPDATE_COMPLETE", properties=properties)
        return (old_physical, old_properties) if updated.physical_id != old_physical else None

    def _roll_back(
        self,
        before: dict[str, StackResource],
        changed: list[str],
        replaced: list[tuple[StackResource, str, dict[str, Any]]],
    ) -> None:
        stack = self.stack
        replaced_ids = {resource.logical_id for resource, _, _ in replaced}
        for logical_id in reversed(changed):
            resource, old = stack.resources[logical_id], before.get(logical_id)
            if old is None or logical_id in replaced_ids or resource.status in ("UPDATE_FAILED", "CREATE_FAILED"):
                continue
            self.stack.resource_event(self.now(), resource, "UPDATE_IN_PROGRESS")
            try:
                kind = _served(resource.type)
                resource.attributes = _attempt(
                    lambda: kind.update(
                        self.provisioning(logical_id), resource.physical_id or "", resource.properties, old.properties
                    )
                )
                resource.properties = old.properties
                self.stack.resource_event(self.now(), resource, "UPDATE_COMPLETE")
            except ResourceFailed as error:
                self.stack.resource_event(self.now(), resource, "UPDATE_FAILED", error.reason)
        for resource, physical_id, _ in replaced:
            new_physical, new_properties = resource.physical_id, resource.properties
            old = before[resource.logical_id]
            resource.physical_id, resource.properties, resource.attributes = (
                physical_id,
                old.properties,
                old.attributes,
            )
            self.stack.resource_event(self.now(), resource, "UPDATE_COMPLETE")
            replaced_ids.add(resource.logical_id)
            resource.status = "UPDATE_COMPLETE"
            before[resource.logical_id] = copy.deepcopy(resource)
            self._pending_deletes.append((resource, new_physical, new_properties))
        stack.stack_event(self.now(), "UPDATE_ROLLBACK_COMPLETE_CLEANUP_IN_PROGRESS")
        for resource, physical_id, properties in reversed(self._pending_deletes):  # dependents first
            self._delete(resource, physical_id=physical_id or "", properties=properties)
        for logical_id in reversed(changed):
            if logical_id not in before:
                self._delete(stack.resources[logical_id], rollback=True)
                del stack.resources[logical_id]
            elif stack.resources[logical_id].status.endswith("FAILED"):
                stack.resources[logical_id] = before[logical_id]

    def __post_init__(self) -> None:
        self._pending_deletes: list[tuple[StackResource, str | None, dict[str, Any]]] = []


def _served(type_name: str) -> ResourceType:
    kind = kind_of(type_name)
    if kind is None:
        raise ResourceFailed(
            f"Resource type {type_name} is not served by Eddy: no resource of this type can be "
            "created (docs/guides/deploy.md lists the types served)"
        )
    return kind


def _attempt(action: Callable[[], Any]) -> Any:
    try:
        return action()
    except ResourceFailed:
        raise
    except Exception as error:  # a service's refusal (ClientError) or any other failure: the resource's
        raise failure(error) from error

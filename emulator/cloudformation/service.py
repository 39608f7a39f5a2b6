"""CloudFormation as Eddy serves it: every account's and region's stacks, their exports, and the API's operations
on them (the change sets' in change_sets.py). An operation runs to its end before it answers (its events and
statuses are AWS's, on the emulator's clock); resources are made through Eddy's own APIs (resource_types/)."""

from __future__ import annotations

import threading
import uuid
from pathlib import Path
from typing import Any, Callable, TypeVar

from eddy.emulator.cloudformation import graph, parameters as stack_parameters, template as templates, templates_in
from eddy.emulator.cloudformation import stack_store, transforms
from eddy.emulator.cloudformation.errors import (
    AlreadyExistsException,
    InsufficientCapabilitiesException,
    ValidationError,
)
from eddy.emulator.cloudformation.resource_types.base import Provisioning
from eddy.emulator.cloudformation.resource_types.custom_resource_calls import CustomResourceCalls
from eddy.emulator.cloudformation.stack_commits import Operations
from eddy.emulator.cloudformation.stack_operations import Deployment
from eddy.emulator.cloudformation.stacks import Stack
from eddy.emulator.cloudformation.values import Exports, StackValues

Client = Callable[[str, str], Any]
T = TypeVar("T")


class CloudFormation:
    def __init__(
        self, client: Client, now: Callable[[], float], path: Path, custom_resources: CustomResourceCalls | None = None
    ) -> None:
        """`client(service, region)`: a boto3 client of Eddy, through which every resource is made; `path`: the
        stacks file (stack_store.py), read now; `custom_resources`: how custom resources reach their providers."""
        self.client, self.now, self.path = client, now, path
        self.custom_resources = custom_resources
        self.lock = threading.RLock()
        self.stacks, self.change_sets, self.exports = stack_store.load(path)
        #: the operations that may change stacks, each all or nothing against the disk (stack_commits.py)
        self.operations = Operations()

    def save(self) -> None:
        """The stacks written down (WriteFailed: refused, the file as it was)."""
        with self.lock:
            stack_store.save(self.path, self.stacks, self.change_sets, self.exports)

    def run(self, operation: Callable[[], T]) -> T:
        """An operation that may change stacks, all or nothing against the disk (stack_commits.py)."""
        return self.operations.run(self, operation)

    def commit(self, cleanup: Callable[[], None] | None = None) -> None:
        """The running operation's commit point: the stacks written down (WriteFailed: it is taken back), then the
        cleanups of its nested stacks' updates and `cleanup`, its own. A nested stack's operation that is part of its
        parent's writes nothing: its cleanup waits for the parent's commit (stack_commits.py)."""
        if self.operations.joined:
            if cleanup is not None:
                self.operations.after_root_commit(cleanup)
            return
        self.save()
        for nested in self.operations.committed():
            nested()
        if cleanup is not None:
            cleanup()

    def reset(self) -> None:
        with self.lock:
            self.stacks.clear()
            self.exports.clear()
            self.change_sets.clear()
            self.save()

    # -- finding stacks ------------------------------------------------------------------------------------

    def find(self, account: str, region: str, name: str, deleted: bool = False) -> Stack:
        """A stack by name (the live one) or by id (any, deleted ones too, where `deleted`)."""
        deleted = deleted and name.startswith("arn:")
        with self.lock:
            for stack in reversed(self.stacks):
                if (stack.account, stack.region) != (account, region):
                    continue
                if stack.stack_id == name or (stack.name == name and (deleted or stack.status != "DELETE_COMPLETE")):
                    return stack
        raise ValidationError(f"Stack with id {name} does not exist")

    def live(self, account: str, region: str, name: str) -> Stack | None:
        try:
            return self.find(account, region, name)
        except ValidationError:
            return None

    def name_of(self, stack_id: str) -> str:
        return next((stack.name for stack in self.stacks if stack.stack_id == stack_id), stack_id)

    # -- the operations' parts -----------------------------------------------------------------------------

    def template_of(self, params: dict[str, Any], region: str) -> tuple[str, dict[str, Any]]:
        body = templates_in.body_of(params, lambda bucket, key: self._s3_text(region, bucket, key))
        return body, templates_in.parsed(body)

    @staticmethod
    def processed(
        template: dict[str, Any],
        params: dict[str, Any],
        previous: dict[str, str] | None,
        region: str,
        change_set: bool = False,
    ) -> dict[str, Any]:
        """The template with its transforms applied (a stack operation must acknowledge CAPABILITY_AUTO_EXPAND for
        them, a change set need not), its IAM capabilities checked."""
        given = params.get("Capabilities") or []
        if templates.transforms(template):
            if not change_set and "CAPABILITY_AUTO_EXPAND" not in given:
                raise InsufficientCapabilitiesException("Requires capabilities : [CAPABILITY_AUTO_EXPAND]")
            template = transforms.expand(template, params.get("Parameters") or [], previous, region)
            templates_in.check_references(template)
        templates_in.check_capabilities(template, given)
        return template

    def _s3_text(self, region: str, bucket: str, key: str) -> str:
        return self.client("s3", region).get_object(Bucket=bucket, Key=key)["Body"].read().decode("utf-8")

    def new_stack(
        self, account: str, region: str, name: str, body: str, template: dict[str, Any], params: dict[str, Any]
    ) -> Stack:
        with self.lock:
            if self.live(account, region, name) is not None:
                raise AlreadyExistsException(f"Stack [{name}] already exists")
            stack = Stack(
                f"arn:aws:cloudformation:{region}:{account}:stack/{name}/{uuid.uuid4()}",
                name,
                self.now(),
                template,
                body,
            )
            self.configure(stack, params)
            self.stacks.append(stack)
            return stack

    @staticmethod
    def configure(stack: Stack, params: dict[str, Any]) -> None:
        stack.disable_rollback = bool(params.get("DisableRollback")) or params.get("OnFailure") == "DO_NOTHING"
        stack.capabilities = list(params.get("Capabilities") or [])
        stack.tags = list(params.get("Tags") or stack.tags)
        stack.notification_arns = list(params.get("NotificationARNs") or stack.notification_arns)

    def values_for(
        self, stack: Stack, template: dict[str, Any], given: list[dict[str, Any]], previous: dict[str, str] | None
    ) -> StackValues:
        """The stack's values for `template` (its parameters checked); DescribeStacks' Parameters set."""
        self.operations.touching(stack.stack_id)
        declared = template.get("Parameters") or {}
        raw, values, resolved = stack_parameters.resolve(
            declared, given, previous, lambda name: self._ssm_value(stack.region, name)
        )
        stack.raw_parameters = raw
        stack.parameters = stack_parameters.described(declared, raw, resolved)
        return StackValues(stack, template, values, self.exports, self._azs, self.name_of)

    def _ssm_value(self, region: str, name: str) -> str:
        try:
            return self.client("ssm", region).get_parameter(Name=name)["Parameter"]["Value"]
        except Exception:
            raise ValidationError(f"Parameters: [ssm:{name}] cannot be found.") from None

    def _azs(self, region: str) -> list[str]:
        zones = self.client("ec2", region).describe_availability_zones()["AvailabilityZones"]
        return sorted(zone["ZoneName"] for zone in zones)

    def deployment(self, stack: Stack, values: StackValues) -> Deployment:
        self.operations.touching(stack.stack_id)  # taken back with the operation, should the disk refuse it

        def provisioning(logical_id: str) -> Provisioning:
            return Provisioning(
                lambda service: self.client(service, stack.region),
                stack.region,
                stack.account,
                stack.name,
                logical_id,
                stack.stack_id,
                self.custom_resources,
                self.client,
                lambda child_id: self.nest(child_id, stack),
                self.operations.nesting,
            )

        return Deployment(stack, self.now, values, provisioning, self.commit)

    def nest(self, child_id: str, parent: Stack) -> None:
        """A stack a parent's AWS::CloudFormation::Stack made is nested in it: ParentId the parent, RootId the
        parent's root (the parent, when it is top-level); AWS CloudFormation API Reference, Stack and StackSummary."""
        with self.lock:
            child = next(stack for stack in self.stacks if stack.stack_id == child_id)
            child.parent_id = parent.stack_id
            root, below = parent.root_id or parent.stack_id, [child]
            while below:  # the child's own nested stacks were made (and nested) before it was: their root moves too
                stack = below.pop()
                stack.root_id = root
                below += [nested for nested in self.stacks if nested.parent_id == stack.stack_id]
            # written by the parent's operation, at its commit point

    @staticmethod
    def order(stack: Stack) -> list[str]:
        """The stack's resources in deletion order (the reverse of the order they were made in)."""
        resources = {
            logical_id: definition
            for logical_id, definition in (stack.template.get("Resources") or {}).items()
            if logical_id in stack.resources
        }
        try:
            needs = graph.dependencies(resources, {**(stack.template.get("Parameters") or {})})
            made = graph.creation_order(needs)
        except ValidationError:
            made = list(resources)
        made += [logical_id for logical_id in stack.resources if logical_id not in made]
        return list(reversed(made))

    # -- stack operations ----------------------------------------------------------------------------------

    def create_stack(self, account: str, region: str, params: dict[str, Any]) -> dict[str, Any]:
        body, template = self.template_of(params, region)
        self._check_name(params["StackName"])
        template = self.processed(template, params, None, region)
        probe = Stack(
            f"arn:aws:cloudformation:{region}:{account}:stack/{params['StackName']}/-",
            params["StackName"],
            0,
            template,
            body,
        )
        self.values_for(probe, template, params.get("Parameters") or [], None)  # bad parameters change nothing
        stack = self.new_stack(account, region, params["StackName"], body, template, params)
        values = self.values_for(stack, template, params.get("Parameters") or [], None)
        self.deployment(stack, values).create(template)
        return {"StackId": stack.stack_id}

    @staticmethod
    def _check_name(name: str) -> None:
        import re

        if not re.fullmatch(r"[a-zA-Z][-a-zA-Z0-9]{0,127}", name):
            raise ValidationError(
                f"1 validation error detected: Value '{name}' at 'stackName' failed to satisfy "
                "constraint: Member must satisfy regular expression pattern: "
                "[a-zA-Z][-a-zA-Z0-9]*|arn:[-a-zA-Z0-9:/._+]*"
            )

    def update_stack(self, account: str, region: str, params: dict[str, Any]) -> dict[str, Any]:
        stack = self.find(account, region, params["StackName"])
        self.updatable(stack)
        if params.get("UsePreviousTemplate"):
            body, template = stack.template_body, stack.template
        else:
            body, template = self.template_of(params, region)
        previous = dict(stack.raw_parameters)
        if not params.get("UsePreviousTemplate"):
            template = self.processed(template, params, previous, region)
        old_parameters = (stack.parameters, stack.raw_parameters)
        values = self.values_for(stack, template, params.get("Parameters") or [], previous)
        if (
            templates_in.canonical(template) == templates_in.canonical(stack.template)
            and stack.raw_parameters == previous
        ):
            stack.parameters, stack.raw_parameters = old_parameters
            raise ValidationError("No updates are to be performed.")
        self.run_update(stack, body, template, values, params)
        return {"StackId": stack.stack_id}

    @staticmethod
    def updatable(stack: Stack) -> None:
        if stack.status.endswith("_IN_PROGRESS") or stack.status in (
            "ROLLBACK_COMPLETE",
            "ROLLBACK_FAILED",
            "CREATE_FAILED",
            "DELETE_FAILED",
        ):
            raise ValidationError(f"Stack:{stack.stack_id} is in {stack.status} state and can not be updated.")

    def run_update(
        self, stack: Stack, body: str, template: dict[str, Any], values: StackValues, params: dict[str, Any]
    ) -> None:
        old_template, old_body, old_order = stack.template, stack.template_body, self.order(stack)
        old_parameters = (stack.parameters, stack.raw_parameters)
        self.configure(stack, {**params, "DisableRollback": params.get("DisableRollback", stack.disable_rollback)})
        stack.updated, stack.reason = self.now(), None
        stack.template_body = body
        if not self.deployment(stack, values).update(old_template, template, list(reversed(old_order))):
            stack.template_body = old_body
            stack.parameters, stack.raw_parameters = old_parameters

    def delete_stack(self, account: str, region: str, params: dict[str, Any]) -> dict[str, Any]:
        stack = self.live(account, region, params["StackName"])
        if stack is None:
            try:
                stack = self.find(account, region, params["StackName"], deleted=True)
            except ValidationError:
                return {}  # deleting a stack that does not exist succeeds, as on AWS
        if stack.status == "DELETE_COMPLETE":
            return {}
        if stack.status.endswith("_IN_PROGRESS") and stack.status not in ("REVIEW_IN_PROGRESS", "DELETE_IN_PROGRESS"):
            raise ValidationError(f"Stack [{stack.name}] cannot be deleted while in status {stack.status}")
        retained = set(params.get("RetainResources") or [])
        for logical_id in retained:
            stack.template.get("Resources", {}).get(logical_id, {})["DeletionPolicy"] = "Retain"
        values = StackValues(stack, {}, {}, self.exports, self._azs, self.name_of)
        self.deployment(stack, values).delete(self.order(stack))
        return {}

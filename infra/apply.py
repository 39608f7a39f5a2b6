"""Deploying a stack file or a SAM / CloudFormation template as a CloudFormation stack: to Eddy, to LocalStack or
to AWS, the same file, idempotently, the way `sam deploy` and `aws cloudformation deploy` do it.

    apply_stack("stack.yaml")                                   # in an emulate() block (or the `eddy` fixture)
    apply_stack("stack.yaml", endpoint_url="http://127.0.0.1:4566")   # to a running `eddy serve`

`up(source, clients)` packages the code (packages.py: zips uploaded to the deployment bucket), makes the
template (a stack file's through stack_template.py; a template's with its code paths replaced), creates a change
set for the stack (one per file: `source.stack_name`), reports what it adds, modifies and removes and what it
leaves alone, and executes it; `dry_run=True` only reports (the change set is deleted). `down(source, clients)`
deletes the stack (its buckets emptied first, as CloudFormation deletes only empty ones). Every step is an ordinary
boto3 call of the CloudFormation API, so what works here works against any endpoint; on Eddy, the stack is made
by Eddy's own CloudFormation engine (emulator/cloudformation/), the one `aws cloudformation deploy` reaches.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import boto3
from botocore.exceptions import ClientError, WaiterError

from .packages import DeploymentBucket, package
from .stack import Stack, StackError
from .stack_template import template_of
from .templates import Template, packaged

CAPABILITIES = ["CAPABILITY_IAM", "CAPABILITY_NAMED_IAM", "CAPABILITY_AUTO_EXPAND"]
#: the largest TemplateBody CloudFormation takes; a larger template goes by TemplateURL from the deployment bucket
TEMPLATE_BODY_LIMIT = 51_200
_NO_CHANGES = ("didn't contain changes", "No updates are to be performed")
_WAIT = {"Delay": 2, "MaxAttempts": 1800}


@dataclass
class Action:
    verb: str  # create, update, delete, unchanged
    resource_type: str
    logical_id: str
    detail: str = ""

    def line(self) -> str:
        detail = f" ({self.detail})" if self.detail else ""
        return f"  {self.verb:<9} {self.logical_id:<30} {self.resource_type}{detail}"


class Clients:
    """boto3 clients for one endpoint (None: AWS itself, or this process's Eddy in an emulate() block)."""

    def __init__(self, endpoint_url: str | None, region: str, profile: str | None = None) -> None:
        if profile:
            self.session = boto3.session.Session(profile_name=profile, region_name=region)
        elif endpoint_url:
            self.session = boto3.session.Session(
                aws_access_key_id="test", aws_secret_access_key="test", region_name=region
            )
        else:
            self.session = boto3.session.Session(region_name=region)
        self.endpoint_url = endpoint_url
        self.region = region
        self._clients: dict[str, Any] = {}

    def __call__(self, service: str) -> Any:
        if service not in self._clients:
            self._clients[service] = self.session.client(
                service, endpoint_url=self.endpoint_url, region_name=self.region
            )
        return self._clients[service]

    def account_id(self) -> str:
        return self("sts").get_caller_identity()["Account"]


# -- up -----------------------------------------------------------------------------------------------------


def up(
    source: Stack | Template, clients: Clients, *, dry_run: bool = False, echo: Callable[[str], None] = print
) -> list[Action]:
    """Create or change the stack `source` declares; what already matches is left alone. Returns what it did
    (or, with `dry_run`, would do). Raises StackError when the endpoint refuses the template or the stack fails
    (its failed resources and their reasons in the message; the stack rolled back as CloudFormation rolls back)."""
    cloudformation, name = clients("cloudformation"), source.stack_name
    bucket = DeploymentBucket(clients("s3"), clients.account_id(), clients.region, name, dry_run)
    template = json.dumps(_template(source, bucket), separators=(",", ":"))
    current = _described(cloudformation, name)
    if current is not None and current["StackStatus"] == "ROLLBACK_COMPLETE" and dry_run:
        raise StackError(
            f"{source.source}: stack {name} is ROLLBACK_COMPLETE (its creation failed): eddy up "
            "without --dry-run deletes it and creates it again"
        )
    if current is not None and current["StackStatus"] == "ROLLBACK_COMPLETE":
        echo(f"  deleting  {name}: its first creation failed and was rolled back (ROLLBACK_COMPLETE)")
        _delete(cloudformation, name, source)
        current = None
    kind = "UPDATE" if current is not None and current["StackStatus"] != "REVIEW_IN_PROGRESS" else "CREATE"
    request: dict[str, Any] = {
        "StackName": name,
        "ChangeSetName": f"eddy-up-{uuid.uuid4().hex[:16]}",
        "ChangeSetType": kind,
        "Capabilities": CAPABILITIES,
        "Description": "eddy up",
    }
    if len(template.encode()) <= TEMPLATE_BODY_LIMIT:
        request["TemplateBody"] = template
    else:
        where, key = bucket.upload(template.encode(), always=True)
        request["TemplateURL"] = f"https://{where}.s3.{clients.region}.amazonaws.com/{key}"
    if kind == "UPDATE" and current is not None and current.get("Parameters"):
        request["Parameters"] = [
            {"ParameterKey": p["ParameterKey"], "UsePreviousValue": True}
            for p in current["Parameters"]
            if _declares(template, p["ParameterKey"])
        ]
    try:
        change_set = cloudformation.create_change_set(**request)["Id"]
    except ClientError as error:
        raise StackError(f"{source.source}: {error.response['Error']['Message']}") from None
    described = _change_set(cloudformation, change_set)
    if described["Status"] == "FAILED" and not any(words in described.get("StatusReason", "") for words in _NO_CHANGES):
        _discard(cloudformation, change_set, name, kind)
        raise StackError(f"{source.source}: {described.get('StatusReason', 'the change set failed')}")
    actions = [_action(change["ResourceChange"]) for change in described.get("Changes", [])]
    if kind == "UPDATE":
        changed = {action.logical_id for action in actions}
        actions += [
            Action("unchanged", resource["ResourceType"], resource["LogicalResourceId"])
            for resource in _resources(cloudformation, name)
            if resource["LogicalResourceId"] not in changed
        ]
    for action in actions:
        echo(action.line())
    if dry_run or described["Status"] == "FAILED":
        _discard(cloudformation, change_set, name, kind)
        return actions
    cloudformation.execute_change_set(ChangeSetName=change_set)
    try:
        cloudformation.get_waiter("stack_create_complete" if kind == "CREATE" else "stack_update_complete").wait(
            StackName=name, WaiterConfig=_WAIT
        )
    except WaiterError:
        raise StackError(f"{source.source}: {_failures(cloudformation, name)}") from None
    return actions


def _template(source: Stack | Template, bucket: DeploymentBucket) -> dict[str, Any]:
    if isinstance(source, Template):
        return packaged(source, bucket.upload)
    code, handlers = {}, {}
    for name, function in source.functions.items():
        data, handlers[name] = package(function, source.base_dir)
        code[name] = bucket.upload(data)
    return template_of(source, code, handlers, description=f"{source.stack_name}: a stack file applied by eddy up")


def _declares(template: str, parameter: str) -> bool:
    return parameter in (json.loads(template).get("Parameters") or {})


def _described(cloudformation: Any, name: str) -> dict[str, Any] | None:
    try:
        return cloudformation.describe_stacks(StackName=name)["Stacks"][0]
    except ClientError as error:
        if "does not exist" in error.response["Error"]["Message"]:
            return None
        raise


def _change_set(cloudformation: Any, change_set: str) -> dict[str, Any]:
    """The change set once it is made (or failed), with all its changes."""
    try:
        cloudformation.get_waiter("change_set_create_complete").wait(ChangeSetName=change_set, WaiterConfig=_WAIT)
    except WaiterError:
        pass  # FAILED: read below, with its reason
    described = cloudformation.describe_change_set(ChangeSetName=change_set)
    changes, token = list(described.get("Changes", [])), described.get("NextToken")
    while token:
        page = cloudformation.describe_change_set(ChangeSetName=change_set, NextToken=token)
        changes += page.get("Changes", [])
        token = page.get("NextToken")
    return {**described, "Changes": changes}


def _action(change: dict[str, Any]) -> Action:
    verb = {"Add": "create", "Modify": "update", "Remove": "delete"}.get(change["Action"], change["Action"].lower())
    detail = ""
    if change["Action"] == "Modify":
        names = sorted({d["Target"].get("Name") or d["Target"]["Attribute"] for d in change.get("Details", [])})
        detail = ("replacing: " if change.get("Replacement") == "True" else "") + ", ".join(names)
    return Action(verb, change["ResourceType"], change["LogicalResourceId"], detail)


def _discard(cloudformation: Any, change_set: str, name: str, kind: str) -> None:
    """A change set not executed deleted, and the empty stack a CREATE change set made (REVIEW_IN_PROGRESS)."""
    cloudformation.delete_change_set(ChangeSetName=change_set)
    if kind == "CREATE":
        described = _described(cloudformation, name)
        if described is not None and described["StackStatus"] == "REVIEW_IN_PROGRESS":
            cloudformation.delete_stack(StackName=name)


def _resources(cloudformation: Any, name: str) -> list[dict[str, Any]]:
    return [
        resource
        for page in cloudformation.get_paginator("list_stack_resources").paginate(StackName=name)
        for resource in page["StackResourceSummaries"]
        if resource["ResourceStatus"] != "DELETE_COMPLETE"
    ]


def _failures(cloudformation: Any, name: str) -> str:
    """The stack's status and each resource that failed in its last operation, with CloudFormation's reason."""
    status = cloudformation.describe_stacks(StackName=name)["Stacks"][0]["StackStatus"]
    failed = []
    for page in cloudformation.get_paginator("describe_stack_events").paginate(StackName=name):
        for event in page["StackEvents"]:
            if (
                event["ResourceType"] == "AWS::CloudFormation::Stack"
                and event.get("ResourceStatusReason") == "User Initiated"
            ):
                return f"stack {name} is {status}: " + ("; ".join(reversed(failed)) or "no resource failed")
            if event["ResourceStatus"].endswith("_FAILED") and event["ResourceType"] != "AWS::CloudFormation::Stack":
                failed.append(
                    f"{event['LogicalResourceId']} ({event['ResourceType']}) "
                    f"{event['ResourceStatus']}: {event.get('ResourceStatusReason', '')}"
                )
    return f"stack {name} is {status}: " + ("; ".join(reversed(failed)) or "no resource failed")


# -- down and the commands' helpers -------------------------------------------------------------------------


def down(
    source: Stack | Template, clients: Clients, *, dry_run: bool = False, echo: Callable[[str], None] = print
) -> list[Action]:
    """Delete the stack `source` is deployed as (its buckets emptied first, unless kept by DeletionPolicy)."""
    cloudformation, name = clients("cloudformation"), source.stack_name
    if _described(cloudformation, name) is None:
        return []
    actions = [
        Action("delete", resource["ResourceType"], resource["LogicalResourceId"])
        for resource in reversed(_resources(cloudformation, name))
    ]
    for action in actions:
        echo(action.line())
    if not dry_run:
        _delete(cloudformation, name, source, clients)
    return actions


def _delete(cloudformation: Any, name: str, source: Stack | Template, clients: Clients | None = None) -> None:
    if clients is not None:
        kept = _kept(cloudformation, name)
        for resource in _resources(cloudformation, name):
            if resource["ResourceType"] == "AWS::S3::Bucket" and resource["LogicalResourceId"] not in kept:
                _empty(clients("s3"), resource.get("PhysicalResourceId", ""))
    cloudformation.delete_stack(StackName=name)
    try:
        cloudformation.get_waiter("stack_delete_complete").wait(StackName=name, WaiterConfig=_WAIT)
    except WaiterError:
        raise StackError(f"{source.source}: {_failures(cloudformation, name)}") from None


def _kept(cloudformation: Any, name: str) -> set[str]:
    body = cloudformation.get_template(StackName=name, TemplateStage="Processed")["TemplateBody"]
    if isinstance(body, str):
        from eddy.emulator.cloudformation.template import parse

        body = parse(body)
    return {
        logical_id
        for logical_id, resource in (body.get("Resources") or {}).items()
        if resource.get("DeletionPolicy") in ("Retain", "RetainExceptOnCreate")
    }


def _empty(s3: Any, bucket: str) -> None:
    try:
        for page in s3.get_paginator("list_object_versions").paginate(Bucket=bucket):
            versions = page.get("Versions", []) + page.get("DeleteMarkers", [])
            if versions:
                s3.delete_objects(
                    Bucket=bucket,
                    Delete={
                        "Objects": [{"Key": version["Key"], "VersionId": version["VersionId"]} for version in versions]
                    },
                )
    except ClientError as error:
        if error.response["Error"]["Code"] not in ("NoSuchBucket", "404"):
            raise


def apply_stack(
    path: str | Path,
    *,
    endpoint_url: str | None = None,
    region: str | None = None,
    stack_name: str | None = None,
    echo: Callable[[str], None] | None = None,
) -> list[Action]:
    """Deploy a stack file (or SAM / CloudFormation template) as a stack and return what was done.

    `endpoint_url`: a running Eddy (or any endpoint); None: this process's boto3, which inside `emulate()` or
    the pytest plugin's `eddy` fixture is Eddy in-process. `region`: default the stack file's, else the configured
    one, else us-east-1. `stack_name`: default the file's stem. `echo`: called with one line per resource
    (default: silent). Raises StackError for a file that cannot be read, or a stack that fails.
    """
    from eddy.emulator.aws_environment import DEFAULT_REGION, configured_region

    from .load import load_stack

    source = load_stack(path, stack_name)
    clients = Clients(endpoint_url, region or source.region or configured_region() or DEFAULT_REGION)
    return up(source, clients, echo=echo or (lambda line: None))


def summary(actions: list[Action]) -> str:
    counts = {verb: sum(1 for a in actions if a.verb == verb) for verb in ("create", "update", "delete", "unchanged")}
    words = {"create": "created", "update": "changed", "delete": "deleted", "unchanged": "left alone"}
    return ", ".join(f"{count} {words[verb]}" for verb, count in counts.items() if count) or "nothing to do"

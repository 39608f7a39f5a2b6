"""The CloudFormation API, answered by Eddy in both doors instead of moto's (whose stacks made resources in moto's
own Lambda, which Eddy never runs): a request signed for `cloudformation` (query protocol: Action=..., form
encoded), read and answered from botocore's model (query_protocol.py); emulator/cloudformation/ runs the stacks."""

from __future__ import annotations

import json
from typing import Any, Callable
from urllib.parse import parse_qsl, urlsplit

import botocore.session

from eddy.emulator.api.cloudformation import query_protocol
from eddy.emulator.cloudformation import change_sets, parameters as stack_parameters, template as templates
from eddy.emulator.cloudformation import templates_in
from eddy.emulator.cloudformation.errors import ValidationError
from eddy.emulator.cloudformation.service import CloudFormation
from eddy.emulator.engine import Emulator
from eddy.emulator.errors import AWSError
from eddy.emulator.aws_requests import Request, Response
from eddy.emulator.moto_seam.services.requests import service_of
from eddy.emulator.storage.disk import WriteFailed

XML = "text/xml"
_model = botocore.session.get_session().get_service_model("cloudformation")


def claims(request: Request) -> bool:
    if service_of(request.header("Authorization") or "", request.url) == "cloudformation":
        return True
    host = urlsplit(request.url).hostname or ""
    return host.startswith("cloudformation.") and host.endswith(".amazonaws.com")


def handle(emulator: Emulator, request: Request, caller: tuple[str, str]) -> Response:
    form = dict(parse_qsl(urlsplit(request.url).query, keep_blank_values=True))
    if request.body:
        form.update(parse_qsl(request.body.decode("utf-8"), keep_blank_values=True))
    action = form.get("Action", "")
    try:
        operation = _model.operation_model(action)
    except Exception:
        return _error("InvalidAction", f"Could not find operation {action} for version 2010-05-15", 400)
    try:
        params = query_protocol.read_input(operation, form)
        missing = (
            [name for name in operation.input_shape.required_members if name not in params]
            if operation.input_shape is not None
            else []
        )
        if missing:
            raise ValidationError(
                f"1 validation error detected: Value null at '{_camel(missing[0])}' failed to "
                "satisfy constraint: Member must not be null"
            )
        handler = OPERATIONS.get(action)
        if handler is None:
            return _error("NotImplemented", f"Eddy does not serve CloudFormation's {action}", 501)
        service = emulator.cloudformation
        if action in CHANGING:  # all or nothing against the disk (cloudformation/stack_commits.py)
            answer = service.run(lambda: handler(service, *caller, params))
        else:
            answer = handler(service, *caller, params)
    except AWSError as error:
        return _error(error.code, error.message, error.status)
    except WriteFailed as failure:  # nothing of it kept: CloudFormation's internal error, which the SDKs retry
        emulator.disk.refused(failure, emulator.clock.now())
        return _error("InternalFailure", f"The request was not applied: {failure.reason}", 500)
    body = query_protocol.write_output(operation, answer, _model.metadata["xmlNamespace"])
    return Response(200, {"Content-Type": XML, "Content-Length": str(len(body))}, body)


def _camel(name: str) -> str:
    return name[:1].lower() + name[1:]


def _error(code: str, message: str, status: int) -> Response:
    body = query_protocol.error_xml(code, message, sender=status < 500)
    return Response(status, {"Content-Type": XML, "Content-Length": str(len(body))}, body)


def _describe_stacks(service: CloudFormation, account: str, region: str, params: dict[str, Any]) -> dict[str, Any]:
    if params.get("StackName"):
        return {"Stacks": [service.find(account, region, params["StackName"], deleted=True).description()]}
    with service.lock:
        stacks = [
            stack
            for stack in service.stacks
            if (stack.account, stack.region) == (account, region) and stack.status != "DELETE_COMPLETE"
        ]
    return {"Stacks": [stack.description() for stack in reversed(stacks)]}


def _events(service: CloudFormation, account: str, region: str, params: dict[str, Any]) -> dict[str, Any]:
    stack = service.find(account, region, params["StackName"], deleted=True)
    return {"StackEvents": list(reversed(stack.events))}


def _resource(service: CloudFormation, account: str, region: str, params: dict[str, Any]) -> dict[str, Any]:
    stack = service.find(account, region, params["StackName"], deleted=True)
    resource = stack.resources.get(params["LogicalResourceId"])
    if resource is None:
        raise ValidationError(f"Resource {params['LogicalResourceId']} does not exist for stack {stack.name}")
    return {"StackResourceDetail": stack.resource_description(resource, detail=True)}


def _resources(service: CloudFormation, account: str, region: str, params: dict[str, Any]) -> dict[str, Any]:
    if params.get("StackName"):
        stacks = [service.find(account, region, params["StackName"], deleted=True)]
    elif params.get("PhysicalResourceId"):
        stacks = [
            stack
            for stack in service.stacks
            if any(resource.physical_id == params["PhysicalResourceId"] for resource in stack.resources.values())
        ]
        if not stacks:
            raise ValidationError(f"Stack for {params['PhysicalResourceId']} does not exist")
    else:
        raise ValidationError("Either StackName or PhysicalResourceId must be specified.")
    return {
        "StackResources": [
            stack.resource_description(resource, detail=False)
            for stack in stacks
            for resource in stack.resources.values()
            if params.get("LogicalResourceId") in (None, resource.logical_id)
            and params.get("PhysicalResourceId") in (None, resource.physical_id)
        ]
    }


def _list_resources(service: CloudFormation, account: str, region: str, params: dict[str, Any]) -> dict[str, Any]:
    stack = service.find(account, region, params["StackName"], deleted=True)
    return {"StackResourceSummaries": [resource.summary() for resource in stack.resources.values()]}


def _list_stacks(service: CloudFormation, account: str, region: str, params: dict[str, Any]) -> dict[str, Any]:
    wanted = params.get("StackStatusFilter")
    with service.lock:
        stacks = [
            stack
            for stack in service.stacks
            if (stack.account, stack.region) == (account, region)
            and stack.status != "REVIEW_IN_PROGRESS"
            and (not wanted or stack.status in wanted)
        ]
    return {"StackSummaries": [stack.summary() for stack in reversed(stacks)]}


def _get_template(service: CloudFormation, account: str, region: str, params: dict[str, Any]) -> dict[str, Any]:
    """The template as given (Original, the default), or with its transforms applied (Processed)."""
    if params.get("ChangeSetName"):
        found: Any = change_sets.find(service, account, region, params["ChangeSetName"], params.get("StackName"))
    else:
        found = service.find(account, region, params.get("StackName") or "", deleted=True)
    body = found.body if params.get("ChangeSetName") else found.template_body
    if params.get("TemplateStage") == "Processed":
        body = json.dumps(found.template)
    return {"TemplateBody": body, "StagesAvailable": ["Original", "Processed"]}


def _summary(template: dict[str, Any]) -> dict[str, Any]:
    answer: dict[str, Any] = {"Parameters": stack_parameters.declarations(template.get("Parameters") or {})}
    if templates.transforms(template):
        answer["DeclaredTransforms"] = templates.transforms(template)
    if "Description" in template:
        answer["Description"] = template["Description"]
    needed = templates_in.required_capabilities(template)
    if needed:
        answer["Capabilities"] = needed
        answer["CapabilitiesReason"] = (
            "The following resource(s) require capabilities: ["
            + ", ".join(
                sorted(
                    {
                        resource["Type"]
                        for resource in template["Resources"].values()
                        if resource["Type"].startswith("AWS::IAM::")
                    }
                )
            )
            + "]"
        )
    return answer


def _validate(service: CloudFormation, account: str, region: str, params: dict[str, Any]) -> dict[str, Any]:
    _, template = service.template_of(params, region)
    answer = _summary(template)
    answer["Parameters"] = [
        {key: entry[key] for key in ("ParameterKey", "DefaultValue", "NoEcho", "Description") if key in entry}
        for entry in answer["Parameters"]
    ]
    return answer


def _template_summary(service: CloudFormation, account: str, region: str, params: dict[str, Any]) -> dict[str, Any]:
    if params.get("StackName"):
        template = service.find(account, region, params["StackName"], deleted=True).template
    else:
        template = service.template_of(params, region)[1]
    answer = _summary(template)
    answer["ResourceTypes"] = sorted({resource["Type"] for resource in template["Resources"].values()})
    answer["Version"] = str(template.get("AWSTemplateFormatVersion", "2010-09-09"))
    answer["ResourceIdentifierSummaries"] = []
    return answer


def _create_change_set(service: CloudFormation, account: str, region: str, params: dict[str, Any]) -> dict[str, Any]:
    change_set = change_sets.create(service, account, region, params)
    return {"Id": change_set.change_set_id, "StackId": change_set.stack.stack_id}


def _change_set(action: Callable[[CloudFormation, Any], Any]) -> Callable[..., dict[str, Any]]:
    def handle_change_set(service: CloudFormation, account: str, region: str, params: dict[str, Any]) -> Any:
        found = change_sets.find(service, account, region, params["ChangeSetName"], params.get("StackName"))
        return action(service, found)

    return handle_change_set


def _list_change_sets(service: CloudFormation, account: str, region: str, params: dict[str, Any]) -> dict[str, Any]:
    stack = service.find(account, region, params["StackName"])
    return {"Summaries": change_sets.listed(service, stack)}


#: the operations after which the stacks are written down (stack_store.py)
CHANGING = ("CreateStack", "UpdateStack", "DeleteStack", "CreateChangeSet", "ExecuteChangeSet", "DeleteChangeSet")
OPERATIONS: dict[str, Callable[..., dict[str, Any]]] = {
    "CreateStack": lambda service, account, region, params: service.create_stack(account, region, params),
    "UpdateStack": lambda service, account, region, params: service.update_stack(account, region, params),
    "DeleteStack": lambda service, account, region, params: service.delete_stack(account, region, params),
    "DescribeStacks": _describe_stacks,
    "DescribeStackEvents": _events,
    "DescribeStackResource": _resource,
    "DescribeStackResources": _resources,
    "ListStackResources": _list_resources,
    "ListStacks": _list_stacks,
    "GetTemplate": _get_template,
    "GetTemplateSummary": _template_summary,
    "ValidateTemplate": _validate,
    "ListExports": lambda service, account, region, params: {"Exports": service.exports.listed(account, region)},
    "CreateChangeSet": _create_change_set,
    "DescribeChangeSet": _change_set(lambda service, found: found.description()),
    "ExecuteChangeSet": _change_set(lambda service, found: change_sets.execute(service, found) or {}),
    "DeleteChangeSet": _change_set(lambda service, found: change_sets.delete(service, found) or {}),
    "ListChangeSets": _list_change_sets,
}

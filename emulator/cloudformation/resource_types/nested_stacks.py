"""AWS::CloudFormation::Stack: a nested stack, made through Eddy's CloudFormation API like any stack (CreateStack,
UpdateStack, DeleteStack), its template read from TemplateURL (an object in Eddy's S3: `aws cloudformation package`,
`sam package` and CDK put nested templates in the deployment bucket), as the CloudFormation User Guide documents it:

- the child is named <parent stack>-<logical id>-<13 random characters>, in the parent's region; Parameters is a map
  of the child's parameters (every value a string); Tags, NotificationARNs and TimeoutInMinutes are passed on;
- Ref is the child's stack id (its ARN); Fn::GetAtt Outputs.<name> reads the child's outputs;
- a change of TemplateURL or Parameters updates the child in place (an update that changes nothing in it is no
  change); a child that fails to create fails the resource: "Embedded stack <arn> was not successfully created:
  <the child's reason>", and the failed child is deleted.

DescribeStacks and ListStacks show the child's ParentId (this stack) and RootId (the top-level stack: this one's
RootId, or this one). The child acknowledges every capability (CAPABILITY_IAM, CAPABILITY_NAMED_IAM, CAPABILITY_AUTO_EXPAND): on AWS the
parent's acknowledgement covers its nested stacks.
"""

from __future__ import annotations

from typing import Any

from botocore.exceptions import ClientError

from eddy.emulator.cloudformation.errors import ResourceFailed
from eddy.emulator.cloudformation.resource_types.base import Created, Provisioning, ResourceType, required

CAPABILITIES = ["CAPABILITY_IAM", "CAPABILITY_NAMED_IAM", "CAPABILITY_AUTO_EXPAND"]
_PASSED_ON = ("Tags", "NotificationARNs", "TimeoutInMinutes")


def _request(properties: dict[str, Any]) -> dict[str, Any]:
    parameters = properties.get("Parameters") or {}
    if not isinstance(parameters, dict):
        raise ResourceFailed(
            "Properties validation failed for resource with message: #/Parameters: expected type: "
            "JSONObject, found: JSONArray"
        )
    request: dict[str, Any] = {
        "TemplateURL": properties["TemplateURL"],
        "Capabilities": CAPABILITIES,
        "Parameters": [{"ParameterKey": key, "ParameterValue": _text(value)} for key, value in parameters.items()],
    }
    request.update({key: properties[key] for key in _PASSED_ON if key in properties})
    return request


def _text(value: Any) -> str:
    """A parameter's value as CloudFormation passes it on: a string (a list joined by commas, as for
    CommaDelimitedList)."""
    if isinstance(value, list):
        return ",".join(str(item) for item in value)
    if isinstance(value, bool):
        return str(value).lower()
    return str(value)


def _name_of(stack_id: str) -> str:
    """A stack's name from its id (arn:aws:cloudformation:<region>:<account>:stack/<name>/<uuid>)."""
    return stack_id.split(":stack/", 1)[-1].split("/", 1)[0]


def _outputs(cloudformation: Any, stack_id: str) -> tuple[str, dict[str, Any]]:
    stack = cloudformation.describe_stacks(StackName=stack_id)["Stacks"][0]
    outputs = {f"Outputs.{output['OutputKey']}": output["OutputValue"] for output in stack.get("Outputs", [])}
    return stack["StackStatus"], outputs


class NestedStack(ResourceType):
    type_name = "AWS::CloudFormation::Stack"

    def create(self, provisioning: Provisioning, properties: dict[str, Any]) -> Created:
        required(properties, "TemplateURL")
        cloudformation = provisioning.client("cloudformation")
        name = provisioning.name(128)
        try:
            with provisioning.nesting(name):  # the child is written and taken back with this stack's operation
                stack_id = cloudformation.create_stack(StackName=name, **_request(properties))["StackId"]
        except ClientError as error:  # the child's template or parameters refused
            raise ResourceFailed(error.response["Error"]["Message"]) from None
        if provisioning.nested is not None:  # its ParentId and RootId
            provisioning.nested(stack_id)
        status, outputs = _outputs(cloudformation, stack_id)
        if status != "CREATE_COMPLETE":
            cause = next(
                (
                    event.get("ResourceStatusReason") or ""
                    for event in cloudformation.describe_stack_events(StackName=stack_id)["StackEvents"]
                    if event["ResourceStatus"] == "ROLLBACK_IN_PROGRESS"
                ),
                status,
            )
            cloudformation.delete_stack(StackName=stack_id)
            raise ResourceFailed(
                f"Embedded stack {stack_id} was not successfully created: "
                f"{cause.removesuffix('Rollback requested by user.').strip()}"
            )
        return Created(stack_id, outputs)

    def update(
        self, provisioning: Provisioning, physical_id: str, old: dict[str, Any], new: dict[str, Any]
    ) -> dict[str, Any]:
        required(new, "TemplateURL")
        cloudformation = provisioning.client("cloudformation")
        try:
            with provisioning.nesting(_name_of(physical_id)):  # its cleanup waits for this stack's commit
                cloudformation.update_stack(StackName=physical_id, **_request(new))
        except ClientError as error:
            message = error.response["Error"]["Message"]
            if message != "No updates are to be performed.":
                raise ResourceFailed(message) from None
        status, outputs = _outputs(cloudformation, physical_id)
        if status not in ("UPDATE_COMPLETE", "UPDATE_COMPLETE_CLEANUP_IN_PROGRESS", "CREATE_COMPLETE"):
            raise ResourceFailed(f"Embedded stack {physical_id} was not successfully updated. Currently in {status}.")
        return outputs

    def delete(self, provisioning: Provisioning, physical_id: str, properties: dict[str, Any]) -> None:
        cloudformation = provisioning.client("cloudformation")
        with provisioning.nesting(_name_of(physical_id)):  # a rollback's, before this stack's commit: part of it
            cloudformation.delete_stack(StackName=physical_id)
        status, _ = _outputs(cloudformation, physical_id)
        if status != "DELETE_COMPLETE":
            raise ResourceFailed(f"Embedded stack {physical_id} was not successfully deleted. Currently in {status}.")


TYPES = [NestedStack()]

"""AWS::CloudFormation::CustomResource and Custom::<name>: a resource whose provider (the ServiceToken's Lambda
function or SNS topic) is sent Create, Update and Delete requests and answers each through its ResponseURL
(custom_resource_calls.py). Its physical id is the one the provider returns (a new one on Update replaces the
resource: the old one gets a Delete in the cleanup); Fn::GetAtt reads the response's Data."""

from __future__ import annotations

import uuid
from typing import Any

from eddy.emulator.cloudformation.errors import ResourceFailed
from eddy.emulator.cloudformation.resource_types.base import Created, Provisioning, ResourceType, required
from eddy.emulator.cloudformation.resource_types.custom_resource_calls import DEFAULT_SERVICE_TIMEOUT

CUSTOM_RESOURCE = "AWS::CloudFormation::CustomResource"


def is_custom(type_name: str) -> bool:
    return type_name == CUSTOM_RESOURCE or type_name.startswith("Custom::")


def as_sent(value: Any) -> Any:
    """A property as the provider receives it: CloudFormation sends numbers and booleans as strings, "true" and
    "false" (github aws-cloudformation/cloudformation-coverage-roadmap#1037, aws/aws-cdk#15249)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, dict):
        return {key: as_sent(item) for key, item in value.items()}
    if isinstance(value, list):
        return [as_sent(item) for item in value]
    return value


class CustomResource(ResourceType):
    type_name = CUSTOM_RESOURCE

    def __init__(self, type_name: str = CUSTOM_RESOURCE) -> None:
        self.type_name = type_name

    def create(self, provisioning: Provisioning, properties: dict[str, Any]) -> Created:
        return self._send(provisioning, "Create", properties)

    def update(
        self, provisioning: Provisioning, physical_id: str, old: dict[str, Any], new: dict[str, Any]
    ) -> dict[str, Any]:
        return self.updated(provisioning, physical_id, old, new).attributes

    def updated(
        self, provisioning: Provisioning, physical_id: str, old: dict[str, Any], new: dict[str, Any]
    ) -> Created:
        if old.get("ServiceToken") != new.get("ServiceToken"):
            raise ResourceFailed("Modifying service token is not allowed.")
        return self._send(provisioning, "Update", new, physical_id, old)

    def delete(self, provisioning: Provisioning, physical_id: str, properties: dict[str, Any]) -> None:
        self._send(provisioning, "Delete", properties, physical_id)

    def _send(
        self,
        provisioning: Provisioning,
        request_type: str,
        properties: dict[str, Any],
        physical_id: str | None = None,
        old: dict[str, Any] | None = None,
    ) -> Created:
        required(properties, "ServiceToken")
        calls = provisioning.custom_resources
        if calls is None:
            raise ResourceFailed(
                "Custom resources are not served here: this CloudFormation has no way to reach their providers"
            )
        request: dict[str, Any] = {
            "RequestType": request_type,
            "ServiceToken": properties["ServiceToken"],
            "StackId": provisioning.stack_id,
            "RequestId": str(uuid.uuid4()),
            "LogicalResourceId": provisioning.logical_id,
            "ResourceType": self.type_name,
            "ResourceProperties": as_sent(properties),
        }
        if physical_id is not None:
            request["PhysicalResourceId"] = physical_id
        if old is not None:
            request["OldResourceProperties"] = as_sent(old)
        timeout = _service_timeout(properties)
        answer = calls.call(
            provisioning.region, provisioning.account, str(properties["ServiceToken"]), request, timeout
        )
        if not answer.physical_id:
            # what AWS answers for a response without one, whatever its Status (github aws/aws-lambda-go#107)
            raise ResourceFailed("Invalid PhysicalResourceId")
        if answer.status == "FAILED":
            # the rollback sends a Delete for the physical id a failed Create names
            raise ResourceFailed(
                f"Received response status [FAILED] from custom resource. Message returned: "
                f"{answer.reason} (RequestId: {request['RequestId']})",
                answer.physical_id if request_type == "Create" else None,
            )
        return Created(answer.physical_id, dict(answer.data))


def _service_timeout(properties: dict[str, Any]) -> float:
    value = properties.get("ServiceTimeout", DEFAULT_SERVICE_TIMEOUT)
    try:
        seconds = int(value)
    except (TypeError, ValueError):
        seconds = 0
    if not 1 <= seconds <= 3600:
        raise ResourceFailed(
            f"Properties validation failed for resource with message: ServiceTimeout {value} must "
            "be an integer from 1 to 3600"
        )
    return float(seconds)

"""AWS::Logs::LogGroup through CloudWatch Logs and AWS::SSM::Parameter through SSM."""

from __future__ import annotations

from typing import Any

from botocore.exceptions import ClientError

from eddy.emulator.cloudformation.resource_types.base import Created, Provisioning, ResourceType, not_found, required


class LogGroup(ResourceType):
    type_name = "AWS::Logs::LogGroup"
    replacing = frozenset({"LogGroupName", "LogGroupClass"})
    name_property = "LogGroupName"

    def create(self, provisioning: Provisioning, properties: dict[str, Any]) -> Created:
        name = properties.get("LogGroupName") or provisioning.name(512)
        logs = provisioning.client("logs")
        request: dict[str, Any] = {"logGroupName": name}
        if properties.get("Tags"):
            request["tags"] = {tag["Key"]: str(tag["Value"]) for tag in properties["Tags"]}
        logs.create_log_group(**request)
        if "RetentionInDays" in properties:
            logs.put_retention_policy(logGroupName=name, retentionInDays=int(properties["RetentionInDays"]))
        return Created(name, {"Arn": provisioning.arn("logs", f"log-group:{name}:*")})

    def update(
        self, provisioning: Provisioning, physical_id: str, old: dict[str, Any], new: dict[str, Any]
    ) -> dict[str, Any]:
        logs = provisioning.client("logs")
        if old.get("RetentionInDays") != new.get("RetentionInDays"):
            if "RetentionInDays" in new:
                logs.put_retention_policy(logGroupName=physical_id, retentionInDays=int(new["RetentionInDays"]))
            else:
                logs.delete_retention_policy(logGroupName=physical_id)
        return {"Arn": provisioning.arn("logs", f"log-group:{physical_id}:*")}

    def delete(self, provisioning: Provisioning, physical_id: str, properties: dict[str, Any]) -> None:
        try:
            provisioning.client("logs").delete_log_group(logGroupName=physical_id)
        except ClientError as error:
            if not not_found(error):
                raise


class Parameter(ResourceType):
    type_name = "AWS::SSM::Parameter"
    replacing = frozenset({"Name"})
    name_property = "Name"
    _PASSED = ("Description", "AllowedPattern", "Tier", "Policies", "DataType")

    def create(self, provisioning: Provisioning, properties: dict[str, Any]) -> Created:
        required(properties, "Type", "Value")
        name = properties.get("Name") or f"CFN-{provisioning.name(1011)[len(provisioning.stack_name) + 1 :]}"
        request = {key: properties[key] for key in self._PASSED if key in properties}
        if properties.get("Tags"):
            request["Tags"] = [{"Key": key, "Value": str(value)} for key, value in properties["Tags"].items()]
        provisioning.client("ssm").put_parameter(
            Name=name, Type=properties["Type"], Value=str(properties["Value"]), **request
        )
        return Created(name, {"Type": properties["Type"], "Value": str(properties["Value"])})

    def update(
        self, provisioning: Provisioning, physical_id: str, old: dict[str, Any], new: dict[str, Any]
    ) -> dict[str, Any]:
        request = {key: new[key] for key in self._PASSED if key in new}
        provisioning.client("ssm").put_parameter(
            Name=physical_id, Type=new["Type"], Value=str(new["Value"]), Overwrite=True, **request
        )
        return {"Type": new["Type"], "Value": str(new["Value"])}

    def delete(self, provisioning: Provisioning, physical_id: str, properties: dict[str, Any]) -> None:
        try:
            provisioning.client("ssm").delete_parameter(Name=physical_id)
        except ClientError as error:
            if not not_found(error):
                raise


TYPES = [LogGroup(), Parameter()]

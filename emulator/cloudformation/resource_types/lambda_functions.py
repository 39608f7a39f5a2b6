"""AWS::Lambda::Function (inline ZipFile or S3 code), AWS::Lambda::EventSourceMapping and AWS::Lambda::Permission
through Eddy's Lambda API: a function a stack makes is one Eddy runs, a mapping one Eddy's pollers serve."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path
from typing import Any

from eddy.emulator.cloudformation.errors import ResourceFailed
from eddy.emulator.cloudformation.resource_types.base import (
    Created,
    Provisioning,
    ResourceType,
    delete_if_there,
    required,
)

_CONFIGURATION = (
    "Role",
    "Handler",
    "Description",
    "Timeout",
    "MemorySize",
    "Environment",
    "Runtime",
    "DeadLetterConfig",
    "TracingConfig",
    "Layers",
    "EphemeralStorage",
    "LoggingConfig",
    "SnapStart",
    "KMSKeyArn",
    "VpcConfig",
    "FileSystemConfigs",
    "ImageConfig",
)


#: the module CloudFormation gives inline code for answering custom resources (AWS's cfn-response module)
_INLINE_MODULES = Path(__file__).parent / "inline_modules"


def _zip_file(properties: dict[str, Any]) -> bytes:
    """CloudFormation's inline code: the source as index.py (index.js for Node.js) in a zip, with the cfn-response
    module beside it as AWS provides it to inline code (cfnresponse.py; node_modules/cfn-response/index.js)."""
    node = str(properties.get("Runtime", "")).startswith("nodejs")
    files = (
        {
            "index.js": properties["Code"]["ZipFile"],
            "node_modules/cfn-response/index.js": (_INLINE_MODULES / "cfn-response.js").read_text(),
        }
        if node
        else {
            "index.py": properties["Code"]["ZipFile"],
            "cfnresponse.py": (_INLINE_MODULES / "cfnresponse.py").read_text(),
        }
    )
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, text in files.items():
            info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            info.external_attr = 0o644 << 16
            archive.writestr(info, text)
    return buffer.getvalue()


def _code(properties: dict[str, Any]) -> dict[str, Any]:
    code = properties.get("Code") or {}
    if "ZipFile" in code:
        return {"ZipFile": _zip_file(properties)}
    if "S3Bucket" in code and "S3Key" in code:
        return {key: code[key] for key in ("S3Bucket", "S3Key", "S3ObjectVersion") if key in code}
    if "ImageUri" in code:
        raise ResourceFailed("Eddy does not run container image functions (Code.ImageUri): use a zip package")
    raise ResourceFailed(
        "Properties validation failed for resource with message: #/Code: required key "
        "[ZipFile or S3Bucket and S3Key] not found"
    )


class Function(ResourceType):
    type_name = "AWS::Lambda::Function"
    replacing = frozenset({"FunctionName", "PackageType"})
    name_property = "FunctionName"

    def create(self, provisioning: Provisioning, properties: dict[str, Any]) -> Created:
        required(properties, "Code", "Role")
        name = properties.get("FunctionName") or provisioning.name(64)
        request = {key: properties[key] for key in _CONFIGURATION + ("Architectures",) if key in properties}
        if properties.get("Tags"):
            request["Tags"] = {tag["Key"]: str(tag["Value"]) for tag in properties["Tags"]}
        awslambda = provisioning.client("lambda")
        awslambda.create_function(FunctionName=name, Code=_code(properties), **request)
        _active(awslambda, name)
        try:
            if "ReservedConcurrentExecutions" in properties:
                awslambda.put_function_concurrency(
                    FunctionName=name, ReservedConcurrentExecutions=int(properties["ReservedConcurrentExecutions"])
                )
        except Exception:
            awslambda.delete_function(FunctionName=name)
            raise
        return Created(name, self._attributes(awslambda, name))

    @staticmethod
    def _attributes(awslambda: Any, name: str) -> dict[str, Any]:
        configuration = awslambda.get_function_configuration(FunctionName=name)
        return {
            "Arn": configuration["FunctionArn"],
            "SnapStartResponse": {"ApplyOn": "None", "OptimizationStatus": "Off"},
        }

    def update(
        self, provisioning: Provisioning, physical_id: str, old: dict[str, Any], new: dict[str, Any]
    ) -> dict[str, Any]:
        required(new, "Code", "Role")
        awslambda = provisioning.client("lambda")
        if old.get("Code") != new.get("Code") or (
            ("ZipFile" in (new.get("Code") or {})) and old.get("Runtime") != new.get("Runtime")
        ):
            code = _code(new)
            awslambda.update_function_code(FunctionName=physical_id, **code)
            _updated(awslambda, physical_id)
        changed = {key: new[key] for key in _CONFIGURATION if key in new and old.get(key) != new.get(key)}
        for key in _CONFIGURATION:
            if key in old and key not in new and key in ("Description", "Environment", "Layers"):
                changed[key] = {"Description": "", "Environment": {"Variables": {}}, "Layers": []}[key]
        if changed:
            awslambda.update_function_configuration(FunctionName=physical_id, **changed)
            _updated(awslambda, physical_id)
        if old.get("ReservedConcurrentExecutions") != new.get("ReservedConcurrentExecutions"):
            if "ReservedConcurrentExecutions" in new:
                awslambda.put_function_concurrency(
                    FunctionName=physical_id, ReservedConcurrentExecutions=int(new["ReservedConcurrentExecutions"])
                )
            else:
                awslambda.delete_function_concurrency(FunctionName=physical_id)
        if old.get("Tags") != new.get("Tags"):
            arn = self._attributes(awslambda, physical_id)["Arn"]
            gone = [tag["Key"] for tag in old.get("Tags") or []]
            if gone:
                awslambda.untag_resource(Resource=arn, TagKeys=gone)
            if new.get("Tags"):
                awslambda.tag_resource(Resource=arn, Tags={tag["Key"]: str(tag["Value"]) for tag in new["Tags"]})
        return self._attributes(awslambda, physical_id)

    def delete(self, provisioning: Provisioning, physical_id: str, properties: dict[str, Any]) -> None:
        delete_if_there(provisioning.client("lambda"), "delete_function", FunctionName=physical_id)


#: reads of a created or updated function's state before its creation or update is taken as stuck (Eddy's complete
#: at the first)
_STATE_READS = 5


def _updated(awslambda: Any, name: str) -> None:
    """Wait for a function's update to complete, as CloudFormation does before it goes on (a second update of a
    function whose update is in progress is refused): read its LastUpdateStatus until it is no longer InProgress.
    Eddy's Lambda completes an update when its state is read (functions/function.py, Function.update_read), so the
    second read says Successful; no sleep, no clock."""
    _settled(awslambda, name, "LastUpdateStatus", "InProgress", "update")


def _active(awslambda: Any, name: str) -> None:
    """Wait for a created function to be Active, as CloudFormation does before the resources that use it (it is
    refused Invoke and updates while Pending): Eddy's Lambda completes a creation when its state is read
    (Function.creation_completed), so the first read says Active."""
    _settled(awslambda, name, "State", "Pending", "creation")


def _settled(awslambda: Any, name: str, member: str, transient: str, change: str) -> None:
    for _ in range(_STATE_READS):
        if awslambda.get_function_configuration(FunctionName=name).get(member) != transient:
            return
    raise ResourceFailed(f"Resource handler returned message: \"The {change} of function {name} did not complete\"")


_MAPPING_UPDATABLE = (
    "FunctionName",
    "Enabled",
    "BatchSize",
    "FilterCriteria",
    "MaximumBatchingWindowInSeconds",
    "DestinationConfig",
    "MaximumRecordAgeInSeconds",
    "BisectBatchOnFunctionError",
    "MaximumRetryAttempts",
    "ParallelizationFactor",
    "TumblingWindowInSeconds",
    "FunctionResponseTypes",
    "ScalingConfig",
)


class EventSourceMapping(ResourceType):
    type_name = "AWS::Lambda::EventSourceMapping"
    replacing = frozenset(
        {
            "EventSourceArn",
            "StartingPosition",
            "StartingPositionTimestamp",
            "Queues",
            "SelfManagedEventSource",
            "Topics",
            "AmazonManagedKafkaEventSourceConfig",
            "SelfManagedKafkaEventSourceConfig",
        }
    )

    def create(self, provisioning: Provisioning, properties: dict[str, Any]) -> Created:
        required(properties, "FunctionName")
        request = {key: value for key, value in properties.items() if key != "Tags"}
        if "StartingPositionTimestamp" in request:
            request["StartingPositionTimestamp"] = float(request["StartingPositionTimestamp"])
        if properties.get("Tags"):
            request["Tags"] = {tag["Key"]: str(tag["Value"]) for tag in properties["Tags"]}
        mapping = provisioning.client("lambda").create_event_source_mapping(**request)
        return Created(mapping["UUID"], self._attributes(provisioning, mapping["UUID"]))

    @staticmethod
    def _attributes(provisioning: Provisioning, uuid_: str) -> dict[str, Any]:
        mapping = provisioning.client("lambda").get_event_source_mapping(UUID=uuid_)
        return {
            "Id": uuid_,
            "EventSourceMappingArn": mapping.get("EventSourceMappingArn")
            or provisioning.arn("lambda", f"event-source-mapping:{uuid_}"),
        }

    def update(
        self, provisioning: Provisioning, physical_id: str, old: dict[str, Any], new: dict[str, Any]
    ) -> dict[str, Any]:
        changed = {key: new[key] for key in _MAPPING_UPDATABLE if key in new and old.get(key) != new.get(key)}
        defaults = {
            "Enabled": True,
            "FilterCriteria": {"Filters": []},
            "FunctionResponseTypes": [],
            "DestinationConfig": {"OnFailure": {}},
        }
        for key, default in defaults.items():
            if key in old and key not in new:
                changed[key] = default
        if changed:
            provisioning.client("lambda").update_event_source_mapping(UUID=physical_id, **changed)
        return self._attributes(provisioning, physical_id)

    def delete(self, provisioning: Provisioning, physical_id: str, properties: dict[str, Any]) -> None:
        delete_if_there(provisioning.client("lambda"), "delete_event_source_mapping", UUID=physical_id)


class Permission(ResourceType):
    type_name = "AWS::Lambda::Permission"
    replacing = frozenset(
        {
            "Action",
            "EventSourceToken",
            "FunctionName",
            "FunctionUrlAuthType",
            "InvokedViaFunctionUrl",
            "Principal",
            "PrincipalOrgID",
            "SourceAccount",
            "SourceArn",
        }
    )

    def create(self, provisioning: Provisioning, properties: dict[str, Any]) -> Created:
        required(properties, "Action", "FunctionName", "Principal")
        statement_id = provisioning.name(100)
        provisioning.client("lambda").add_permission(StatementId=statement_id, **properties)
        return Created(f"{properties['FunctionName']}|{statement_id}", {})

    def update(
        self, provisioning: Provisioning, physical_id: str, old: dict[str, Any], new: dict[str, Any]
    ) -> dict[str, Any]:
        return {}

    def delete(self, provisioning: Provisioning, physical_id: str, properties: dict[str, Any]) -> None:
        function, _, statement_id = physical_id.rpartition("|")
        delete_if_there(
            provisioning.client("lambda"), "remove_permission", FunctionName=function, StatementId=statement_id
        )


TYPES = [Function(), EventSourceMapping(), Permission()]

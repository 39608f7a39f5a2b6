"""AWS::Kinesis::Stream, AWS::Events::EventBus, AWS::Events::Rule (its targets delivered by Eddy's rules),
AWS::Pipes::Pipe (a pipe Eddy runs), AWS::Lambda::EventInvokeConfig and AWS::StepFunctions::StateMachine (a rule's
target, moto's Step Functions), through their APIs."""

from __future__ import annotations

import json
from functools import cache
from typing import Any

import botocore.session
from botocore.exceptions import ClientError

from eddy.emulator.cloudformation.errors import ResourceFailed
from eddy.emulator.cloudformation.resource_types.base import (
    Created,
    Provisioning,
    ResourceType,
    json_text,
    lower_first,
    not_found,
    required,
    tags_list,
)


class Stream(ResourceType):
    type_name = "AWS::Kinesis::Stream"
    replacing = frozenset({"Name"})
    name_property = "Name"

    def create(self, provisioning: Provisioning, properties: dict[str, Any]) -> Created:
        name = properties.get("Name") or provisioning.name(128)
        kinesis = provisioning.client("kinesis")
        mode = (properties.get("StreamModeDetails") or {}).get("StreamMode", "PROVISIONED")
        request: dict[str, Any] = {"StreamName": name, "StreamModeDetails": {"StreamMode": mode}}
        if mode == "PROVISIONED":
            request["ShardCount"] = properties.get("ShardCount", 1)
        kinesis.create_stream(**request)
        kinesis.get_waiter("stream_exists").wait(StreamName=name, WaiterConfig={"Delay": 1, "MaxAttempts": 120})
        self._settings(kinesis, name, {}, properties)
        return Created(name, self._attributes(kinesis, name))

    @staticmethod
    def _attributes(kinesis: Any, name: str) -> dict[str, Any]:
        return {"Arn": kinesis.describe_stream_summary(StreamName=name)["StreamDescriptionSummary"]["StreamARN"]}

    @staticmethod
    def _settings(kinesis: Any, name: str, old: dict[str, Any], new: dict[str, Any]) -> None:
        before, after = int(old.get("RetentionPeriodHours", 24)), int(new.get("RetentionPeriodHours", 24))
        if after > before:
            kinesis.increase_stream_retention_period(StreamName=name, RetentionPeriodHours=after)
        elif after < before:
            kinesis.decrease_stream_retention_period(StreamName=name, RetentionPeriodHours=after)
        if new.get("Tags") and old.get("Tags") != new.get("Tags"):
            kinesis.add_tags_to_stream(StreamName=name, Tags={tag["Key"]: str(tag["Value"]) for tag in new["Tags"]})

    def update(
        self, provisioning: Provisioning, physical_id: str, old: dict[str, Any], new: dict[str, Any]
    ) -> dict[str, Any]:
        kinesis = provisioning.client("kinesis")
        mode = (new.get("StreamModeDetails") or {}).get("StreamMode", "PROVISIONED")
        if mode != (old.get("StreamModeDetails") or {}).get("StreamMode", "PROVISIONED"):  # "No interruption"
            kinesis.update_stream_mode(
                StreamARN=self._attributes(kinesis, physical_id)["Arn"], StreamModeDetails={"StreamMode": mode}
            )
        if mode == "PROVISIONED" and "ShardCount" in new and old.get("ShardCount") != new["ShardCount"]:
            kinesis.update_shard_count(
                StreamName=physical_id, TargetShardCount=new["ShardCount"], ScalingType="UNIFORM_SCALING"
            )
        self._settings(kinesis, physical_id, old, new)
        return self._attributes(kinesis, physical_id)

    def delete(self, provisioning: Provisioning, physical_id: str, properties: dict[str, Any]) -> None:
        try:
            provisioning.client("kinesis").delete_stream(StreamName=physical_id, EnforceConsumerDeletion=True)
        except ClientError as error:
            if not not_found(error):
                raise


class EventBus(ResourceType):
    type_name = "AWS::Events::EventBus"
    replacing = frozenset({"Name", "EventSourceName"})
    name_property = "Name"

    def create(self, provisioning: Provisioning, properties: dict[str, Any]) -> Created:
        required(properties, "Name")
        request: dict[str, Any] = {"Name": properties["Name"]}
        if properties.get("Tags"):
            request["Tags"] = tags_list(properties)
        arn = provisioning.client("events").create_event_bus(**request)["EventBusArn"]
        return Created(properties["Name"], {"Arn": arn, "Name": properties["Name"]})

    def update(
        self, provisioning: Provisioning, physical_id: str, old: dict[str, Any], new: dict[str, Any]
    ) -> dict[str, Any]:
        return {"Arn": provisioning.arn("events", f"event-bus/{physical_id}"), "Name": physical_id}

    def delete(self, provisioning: Provisioning, physical_id: str, properties: dict[str, Any]) -> None:
        try:
            provisioning.client("events").delete_event_bus(Name=physical_id)
        except ClientError as error:
            if not not_found(error):
                raise


class Rule(ResourceType):
    type_name = "AWS::Events::Rule"
    replacing = frozenset({"Name", "EventBusName"})
    name_property = "Name"
    _RULE = ("ScheduleExpression", "Description", "RoleArn", "State", "EventBusName")

    def create(self, provisioning: Provisioning, properties: dict[str, Any]) -> Created:
        name = properties.get("Name") or provisioning.name(64)
        arn = self._put(provisioning, name, {}, properties)
        bus = properties.get("EventBusName", "default")
        physical_id = name if bus == "default" else f"{bus}|{name}"
        return Created(physical_id, {"Arn": arn})

    def _put(self, provisioning: Provisioning, name: str, old: dict[str, Any], new: dict[str, Any]) -> str:
        events = provisioning.client("events")
        request = {key: new[key] for key in self._RULE if key in new}
        request.setdefault("State", "ENABLED")
        if "EventPattern" in new:
            request["EventPattern"] = json_text(new["EventPattern"])
        arn = events.put_rule(Name=name, **request)["RuleArn"]
        bus = {"EventBusName": new["EventBusName"]} if "EventBusName" in new else {}
        kept = {target["Id"] for target in new.get("Targets") or []}
        gone = [target["Id"] for target in old.get("Targets") or [] if target["Id"] not in kept]
        if gone:
            events.remove_targets(Rule=name, Ids=gone, **bus)
        if new.get("Targets"):
            events.put_targets(Rule=name, Targets=new["Targets"], **bus)
        return arn

    def update(
        self, provisioning: Provisioning, physical_id: str, old: dict[str, Any], new: dict[str, Any]
    ) -> dict[str, Any]:
        return {"Arn": self._put(provisioning, physical_id.rpartition("|")[2], old, new)}

    def delete(self, provisioning: Provisioning, physical_id: str, properties: dict[str, Any]) -> None:
        events, name = provisioning.client("events"), physical_id.rpartition("|")[2]
        bus = {"EventBusName": properties["EventBusName"]} if "EventBusName" in properties else {}
        try:
            targets = [target["Id"] for target in events.list_targets_by_rule(Rule=name, **bus)["Targets"]]
            if targets:
                events.remove_targets(Rule=name, Ids=targets, **bus)
            events.delete_rule(Name=name, **bus)
        except ClientError as error:
            if not not_found(error):
                raise


@cache
def _updatable_source_parameters() -> dict[str, frozenset[str]]:
    """Each kind of a pipe's SourceParameters, and the members UpdatePipe takes of it (botocore's pipes model:
    UpdatePipeSourceDynamoDBStreamParameters has no StartingPosition, ...)."""
    model = botocore.session.get_session().get_service_model("pipes")
    created, updated = model.shape_for("PipeSourceParameters"), model.shape_for("UpdatePipeSourceParameters")
    return {
        kind: frozenset(updated.members[kind].members) if kind in updated.members else frozenset()
        for kind in created.members
    }


def _create_only_source(properties: dict[str, Any]) -> dict[str, Any]:
    """The SourceParameters a pipe keeps from its creation: what UpdatePipe cannot change, so CloudFormation replaces
    the pipe when they change (AWS::Pipes::Pipe reference: the source parameters' StartingPosition,
    StartingPositionTimestamp, TopicName, QueueName, ... "Update requires: Replacement")."""
    updatable = _updatable_source_parameters()
    return {
        kind: {key: value for key, value in parameters.items() if key not in updatable.get(kind, frozenset())}
        for kind, parameters in (properties.get("SourceParameters") or {}).items()
        if isinstance(parameters, dict)
    }


def _updatable_source(parameters: dict[str, Any]) -> dict[str, Any]:
    updatable = _updatable_source_parameters()
    return {
        kind: {key: value for key, value in given.items() if key in updatable.get(kind, frozenset())}
        if isinstance(given, dict) else given
        for kind, given in parameters.items()
    }  # fmt: skip


class Pipe(ResourceType):
    type_name = "AWS::Pipes::Pipe"
    replacing = frozenset({"Name", "Source"})
    name_property = "Name"
    _UPDATABLE = (
        "RoleArn",
        "Target",
        "TargetParameters",
        "Enrichment",
        "EnrichmentParameters",
        "DesiredState",
        "Description",
        "SourceParameters",
        "LogConfiguration",
        "KmsKeyIdentifier",
    )

    def create(self, provisioning: Provisioning, properties: dict[str, Any]) -> Created:
        required(properties, "RoleArn", "Source", "Target")
        name = properties.get("Name") or provisioning.name(64)
        request = {key: value for key, value in properties.items() if key != "Name"}
        pipes = provisioning.client("pipes")
        pipes.create_pipe(Name=name, **request)
        return Created(name, self._attributes(pipes, name))

    @staticmethod
    def _attributes(pipes: Any, name: str) -> dict[str, Any]:
        pipe = pipes.describe_pipe(Name=name)
        return {
            "Arn": pipe["Arn"],
            "CurrentState": pipe["CurrentState"],
            "StateReason": pipe.get("StateReason", ""),
            "CreationTime": pipe["CreationTime"].isoformat(),
            "LastModifiedTime": pipe["LastModifiedTime"].isoformat(),
        }

    def needs_replacement(self, old: dict[str, Any], new: dict[str, Any]) -> bool:
        return super().needs_replacement(old, new) or _create_only_source(old) != _create_only_source(new)

    def update(
        self, provisioning: Provisioning, physical_id: str, old: dict[str, Any], new: dict[str, Any]
    ) -> dict[str, Any]:
        pipes = provisioning.client("pipes")
        changes = {key: new[key] for key in self._UPDATABLE if key in new}
        if "SourceParameters" in changes:
            changes["SourceParameters"] = _updatable_source(changes["SourceParameters"])
        pipes.update_pipe(Name=physical_id, **changes)
        return self._attributes(pipes, physical_id)

    def delete(self, provisioning: Provisioning, physical_id: str, properties: dict[str, Any]) -> None:
        try:
            provisioning.client("pipes").delete_pipe(Name=physical_id)
        except ClientError as error:
            if not not_found(error):
                raise


class EventInvokeConfig(ResourceType):
    type_name = "AWS::Lambda::EventInvokeConfig"
    replacing = frozenset({"FunctionName", "Qualifier"})
    _SETTINGS = ("MaximumEventAgeInSeconds", "MaximumRetryAttempts", "DestinationConfig")

    def create(self, provisioning: Provisioning, properties: dict[str, Any]) -> Created:
        required(properties, "FunctionName", "Qualifier")
        self._put(provisioning, properties)
        return Created(provisioning.name(128), {})

    @classmethod
    def _put(cls, provisioning: Provisioning, properties: dict[str, Any]) -> None:
        provisioning.client("lambda").put_function_event_invoke_config(
            FunctionName=properties["FunctionName"],
            Qualifier=properties["Qualifier"],
            **{key: properties[key] for key in cls._SETTINGS if key in properties},
        )

    def update(
        self, provisioning: Provisioning, physical_id: str, old: dict[str, Any], new: dict[str, Any]
    ) -> dict[str, Any]:
        self._put(provisioning, new)
        return {}

    def delete(self, provisioning: Provisioning, physical_id: str, properties: dict[str, Any]) -> None:
        try:
            provisioning.client("lambda").delete_function_event_invoke_config(
                FunctionName=properties["FunctionName"], Qualifier=properties["Qualifier"]
            )
        except ClientError as error:
            if not not_found(error):
                raise


class StateMachine(ResourceType):
    """AWS::StepFunctions::StateMachine through Step Functions' API (moto's: it keeps the machine and its executions,
    and runs no state). Its definition from DefinitionString, Definition (an object) or DefinitionS3Location, each
    `${name}` of DefinitionSubstitutions replaced; Ref is the machine's ARN (the CloudFormation User Guide's return
    values: Ref the ARN, Fn::GetAtt Arn and Name)."""

    type_name = "AWS::StepFunctions::StateMachine"
    replacing = frozenset({"StateMachineName", "StateMachineType"})
    name_property = "StateMachineName"

    def create(self, provisioning: Provisioning, properties: dict[str, Any]) -> Created:
        required(properties, "RoleArn")
        name = properties.get("StateMachineName") or provisioning.name(80)
        request = {
            "name": name,
            "roleArn": properties["RoleArn"],
            "definition": self._definition(provisioning, properties),
        }
        if "StateMachineType" in properties:
            request["type"] = properties["StateMachineType"]
        if properties.get("Tags"):
            request["tags"] = [{"key": tag["Key"], "value": str(tag["Value"])} for tag in properties["Tags"]]
        machines = provisioning.client("stepfunctions")
        arn = machines.create_state_machine(**request, **self._configurations(properties))["stateMachineArn"]
        return Created(arn, {"Arn": arn, "Name": name})

    def update(
        self, provisioning: Provisioning, physical_id: str, old: dict[str, Any], new: dict[str, Any]
    ) -> dict[str, Any]:
        required(new, "RoleArn")
        provisioning.client("stepfunctions").update_state_machine(
            stateMachineArn=physical_id,
            roleArn=new["RoleArn"],
            definition=self._definition(provisioning, new),
            **self._configurations(new),
        )
        return {"Arn": physical_id, "Name": physical_id.rsplit(":", 1)[-1]}

    def delete(self, provisioning: Provisioning, physical_id: str, properties: dict[str, Any]) -> None:
        try:
            provisioning.client("stepfunctions").delete_state_machine(stateMachineArn=physical_id)
        except ClientError as error:
            if not not_found(error):
                raise

    @staticmethod
    def _definition(provisioning: Provisioning, properties: dict[str, Any]) -> str:
        if "DefinitionString" in properties:
            definition = str(properties["DefinitionString"])
        elif "Definition" in properties:
            definition = json.dumps(properties["Definition"])
        elif "DefinitionS3Location" in properties:
            location = properties["DefinitionS3Location"]
            version = {"VersionId": location["Version"]} if location.get("Version") else {}
            body = provisioning.client("s3").get_object(Bucket=location["Bucket"], Key=location["Key"], **version)
            definition = body["Body"].read().decode()
        else:
            raise ResourceFailed("Properties validation failed for resource with message: #: a definition is required")
        for key, value in (properties.get("DefinitionSubstitutions") or {}).items():
            definition = definition.replace("${" + key + "}", str(value))
        return definition

    @staticmethod
    def _configurations(properties: dict[str, Any]) -> dict[str, Any]:
        """LoggingConfiguration and TracingConfiguration in the API's names (each member's first letter lowercase)."""
        names = (("LoggingConfiguration", "loggingConfiguration"), ("TracingConfiguration", "tracingConfiguration"))
        return {api: lower_first(properties[name]) for name, api in names if name in properties}


TYPES = [Stream(), EventBus(), Rule(), Pipe(), EventInvokeConfig(), StateMachine()]

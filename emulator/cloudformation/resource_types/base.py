"""What a resource type is to the engine: create (a physical id and the attributes Fn::GetAtt reads), update in
place, delete; which property changes need a new resource (AWS's "Update requires: Replacement"); and the
Provisioning it works with (boto3 clients of Eddy for the stack's region, names made as CloudFormation makes them)."""

from __future__ import annotations

import abc
import contextlib

import json
import random
import uuid
import string
from dataclasses import dataclass
from typing import Any, Callable, ContextManager

from botocore.exceptions import ClientError
from botocore.model import ListShape, MapShape, Shape, StructureShape

from eddy.emulator.cloudformation.errors import ResourceFailed


@dataclass
class Provisioning:
    """One resource's operation: clients for the stack's region, its stack's name, its logical id."""

    clients: Callable[[str], Any]
    region: str
    account: str
    stack_name: str
    logical_id: str
    stack_id: str = ""
    #: how custom resources reach their providers (custom_resource_calls.CustomResourceCalls)
    custom_resources: Any = None
    #: clients for another region (service, region): a global table's replicas
    regional_clients: Callable[[str, str], Any] | None = None
    #: told of a stack this resource made through the API that is nested in this one (its stack id)
    nested: Callable[[str], None] | None = None
    #: inside `nesting(name)`, an operation on the stack `name` is part of this resource's stack's operation
    #: (stack_commits.py: a nested stack is written and taken back with its parent)
    nesting: Callable[[str], ContextManager[None]] = lambda name: contextlib.nullcontext()

    def client(self, service: str) -> "TypedClient":
        """A client of Eddy for the stack's region whose calls take a template's values as CloudFormation does:
        "10" where a number is wanted, "true" where a boolean is."""
        return TypedClient(self.clients(service))

    def client_in(self, service: str, region: str) -> "TypedClient":
        """A client of Eddy for another region (a global table's replicas there)."""
        if self.regional_clients is None:
            raise ResourceFailed(f"Internal Failure: no clients for region {region}")
        return TypedClient(self.regional_clients(service, region))

    def name(self, max_length: int = 255, lowercase: bool = False, suffix: str = "") -> str:
        """A physical name as CloudFormation makes one: <stack>-<logical id>-<13 random characters>, the first
        two parts cut to fit `max_length`."""
        alphabet = string.ascii_lowercase + string.digits if lowercase else string.ascii_uppercase + string.digits
        tail = "".join(random.choice(alphabet) for _ in range(12 if lowercase else 13))
        room = max_length - len(tail) - len(suffix) - 2
        stack, logical = self.stack_name, self.logical_id
        if len(stack) + len(logical) > room:
            stack = stack[: max(room // 2, room - len(logical))]
            logical = logical[: room - len(stack)]
        made = f"{stack}-{logical}-{tail}{suffix}"
        return made.lower() if lowercase else made

    def arn(self, service: str, resource: str) -> str:
        return f"arn:aws:{service}:{self.region}:{self.account}:{resource}"


class TypedClient:
    """A boto3 client whose operations' arguments are first cast to the types of botocore's input shape."""

    def __init__(self, client: Any) -> None:
        self._client = client
        self.exceptions = client.exceptions

    def __getattr__(self, name: str) -> Any:
        method = getattr(self._client, name)
        operation_name = self._client.meta.method_to_api_mapping.get(name)
        if operation_name is None:
            return method
        shape = self._client.meta.service_model.operation_model(operation_name).input_shape

        def call(**params: Any) -> Any:
            return method(**(_typed(shape, params) if shape is not None else params))

        return call


def _typed(shape: Shape, value: Any) -> Any:
    if isinstance(shape, StructureShape) and isinstance(value, dict):
        return {key: _typed(shape.members[key], item) if key in shape.members else item for key, item in value.items()}
    if isinstance(shape, ListShape) and isinstance(value, list):
        return [_typed(shape.member, item) for item in value]
    if isinstance(shape, MapShape) and isinstance(value, dict):
        return {key: _typed(shape.value, item) for key, item in value.items()}
    if isinstance(value, str):
        try:
            if shape.type_name in ("integer", "long"):
                return int(value)
            if shape.type_name in ("double", "float"):
                return float(value)
        except ValueError:
            return value  # the service's validation refuses it, in its words
        if shape.type_name == "boolean" and value.lower() in ("true", "false"):
            return value.lower() == "true"
    if shape.type_name == "string" and isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    return value


@dataclass
class Created:
    physical_id: str
    attributes: dict[str, Any]


class ResourceType(abc.ABC):
    type_name = ""
    #: properties whose change replaces the resource (AWS's resource reference: "Update requires: Replacement")
    replacing: frozenset[str] = frozenset()
    #: the property that names the resource (a custom name cannot be kept by a replacement)
    name_property: str | None = None

    @abc.abstractmethod
    def create(self, provisioning: Provisioning, properties: dict[str, Any]) -> Created:
        raise NotImplementedError

    @abc.abstractmethod
    def update(
        self, provisioning: Provisioning, physical_id: str, old: dict[str, Any], new: dict[str, Any]
    ) -> dict[str, Any]:
        """The resource changed in place; its attributes after."""
        raise NotImplementedError

    @abc.abstractmethod
    def delete(self, provisioning: Provisioning, physical_id: str, properties: dict[str, Any]) -> None:
        raise NotImplementedError

    def updated(
        self, provisioning: Provisioning, physical_id: str, old: dict[str, Any], new: dict[str, Any]
    ) -> Created:
        """The resource updated: in place (its physical id kept), or, where the provider decides (a custom resource),
        replaced by one with a new physical id, which the cleanup then deletes."""
        return Created(physical_id, self.update(provisioning, physical_id, old, new))

    def needs_replacement(self, old: dict[str, Any], new: dict[str, Any]) -> bool:
        return any(old.get(name) != new.get(name) for name in self.replacing)


def failure(error: Exception) -> ResourceFailed:
    """A service's refusal as CloudFormation words a resource handler's failure."""
    if isinstance(error, ResourceFailed):
        return error
    if isinstance(error, ClientError):
        code = error.response.get("Error", {}).get("Code", "")
        message = error.response.get("Error", {}).get("Message", "") or code
        handler_code = (
            "NotFound"
            if "NotFound" in code or "NoSuch" in code
            else "AlreadyExists"
            if "AlreadyExists" in code or "ResourceInUse" in code or "ResourceConflict" in code
            else "InvalidRequest"
        )
        request_id = error.response.get("ResponseMetadata", {}).get("RequestId", "")
        return ResourceFailed(
            f'Resource handler returned message: "{message}" (RequestToken: {request_id}, '
            f"HandlerErrorCode: {handler_code})"
        )
    return ResourceFailed(f"Internal Failure: {type(error).__name__}: {error}")


def already_exists(type_name: str, identifier: str) -> ResourceFailed:
    """A named resource that exists outside the stack: CloudFormation fails it rather than take it over (and delete
    it in a rollback), in its resource handlers' words."""
    return ResourceFailed(
        f"Resource handler returned message: \"Resource of type '{type_name}' with identifier "
        f"'{identifier}' already exists.\" (RequestToken: {uuid.uuid4()}, HandlerErrorCode: "
        "AlreadyExists)"
    )


def delete_if_there(client: Any, operation: str, **params: Any) -> None:
    """A delete whose resource may be gone already (ResourceNotFoundException: nothing left to do)."""
    try:
        getattr(client, operation)(**params)
    except client.exceptions.ResourceNotFoundException:
        return


def required(properties: dict[str, Any], *names: str) -> None:
    missing = [name for name in names if name not in properties]
    if missing:
        raise ResourceFailed(
            f"Properties validation failed for resource with message: #: required key [{missing[0]}] not found"
        )


def json_text(value: Any) -> str:
    """A policy document or similar property as the API takes it: a string as is, an object as JSON."""
    return value if isinstance(value, str) else json.dumps(value)


def tags_list(properties: dict[str, Any]) -> list[dict[str, str]]:
    return [{"Key": tag["Key"], "Value": str(tag["Value"])} for tag in properties.get("Tags") or []]


def not_found(error: ClientError) -> bool:
    code = error.response.get("Error", {}).get("Code", "")
    return "NotFound" in code or "NoSuch" in code or code in ("ResourceNotFoundException", "ParameterNotFound")


def lower_first(value: Any) -> Any:
    """CloudFormation's PascalCase properties as an API that spells its members in camelCase wants them (ECR's, Step
    Functions'): LogGroupArn -> logGroupArn, throughout."""
    if isinstance(value, dict):
        return {key[:1].lower() + key[1:]: lower_first(item) for key, item in value.items()}
    if isinstance(value, list):
        return [lower_first(item) for item in value]
    return value

"""CreateTable and UpdateTable at the DynamoDB door: the key schema, indexes and ResourcePolicy checked as AWS checks
them, the StreamSpecification read, checked and taken out of the request (Eddy's, not moto's), then the engine's
emulator.dynamodb.tables (dynamodb/tables.py) makes the change; a global table's group settings follow in its other
regions (global_tables/replica_tables.py).
"""

from __future__ import annotations

import functools
from typing import Any

from eddy.emulator.api.dynamodb import absent_features, resource_policies
from eddy.emulator.api.dynamodb.rules import table_definitions
from eddy.emulator.api.dynamodb.global_tables import replica_tables
from eddy.emulator.aws_requests import Request, Response
from eddy.emulator.engine import Emulator
from eddy.emulator.errors import AWSError, ValidationException, constraint_violation
from eddy.emulator.streams.records import StreamViewType

VIEW_TYPES = "[NEW_IMAGE, OLD_IMAGE, NEW_AND_OLD_IMAGES, KEYS_ONLY]"
INVALID = "One or more parameter values were invalid: "


def stream_specification(params: dict[str, Any], *, creating: bool) -> tuple[bool, StreamViewType | None] | None:
    """(enabled, view type) asked for by a request's StreamSpecification, validated as AWS validates it."""
    spec = params.pop("StreamSpecification", None)
    if spec is None:
        return None
    if not isinstance(spec, dict):
        raise ValidationException("StreamSpecification must be an object")
    enabled = spec.get("StreamEnabled")
    if not isinstance(enabled, bool):
        raise constraint_violation("streamSpecification.streamEnabled", enabled, "Member must not be null")
    kind = spec.get("StreamViewType")
    view_type = None
    if kind is not None:
        try:
            view_type = StreamViewType(kind)
        except ValueError:
            raise constraint_violation(
                "streamSpecification.streamViewType", kind, f"Member must satisfy enum value set: {VIEW_TYPES}"
            ) from None
    if enabled and view_type is None:
        raise ValidationException(
            INVALID
            + (
                "Table is being created with a stream enabled, UpdateViewType is required"
                if creating
                else "If stream is being enabled then UpdateViewType is required"
            )
        )
    if not enabled and view_type is not None:
        raise ValidationException(
            INVALID
            + (
                "Table is being created with a stream disabled, UpdateViewType should not be specified"
                if creating
                else "If stream is being disabled, then UpdateViewType must not be specified"
            )
        )
    return enabled, view_type


def create_table(emulator: Emulator, request: Request, params: dict[str, Any]) -> Response:
    _check_key_schema(params["KeySchema"], params["AttributeDefinitions"])
    table_definitions.check_indexes(params)
    policy = resource_policies.created_with(params)  # its ResourcePolicy refused before any table is made
    try:
        spec, invalid = stream_specification(params, creating=True), None
    except AWSError as error:
        spec, invalid = None, error
    return emulator.dynamodb.tables.create_table(
        request,
        params,
        spec,
        invalid,
        lambda account_id, region: resource_policies.attach(emulator, account_id, region, params["TableName"], policy),
    )


def _check_key_schema(keys: list[dict[str, Any]], definitions: list[dict[str, Any]]) -> None:
    """CreateTable's KeySchema and AttributeDefinitions as AWS reads them where moto lets a table through (an attribute
    type of none of B, N, S; a key not HASH then RANGE, or one attribute twice), in dynalite's order (which follows
    AWS's): a key schema moto refuses, or one with a key attribute not defined, is moto's to answer, in AWS's words."""
    for at, definition in enumerate(definitions, 1):
        if definition.get("AttributeType") not in ("B", "N", "S"):
            raise constraint_violation(
                f"attributeDefinitions.{at}.member.attributeType",
                definition.get("AttributeType"),
                "Member must satisfy enum value set: [B, N, S]",
            )
    names = [key.get("AttributeName") for key in keys]
    if not 1 <= len(keys) <= 2 or any(key.get("KeyType") not in ("HASH", "RANGE") for key in keys):
        return
    if len(names) > len(definitions):  # moto counts the names without the one given twice
        raise ValidationException("Invalid KeySchema: Some index key attribute have no definition")
    if not set(names) <= {definition.get("AttributeName") for definition in definitions}:
        return
    if len(names) == 2 and names[0] == names[1]:
        raise ValidationException("Both the Hash Key and the Range Key element in the KeySchema have the same name")
    if keys[0]["KeyType"] != "HASH":
        raise ValidationException("Invalid KeySchema: The first KeySchemaElement is not a HASH key type")
    if len(keys) == 2 and keys[1]["KeyType"] != "RANGE":
        raise ValidationException("Invalid KeySchema: The second KeySchemaElement is not a RANGE key type")


def update_table(emulator: Emulator, request: Request, params: dict[str, Any]) -> Response:
    spec = stream_specification(params, creating=False)
    if params.get("ProvisionedThroughput") is not None:  # the throughput it has already: DynamoDB refuses the no-op
        table_definitions.check_throughput_change(absent_features.described_table(request, params["TableName"]), params)
    return emulator.dynamodb.tables.update_table(
        request, params, spec, functools.partial(_table_updated, emulator, request, params, spec)
    )


def _table_updated(
    emulator: Emulator,
    request: Request,
    params: dict[str, Any],
    spec: Any,
    account_id: str,
    region: str,
    response: Response,
) -> Response:
    """UpdateTable's answer (the engine's lock held): a global table's group settings made in every replica (not for a
    stream's change), the table described with its replicas."""
    if spec is None:
        replica_tables.after(emulator, request, account_id, region, "UpdateTable", params)
    return replica_tables.described(emulator, account_id, region, params, response, "TableDescription")

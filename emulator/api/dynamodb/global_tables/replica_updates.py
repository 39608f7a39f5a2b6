"""UpdateTable ReplicaUpdates (global tables version 2019.11.21): a replica created in its region (made through the
engine, filled with the table's items, its stream enabled), updated, or deleted.

AWS's rules and words come from answers recorded against DynamoDB in 2026 (the ack-api-quirks lab's DynamoDB
catalogue, "Table replicas (ReplicaUpdates, version 2019.11.21)" and its ValidationException catalogue):
- ReplicaUpdates is the only change in its UpdateTable, one Create or Delete per call (two Creates of one region
  are one), an Update needs an action member;
- there is no stream prerequisite: a Create enables NEW_AND_OLD_IMAGES on a table without a stream (a disabled one is
  enabled again, with a new label; another view type is kept), and once a table has replicas its stream cannot be
  disabled;
- a PROVISIONED table's (and each GSI's) write capacity must be auto scaled (a target and a policy);
- a region that sourced a replica cannot be deleted for 24 hours.
"""

from __future__ import annotations

import json
from typing import Any

import boto3

from eddy.emulator.engine import Emulator
from eddy.emulator.errors import ResourceInUseException, ValidationException
from eddy.emulator.global_tables.replica_groups import CREATING, Replica
from eddy.emulator.api.dynamodb.rules import table_definitions
from eddy.emulator.api.dynamodb.global_tables.replica_tables import INVALID, Params, Run, describe_as, description, runner
from eddy.emulator.aws_requests import Request, Response
from eddy.emulator.moto_seam import global_tables as moto_global_tables
from eddy.emulator.moto_seam.tables import views as moto_tables

#: UpdateTable members that change the table itself; ReplicaUpdates must come alone
_TABLE_CHANGES = (
    "AttributeDefinitions",
    "BillingMode",
    "ProvisionedThroughput",
    "GlobalSecondaryIndexUpdates",
    "StreamSpecification",
    "SSESpecification",
    "TableClass",
    "DeletionProtectionEnabled",
    "OnDemandThroughput",
    "WarmThroughput",
)


def _regions() -> list[str]:
    """The regions DynamoDB serves global tables in (botocore's endpoint data)."""
    return boto3.session.Session().get_available_regions("dynamodb")


def _checked(response: Response) -> Response:
    if response.status != 200:
        body = json.loads(response.body or b"{}")
        raise ValidationException(body.get("message") or body.get("Message") or "the replica could not be made")
    return response


# -- UpdateTable ReplicaUpdates ----------------------------------------------------------------------------


def replica_updates(emulator: Emulator, request: Request, account_id: str, region: str, params: Params) -> Response:
    """UpdateTable with ReplicaUpdates: add, change or remove one replica of the table."""
    name, run = params["TableName"], runner(emulator, request)
    if any(member in params for member in _TABLE_CHANGES):
        raise ValidationException(INVALID + "Replica modification must be the only operation in the request")
    action, target, detail = _one_action(params["ReplicaUpdates"])
    with emulator.lock:
        table = description(run, region, name)
        if target == region:
            raise ValidationException(
                "Cannot add or delete the local region through ReplicaUpdates. Use CreateTable, "
                "DeleteTable, or UpdateTable as required."
            )
        if target not in _regions():
            raise ValidationException(
                f"Region {target} is not supported. The latest version of global tables are only "
                f"supported in the following regions: [{', '.join(sorted(_regions()))}]."
            )
        replication = emulator.replication
        replication.settle()
        group = replication.groups.of((account_id, region, name))
        busy = group.busy() if group is not None else None
        if busy is not None and busy.status == CREATING:
            raise ValidationException(
                "Create/Update/Delete of replica is not allowed while the replica is being added "
                f"to table with name: \u2018{name}\u2019 in region: \u2018{busy.region}\u2019."
            )
        if busy is not None:
            raise ResourceInUseException(
                f"Attempt to change a resource which is still in use: Table is being updated: {name}"
            )
        if action == "Create":
            _create(emulator, account_id, region, target, table, detail, run)
        else:
            if group is None or target not in group.replicas:
                raise ValidationException(
                    "Update global table operation failed because one or more replicas were not "
                    "part of the global table. Please retry the request without these replicas: "
                    f"[{target}]."
                )
            if action == "Delete":
                _delete(emulator, group, target, emulator.clock.now())
            else:
                _update(target, name, detail, run)
        return describe_as(emulator, account_id, region, run, name, "TableDescription")


def _one_action(updates: list[Params]) -> tuple[str, str, Params]:
    """The one replica action of a ReplicaUpdates list, as AWS accepts it."""
    actions: list[tuple[str, Params]] = []
    for update in updates:
        present = [(kind, update[kind]) for kind in ("Create", "Update", "Delete") if update.get(kind) is not None]
        if len(present) != 1 or (present[0][0] == "Update" and len(present[0][1]) < 2):
            raise ValidationException("There are no actions specified in the Replica Update Action of the request.")
        if present[0] not in actions:  # the same action twice is one
            actions.append(present[0])
    if not actions:
        raise ValidationException("There are no actions specified in the Replica Update Action of the request.")
    if len({kind for kind, _ in actions}) > 1:
        raise ValidationException("Update table operation with more than one type of replica actions not allowed.")
    if len(actions) > 1:
        raise ValidationException(
            "Update table operation with more than one create or delete replica actions not allowed"
        )
    kind, detail = actions[0]
    return kind, detail["RegionName"], detail


def _create(
    emulator: Emulator, account_id: str, region: str, target: str, table: dict[str, Any], detail: Params, run: Run
) -> None:
    name = table["TableName"]
    replication = emulator.replication
    if moto_tables.view(account_id, target, name) is not None:
        raise ValidationException(
            f"Failed to create a the new replica of table with name: \u2018{name}\u2019 because "
            "one or more replicas already existed as tables."
        )
    provisioned = table.get("BillingModeSummary", {}).get("BillingMode", "PROVISIONED") == "PROVISIONED"
    if provisioned:
        if not moto_global_tables.writes_autoscaled(account_id, region, name):
            raise ValidationException("Table write capacity should either be Pay-Per-Request or AutoScaled.")
        for index in table.get("GlobalSecondaryIndexes") or []:
            if not moto_global_tables.writes_autoscaled(account_id, region, name, index["IndexName"]):
                raise ValidationException("GSI write capacity should either be Pay-Per-Request or AutoScaled.")
    stream = table.get("StreamSpecification") or {}
    view_type = stream.get("StreamViewType") if stream.get("StreamEnabled") else None
    if view_type is None:  # AWS enables the stream itself (a disabled one again, with a new label)
        view_type = "NEW_AND_OLD_IMAGES"
        _checked(
            run(
                region,
                "UpdateTable",
                {"TableName": name, "StreamSpecification": {"StreamEnabled": True, "StreamViewType": view_type}},
            )
        )
    _checked(run(target, "CreateTable", _replica_definition(table, detail, provisioned)))
    now = emulator.clock.now()
    replication.changing(account_id, name)  # the group, its queues and stamps put back if the disk refuses this
    group = replication.groups.begin(account_id, name, region, now)
    replication.backfill((account_id, region, name), (account_id, target, name))
    _checked(
        run(
            target,
            "UpdateTable",
            {"TableName": name, "StreamSpecification": {"StreamEnabled": True, "StreamViewType": view_type}},
        )
    )
    ttl = json.loads(run(region, "DescribeTimeToLive", {"TableName": name}).body).get("TimeToLiveDescription", {})
    if ttl.get("TimeToLiveStatus") == "ENABLED":  # Time to Live is the group's, not a region's
        _checked(
            run(
                target,
                "UpdateTimeToLive",
                {
                    "TableName": name,
                    "TimeToLiveSpecification": {"Enabled": True, "AttributeName": ttl["AttributeName"]},
                },
            )
        )
    group.replicas[target] = Replica(target, CREATING, now, region)
    replication.add_replica(group, target, region)


def _replica_definition(table: dict[str, Any], detail: Params, provisioned: bool) -> Params:
    """CreateTable for a replica: the table's keys, indexes and capacity, with the Create's overrides."""
    definition: Params = {
        "TableName": table["TableName"],
        "KeySchema": table["KeySchema"],
        "AttributeDefinitions": table["AttributeDefinitions"],
        "BillingMode": "PROVISIONED" if provisioned else "PAY_PER_REQUEST",
    }
    overrides = {index["IndexName"]: index for index in detail.get("GlobalSecondaryIndexes") or []}
    if provisioned:
        throughput = table["ProvisionedThroughput"]
        definition["ProvisionedThroughput"] = {
            "ReadCapacityUnits": (detail.get("ProvisionedThroughputOverride") or {}).get(
                "ReadCapacityUnits", throughput["ReadCapacityUnits"]
            ),
            "WriteCapacityUnits": throughput["WriteCapacityUnits"],
        }
    indexes = []
    for index in table.get("GlobalSecondaryIndexes") or []:
        copied = {"IndexName": index["IndexName"], "KeySchema": index["KeySchema"], "Projection": index["Projection"]}
        if provisioned:
            throughput = index.get("ProvisionedThroughput") or {}
            copied["ProvisionedThroughput"] = {
                "ReadCapacityUnits": (
                    overrides.get(index["IndexName"], {}).get("ProvisionedThroughputOverride") or {}
                ).get("ReadCapacityUnits", throughput.get("ReadCapacityUnits", 1)),
                "WriteCapacityUnits": throughput.get("WriteCapacityUnits", 1),
            }
        indexes.append(copied)
    if indexes:
        definition["GlobalSecondaryIndexes"] = indexes
    local = [
        {"IndexName": index["IndexName"], "KeySchema": index["KeySchema"], "Projection": index["Projection"]}
        for index in table.get("LocalSecondaryIndexes") or []
    ]
    if local:
        definition["LocalSecondaryIndexes"] = local
    table_class = detail.get("TableClassOverride") or (table.get("TableClassSummary") or {}).get("TableClass")
    if table_class:
        definition["TableClass"] = table_class
    return definition


def _update(target: str, name: str, detail: Params, run: Run) -> None:
    """ReplicaUpdates Update: the replica's own settings, applied in its region as UpdateTable would."""
    unsupported = sorted(set(detail) - {"RegionName", "TableClassOverride", "ProvisionedThroughputOverride"})
    if unsupported:
        raise ValidationException(INVALID + f"Eddy does not emulate replica settings {', '.join(unsupported)}")
    if "TableClassOverride" in detail:
        _checked(run(target, "UpdateTable", {"TableName": name, "TableClass": detail["TableClassOverride"]}))
    if "ProvisionedThroughputOverride" in detail:
        current = description(run, target, name)
        change = {
            "TableName": name,
            "ProvisionedThroughput": {
                "ReadCapacityUnits": detail["ProvisionedThroughputOverride"]["ReadCapacityUnits"],
                "WriteCapacityUnits": (current.get("ProvisionedThroughput") or {}).get("WriteCapacityUnits", 1),
            },
        }
        table_definitions.check_throughput_change(current, change)  # the same throughput again: refused
        _checked(run(target, "UpdateTable", change))


def _delete(emulator: Emulator, group: Any, target: str, now: float) -> None:
    if group.sourced_lately(target, now):
        raise ValidationException(
            "Replica cannot be deleted because it has acted as a source region for new "
            "replica(s) being added to the table in the last 24 hours."
        )
    emulator.replication.remove_replica(group, target, now)

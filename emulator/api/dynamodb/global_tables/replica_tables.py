"""What a global table's replica answers differently from a regional table: DescribeTable's Replicas and
GlobalTableVersion, DeleteTable and Time to Live across the group, a stream that cannot be disabled; and the rest of
the global tables API (the legacy version refused, DescribeTableReplicaAutoScaling, strong consistency refused).
Sources: replica_updates.py.
"""

from __future__ import annotations

import json
from typing import Any, Callable

from eddy.emulator.dynamodb.operations import DEFINITION_OPERATIONS, TARGET_PREFIX
from eddy.emulator.engine import Emulator
from eddy.emulator.errors import AWSError, ResourceNotFoundException, ValidationException
from eddy.emulator.global_tables.replica_groups import ACTIVE, VERSION
from eddy.emulator.aws_requests import Request, Response, error_response, json_response
from eddy.emulator.moto_seam.bridge import with_body

Params = dict[str, Any]
#: runs another DynamoDB operation for the same caller in a region: (region, operation, params) -> Response
Run = Callable[[str, str, Params], Response]

INVALID = "One or more parameter values were invalid: "
LEGACY = (
    "One or more parameter values were invalid: DynamoDB global tables version 2017.11.29 is not supported. We "
    "recommend using DynamoDB global tables version 2019.11.21, instead of version 2017.11.29 (Legacy)."
)


def description(run: Run, region: str, name: str) -> dict[str, Any]:
    """The table as DescribeTable in `region` answers it; AWS's error for a table that is not there."""
    response = run(region, "DescribeTable", {"TableName": name})
    if response.status != 200:
        raise ResourceNotFoundException(f"Requested resource not found: Table: {name} not found")
    return json.loads(response.body)["Table"]


# -- what a replica's table answers -------------------------------------------------------------------------


def describe_as(emulator: Emulator, account_id: str, region: str, run: Run, name: str, key: str) -> Response:
    table = description(run, region, name)
    emulator.replication.settle()  # what the description shows of the replicas is now's
    return json_response({key: with_replicas(emulator, account_id, region, table)})


def with_replicas(emulator: Emulator, account_id: str, region: str, table: dict[str, Any]) -> dict[str, Any]:
    """A TableDescription with its replicas (the other regions) and GlobalTableVersion, when it has any."""
    group = emulator.replica_group((account_id, region, table["TableName"]))
    if group is not None:
        table["Replicas"] = group.describe(region)
        table["GlobalTableVersion"] = VERSION
    return table


def described(
    emulator: Emulator, account_id: str, region: str, params: Params, response: Response, key: str
) -> Response:
    """A table's description (under `key`) with its replicas, if the table has any (the body read only then)."""
    if emulator.replica_group((account_id, region, params.get("TableName")), settled=True) is None:
        return response
    body = json.loads(response.body)
    return with_body(response, {key: with_replicas(emulator, account_id, region, body[key])})


def before(emulator: Emulator, account_id: str, region: str, operation: str, params: Params) -> None:
    """Refuse what a replica's table does not allow: disabling its stream; deleting a region that sourced a
    replica less than 24 hours ago."""
    group = emulator.replica_group((account_id, region, params.get("TableName")))
    if group is None:
        return
    if operation == "UpdateTable" and (params.get("StreamSpecification") or {}).get("StreamEnabled") is False:
        raise ValidationException(INVALID + "Disabling Stream is not allowed for a Global Table replica.")
    if operation == "DeleteTable" and group.sourced_lately(region, emulator.clock.now()):
        raise ValidationException(
            "Replica cannot be deleted because it has acted as a source region for new "
            "replica(s) being added to the table in the last 24 hours."
        )


#: what an UpdateTable in any region changes in every replica (AWS, recorded: settings replication is group-wide for
#: Time to Live, GSI creation and deletion, and capacity); tags, backups and deletion protection stay regional
GROUP_SETTINGS = ("GlobalSecondaryIndexUpdates", "BillingMode", "ProvisionedThroughput", "AttributeDefinitions")


def after(emulator: Emulator, request: Request, account_id: str, region: str, operation: str, params: Params) -> None:
    """A replica's table changed in its region: DeleteTable takes it out of its group; Time to Live, indexes and
    capacity are the group's, so the same change is made in every other replica (by the engine: not fanned out
    again)."""
    table = (account_id, region, params.get("TableName"))
    group = emulator.replica_group(table)
    if group is None:
        return
    replication = emulator.replication
    if operation == "DeleteTable":
        replication.table_deleted(table)
        return
    if operation == "UpdateTable":
        params = {name: value for name, value in params.items() if name == "TableName" or name in GROUP_SETTINGS}
        if len(params) == 1:
            return
    elif operation != "UpdateTimeToLive":
        return
    run = runner(emulator, request)
    for other in group.replicating():
        if other != region:
            run(other, operation, params)


# -- the rest of the global tables API ------------------------------------------------------------------------


def legacy_refused(emulator: Emulator, params: Params) -> Response:
    """CreateGlobalTable and UpdateGlobalTable: AWS no longer makes version 2017.11.29 global tables."""
    raise ValidationException(LEGACY)


def replica_auto_scaling(emulator: Emulator, account_id: str, region: str, params: Params) -> Response:
    """DescribeTableReplicaAutoScaling: each replica of a global table; a regional table is no global table."""
    name = params["TableName"]
    with emulator.lock:
        group = emulator.replica_group((account_id, region, name))
        if group is None:
            raise ResourceNotFoundException(f"Global table with name: {name} does not exist.")
        return json_response(
            {
                "TableAutoScalingDescription": {
                    "TableName": name,
                    "TableStatus": ACTIVE,
                    "Replicas": [
                        {"RegionName": replica.region, "GlobalSecondaryIndexes": [], "ReplicaStatus": replica.status}
                        for replica in group.replicas.values()
                    ],
                }
            }
        )


def strong_consistency_refused(params: Params) -> None:
    """Multi-Region strong consistency (MultiRegionConsistency STRONG, witnesses) is not emulated: refused before
    anything changes, in the shape of AWS's refusal of a region set it does not serve."""
    if params.get("MultiRegionConsistency") == "STRONG" or params.get("GlobalTableWitnessUpdates"):
        regions = [
            update.get(kind, {}).get("RegionName")
            for update in params.get("ReplicaUpdates") or []
            for kind in ("Create", "Delete")
            if kind in update
        ]
        raise ValidationException(
            f"Unsupported Region(s) specified for MultiRegionConsistency STRONG: {regions}. "
            "Eddy emulates global tables with multi-Region eventual consistency only."
        )


def runner(emulator: Emulator, request: Request) -> Run:
    """Another DynamoDB operation for the request's caller in a region of its choosing (a replica's), run by the engine
    (emulator.dynamodb.run), not by the door again: room on the disk first for a definition (as the door asks), an AWS
    error answered as the door answers it."""

    def run(region: str, operation: str, params: Params) -> Response:
        inner = request.in_region(region).for_target(TARGET_PREFIX + operation, params)
        try:
            if operation in DEFINITION_OPERATIONS and emulator.persistence.durable:
                emulator.disk.room_for(len(inner.body))  # a definition moto makes cannot be put back
            return emulator.dynamodb.run(operation, inner, params)
        except AWSError as error:
            return error_response(error)

    return run

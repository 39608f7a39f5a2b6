"""An AWS::DynamoDB::GlobalTable with BillingMode PROVISIONED (the type's default), as its reference documents it:
writes are auto scaled for every replica (WriteProvisionedThroughputSettings.WriteCapacityAutoScalingSettings, the
table's and each GSI's: required), reads are set per replica (ReadProvisionedThroughputSettings: ReadCapacityUnits, or
ReadCapacityAutoScalingSettings). The table starts at each setting's SeedCapacity (else its MinCapacity); the auto
scaling is an Application Auto Scaling scalable target and target-tracking policy (DynamoDBWriteCapacityUtilization,
DynamoDBReadCapacityUtilization), which is what DynamoDB's global tables ask of a PROVISIONED table before a replica
is added; a replica's fixed reads are its ProvisionedThroughputOverride.

The auto scaling is registered in the stack's region (Eddy's replicas take the table's write capacity and their
own read capacity; nothing scales them: Eddy has no CloudWatch alarms driving Application Auto Scaling)."""

from __future__ import annotations

from typing import Any

from eddy.emulator.cloudformation.errors import ResourceFailed

_WRITES = "WriteProvisionedThroughputSettings"
_READS = "ReadProvisionedThroughputSettings"


def _writes(definition: dict[str, Any], what: str) -> dict[str, Any]:
    scaling = (definition.get(_WRITES) or {}).get("WriteCapacityAutoScalingSettings")
    if not scaling:
        raise ResourceFailed(
            f"Properties validation failed for resource with message: {what}: "
            f"{_WRITES}.WriteCapacityAutoScalingSettings must be specified when BillingMode is "
            "PROVISIONED"
        )
    return scaling


def _start(scaling: dict[str, Any]) -> int:
    return int(scaling.get("SeedCapacity") or scaling["MinCapacity"])


def _reads(settings: dict[str, Any] | None, what: str) -> int:
    settings = settings or {}
    if "ReadCapacityUnits" in settings:
        return int(settings["ReadCapacityUnits"])
    if settings.get("ReadCapacityAutoScalingSettings"):
        return _start(settings["ReadCapacityAutoScalingSettings"])
    raise ResourceFailed(
        f"Properties validation failed for resource with message: {what}: {_READS} must specify "
        "ReadCapacityUnits or ReadCapacityAutoScalingSettings when BillingMode is PROVISIONED"
    )


def _replica_index(replica: dict[str, Any], index: str) -> dict[str, Any]:
    return next((spec for spec in replica.get("GlobalSecondaryIndexes") or [] if spec.get("IndexName") == index), {})


def provisioned_request(properties: dict[str, Any], here: dict[str, Any]) -> dict[str, Any]:
    """CreateTable's BillingMode, ProvisionedThroughput and GSIs (each with its ProvisionedThroughput) for the stack
    region's table."""
    region = here["Region"]
    request: dict[str, Any] = {
        "BillingMode": "PROVISIONED",
        "ProvisionedThroughput": {
            "ReadCapacityUnits": _reads(here.get(_READS), f"#/Replicas/{region}"),
            "WriteCapacityUnits": _start(_writes(properties, "#")),
        },
    }
    indexes = []
    for index in properties.get("GlobalSecondaryIndexes") or []:
        name = index["IndexName"]
        made = {key: value for key, value in index.items() if key not in (_WRITES, "WriteOnDemandThroughputSettings")}
        made["ProvisionedThroughput"] = {
            "ReadCapacityUnits": _reads(
                _replica_index(here, name).get(_READS), f"#/Replicas/{region}/GlobalSecondaryIndexes/{name}"
            ),
            "WriteCapacityUnits": _start(_writes(index, f"#/GlobalSecondaryIndexes/{name}")),
        }
        indexes.append(made)
    if indexes:
        request["GlobalSecondaryIndexes"] = indexes
    return request


def replica_reads(properties: dict[str, Any], region: str) -> dict[str, Any]:
    """A replica's ReplicaUpdates Create members beyond its region: its fixed read capacities, if PROVISIONED."""
    if properties.get("BillingMode", "PROVISIONED") != "PROVISIONED":
        return {}
    replica = next(spec for spec in properties["Replicas"] if spec["Region"] == region)
    made: dict[str, Any] = {
        "ProvisionedThroughputOverride": {"ReadCapacityUnits": _reads(replica.get(_READS), f"#/Replicas/{region}")}
    }
    indexes = [
        {
            "IndexName": index["IndexName"],
            "ProvisionedThroughputOverride": {
                "ReadCapacityUnits": _reads(
                    _replica_index(replica, index["IndexName"]).get(_READS),
                    f"#/Replicas/{region}/GlobalSecondaryIndexes/{index['IndexName']}",
                )
            },
        }
        for index in properties.get("GlobalSecondaryIndexes") or []
    ]
    if indexes:
        made["GlobalSecondaryIndexes"] = indexes
    return made


def _targets(name: str, properties: dict[str, Any], here: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    """(resource id, scalable dimension, CapacityAutoScalingSettings) of every capacity to auto scale."""
    found = [(f"table/{name}", "dynamodb:table:WriteCapacityUnits", _writes(properties, "#"))]
    reads = (here.get(_READS) or {}).get("ReadCapacityAutoScalingSettings")
    if reads:
        found.append((f"table/{name}", "dynamodb:table:ReadCapacityUnits", reads))
    for index in properties.get("GlobalSecondaryIndexes") or []:
        resource = f"table/{name}/index/{index['IndexName']}"
        found.append((resource, "dynamodb:index:WriteCapacityUnits", _writes(index, "#/GlobalSecondaryIndexes")))
        reads = (_replica_index(here, index["IndexName"]).get(_READS) or {}).get("ReadCapacityAutoScalingSettings")
        if reads:
            found.append((resource, "dynamodb:index:ReadCapacityUnits", reads))
    return found


def scale(autoscaling: Any, name: str, properties: dict[str, Any], here: dict[str, Any]) -> None:
    """Each capacity's scalable target and target-tracking policy (registering again updates them)."""
    for resource, dimension, settings in _targets(name, properties, here):
        target = {"ServiceNamespace": "dynamodb", "ResourceId": resource, "ScalableDimension": dimension}
        autoscaling.register_scalable_target(
            **target, MinCapacity=int(settings["MinCapacity"]), MaxCapacity=int(settings["MaxCapacity"])
        )
        tracking = dict(settings.get("TargetTrackingScalingPolicyConfiguration") or {})
        if "TargetValue" not in tracking:
            raise ResourceFailed(
                "Properties validation failed for resource with message: "
                "TargetTrackingScalingPolicyConfiguration.TargetValue is required"
            )
        metric = "DynamoDBWriteCapacityUtilization" if "Write" in dimension else "DynamoDBReadCapacityUtilization"
        tracking["TargetValue"] = float(tracking["TargetValue"])
        tracking["PredefinedMetricSpecification"] = {"PredefinedMetricType": metric}
        autoscaling.put_scaling_policy(
            **target,
            PolicyName=f"{resource.replace('/', '-')}-{metric}",
            PolicyType="TargetTrackingScaling",
            TargetTrackingScalingPolicyConfiguration=tracking,
        )


def unscale(autoscaling: Any, name: str, properties: dict[str, Any], here: dict[str, Any]) -> None:
    """The scalable targets (and their policies) gone with the table."""
    for resource, dimension, _ in _targets(name, properties, here):
        try:
            autoscaling.deregister_scalable_target(
                ServiceNamespace="dynamodb", ResourceId=resource, ScalableDimension=dimension
            )
        except autoscaling.exceptions.ObjectNotFoundException:
            continue

"""AWS::DynamoDB::Table through Eddy's DynamoDB API: streams, Time to Live, global and local secondary indexes;
AWS::DynamoDB::GlobalTable through it and Eddy's global tables: a replica in each region of its Replicas."""

from __future__ import annotations

import time
from typing import Any

from eddy.emulator.cloudformation.errors import ResourceFailed
from eddy.emulator.cloudformation.resource_types import global_table_capacities as capacities
from eddy.emulator.cloudformation.resource_types.base import Created, Provisioning, ResourceType, required, tags_list

_PASSED = (
    "AttributeDefinitions",
    "KeySchema",
    "BillingMode",
    "ProvisionedThroughput",
    "GlobalSecondaryIndexes",
    "LocalSecondaryIndexes",
    "SSESpecification",
    "TableClass",
    "DeletionProtectionEnabled",
    "OnDemandThroughput",
    "WarmThroughput",
)


def _stream(properties: dict[str, Any]) -> dict[str, Any] | None:
    view_type = (properties.get("StreamSpecification") or {}).get("StreamViewType")
    return {"StreamEnabled": True, "StreamViewType": view_type} if view_type else None


def _time_to_live(dynamodb: Any, name: str, old: dict[str, Any], new: dict[str, Any]) -> None:
    """TimeToLiveSpecification changed in place: the old attribute disabled, the new one enabled."""
    before, after = old.get("TimeToLiveSpecification") or {}, new.get("TimeToLiveSpecification") or {}
    if before == after:
        return
    if before.get("Enabled") and (not after.get("Enabled") or before["AttributeName"] != after["AttributeName"]):
        dynamodb.update_time_to_live(
            TableName=name, TimeToLiveSpecification={"Enabled": False, "AttributeName": before["AttributeName"]}
        )
    if after.get("Enabled"):
        dynamodb.update_time_to_live(
            TableName=name, TimeToLiveSpecification={"Enabled": True, "AttributeName": after["AttributeName"]}
        )


class Table(ResourceType):
    type_name = "AWS::DynamoDB::Table"
    # AWS::DynamoDB::Table's reference: TableName, KeySchema, LocalSecondaryIndexes need replacement
    replacing = frozenset({"TableName", "KeySchema", "LocalSecondaryIndexes"})
    name_property = "TableName"

    def create(self, provisioning: Provisioning, properties: dict[str, Any]) -> Created:
        required(properties, "KeySchema")
        name = properties.get("TableName") or provisioning.name(255)
        request: dict[str, Any] = {key: properties[key] for key in _PASSED if key in properties}
        if request.get("BillingMode", "PROVISIONED") == "PROVISIONED" and "ProvisionedThroughput" not in request:
            request["BillingMode"] = "PAY_PER_REQUEST"  # CloudFormation's default when no throughput is given
        stream = _stream(properties)
        if stream:
            request["StreamSpecification"] = stream
        if properties.get("Tags"):
            request["Tags"] = tags_list(properties)
        dynamodb = provisioning.client("dynamodb")
        dynamodb.create_table(TableName=name, **request)
        dynamodb.get_waiter("table_exists").wait(TableName=name, WaiterConfig={"Delay": 1, "MaxAttempts": 120})
        ttl = properties.get("TimeToLiveSpecification")
        if ttl and ttl.get("Enabled"):
            dynamodb.update_time_to_live(
                TableName=name, TimeToLiveSpecification={"Enabled": True, "AttributeName": ttl["AttributeName"]}
            )
        return Created(name, self._attributes(provisioning, name))

    @staticmethod
    def _attributes(provisioning: Provisioning, name: str) -> dict[str, Any]:
        table = provisioning.client("dynamodb").describe_table(TableName=name)["Table"]
        attributes = {"Arn": table["TableArn"]}
        if table.get("LatestStreamArn") and table.get("StreamSpecification", {}).get("StreamEnabled"):
            attributes["StreamArn"] = table["LatestStreamArn"]
        return attributes

    def update(
        self, provisioning: Provisioning, physical_id: str, old: dict[str, Any], new: dict[str, Any]
    ) -> dict[str, Any]:
        dynamodb = provisioning.client("dynamodb")
        request: dict[str, Any] = {}
        for key in (
            "BillingMode",
            "ProvisionedThroughput",
            "SSESpecification",
            "TableClass",
            "DeletionProtectionEnabled",
            "OnDemandThroughput",
        ):
            if old.get(key) != new.get(key) and key in new:
                request[key] = new[key]
        if request:
            dynamodb.update_table(TableName=physical_id, AttributeDefinitions=new["AttributeDefinitions"], **request)
        self._indexes(dynamodb, physical_id, old, new)
        if _stream(old) != _stream(new):
            if _stream(old):
                dynamodb.update_table(TableName=physical_id, StreamSpecification={"StreamEnabled": False})
            if _stream(new):
                dynamodb.update_table(TableName=physical_id, StreamSpecification=_stream(new))
        _time_to_live(dynamodb, physical_id, old, new)
        if old.get("Tags") != new.get("Tags"):
            arn = self._attributes(provisioning, physical_id)["Arn"]
            gone = [
                tag["Key"]
                for tag in old.get("Tags") or []
                if tag["Key"] not in {kept["Key"] for kept in new.get("Tags") or []}
            ]
            if gone:
                dynamodb.untag_resource(ResourceArn=arn, TagKeys=gone)
            if new.get("Tags"):
                dynamodb.tag_resource(ResourceArn=arn, Tags=tags_list(new))
        return self._attributes(provisioning, physical_id)

    @staticmethod
    def _indexes(dynamodb: Any, name: str, old: dict[str, Any], new: dict[str, Any]) -> None:
        """Global secondary indexes added and deleted, one UpdateTable each, as DynamoDB takes them."""
        before = {index["IndexName"]: index for index in old.get("GlobalSecondaryIndexes") or []}
        after = {index["IndexName"]: index for index in new.get("GlobalSecondaryIndexes") or []}
        for index_name in before:
            if index_name not in after or before[index_name]["KeySchema"] != after[index_name]["KeySchema"]:
                dynamodb.update_table(
                    TableName=name, GlobalSecondaryIndexUpdates=[{"Delete": {"IndexName": index_name}}]
                )
        for index_name, index in after.items():
            if index_name not in before or before[index_name]["KeySchema"] != index["KeySchema"]:
                dynamodb.update_table(
                    TableName=name,
                    AttributeDefinitions=new["AttributeDefinitions"],
                    GlobalSecondaryIndexUpdates=[{"Create": index}],
                )

    def delete(self, provisioning: Provisioning, physical_id: str, properties: dict[str, Any]) -> None:
        dynamodb = provisioning.client("dynamodb")
        try:
            dynamodb.delete_table(TableName=physical_id)
        except dynamodb.exceptions.ResourceNotFoundException:
            return


class GlobalTable(ResourceType):
    """AWS::DynamoDB::GlobalTable (what CDK's TableV2 deploys): the table in the stack's region, and a replica in each
    other region of Replicas through UpdateTable ReplicaUpdates (Eddy's global tables), one at a time, each after
    the one before is ACTIVE, as DynamoDB takes them."""

    type_name = "AWS::DynamoDB::GlobalTable"
    # AWS::DynamoDB::GlobalTable's reference: TableName, KeySchema, LocalSecondaryIndexes need replacement
    replacing = frozenset({"TableName", "KeySchema", "LocalSecondaryIndexes"})
    name_property = "TableName"

    def create(self, provisioning: Provisioning, properties: dict[str, Any]) -> Created:
        required(properties, "KeySchema", "AttributeDefinitions", "Replicas")
        here = self._here(provisioning, properties)
        provisioned = properties.get("BillingMode", "PROVISIONED") == "PROVISIONED"
        name = properties.get("TableName") or provisioning.name(255)
        request: dict[str, Any] = {
            key: properties[key]
            for key in ("AttributeDefinitions", "KeySchema", "GlobalSecondaryIndexes", "LocalSecondaryIndexes")
            if key in properties
        }
        request["BillingMode"] = "PAY_PER_REQUEST"
        if provisioned:
            request.update(capacities.provisioned_request(properties, here))
        request.update({key: here[key] for key in ("TableClass", "DeletionProtectionEnabled") if key in here})
        if properties.get("SSESpecification"):
            request["SSESpecification"] = {"Enabled": properties["SSESpecification"].get("SSEEnabled", False)}
        stream = _stream(properties)
        if stream:
            request["StreamSpecification"] = stream
        if here.get("Tags"):
            request["Tags"] = tags_list(here)
        dynamodb = provisioning.client("dynamodb")
        dynamodb.create_table(TableName=name, **request)
        dynamodb.get_waiter("table_exists").wait(TableName=name, WaiterConfig={"Delay": 1, "MaxAttempts": 120})
        _time_to_live(dynamodb, name, {}, properties)
        if provisioned:
            capacities.scale(provisioning.client("application-autoscaling"), name, properties, here)
        for region in self._regions(properties):
            if region != provisioning.region:
                self._replica(dynamodb, name, "Create", region, capacities.replica_reads(properties, region))
        return Created(name, self._attributes(dynamodb, name))

    @staticmethod
    def _here(provisioning: Provisioning, properties: dict[str, Any]) -> dict[str, Any]:
        here = next(
            (replica for replica in properties["Replicas"] if replica.get("Region") == provisioning.region), None
        )
        if here is None:
            raise ResourceFailed(
                f"Properties validation failed for resource with message: Replicas must include "
                f"the stack's region ({provisioning.region})"
            )
        return here

    @staticmethod
    def _regions(properties: dict[str, Any]) -> list[str]:
        return [replica["Region"] for replica in properties.get("Replicas") or []]

    @staticmethod
    def _replica(dynamodb: Any, name: str, action: str, region: str, reads: dict[str, Any] | None = None) -> None:
        """One replica added or removed, once no other is being added or removed (DynamoDB takes one at a time;
        Eddy's replicas become ACTIVE after Settings.replica_transition_seconds on its clock)."""
        deadline = time.monotonic() + _REPLICA_WAIT_SECONDS
        while any(
            replica.get("ReplicaStatus") not in ("ACTIVE", None)
            for replica in dynamodb.describe_table(TableName=name)["Table"].get("Replicas", [])
        ):
            if time.monotonic() > deadline:
                raise ResourceFailed(f"Replica of {name} not ACTIVE after {_REPLICA_WAIT_SECONDS} seconds")
            time.sleep(0.5)  # polled, as CloudFormation polls DynamoDB for a replica's status
        dynamodb.update_table(TableName=name, ReplicaUpdates=[{action: {"RegionName": region, **(reads or {})}}])

    @staticmethod
    def _attributes(dynamodb: Any, name: str) -> dict[str, Any]:
        table = dynamodb.describe_table(TableName=name)["Table"]
        attributes = {"Arn": table["TableArn"], "TableId": table.get("TableId", "")}
        if table.get("LatestStreamArn"):
            attributes["StreamArn"] = table["LatestStreamArn"]
        return attributes

    def update(
        self, provisioning: Provisioning, physical_id: str, old: dict[str, Any], new: dict[str, Any]
    ) -> dict[str, Any]:
        self._here(provisioning, new)
        dynamodb = provisioning.client("dynamodb")
        Table._indexes(dynamodb, physical_id, old, new)
        _time_to_live(dynamodb, physical_id, old, new)
        if new.get("BillingMode", "PROVISIONED") == "PROVISIONED":
            capacities.scale(
                provisioning.client("application-autoscaling"), physical_id, new, self._here(provisioning, new)
            )
        before, after = self._regions(old), self._regions(new)
        for region in after:
            if region not in before:
                self._replica(dynamodb, physical_id, "Create", region, capacities.replica_reads(new, region))
        for region in before:
            if region not in after:
                self._replica(dynamodb, physical_id, "Delete", region)
        return self._attributes(dynamodb, physical_id)

    def delete(self, provisioning: Provisioning, physical_id: str, properties: dict[str, Any]) -> None:
        """Every replica deleted in its own region, then the stack region's table."""
        dynamodb = provisioning.client("dynamodb")
        try:
            replicas = dynamodb.describe_table(TableName=physical_id)["Table"].get("Replicas", [])
        except dynamodb.exceptions.ResourceNotFoundException:
            return
        for replica in replicas:
            self._replica_gone(provisioning, physical_id, replica["RegionName"], dynamodb)
        dynamodb.delete_table(TableName=physical_id)
        if properties.get("BillingMode", "PROVISIONED") == "PROVISIONED":
            capacities.unscale(
                provisioning.client("application-autoscaling"),
                physical_id,
                properties,
                self._here(provisioning, properties),
            )

    @staticmethod
    def _replica_gone(provisioning: Provisioning, name: str, region: str, dynamodb: Any) -> None:
        deadline = time.monotonic() + _REPLICA_WAIT_SECONDS
        while (
            next(
                (
                    replica.get("ReplicaStatus")
                    for replica in dynamodb.describe_table(TableName=name)["Table"].get("Replicas", [])
                    if replica["RegionName"] == region
                ),
                None,
            )
            == "CREATING"
        ):
            if time.monotonic() > deadline:
                raise ResourceFailed(f"Replica of {name} in {region} not ACTIVE after {_REPLICA_WAIT_SECONDS} seconds")
            time.sleep(0.5)  # a replica being added cannot be deleted yet
        replica = provisioning.client_in("dynamodb", region)
        try:
            replica.delete_table(TableName=name)
        except replica.exceptions.ResourceNotFoundException:
            return


#: how long a replica may take to become ACTIVE before its resource fails
_REPLICA_WAIT_SECONDS = 900

TYPES = [Table(), GlobalTable()]

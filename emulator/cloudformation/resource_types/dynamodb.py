"""AWS::DynamoDB::Table through Eddy's DynamoDB API: streams, Time to Live, global and local secondary indexes."""

from __future__ import annotations

from typing import Any

from eddy.emulator.cloudformation.resource_types.base import Created, Provisioning, ResourceType, required, tags_list

_PASSED = ("AttributeDefinitions", "KeySchema", "BillingMode", "ProvisionedThroughput", "GlobalSecondaryIndexes",
           "LocalSecondaryIndexes", "SSESpecification", "TableClass", "DeletionProtectionEnabled",
           "OnDemandThroughput", "WarmThroughput")


def _stream(properties: dict[str, Any]) -> dict[str, Any] | None:
    view_type = (properties.get("StreamSpecification") or {}).get("StreamViewType")
    return {"StreamEnabled": True, "StreamViewType": view_type} if view_type else None


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
            dynamodb.update_time_to_live(TableName=name, TimeToLiveSpecification={
                "Enabled": True, "AttributeName": ttl["AttributeName"]})
        return Created(name, self._attributes(provisioning, name))

    @staticmethod
    def _attributes(provisioning: Provisioning, name: str) -> dict[str, Any]:
        table = provisioning.client("dynamodb").describe_table(TableName=name)["Table"]
        attributes = {"Arn": table["TableArn"]}
        if table.get("LatestStreamArn") and table.get("StreamSpecification", {}).get("StreamEnabled"):
            attributes["StreamArn"] = table["LatestStreamArn"]
        return attributes

    def update(self, provisioning: Provisioning, physical_id: str, old: dict[str, Any],
               new: dict[str, Any]) -> dict[str, Any]:
        dynamodb = provisioning.client("dynamodb")
        request: dict[str, Any] = {}
        for key in ("BillingMode", "ProvisionedThroughput", "SSESpecification", "TableClass",
                    "DeletionProtectionEnabled", "OnDemandThroughput"):
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
        if old.get("TimeToLiveSpecification") != new.get("TimeToLiveSpecification"):
            before, after = old.get("TimeToLiveSpecification") or {}, new.get("TimeToLiveSpecification") or {}
            if before.get("Enabled") and (not after.get("Enabled") or before["AttributeName"] != after["AttributeName"]):
                dynamodb.update_time_to_live(TableName=physical_id, TimeToLiveSpecification={
                    "Enabled": False, "AttributeName": before["AttributeName"]})
            if after.get("Enabled") and after != before:
                dynamodb.update_time_to_live(TableName=physical_id, TimeToLiveSpecification={
                    "Enabled": True, "AttributeName": after["AttributeName"]})
        if old.get("Tags") != new.get("Tags"):
            arn = self._attributes(provisioning, physical_id)["Arn"]
            gone = [tag["Key"] for tag in old.get("Tags") or [] if tag["Key"] not in
                    {kept["Key"] for kept in new.get("Tags") or []}]
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
                dynamodb.update_table(TableName=name, GlobalSecondaryIndexUpdates=[{"Delete": {"IndexName": index_name}}])
        for index_name, index in after.items():
            if index_name not in before or before[index_name]["KeySchema"] != index["KeySchema"]:
                dynamodb.update_table(TableName=name, AttributeDefinitions=new["AttributeDefinitions"],
                                      GlobalSecondaryIndexUpdates=[{"Create": index}])

    def delete(self, provisioning: Provisioning, physical_id: str, properties: dict[str, Any]) -> None:
        dynamodb = provisioning.client("dynamodb")
        try:
            dynamodb.delete_table(TableName=physical_id)
        except dynamodb.exceptions.ResourceNotFoundException:
            return


TYPES = [Table()]

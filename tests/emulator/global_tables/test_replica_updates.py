"""UpdateTable ReplicaUpdates refused as AWS refuses it, nothing changed: the answers recorded against DynamoDB
(the ack-api-quirks lab's catalogue, 2026), at both doors."""

from __future__ import annotations

import pytest
from botocore.exceptions import ClientError

from tests.emulator.global_tables.helpers import ASIA, EAST, WEST, add_replica, replication
from tests.emulator.helpers import create_table


def refusal(call, **params) -> tuple[str, str]:
    with pytest.raises(ClientError) as raised:
        call(**params)
    return raised.value.response["Error"]["Code"], raised.value.response["Error"]["Message"]


def replica_update(dynamodb, *updates, **more):
    return refusal(dynamodb.update_table, **{"TableName": "scores", **more}, ReplicaUpdates=list(updates))


def test_the_replica_updates_aws_refuses(door):
    east = door.client("dynamodb", EAST)
    create_table(east, "scores")
    assert replica_update(east, {"Create": {"RegionName": EAST}}) == (
        "ValidationException", "Cannot add or delete the local region through ReplicaUpdates. Use CreateTable, "
                               "DeleteTable, or UpdateTable as required.")
    assert replica_update(east, {"Delete": {"RegionName": WEST}}) == (
        "ValidationException", "Update global table operation failed because one or more replicas were not part of the "
                               f"global table. Please retry the request without these replicas: [{WEST}].")
    assert replica_update(east, {"Create": {"RegionName": WEST}}, {"Create": {"RegionName": ASIA}}) == (
        "ValidationException", "Update table operation with more than one create or delete replica actions not allowed")
    assert replica_update(east, {"Create": {"RegionName": WEST}}, {"Delete": {"RegionName": ASIA}}) == (
        "ValidationException", "Update table operation with more than one type of replica actions not allowed.")
    assert replica_update(east, {"Update": {"RegionName": WEST}}) == (
        "ValidationException", "There are no actions specified in the Replica Update Action of the request.")
    assert replica_update(east, {"Create": {"RegionName": WEST}}, DeletionProtectionEnabled=True) == (
        "ValidationException", "One or more parameter values were invalid: Replica modification must be the only "
                               "operation in the request")
    code, message = replica_update(east, {"Create": {"RegionName": "xx-nowhere-9"}})
    assert code == "ValidationException"
    assert message.startswith("Region xx-nowhere-9 is not supported. The latest version of global tables are only "
                              "supported in the following regions: [")
    assert replica_update(east, {"Create": {"RegionName": WEST}}, TableName="missing")[0] == "ResourceNotFoundException"
    assert "Replicas" not in east.describe_table(TableName="scores")["Table"]  # nothing changed


def test_a_region_that_already_has_the_table_or_the_replica(door):
    east, west = door.client("dynamodb", EAST), door.client("dynamodb", WEST)
    create_table(east, "scores")
    create_table(west, "scores")
    already = ("ValidationException", "Failed to create a the new replica of table with name: \u2018scores\u2019 "
                                      "because one or more replicas already existed as tables.")
    assert replica_update(east, {"Create": {"RegionName": WEST}}) == already
    add_replica(east, "scores", ASIA)
    door.advance(31)
    assert replica_update(east, {"Create": {"RegionName": ASIA}}) == already
    # two Creates of one region are one
    east.update_table(TableName="scores", ReplicaUpdates=[{"Delete": {"RegionName": ASIA}}])
    assert replica_update(east, {"Create": {"RegionName": WEST}})[0] == "ResourceInUseException"  # still deleting


def test_one_replica_action_at_a_time(door):
    east = door.client("dynamodb", EAST)
    create_table(east, "scores")
    add_replica(east, "scores", WEST)
    assert replica_update(east, {"Create": {"RegionName": ASIA}}) == (
        "ValidationException", "Create/Update/Delete of replica is not allowed while the replica is being added to "
                               f"table with name: \u2018scores\u2019 in region: \u2018{WEST}\u2019.")
    door.advance(31)
    add_replica(east, "scores", ASIA)  # once it is ACTIVE


def test_a_provisioned_table_needs_its_writes_auto_scaled(door):
    east = door.client("dynamodb", EAST)
    east.create_table(TableName="scores", KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                      AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                      ProvisionedThroughput={"ReadCapacityUnits": 5, "WriteCapacityUnits": 5})
    refused = ("ValidationException", "Table write capacity should either be Pay-Per-Request or AutoScaled.")
    assert replica_update(east, {"Create": {"RegionName": WEST}}) == refused
    autoscaling = door.client("application-autoscaling", EAST)
    target = dict(ServiceNamespace="dynamodb", ResourceId="table/scores",
                  ScalableDimension="dynamodb:table:WriteCapacityUnits")
    autoscaling.register_scalable_target(**target, MinCapacity=5, MaxCapacity=50)
    assert replica_update(east, {"Create": {"RegionName": WEST}}) == refused  # a target without a policy: still not
    autoscaling.put_scaling_policy(**target, PolicyName="writes", PolicyType="TargetTrackingScaling",
                                   TargetTrackingScalingPolicyConfiguration={
                                       "TargetValue": 70.0, "PredefinedMetricSpecification": {
                                           "PredefinedMetricType": "DynamoDBWriteCapacityUtilization"}})
    answer = add_replica(east, "scores", WEST)
    assert answer["Replicas"] == [{"RegionName": WEST, "ReplicaStatus": "CREATING"}]
    west = door.client("dynamodb", WEST).describe_table(TableName="scores")["Table"]
    assert west["ProvisionedThroughput"]["WriteCapacityUnits"] == 5


def test_a_replica_s_stream_cannot_be_disabled_and_its_source_stays_a_day(door):
    east, west = door.client("dynamodb", EAST), door.client("dynamodb", WEST)
    create_table(east, "scores", view_type="KEYS_ONLY")  # a stream of another view type is kept (AWS does)
    answer = add_replica(east, "scores", WEST)
    assert answer["StreamSpecification"] == {"StreamEnabled": True, "StreamViewType": "KEYS_ONLY"}
    door.advance(31)
    for dynamodb in (east, west):
        assert refusal(dynamodb.update_table, TableName="scores",
                       StreamSpecification={"StreamEnabled": False}) == (
            "ValidationException", "One or more parameter values were invalid: Disabling Stream is not allowed for a "
                                   "Global Table replica.")
    sourced = ("ValidationException", "Replica cannot be deleted because it has acted as a source region for new "
                                      "replica(s) being added to the table in the last 24 hours.")
    assert refusal(east.delete_table, TableName="scores") == sourced
    door.advance(24 * 3600)
    east.delete_table(TableName="scores")
    assert "Replicas" not in west.describe_table(TableName="scores")["Table"]


def test_legacy_and_strong_consistency_are_refused(door):
    east = door.client("dynamodb", EAST)
    create_table(east, "scores")
    code, message = refusal(east.update_table, TableName="scores", MultiRegionConsistency="STRONG",
                            ReplicaUpdates=[{"Create": {"RegionName": WEST}}, {"Create": {"RegionName": ASIA}}])
    assert code == "ValidationException" and message.startswith("Unsupported Region(s) specified")
    assert "Replicas" not in east.describe_table(TableName="scores")["Table"]


def test_the_delay_control_refuses_what_is_not_a_delay(door):
    with pytest.raises(Exception) as raised:
        replication(door, DelaySeconds=-1)
    assert "DelaySeconds must be a number of seconds from 0 to 86400" in str(raised.value)


def test_a_replica_s_own_read_capacity_is_its_own(door):
    """ReplicaUpdates Update: the replica's ProvisionedThroughputOverride changes the replica only (botocore's model,
    UpdateReplicationGroupMemberAction: "Replica-specific provisioned throughput. If not specified, uses the source
    table's provisioned throughput settings."), not the group's capacity as an UpdateTable's ProvisionedThroughput
    does (it was made in the source too)."""
    east, west = door.client("dynamodb", EAST), door.client("dynamodb", WEST)
    east.create_table(TableName="scores", KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                      AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                      ProvisionedThroughput={"ReadCapacityUnits": 5, "WriteCapacityUnits": 5})
    autoscaled_writes(door, "scores")
    add_replica(east, "scores", WEST)
    door.advance(31)

    def capacity(dynamodb):
        throughput = dynamodb.describe_table(TableName="scores")["Table"]["ProvisionedThroughput"]
        return throughput["ReadCapacityUnits"], throughput["WriteCapacityUnits"]

    east.update_table(TableName="scores", ReplicaUpdates=[
        {"Update": {"RegionName": WEST, "ProvisionedThroughputOverride": {"ReadCapacityUnits": 9}}}])
    assert [capacity(east), capacity(west)] == [(5, 5), (9, 5)]
    assert replica_update(east, {"Update": {"RegionName": WEST, "ProvisionedThroughputOverride": {
        "ReadCapacityUnits": 9}}}) == (
        "ValidationException", "The provisioned throughput for the table will not change. The requested value equals "
                               "the current value. Current ReadCapacityUnits provisioned for the table: 9. Requested "
                               "ReadCapacityUnits: 9. Current WriteCapacityUnits provisioned for the table: 5. "
                               "Requested WriteCapacityUnits: 5. Refer to the Amazon DynamoDB Developer Guide for "
                               "current limits and how to request higher limits.")
    assert [capacity(east), capacity(west)] == [(5, 5), (9, 5)]


def autoscaled_writes(door, table: str) -> None:
    """The table's write capacity auto scaled (a target and a policy), as a provisioned global table needs."""
    autoscaling = door.client("application-autoscaling", EAST)
    target = dict(ServiceNamespace="dynamodb", ResourceId=f"table/{table}",
                  ScalableDimension="dynamodb:table:WriteCapacityUnits")
    autoscaling.register_scalable_target(**target, MinCapacity=5, MaxCapacity=50)
    autoscaling.put_scaling_policy(**target, PolicyName="writes", PolicyType="TargetTrackingScaling",
                                   TargetTrackingScalingPolicyConfiguration={
                                       "TargetValue": 70.0, "PredefinedMetricSpecification": {
                                           "PredefinedMetricType": "DynamoDBWriteCapacityUtilization"}})

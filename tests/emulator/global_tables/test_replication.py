"""Global tables (version 2019.11.21) through boto3 at both doors: replicas made, filled, written in every region,
converging, conflicts decided last writer wins, a paused region catching up, a replica deleted."""

from __future__ import annotations

import pytest

from tests.emulator.global_tables.helpers import (
    ASIA, EAST, WEST, add_replica, changes, replication, scan, stream_records, wait_replicated,
)
from tests.emulator.helpers import create_table


def item(pk: str, v: str) -> dict:
    return {"pk": {"S": pk}, "v": {"S": v}}


def test_a_replica_is_created_and_filled_from_the_items_the_table_has(door):
    east, west = door.client("dynamodb", EAST), door.client("dynamodb", WEST)
    create_table(east, "scores", view_type=None)  # no stream: adding a replica enables one (AWS does)
    for pk in ("a", "b", "c"):
        east.put_item(TableName="scores", Item=item(pk, "1"))
    answer = add_replica(east, "scores", WEST)
    assert answer["Replicas"] == [{"RegionName": WEST, "ReplicaStatus": "CREATING"}]
    assert answer["GlobalTableVersion"] == "2019.11.21"
    assert answer["StreamSpecification"] == {"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"}
    described = west.describe_table(TableName="scores")["Table"]
    assert described["Replicas"] == [{"RegionName": EAST, "ReplicaStatus": "ACTIVE"}]
    assert described["KeySchema"] == [{"AttributeName": "pk", "KeyType": "HASH"}]
    assert described["StreamSpecification"] == {"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"}
    assert scan(west, "scores") == [item(pk, "1") for pk in ("a", "b", "c")]
    assert stream_records(door, WEST, "scores") == []  # the fill is the replica's starting state, not its changes
    door.advance(31)  # Settings.replica_transition_seconds on the emulator's clock
    assert east.describe_table(TableName="scores")["Table"]["Replicas"] == [
        {"RegionName": WEST, "ReplicaStatus": "ACTIVE"}]


def test_writes_in_each_region_reach_every_other_in_order(door):
    east, west, asia = (door.client("dynamodb", region) for region in (EAST, WEST, ASIA))
    create_table(east, "scores")
    add_replica(east, "scores", WEST)
    door.advance(31)
    add_replica(west, "scores", ASIA)  # any member region can add one
    east.put_item(TableName="scores", Item=item("a", "1"))
    west.put_item(TableName="scores", Item=item("b", "1"))
    asia.put_item(TableName="scores", Item=item("c", "1"))
    east.put_item(TableName="scores", Item=item("a", "2"))
    west.delete_item(TableName="scores", Key={"pk": {"S": "b"}})
    assert wait_replicated(door) == {"Converged": True, "Backlog": []}
    expected = [item("a", "2"), item("c", "1")]
    assert scan(east, "scores") == scan(west, "scores") == scan(asia, "scores") == expected
    # each replica's stream shows the changes applied to it, local and replicated, per item in order; replicated
    # writes carry no userIdentity (AWS: they "do not contain type or principalID properties")
    west_changes = changes(stream_records(door, WEST, "scores"))
    assert [change for change in west_changes if change[1] == "a"] == [("INSERT", "a", "1"), ("MODIFY", "a", "2")]
    assert [change for change in west_changes if change[1] == "b"] == [("INSERT", "b", "1"), ("REMOVE", "b", None)]
    assert [change for change in west_changes if change[1] == "c"] == [("INSERT", "c", "1")]
    assert all("userIdentity" not in record for record in stream_records(door, ASIA, "scores"))
    assert all(record["awsRegion"] == ASIA for record in stream_records(door, ASIA, "scores"))


def test_a_write_reaches_the_other_region_after_the_replication_delay(door):
    east, west = door.client("dynamodb", EAST), door.client("dynamodb", WEST)
    create_table(east, "scores")
    add_replica(east, "scores", WEST)
    assert replication(door, DelaySeconds=600)["DelaySeconds"] == 600
    east.put_item(TableName="scores", Item=item("a", "1"))
    assert wait_replicated(door, timeout=0.5)["Converged"] is False
    assert scan(west, "scores") == []
    backlog = replication(door)["Backlog"]
    assert [(row["TableName"], row["SourceRegion"], row["TargetRegion"], row["PendingWrites"]) for row in backlog] == [
        ("scores", EAST, WEST, 1)]
    door.advance(600)
    assert wait_replicated(door)["Converged"] is True
    assert scan(west, "scores") == [item("a", "1")]


@pytest.mark.parametrize("later", [EAST, WEST])
def test_a_conflict_is_decided_by_the_last_writer(door, later):
    east, west = door.client("dynamodb", EAST), door.client("dynamodb", WEST)
    create_table(east, "scores")
    add_replica(east, "scores", WEST)
    replication(door, Pause=WEST)  # the regions cannot see each other's writes: both write the same item
    earlier = WEST if later == EAST else EAST
    door.client("dynamodb", earlier).put_item(TableName="scores", Item=item("p", earlier))
    door.advance(1)
    door.client("dynamodb", later).put_item(TableName="scores", Item=item("p", later))
    replication(door, Resume=WEST)
    assert wait_replicated(door)["Converged"] is True
    assert scan(east, "scores") == scan(west, "scores") == [item("p", later)]
    # the region whose write lost saw the winner replace it; the winner's region saw nothing of the loser
    assert changes(stream_records(door, earlier, "scores")) == [("INSERT", "p", earlier), ("MODIFY", "p", later)]
    assert changes(stream_records(door, later, "scores")) == [("INSERT", "p", later)]


def test_a_delete_is_not_undone_by_an_older_write(door):
    east, west = door.client("dynamodb", EAST), door.client("dynamodb", WEST)
    create_table(east, "scores")
    add_replica(east, "scores", WEST)
    replication(door, Pause=WEST)
    west.put_item(TableName="scores", Item=item("p", "old"))
    door.advance(1)
    east.put_item(TableName="scores", Item=item("p", "new"))
    east.delete_item(TableName="scores", Key={"pk": {"S": "p"}})
    replication(door, Resume=WEST)
    assert wait_replicated(door)["Converged"] is True
    assert scan(east, "scores") == scan(west, "scores") == []


def test_a_paused_region_catches_up_when_resumed(door):
    east, west = door.client("dynamodb", EAST), door.client("dynamodb", WEST)
    create_table(east, "scores")
    add_replica(east, "scores", WEST)
    replication(door, Pause=WEST)
    for n in range(5):
        east.put_item(TableName="scores", Item=item("a", str(n)))
    east.put_item(TableName="scores", Item=item("b", "0"))
    waited = wait_replicated(door, timeout=1)
    assert waited["Converged"] is False
    assert [(row["SourceRegion"], row["TargetRegion"], row["PendingWrites"], row["Paused"])
            for row in waited["Backlog"]] == [(EAST, WEST, 6, True)]
    assert scan(west, "scores") == []
    assert replication(door)["PausedRegions"] == [WEST]
    replication(door, Resume=WEST)
    assert wait_replicated(door) == {"Converged": True, "Backlog": []}
    assert scan(west, "scores") == [item("a", "4"), item("b", "0")]
    assert [change for change in changes(stream_records(door, WEST, "scores")) if change[1] == "a"] == [
        ("INSERT", "a", "0")] + [("MODIFY", "a", str(n)) for n in range(1, 5)]


def test_a_replica_is_deleted(door):
    east, west = door.client("dynamodb", EAST), door.client("dynamodb", WEST)
    create_table(east, "scores")
    add_replica(east, "scores", WEST)
    door.advance(31)
    answer = east.update_table(TableName="scores", ReplicaUpdates=[{"Delete": {"RegionName": WEST}}])
    assert answer["TableDescription"]["Replicas"] == [{"RegionName": WEST, "ReplicaStatus": "DELETING"}]
    east.put_item(TableName="scores", Item=item("a", "1"))  # nothing more reaches a replica being deleted
    assert wait_replicated(door)["Converged"] is True
    assert scan(west, "scores") == []
    door.advance(31)
    described = east.describe_table(TableName="scores")["Table"]
    assert "Replicas" not in described and "GlobalTableVersion" not in described
    with pytest.raises(west.exceptions.ResourceNotFoundException):
        west.describe_table(TableName="scores")
    west_tables = west.list_tables()["TableNames"]
    assert "scores" not in west_tables


def test_a_replica_table_deleted_in_its_region_leaves_the_group(door):
    east, west = door.client("dynamodb", EAST), door.client("dynamodb", WEST)
    create_table(east, "scores")
    add_replica(east, "scores", WEST)
    door.advance(31)
    west.delete_table(TableName="scores")
    east.put_item(TableName="scores", Item=item("a", "1"))
    assert wait_replicated(door)["Converged"] is True
    assert "Replicas" not in east.describe_table(TableName="scores")["Table"]


def test_time_to_live_deletes_replicate_without_the_service_identity(door):
    east, west = door.client("dynamodb", EAST), door.client("dynamodb", WEST)
    create_table(east, "sessions")
    east.update_time_to_live(TableName="sessions", TimeToLiveSpecification={"Enabled": True, "AttributeName": "exp"})
    add_replica(east, "sessions", WEST)
    # Time to Live is the group's: the replica has it too
    assert west.describe_time_to_live(TableName="sessions")["TimeToLiveDescription"] == {
        "TimeToLiveStatus": "ENABLED", "AttributeName": "exp"}
    now = door.now()
    east.put_item(TableName="sessions", Item={"pk": {"S": "s"}, "exp": {"N": str(int(now) + 10)}})
    assert wait_replicated(door)["Converged"] is True
    door.advance(20)
    assert door.sweep_ttl() >= 1
    assert wait_replicated(door)["Converged"] is True
    assert scan(east, "sessions") == scan(west, "sessions") == []
    east_remove = stream_records(door, EAST, "sessions")[-1]
    west_remove = stream_records(door, WEST, "sessions")[-1]
    assert east_remove["eventName"] == west_remove["eventName"] == "REMOVE"
    assert east_remove["userIdentity"] == {"PrincipalId": "dynamodb.amazonaws.com", "Type": "Service"}
    assert "userIdentity" not in west_remove  # AWS: replicated TTL deletes carry no type or principalID


def test_indexes_and_capacity_are_the_groups_tags_are_a_regions(door):
    east, west = door.client("dynamodb", EAST), door.client("dynamodb", WEST)
    create_table(east, "scores")
    add_replica(east, "scores", WEST)
    door.advance(31)
    west.update_table(TableName="scores", AttributeDefinitions=[{"AttributeName": "team", "AttributeType": "S"}],
                      GlobalSecondaryIndexUpdates=[{"Create": {
                          "IndexName": "by_team", "KeySchema": [{"AttributeName": "team", "KeyType": "HASH"}],
                          "Projection": {"ProjectionType": "ALL"}}}])
    for dynamodb in (east, west):
        indexes = dynamodb.describe_table(TableName="scores")["Table"].get("GlobalSecondaryIndexes", [])
        assert [index["IndexName"] for index in indexes] == ["by_team"]
    east.put_item(TableName="scores", Item={"pk": {"S": "a"}, "team": {"S": "red"}})
    assert wait_replicated(door)["Converged"]
    found = west.query(TableName="scores", IndexName="by_team", KeyConditionExpression="team = :t",
                       ExpressionAttributeValues={":t": {"S": "red"}})["Items"]
    assert found == [{"pk": {"S": "a"}, "team": {"S": "red"}}]
    arn = east.describe_table(TableName="scores")["Table"]["TableArn"]
    east.tag_resource(ResourceArn=arn, Tags=[{"Key": "team", "Value": "games"}])
    west_arn = west.describe_table(TableName="scores")["Table"]["TableArn"]
    assert west.list_tags_of_resource(ResourceArn=west_arn)["Tags"] == []

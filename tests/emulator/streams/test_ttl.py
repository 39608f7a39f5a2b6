"""TTL: the sweeper deletes expired items on the emulator's clock and marks its REMOVE records as the service's."""

from __future__ import annotations

from tests.emulator.helpers import create_table, read_stream


def setup_ttl(door):
    dynamodb, streams = door.client("dynamodb"), door.client("dynamodbstreams")
    arn = create_table(dynamodb, "sessions")["LatestStreamArn"]
    dynamodb.update_time_to_live(TableName="sessions",
                                 TimeToLiveSpecification={"Enabled": True, "AttributeName": "expires"})
    return dynamodb, streams, arn


def test_ttl_is_described(door):
    dynamodb, _, _ = setup_ttl(door)
    assert dynamodb.describe_time_to_live(TableName="sessions")["TimeToLiveDescription"] == {
        "TimeToLiveStatus": "ENABLED", "AttributeName": "expires"}


def test_sweeper_deletes_expired_items_with_the_service_identity(door):
    dynamodb, streams, arn = setup_ttl(door)
    now = int(door.now())
    items = {
        "expired": {"N": str(now + 60)},
        "later": {"N": str(now + 3600)},
        "not-a-number": {"S": str(now - 10)},
        "ancient": {"N": str(now - 6 * 365 * 24 * 3600)},  # more than five years past: AWS leaves it
    }
    for key, expires in items.items():
        dynamodb.put_item(TableName="sessions", Item={"pk": {"S": key}, "expires": expires})
    dynamodb.put_item(TableName="sessions", Item={"pk": {"S": "no-ttl"}})
    assert door.sweep_ttl() == 0
    door.advance(61)
    assert door.sweep_ttl() == 1
    dynamodb.delete_item(TableName="sessions", Key={"pk": {"S": "later"}})  # a user's own delete

    remaining = {item["pk"]["S"] for item in dynamodb.scan(TableName="sessions")["Items"]}
    assert remaining == {"not-a-number", "ancient", "no-ttl"}
    removes = [r for r in read_stream(streams, arn) if r["eventName"] == "REMOVE"]
    assert [r["dynamodb"]["Keys"]["pk"]["S"] for r in removes] == ["expired", "later"]
    assert removes[0]["userIdentity"] == {"PrincipalId": "dynamodb.amazonaws.com", "Type": "Service"}
    assert removes[0]["dynamodb"]["OldImage"] == {"pk": {"S": "expired"}, "expires": items["expired"]}
    assert "userIdentity" not in removes[1]


def test_disabled_ttl_deletes_nothing(door):
    dynamodb, streams, arn = setup_ttl(door)
    door.advance(3600)  # DynamoDB refuses a second change within the hour (test_time_to_live.py)
    dynamodb.update_time_to_live(TableName="sessions",
                                 TimeToLiveSpecification={"Enabled": False, "AttributeName": "expires"})
    dynamodb.put_item(TableName="sessions", Item={"pk": {"S": "a"}, "expires": {"N": str(int(door.now()) - 5)}})
    assert door.sweep_ttl() == 0


def test_the_housekeeper_sweeps_by_itself(tmp_path):
    """Without being asked: the background housekeeper deletes expired items (waits on the stream, not a sleep)."""
    import time

    import boto3

    from eddy import emulate

    with emulate(housekeeping_interval=0.05) as emu:
        dynamodb = boto3.client("dynamodb", region_name="us-east-1")
        create_table(dynamodb, "sessions")
        dynamodb.update_time_to_live(TableName="sessions",
                                     TimeToLiveSpecification={"Enabled": True, "AttributeName": "expires"})
        dynamodb.put_item(TableName="sessions", Item={"pk": {"S": "a"}, "expires": {"N": str(int(emu.clock.now()) - 1)}})
        deadline = time.monotonic() + 120  # a busy machine sweeps late; the wait ends when it has
        with emu.activity:
            while dynamodb.get_item(TableName="sessions", Key={"pk": {"S": "a"}}).get("Item") and time.monotonic() < deadline:
                emu.activity.wait(timeout=0.5)
        assert "Item" not in dynamodb.get_item(TableName="sessions", Key={"pk": {"S": "a"}})

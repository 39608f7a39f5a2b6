"""UpdateTimeToLive against the table's current Time to Live, and DescribeTimeToLive once it is off, as AWS answers.

Sources: ScyllaDB's AWS-run test_ttl.py (test_ttl_enable: enabling twice, or under another attribute, is refused;
test_ttl_disable_errors: disabling when disabled, or under another attribute; test_ttl_disable: once off,
DescribeTimeToLive is {"TimeToLiveStatus": "DISABLED"}); the words as AWS's clients match them: the Terraform AWS
provider ("TimeToLive is already disabled"), Ansible's dynamodb_ttl tests ("TimeToLive is active on a different
AttributeName: current AttributeName is {}"), and "TimeToLive is already enabled" handled by many deployment scripts.
A change within an hour of the last one: the DynamoDB API reference (UpdateTimeToLive: "Any additional
UpdateTimeToLive calls for the same table during this one hour duration result in a ValidationException"), in the
words and order AWS answered the ack-api-quirks DynamoDB findings DDB-TABLE-143 and 147 (verified 2026-10-09): "Time
to live has been modified multiple times within a fixed interval", after the content checks; DDB-TABLE-144:
DescribeTimeToLive shows the settled status at once (ENABLING or DISABLING never observed)."""

from __future__ import annotations

from tests.emulator.api.dynamodb.rules.conftest import TABLE, invalid, refused


def ttl(client, name: str, enabled: bool):
    return client.update_time_to_live(TableName=TABLE, TimeToLiveSpecification={"AttributeName": name,
                                                                                "Enabled": enabled})


def described(client) -> dict:
    return client.describe_time_to_live(TableName=TABLE)["TimeToLiveDescription"]


INTERVAL = invalid("Time to live has been modified multiple times within a fixed interval")


def test_time_to_live_is_enabled_once_on_one_attribute_and_disabled_once(dynamodb, door):
    assert refused(lambda: ttl(dynamodb, "expiration", False)) == invalid("TimeToLive is already disabled")
    assert described(dynamodb) == {"TimeToLiveStatus": "DISABLED"}
    assert ttl(dynamodb, "expiration", True)["TimeToLiveSpecification"] == {"AttributeName": "expiration",
                                                                            "Enabled": True}
    assert refused(lambda: ttl(dynamodb, "expiration", True)) == invalid("TimeToLive is already enabled")
    different = invalid("TimeToLive is active on a different AttributeName: current AttributeName is expiration")
    assert refused(lambda: ttl(dynamodb, "new", True)) == different
    assert refused(lambda: ttl(dynamodb, "dog", False)) == different
    assert described(dynamodb) == {"TimeToLiveStatus": "ENABLED", "AttributeName": "expiration"}
    door.advance(3600)
    assert ttl(dynamodb, "expiration", False)["TimeToLiveSpecification"] == {"AttributeName": "expiration",
                                                                             "Enabled": False}
    assert described(dynamodb) == {"TimeToLiveStatus": "DISABLED"}
    assert refused(lambda: ttl(dynamodb, "expiration", False)) == invalid("TimeToLive is already disabled")


def test_a_change_within_an_hour_of_the_last_is_refused_after_the_content_checks(dynamodb, door):
    ttl(dynamodb, "expiration", True)
    door.advance(3599)
    assert refused(lambda: ttl(dynamodb, "expiration", False)) == INTERVAL
    assert refused(lambda: ttl(dynamodb, "expiration", True)) == invalid("TimeToLive is already enabled")
    assert refused(lambda: ttl(dynamodb, "other", False)) == invalid(
        "TimeToLive is active on a different AttributeName: current AttributeName is expiration")
    assert described(dynamodb) == {"TimeToLiveStatus": "ENABLED", "AttributeName": "expiration"}
    door.advance(1)  # a refused change does not start the hour again
    assert ttl(dynamodb, "expiration", False)["TimeToLiveSpecification"] == {"AttributeName": "expiration",
                                                                             "Enabled": False}
    assert described(dynamodb) == {"TimeToLiveStatus": "DISABLED"}
    assert refused(lambda: ttl(dynamodb, "renamed", True)) == INTERVAL  # a rename waits an hour after the disable
    dynamodb.delete_table(TableName=TABLE)
    dynamodb.create_table(TableName=TABLE, BillingMode="PAY_PER_REQUEST",
                          KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                          AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}])
    assert ttl(dynamodb, "renamed", True)["TimeToLiveSpecification"] == {"AttributeName": "renamed", "Enabled": True}

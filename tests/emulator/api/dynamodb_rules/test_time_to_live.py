"""UpdateTimeToLive against the table's current Time to Live, and DescribeTimeToLive once it is off, as AWS answers.

Sources: ScyllaDB's AWS-run test_ttl.py (test_ttl_enable: enabling twice, or under another attribute, is refused;
test_ttl_disable_errors: disabling when disabled, or under another attribute; test_ttl_disable: once off,
DescribeTimeToLive is {"TimeToLiveStatus": "DISABLED"}); the words as AWS's clients match them: the Terraform AWS
provider ("TimeToLive is already disabled"), Ansible's dynamodb_ttl tests ("TimeToLive is active on a different
AttributeName: current AttributeName is {}"), and "TimeToLive is already enabled" handled by many deployment scripts."""

from __future__ import annotations

from tests.emulator.api.dynamodb_rules.conftest import TABLE, invalid, refused


def ttl(client, name: str, enabled: bool):
    return client.update_time_to_live(TableName=TABLE, TimeToLiveSpecification={"AttributeName": name,
                                                                                "Enabled": enabled})


def described(client) -> dict:
    return client.describe_time_to_live(TableName=TABLE)["TimeToLiveDescription"]


def test_time_to_live_is_enabled_once_on_one_attribute_and_disabled_once(dynamodb):
    assert refused(lambda: ttl(dynamodb, "expiration", False)) == invalid("TimeToLive is already disabled")
    assert described(dynamodb) == {"TimeToLiveStatus": "DISABLED"}
    assert ttl(dynamodb, "expiration", True)["TimeToLiveSpecification"] == {"AttributeName": "expiration",
                                                                            "Enabled": True}
    assert refused(lambda: ttl(dynamodb, "expiration", True)) == invalid("TimeToLive is already enabled")
    different = invalid("TimeToLive is active on a different AttributeName: current AttributeName is expiration")
    assert refused(lambda: ttl(dynamodb, "new", True)) == different
    assert refused(lambda: ttl(dynamodb, "dog", False)) == different
    assert described(dynamodb) == {"TimeToLiveStatus": "ENABLED", "AttributeName": "expiration"}
    assert ttl(dynamodb, "expiration", False)["TimeToLiveSpecification"] == {"AttributeName": "expiration",
                                                                             "Enabled": False}
    assert described(dynamodb) == {"TimeToLiveStatus": "DISABLED"}
    assert refused(lambda: ttl(dynamodb, "expiration", False)) == invalid("TimeToLive is already disabled")

"""The event bus API's answers, in both doors, each compared whole with the answer AWS recorded: LocalStack's
AWS-validated tests/aws/services/events/test_events.py and test_events.snapshot.json (localstack/localstack at
8b9a79f05846): TestEventBus::test_create_list_describe_delete_custom_event_buses[True-regions0],
test_list_event_buses_with_limit, test_put_permission[custom|default], test_remove_permission_non_existing_sid,
TestEventRule::test_describe_nonexistent_rule and TestEventTarget::test_list_target_by_rule_limit."""

from __future__ import annotations

import json
from datetime import datetime

import pytest
from botocore.exceptions import ClientError

from tests.emulator.triggers.sqs_helpers import queue

ACCOUNT, REGION = "123456789012", "us-east-1"
OTHER_ACCOUNT = "210987654321"


def answer(response: dict) -> dict:
    """A response without its ResponseMetadata, its times checked to be times and shown as the recording shows them."""
    shown = {key: value for key, value in response.items() if key != "ResponseMetadata"}
    for bus in shown.get("EventBuses", []):
        for member in ("CreationTime", "LastModifiedTime"):
            assert isinstance(bus[member], datetime)
            bus[member] = "datetime"
    return shown


def bus_arn(name: str) -> str:
    return f"arn:aws:events:{REGION}:{ACCOUNT}:event-bus/{name}"


def test_a_bus_made_with_a_description_is_answered_and_listed_with_it_and_its_times(door):
    events = door.client("events")
    made = events.create_event_bus(Name="test-bus-1a2b", Description="test bus")
    assert answer(made) == {"Description": "test bus", "EventBusArn": bus_arn("test-bus-1a2b")}
    listed = events.list_event_buses(NamePrefix="test-bus-1a2b")
    assert answer(listed) == {"EventBuses": [
        {"Arn": bus_arn("test-bus-1a2b"), "CreationTime": "datetime", "Description": "test bus",
         "LastModifiedTime": "datetime", "Name": "test-bus-1a2b"}]}
    events.delete_event_bus(Name="test-bus-1a2b")
    assert answer(events.list_event_buses(NamePrefix="test-bus-1a2b")) == {"EventBuses": []}


def test_buses_listed_a_page_at_a_time(door):
    events = door.client("events")
    for n in range(6):
        events.create_event_bus(Name=f"paged-bus-{n}")
    first = events.list_event_buses(NamePrefix="paged-bus", Limit=3)
    token = first["NextToken"]
    page = [{"Arn": bus_arn(f"paged-bus-{n}"), "CreationTime": "datetime", "LastModifiedTime": "datetime",
             "Name": f"paged-bus-{n}"} for n in range(6)]
    assert answer(first) == {"EventBuses": page[:3], "NextToken": token}
    assert answer(events.list_event_buses(NamePrefix="paged-bus", Limit=5, NextToken=token)) == {
        "EventBuses": page[3:]}


@pytest.mark.parametrize("bus", ["custom-bus", "default"])
def test_permissions_are_statements_by_id_and_a_policy_replaces_them_all(door, bus):
    events = door.client("events")
    if bus != "default":
        events.create_event_bus(Name=bus)

    def allow(sid: str, principal: str) -> None:
        events.put_permission(EventBusName=bus, Action="events:PutEvents", Principal=principal, StatementId=sid)

    def statement(sid: str, principal: object) -> dict:
        return {"Sid": sid, "Effect": "Allow", "Principal": principal, "Action": "events:PutEvents",
                "Resource": bus_arn(bus)}

    def policy() -> dict:
        described = events.describe_event_bus(Name=bus)
        document = json.loads(described["Policy"])
        return {**document, "Statement": sorted(document["Statement"], key=lambda s: s["Sid"])}

    allow("statement-1", ACCOUNT)
    allow("statement-2", ACCOUNT)
    allow("statement-3", OTHER_ACCOUNT)
    root = {"AWS": f"arn:aws:iam::{ACCOUNT}:root"}
    assert policy() == {"Version": "2012-10-17", "Statement": [
        statement("statement-1", root), statement("statement-2", root),
        statement("statement-3", {"AWS": f"arn:aws:iam::{OTHER_ACCOUNT}:root"})]}
    allow("statement-4", "*")
    allow("statement-4", "*")  # the same id again: replaced
    assert policy()["Statement"][3:] == [statement("statement-4", "*")]
    assert len(policy()["Statement"]) == 4
    listing = {"Sid": "statement-5", "Effect": "Allow", "Principal": {"Service": "events.amazonaws.com"},
               "Action": "events:ListRules", "Resource": "*"}
    events.put_permission(EventBusName=bus, Policy=json.dumps({"Version": "2012-10-17", "Statement": [listing]}))
    assert policy() == {"Version": "2012-10-17", "Statement": [listing]}


@pytest.mark.parametrize("with_policy", [True, False])
def test_removing_a_statement_the_bus_does_not_have_is_refused_in_eventbridges_words(door, with_policy):
    events = door.client("events")
    events.create_event_bus(Name="guarded")
    if with_policy:
        events.put_permission(EventBusName="guarded", Action="events:PutEvents", Principal=ACCOUNT,
                              StatementId="statement-1")
    with pytest.raises(ClientError) as refused:
        events.remove_permission(EventBusName="guarded", StatementId="non-existing-sid")
    assert refused.value.response["Error"] == {"Code": "ResourceNotFoundException",
                                               "Message": "Statement with the provided id does not exist."}
    assert refused.value.response["ResponseMetadata"]["HTTPStatusCode"] == 400


def test_describing_a_missing_rule_names_its_bus(door):
    events = door.client("events")
    with pytest.raises(ClientError) as refused:
        events.describe_rule(Name="rule-missing")
    assert refused.value.response["Error"] == {"Code": "ResourceNotFoundException",
                                               "Message": "Rule rule-missing does not exist on EventBus default."}


def test_a_rules_targets_listed_a_page_at_a_time(door):
    events, sqs = door.client("events"), door.client("sqs")
    _, arn = queue(sqs, "targets")
    events.put_rule(Name="paged", EventPattern=json.dumps({"source": ["core.update-account-command"]}))
    events.put_targets(Rule="paged", Targets=[{"Id": f"test-target-{n}", "Arn": arn} for n in range(5)])
    first = events.list_targets_by_rule(Rule="paged", Limit=3)
    targets = [{"Arn": arn, "Id": f"test-target-{n}"} for n in range(5)]
    assert answer(first) == {"Targets": targets[:3], "NextToken": first["NextToken"]}
    assert answer(events.list_targets_by_rule(Rule="paged", NextToken=first["NextToken"])) == {"Targets": targets[3:]}

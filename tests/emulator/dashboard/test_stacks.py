"""The dashboard's CloudFormation stacks (emulator/dashboard/stacks.py), in both doors: each live stack with its
resources and last events exactly as the CloudFormation API describes them, each event with the line `eddy tail
--stack` prints; a deleted stack leaves the model."""

from __future__ import annotations

import datetime
import re

from eddy.emulator.dashboard.stacks import stack_event_line
from eddy.emulator.dashboard.view import dashboard
from tests.conftest import http_json

TEMPLATE = """
Resources:
  Inbox: {Type: AWS::SQS::Queue}
  Orders:
    Type: AWS::DynamoDB::Table
    Properties:
      AttributeDefinitions: [{AttributeName: pk, AttributeType: S}]
      KeySchema: [{AttributeName: pk, KeyType: HASH}]
      BillingMode: PAY_PER_REQUEST
"""
BROKEN = TEMPLATE + """
  Cache: {Type: AWS::ElastiCache::CacheCluster, Properties: {Engine: redis}}
"""


def model_of(door) -> dict:
    return dashboard(door.emu) if door.name == "inprocess" else http_json(door.url + "/_eddy/dashboard")


def seconds(value: datetime.datetime) -> int:
    """An API timestamp in milliseconds (the wire carries milliseconds)."""
    return round(value.timestamp() * 1000)


def milliseconds(value: float) -> int:
    """The model's time (seconds, a float) in the API's milliseconds, as the query protocol writes it: the instant to
    the microsecond (datetime.fromtimestamp rounds), then its milliseconds truncated. int(value * 1000) differed from
    it by one for about one time in 3,000 (a float a hair under a millisecond's boundary), and a test compares about
    forty of them: the whole run of 2026-11-29 15:26 failed on one."""
    moment = datetime.datetime.fromtimestamp(value, datetime.timezone.utc)
    return seconds(moment.replace(microsecond=moment.microsecond // 1000 * 1000))


def test_a_stacks_resources_and_last_events_are_the_apis(door):
    cloudformation = door.client("cloudformation")
    cloudformation.create_stack(StackName="shop", TemplateBody=TEMPLATE)
    cloudformation.create_stack(StackName="broken", TemplateBody=BROKEN)  # rolled back: a type Eddy does not serve
    stacks = model_of(door)["Stacks"]
    assert [stack["StackName"] for stack in stacks] == ["broken", "shop"]
    for stack in stacks:
        described = cloudformation.describe_stacks(StackName=stack["StackName"])["Stacks"][0]
        resources = cloudformation.list_stack_resources(StackName=stack["StackName"])["StackResourceSummaries"]
        events = cloudformation.describe_stack_events(StackName=stack["StackName"])["StackEvents"][:10]
        expected = {"StackName": described["StackName"], "StackId": described["StackId"], "Region": "us-east-1",
                    "StackStatus": described["StackStatus"], "CreationTime": seconds(described["CreationTime"]),
                    **({"StackStatusReason": described["StackStatusReason"]} if "StackStatusReason" in described else {}),
                    "Resources": [{key: seconds(value) if key == "LastUpdatedTimestamp" else value
                                   for key, value in resource.items() if key != "DriftInformation"}
                                  for resource in resources],
                    "Events": [{**{key: seconds(value) if key == "Timestamp" else value for key, value in event.items()
                                   if key not in ("StackId", "StackName", "ResourceProperties")},
                                "Line": stack_event_line(event)} for event in events]}
        rounded = {**stack, "CreationTime": milliseconds(stack["CreationTime"]),
                   "Resources": [{**r, "LastUpdatedTimestamp": milliseconds(r["LastUpdatedTimestamp"])}
                                 for r in stack["Resources"]],
                   "Events": [{**e, "Timestamp": milliseconds(e["Timestamp"])} for e in stack["Events"]]}
        assert rounded == expected
    broken, shop = stacks
    assert shop["StackStatus"] == "CREATE_COMPLETE" and [(r["LogicalResourceId"], r["ResourceStatus"])
                                                         for r in shop["Resources"]] == [("Inbox", "CREATE_COMPLETE"),
                                                                                         ("Orders", "CREATE_COMPLETE")]
    assert broken["StackStatus"] == "ROLLBACK_COMPLETE"
    failed = next(event for event in broken["Events"] if event["ResourceStatus"] == "CREATE_FAILED")
    assert re.fullmatch(r"\d\d:\d\d:\d\d  CREATE_FAILED         Cache  AWS::ElastiCache::CacheCluster  .*"
                        r"AWS::ElastiCache::CacheCluster.*", failed["Line"]), failed["Line"]
    cloudformation.delete_stack(StackName="broken")
    assert [stack["StackName"] for stack in model_of(door)["Stacks"]] == ["shop"]

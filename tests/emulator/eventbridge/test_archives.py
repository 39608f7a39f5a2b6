"""EventBridge archives and replays, in both doors: an archive keeps the events put on its bus, and StartReplay sends
the archived events of its time window (on the emulator's clock) to the rules its Destination.FilterArns names, each
with a new id and its replay-name, never into the archive again.

Sources: LocalStack's AWS-validated tests/aws/services/events/test_archive_and_replay.py and its snapshot
(TestReplay::test_start_list_describe_canceled_replay: StartReplay answers State "STARTING", the replayed message's
body has "replay-name" between "region" and "resources", the replay ends COMPLETED); Amazon EventBridge User Guide,
"Replaying archived events" (the window, FilterArns)."""

from __future__ import annotations

import json
import sys
from datetime import datetime, timezone

from tests.emulator.triggers.sqs_helpers import queue
from tests.emulator.trigger_helpers import wait_idle

EVENT_FIELDS = ["version", "id", "detail-type", "source", "account", "time", "region", "resources", "detail"]
REPLAYED_FIELDS = ["version", "id", "detail-type", "source", "account", "time", "region", "replay-name", "resources",
                   "detail"]


def moment(seconds: float) -> datetime:
    return datetime.fromtimestamp(seconds, timezone.utc)


def bodies(sqs, url: str) -> list[dict]:
    answer = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10, VisibilityTimeout=0)
    return [json.loads(m["Body"]) for m in answer.get("Messages", [])]


def test_a_replay_sends_its_windows_archived_events_to_the_rules_it_names(door):
    events, sqs = door.client("events"), door.client("sqs")
    chosen_url, chosen_arn = queue(sqs, "chosen")
    other_url, other_arn = queue(sqs, "other")
    bus = events.create_event_bus(Name="orders")["EventBusArn"]
    rule = events.put_rule(Name="placed", EventBusName="orders", EventPattern=json.dumps({"source": ["shop"]}))["RuleArn"]
    events.put_rule(Name="also", EventBusName="orders", EventPattern=json.dumps({"source": ["shop"]}))
    events.put_targets(Rule="placed", EventBusName="orders", Targets=[{"Id": "q", "Arn": chosen_arn}])
    events.put_targets(Rule="also", EventBusName="orders", Targets=[{"Id": "q", "Arn": other_arn}])
    archive = events.create_archive(ArchiveName="orders-archive", EventSourceArn=bus)["ArchiveArn"]

    started = door.now()
    for order in ("o-1", "o-2"):
        events.put_events(Entries=[{"EventBusName": "orders", "Source": "shop", "DetailType": "placed",
                                    "Detail": json.dumps({"order": order})}])
    door.advance(3600)
    events.put_events(Entries=[{"EventBusName": "orders", "Source": "shop", "DetailType": "placed",
                                "Detail": json.dumps({"order": "o-3, an hour later"})}])
    assert wait_idle(door)["Idle"]
    originals = bodies(sqs, chosen_url)
    assert [body["detail"]["order"] for body in originals] == ["o-1", "o-2", "o-3, an hour later"]
    assert all(list(body) == EVENT_FIELDS for body in originals)
    assert events.describe_archive(ArchiveName="orders-archive")["EventCount"] == 3
    for message in sqs.receive_message(QueueUrl=chosen_url, MaxNumberOfMessages=10)["Messages"]:
        sqs.delete_message(QueueUrl=chosen_url, ReceiptHandle=message["ReceiptHandle"])
    before_replay = len(bodies(sqs, other_url))

    answer = events.start_replay(ReplayName="first-hour", EventSourceArn=archive, EventStartTime=moment(started - 1),
                                 EventEndTime=moment(started + 60), Destination={"Arn": bus, "FilterArns": [rule]})
    assert (answer["ReplayArn"], answer["State"]) == (
        bus.replace(":event-bus/orders", ":replay/first-hour"), "STARTING")
    assert wait_idle(door)["Idle"]
    replayed = bodies(sqs, chosen_url)
    assert [list(body) for body in replayed] == [REPLAYED_FIELDS, REPLAYED_FIELDS]
    assert replayed == [dict(original, id=body["id"], **{"replay-name": "first-hour"})
                        for original, body in zip(originals[:2], replayed)]
    assert {body["id"] for body in replayed}.isdisjoint(body["id"] for body in originals)  # each a new id
    assert len(bodies(sqs, other_url)) == before_replay  # a rule the replay does not name gets nothing
    assert events.describe_archive(ArchiveName="orders-archive")["EventCount"] == 3  # replays are not archived
    described = events.describe_replay(ReplayName="first-hour")
    assert (described["State"], described["Destination"]) == ("COMPLETED", {"Arn": bus, "FilterArns": [rule]})
    assert described["ReplayStartTime"].timestamp() >= started + 3600  # on the emulator's clock


def test_the_targets_moto_delivers_need_no_jsonpath_package(door, monkeypatch):
    """An archive and another bus (targets moto delivers, through its template parser) take events without
    jsonpath-ng, which moto's `events` extra brings and Eddy's plain install leaves out: in-process the package is
    made unimportable for the test; the server runs the same seam."""
    if door.name == "inprocess":
        monkeypatch.setitem(sys.modules, "jsonpath_ng", None)
        monkeypatch.setitem(sys.modules, "jsonpath_ng.ext", None)
    events, sqs = door.client("events"), door.client("sqs")
    url, arn = queue(sqs, "forwarded")
    bus = events.create_event_bus(Name="orders")["EventBusArn"]
    other = events.create_event_bus(Name="shipping")["EventBusArn"]
    events.put_rule(Name="forward", EventBusName="orders", EventPattern=json.dumps({"source": ["shop"]}))
    events.put_targets(Rule="forward", EventBusName="orders", Targets=[{"Id": "bus", "Arn": other}])
    events.put_rule(Name="ship", EventBusName="shipping", EventPattern=json.dumps({"source": ["shop"]}))
    events.put_targets(Rule="ship", EventBusName="shipping", Targets=[{"Id": "q", "Arn": arn}])
    events.create_archive(ArchiveName="orders-archive", EventSourceArn=bus)

    events.put_events(Entries=[{"EventBusName": "orders", "Source": "shop", "DetailType": "placed",
                                "Detail": json.dumps({"order": "o-1", "lines": [{"sku": "a", "count": 2}]})}])
    assert wait_idle(door)["Idle"]
    [forwarded] = bodies(sqs, url)
    assert list(forwarded) == EVENT_FIELDS
    assert {name: forwarded[name] for name in ("detail-type", "source", "detail")} == {
        "detail-type": "placed", "source": "shop", "detail": {"order": "o-1", "lines": [{"sku": "a", "count": 2}]}}
    assert events.describe_archive(ArchiveName="orders-archive")["EventCount"] == 1

"""moto_seam/eventbridge/rules.py pinned against moto's own EventBridge: the pieces of moto it relies on are still there
(Rule.send_to_targets, EventPattern._raw_pattern, the unix_time moto stamps events with), moto's delivery is what
Eddy leaves to moto and what runs again once the emulator closes, and targets' input transformation is moto's."""

from __future__ import annotations

import inspect
import json

import boto3
from moto import mock_aws
from moto.events import models as events_models
from moto.events.models import Rule

from eddy import emulate
from eddy.emulator.moto_seam.eventbridge import rules as events_seam
from tests.conftest import QUIET

REGION = "us-east-1"


def _rule_to_queue(events, sqs) -> str:
    url = sqs.create_queue(QueueName="q")["QueueUrl"]
    arn = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    events.put_rule(Name="r", EventPattern=json.dumps({"source": ["s"]}))
    events.put_targets(Rule="r", Targets=[{"Id": "q", "Arn": arn}])
    return url


def test_the_moto_pieces_the_seam_relies_on_are_there():
    assert list(inspect.signature(events_seam._original_send_to_targets).parameters) == [
        "self", "original_event", "transform_input"]
    assert Rule.send_to_targets is events_seam._original_send_to_targets  # no emulator open: moto's own
    assert list(inspect.signature(events_seam._original_put_targets).parameters) == ["self", "targets"]
    assert Rule.put_targets is events_seam._original_put_targets
    pattern = events_models.EventPattern.load(json.dumps({"source": ["s"]}))
    assert pattern._raw_pattern == json.dumps({"source": ["s"]})
    # moto's delivery asks its own matcher first: the seam answers for it, with Eddy's engine's decision
    assert "if not self.event_pattern.matches_event(original_event):" in inspect.getsource(Rule.send_to_targets)
    assert callable(events_models.unix_time)


def test_moto_delivers_again_after_the_emulator_closes():
    with emulate(**QUIET):
        pass
    assert Rule.send_to_targets is events_seam._original_send_to_targets
    assert events_models.unix_time is events_seam._original_unix_time
    with mock_aws():
        events, sqs = boto3.client("events", region_name=REGION), boto3.client("sqs", region_name=REGION)
        url = _rule_to_queue(events, sqs)
        events.put_events(Entries=[{"Source": "s", "DetailType": "d", "Detail": "{}"}])
        [message] = sqs.receive_message(QueueUrl=url)["Messages"]  # moto's own delivery, synchronous
        assert json.loads(message["Body"])["source"] == "s"


def test_targets_eddy_does_not_take_are_left_to_moto():
    with emulate(**QUIET) as emu:
        logs = boto3.client("logs", region_name=REGION)
        logs.create_log_group(logGroupName="/events/orders")
        events = boto3.client("events", region_name=REGION)
        events.put_rule(Name="r", EventPattern=json.dumps({"source": ["s"]}))
        events.put_targets(Rule="r", Targets=[{"Id": "log", "Arn": f"arn:aws:logs:{REGION}:123456789012:log-group:/events/orders"}])
        events.put_events(Entries=[{"Source": "s", "DetailType": "d", "Detail": json.dumps({"n": 1})}])
        emu.assert_delivered()
        streams = logs.describe_log_streams(logGroupName="/events/orders")["logStreams"]
        [line] = logs.get_log_events(logGroupName="/events/orders", logStreamName=streams[0]["logStreamName"])["events"]
        assert json.loads(line["message"])["detail"] == {"n": 1}


def test_what_goes_to_motos_targets_is_decided_by_eddys_engine():
    """moto's matcher takes a JSON true for the number 1 (Python's True == 1); EventBridge does not: an event with
    "n": true reaches no target, moto's log group included, while "n": 1 reaches it."""
    with emulate(**QUIET) as emu:
        logs = boto3.client("logs", region_name=REGION)
        logs.create_log_group(logGroupName="/events/orders")
        events = boto3.client("events", region_name=REGION)
        events.put_rule(Name="r", EventPattern=json.dumps({"detail": {"n": [{"numeric": ["=", 1]}]}}))
        events.put_targets(Rule="r", Targets=[{"Id": "log", "Arn": f"arn:aws:logs:{REGION}:123456789012:log-group:/events/orders"}])
        assert events_models.EventPattern.load(json.dumps({"detail": {"n": [{"numeric": ["=", 1]}]}})).matches_event(
            {"detail": {"n": True}})  # moto's own answer
        for n in (True, 1):
            events.put_events(Entries=[{"Source": "s", "DetailType": "d", "Detail": json.dumps({"n": n})}])
        emu.assert_delivered()
        streams = logs.describe_log_streams(logGroupName="/events/orders")["logStreams"]
        lines = logs.get_log_events(logGroupName="/events/orders", logStreamName=streams[0]["logStreamName"])["events"]
        assert [json.loads(line["message"])["detail"] for line in lines] == [{"n": 1}]


def test_targets_input_for_motos_delivery_is_what_motos_parser_makes_without_jsonpath():
    """The seam's EventTemplateParser.parse gives what moto's own gives (moto reads paths with jsonpath-ng, which
    Eddy's plain install leaves out): moto's default template, an archive's template (moto's CreateArchive), and
    InputTransformers with nested paths, indices, a wildcard, numbers, lists and a path with nothing there."""
    event = {"version": "0", "id": "e-1", "detail-type": "placed", "source": "shop", "account": "123456789012",
             "time": 1700000000, "region": REGION, "resources": ["arn:aws:s3:::b"], "ingestion-time": 1700000000.5,
             "detail": {"order": "o-1", "total": 12.5, "lines": [{"sku": "a"}, {"sku": "b"}], "flags": []}}
    archive = ('{"archive-arn": "arn:aws:events:us-east-1:123456789012:archive/a:u", "event": <aws.events.event.json>, '
               '"ingestion-time": <aws.events.event.ingestion-time>}')  # moto's CreateArchive's target
    cases = [
        (None, None),
        (archive, {}),
        ('{"order": "<order>", "total": <total>, "first": "<first>", "skus": "<skus>"}',
         {"order": "$.detail.order", "total": "$.detail.total", "first": "$.detail.lines[0].sku",
          "skus": "$.detail.lines[*].sku"}),
        ('{"lines": <lines>}', {"lines": "$.detail.lines"}),  # moto writes a list's objects as JSON strings
        ('{"missing": "<missing>", "flags": <flags>, "source": "<source>"}',
         {"missing": "$.detail.nothing", "flags": "$.detail.flags", "source": "$.source"}),
    ]
    for template, paths in cases:
        assert events_seam._template_parse(template, paths, event) == events_seam._original_template_parse(
            template, paths, event)


def test_one_put_events_gives_each_rule_the_same_time_and_ingestion_time():
    """moto stamped an event for each rule of its bus with a new read of the clock, so two rules (or a rule and an
    archive) could see one event a second apart; the seam holds one instant for the call. The clock here moves a
    second at each read."""
    ticks = iter(range(1_700_000_000, 1_700_001_000))
    seen: list[dict] = []
    with emulate(**QUIET):
        events = boto3.client("events", region_name=REGION)
        for name in ("first", "second", "third"):
            events.put_rule(Name=name, EventPattern=json.dumps({"source": ["s"]}))
        events_seam.activate(lambda: float(next(ticks)), lambda rule, event: seen.append(event) or [])
        events.put_events(Entries=[{"Source": "s", "DetailType": "d", "Detail": "{}"}])
    assert len(seen) == 3
    assert {(event["time"], event["ingestion-time"]) for event in seen} == {(seen[0]["time"], seen[0]["time"])}

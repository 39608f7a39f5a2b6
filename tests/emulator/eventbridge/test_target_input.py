"""What an EventBridge target receives: Input, InputPath and InputTransformer, compared whole with AWS's recorded
answers, and PutTargets' refusals of a target's input, in both doors.

Sources: LocalStack's AWS-validated tests/aws/services/events/test_events_inputs.py and its snapshot
(test_events_inputs.snapshot.json; each case names its test); Amazon EventBridge User Guide, "Amazon EventBridge
input transformation" (the examples table; "The JSON that is passed to the target is minified").
"""

from __future__ import annotations

import hashlib
import json

import pytest
from botocore.exceptions import ClientError

from eddy.emulator.eventbridge.target_input import target_input, transformed
from tests.emulator.triggers.sqs_helpers import queue
from tests.emulator.trigger_helpers import wait_idle

# LocalStack's SPECIAL_EVENT_DETAIL and TEST_EVENT_PATTERN (tests/aws/services/events/test_events.py)
DETAIL = {"command": "update-account", "payload": {"acc_id": "0a787ecb-4015", "sf_id": "baz"}, "listsingle": ["HIGH"],
          "listmulti": ["ACTIVE", "INACTIVE"], "valid": True}
PATTERN = {"source": ["core.update-account-command"], "detail-type": ["core.update-account-command"],
           "detail": {"command": ["update-account"]}}
EVENT = {"version": "0", "id": "e-1", "detail-type": "core.update-account-command", "source": "core.update-account-command",
         "account": "123456789012", "time": "2026-11-28T05:00:00Z", "region": "us-east-1", "resources": [],
         "detail": DETAIL}
RULE_ARN = "arn:aws:events:us-east-1:123456789012:rule/bus-1/rule-1"
PATHS = {"userId": "$.detail.payload.acc_id", "payload": "$.detail.payload", "systemstring": "$.detail.awsAccountId",
         "listsingle": "$.detail.listsingle", "listmulti": "$.detail.listmulti", "valid": "$.detail.valid"}

# test_input_transformer_nested_keys_replacement[...]: the template and the SQS body AWS delivered
NESTED_KEYS = [
    ('{"method": "PUT", "path": "users-service/users/<userId>", "bod": <payload>}',
     '{"method":"PUT","path":"users-service/users/0a787ecb-4015","bod":{"acc_id":"0a787ecb-4015","sf_id":"baz"}}'),
    ('"Payload of <payload> with path users-service/users/<userId> and <userId>"',
     '"Payload of {acc_id:0a787ecb-4015,sf_id:baz} with path users-service/users/0a787ecb-4015 and 0a787ecb-4015"'),
    ('{"id" : <userId>}', '{"id":"0a787ecb-4015"}'),
    ('{"id" : "<userId>"}', '{"id":"0a787ecb-4015"}'),
    ('{"method": "PUT", "path": "users-service/users/<userId>", "id": <userId>, "body": <payload>}',
     '{"method":"PUT","path":"users-service/users/0a787ecb-4015","id":"0a787ecb-4015",'
     '"body":{"acc_id":"0a787ecb-4015","sf_id":"baz"}}'),
    ('{"method": "PUT", "path": "users-service/users/<userId>", "bod": [<userId>, "hardcoded"]}',
     '{"method":"PUT","path":"users-service/users/0a787ecb-4015","bod":["0a787ecb-4015","hardcoded"]}'),
    ('{"method": "PUT", "nested": {"level1": {"level2": {"level3": "users-service/users/<userId>"} } }, "bod": "<userId>"}',
     '{"method":"PUT","nested":{"level1":{"level2":{"level3":"users-service/users/0a787ecb-4015"}}},"bod":"0a787ecb-4015"}'),
    ('"<listsingle> single list item"', '"[HIGH] single list item"'),
    ('"<listmulti> multiple list items"', '"[ACTIVE,INACTIVE] multiple list items"'),
    ('{"singlelistitem": <listsingle>}', '{"singlelistitem":["HIGH"]}'),
    ('"<listsingle> single list item <listmulti> multiple list items <systemstring> system account id <payload> payload '
     '<userId> user id"',
     '"[HIGH] single list item [ACTIVE,INACTIVE] multiple list items  system account id {acc_id:0a787ecb-4015,sf_id:baz} '
     'payload 0a787ecb-4015 user id"'),
    ('{"multi_replacement": "users/<userId>/second/<userId>"}',
     '{"multi_replacement":"users/0a787ecb-4015/second/0a787ecb-4015"}'),
    ('"Command is <valid>!"', '"Command is true!"'),
]

# test_input_transformer_nested_keys_replacement_not_valid: AWS delivers nothing
NOT_JSON = ['{"not_valid": "users-service/users/<payload>", "bod": <payload>}', '{"payload": "<payload>"}',
            '{"singlelistitem": "<listsingle>"}']


@pytest.mark.parametrize(("template", "body"), NESTED_KEYS)
def test_a_template_fills_its_placeholders_as_eventbridge_did(template, body):
    assert transformed({"InputPathsMap": PATHS, "InputTemplate": template}, EVENT, RULE_ARN, EVENT["time"]) == body


@pytest.mark.parametrize("template", NOT_JSON)
def test_a_json_template_that_does_not_make_json_delivers_nothing(template):
    assert transformed({"InputPathsMap": PATHS, "InputTemplate": template}, EVENT, RULE_ARN, EVENT["time"]) is None


def test_missing_paths_are_empty_in_text_and_json_templates():
    """test_put_events_with_input_transformer_input_template_string and _json: "custom-variables-not-match-all"."""
    paths = {"detail-type": "$.detail-type", "timestamp": "$.time", "command": "$.detail.notinmessage"}
    text = '"Event of <detail-type> type, at time <timestamp>, info extracted from detail <command>"'
    as_json = '{"detailType": <detail-type>,  "time": <timestamp>, "command": <command>}'
    special = '"{[/Check with special starting characters for event of <detail-type> type"'
    fill = lambda template: transformed({"InputPathsMap": paths, "InputTemplate": template}, EVENT, RULE_ARN, "t")
    assert fill(text) == '"Event of core.update-account-command type, at time 2026-11-28T05:00:00Z, info extracted from detail "'
    assert fill(as_json) == '{"detailType":"core.update-account-command","time":"2026-11-28T05:00:00Z","command":""}'
    # the API reference's InputTransformer: a template need not be JSON ("<instance> is in state <status>")
    assert fill("<detail-type> at <timestamp>: <command>.") == "core.update-account-command at 2026-11-28T05:00:00Z: ."
    assert fill(special) == '"{[/Check with special starting characters for event of core.update-account-command type"'


def test_input_path_takes_dot_notation_indices_and_wildcards():
    """test_put_events_with_input_path(_nested, _max_level_depth): the value found, as minified JSON."""
    at = lambda path: target_input({"InputPath": path}, EVENT, RULE_ARN, "t")
    assert at("$.detail.payload") == '{"acc_id":"0a787ecb-4015","sf_id":"baz"}'
    assert at("$.detail.payload.sf_id") == '"baz"'
    assert at("$.detail.listmulti[1]") == '"INACTIVE"'
    assert at("$.detail.payload.*") == '["0a787ecb-4015","baz"]'
    assert at("$.detail.nothing") == "null"
    assert target_input({"Input": '{ "fixed" : true }'}, EVENT, RULE_ARN, "t") == '{"fixed":true}'


def put_rule_to_queue(door, target: dict) -> tuple[str, str, str]:
    """A bus "bus-1", a rule "rule-1" on it with LocalStack's pattern, `target` on it (its Arn a new queue's):
    (the queue's URL and ARN, the rule's ARN)."""
    events, sqs = door.client("events"), door.client("sqs")
    url, arn = queue(sqs, "inputs")
    events.create_event_bus(Name="bus-1")
    rule_arn = events.put_rule(Name="rule-1", EventBusName="bus-1", EventPattern=json.dumps(PATTERN))["RuleArn"]
    events.put_targets(Rule="rule-1", EventBusName="bus-1", Targets=[dict(target, Arn=arn)])
    return url, arn, rule_arn


def put_and_receive(door, url: str) -> list[dict]:
    """LocalStack's event put on bus-1; the queue's messages as SQS answers them."""
    put = door.client("events").put_events(Entries=[{
        "EventBusName": "bus-1", "Source": "core.update-account-command", "DetailType": "core.update-account-command",
        "Detail": json.dumps(DETAIL)}])
    assert put["FailedEntryCount"] == 0
    assert wait_idle(door)["Idle"]
    return door.client("sqs").receive_message(QueueUrl=url, MaxNumberOfMessages=10).get("Messages", [])


@pytest.mark.parametrize(("template", "body"), [NESTED_KEYS[0], NESTED_KEYS[1], NESTED_KEYS[9]])
def test_an_sqs_target_receives_the_transformed_text_as_its_body(door, template, body):
    url, _, _ = put_rule_to_queue(door, {"Id": "t-1", "InputTransformer": {"InputPathsMap": PATHS, "InputTemplate": template}})
    [message] = put_and_receive(door, url)
    assert {k: message[k] for k in ("Body", "MD5OfBody")} == {"Body": body, "MD5OfBody": hashlib.md5(body.encode()).hexdigest()}


def test_a_template_that_does_not_make_json_sends_nothing(door):
    url, _, _ = put_rule_to_queue(door, {"Id": "t-1", "InputTransformer": {"InputPathsMap": PATHS,
                                                                        "InputTemplate": NOT_JSON[1]}})
    assert put_and_receive(door, url) == []


def test_the_predefined_variables_in_text_and_json(door):
    """test_input_transformer_predefined_variables: the rule's ARN and name, the ingestion time; aws.events.event
    without its detail (detail-type as detailType, EventBridge's order), aws.events.event.json the whole event."""
    text = '"Message containing all pre defined variables <aws.events.rule-arn> <aws.events.rule-name> <aws.events.event.ingestion-time>"'
    url, queue_arn, rule_arn = put_rule_to_queue(door, {"Id": "text", "InputTransformer": {"InputTemplate": text}})
    door.client("events").put_targets(Rule="rule-1", EventBusName="bus-1", Targets=[{
        "Id": "json", "Arn": queue_arn,
        "InputTransformer": {"InputTemplate": '{"originalEvent": <aws.events.event>, "originalEventJson": <aws.events.event.json>}'}}])
    messages = sorted((m["Body"] for m in put_and_receive(door, url)), key=lambda body: body.startswith("{"))
    event = json.loads(messages[1])["originalEventJson"]
    assert list(event) == ["version", "id", "detail-type", "source", "account", "time", "region", "resources", "detail"]
    assert event["detail"] == DETAIL and event["detail-type"] == "core.update-account-command"
    assert messages[0] == f'"Message containing all pre defined variables {rule_arn} rule-1 {event["time"]}"'
    assert rule_arn.endswith(":rule/bus-1/rule-1")
    assert json.loads(messages[1]) == {"originalEvent": {
        "id": event["id"], "account": event["account"], "detailType": "core.update-account-command", "time": event["time"],
        "source": "core.update-account-command", "region": event["region"], "resources": [], "version": "0"},
        "originalEventJson": event}
    assert list(json.loads(messages[1])["originalEvent"]) == ["id", "account", "detailType", "time", "source", "region",
                                                               "resources", "version"]


def test_the_whole_event_and_an_input_path_are_minified_json(door):
    """test_put_events_with_input_path_multiple_targets; the user guide: the JSON passed to a target is minified."""
    url, _, _ = put_rule_to_queue(door, {"Id": "path", "InputPath": "$.detail.payload"})
    whole_url, whole_arn = queue(door.client("sqs"), "whole")
    door.client("events").put_targets(Rule="rule-1", EventBusName="bus-1", Targets=[{"Id": "whole", "Arn": whole_arn}])
    [message] = put_and_receive(door, url)
    assert message["Body"] == '{"acc_id":"0a787ecb-4015","sf_id":"baz"}'
    [whole] = door.client("sqs").receive_message(QueueUrl=whole_url)["Messages"]
    event = json.loads(whole["Body"])
    assert list(event) == ["version", "id", "detail-type", "source", "account", "time", "region", "resources", "detail"]
    assert whole["Body"] == json.dumps(event, separators=(",", ":"))


@pytest.mark.parametrize(("target", "message"), [
    ({"InputTransformer": {"InputPathsMap": {"detail-type": "$.detail-type"}, "InputTemplate": '{"a": <detail-type>}'},
      "InputPath": "$.detail"},
     "Only one of Input, InputPath, or InputTransformer must be provided for target t-1."),
    ({"InputTransformer": {"InputPathsMap": {"detail-type": "$.detail-type", "timestamp": "$.time"},
                           "InputTemplate": '"Event of <detail-type> type, with not defined key <notdefinedkey>"'}},
     "InputTemplate for target t-1 contains invalid placeholder notdefinedkey."),
])
def test_put_targets_refuses_a_targets_input_as_eventbridge_does_and_keeps_nothing(door, target, message):
    """test_put_event_input_path_and_input_transformer, test_put_events_with_input_transformer_missing_keys."""
    events = door.client("events")
    events.put_rule(Name="rule-1", EventPattern=json.dumps(PATTERN))
    with pytest.raises(ClientError) as refused:
        events.put_targets(Rule="rule-1", Targets=[dict(target, Id="t-1", Arn="arn:aws:sqs:us-east-1:123456789012:q")])
    error = refused.value.response
    assert (error["Error"], error["ResponseMetadata"]["HTTPStatusCode"]) == (
        {"Code": "ValidationException", "Message": message}, 400)
    assert events.list_targets_by_rule(Rule="rule-1")["Targets"] == []


@pytest.mark.parametrize(("target_id", "constraint"), [
    ("!@#$@!#$", "Member must satisfy regular expression pattern: [\\.\\-_A-Za-z0-9]+"),
    ("x" * 65, "Member must have length less than or equal to 64"),
])
def test_put_targets_refuses_a_target_id_as_eventbridge_does(door, target_id, constraint):
    """LocalStack's AWS-validated test_events.py::TestEventTarget::test_put_target_id_validation."""
    events = door.client("events")
    events.put_rule(Name="rule-1", EventPattern=json.dumps(PATTERN))
    with pytest.raises(ClientError) as refused:
        events.put_targets(Rule="rule-1", Targets=[{"Id": target_id, "Arn": "arn:aws:sqs:us-east-1:123456789012:q",
                                                    "InputPath": "$.detail"}])
    error = refused.value.response
    assert (error["Error"], error["ResponseMetadata"]["HTTPStatusCode"]) == ({
        "Code": "ValidationException",
        "Message": f"1 validation error detected: Value '{target_id}' at 'targets.1.member.id' failed to satisfy "
                   f"constraint: {constraint}"}, 400)
    assert events.list_targets_by_rule(Rule="rule-1")["Targets"] == []
    valid = "test-With_valid.Characters-1"
    events.put_targets(Rule="rule-1", Targets=[{"Id": valid, "Arn": "arn:aws:sqs:us-east-1:123456789012:q"}])
    assert [t["Id"] for t in events.list_targets_by_rule(Rule="rule-1")["Targets"]] == [valid]

"""TestEventPattern and PutRule's pattern validation answered by Eddy, in both doors, with EventBridge's recorded
answers; rules deliver what the same engine matches (PutEvents to an SQS target).

Sources: LocalStack's AWS-validated tests/aws/services/events/test_events_patterns.py and its snapshot
(test_event_pattern's templates: aws_recorded_cases.py; test_invalid_json_event_pattern, test_plain_string_payload,
test_array_event_payload, test_invalid_event_payload, test_event_pattern_source; TestRuleWithPattern's
test_put_events_with_rule_pattern_anything_but / _exists_true / _exists_false).
"""

from __future__ import annotations

import json

import pytest
from botocore.exceptions import ClientError

from tests.emulator.event_patterns.aws_recorded_cases import CASES, ENVELOPE
from tests.emulator.pipes.pipe_helpers import messages, queue
from tests.emulator.trigger_helpers import wait_idle


def refusal(raised: pytest.ExceptionInfo[ClientError]) -> tuple[dict, int]:
    return raised.value.response["Error"], raised.value.response["ResponseMetadata"]["HTTPStatusCode"]


def test_every_recorded_pattern_and_event_in_aws_words(door):
    """Each of aws_recorded_cases.CASES (source: its template) answered as EventBridge answered it."""
    events = door.client("events")
    answers, recorded = {}, {}
    for case in CASES:
        recorded[case.name] = case.answer if isinstance(case.answer, str) else {"Result": case.answer}
        try:
            answer = events.test_event_pattern(EventPattern=json.dumps(case.pattern), Event=json.dumps(case.event))
            answers[case.name] = {key: value for key, value in answer.items() if key != "ResponseMetadata"}
        except ClientError as error:
            answers[case.name] = error.response["Error"]["Message"]
            assert refusal_code(error) == ("InvalidEventPatternException", 400), case.name
    assert answers == recorded


def refusal_code(error: ClientError) -> tuple[str, int]:
    return error.response["Error"]["Code"], error.response["ResponseMetadata"]["HTTPStatusCode"]


EVENT = json.dumps({"id": "1", "source": "test-source", "detail-type": "test-detail-type", "account": "123456789012",
                    "region": "us-east-2", "time": "2022-07-13T13:48:01Z", "detail": {"test": "test"}})


@pytest.mark.parametrize(("pattern", "message"), [  # test_invalid_json_event_pattern's recorded messages
    ("this is valid json but not a dict",
     "Event pattern is not valid. Reason: Unrecognized token 'this': was expecting (JSON String, Number, Array, "
     "Object or token 'null', 'true' or 'false')\n at [Source: (String)\"this is valid json but not a dict\"; line: 1, "
     "column: 5]"),
    ("{'bad': 'quotation'}",
     "Event pattern is not valid. Reason: Unexpected character (''' (code 39)): was expecting double-quote to start "
     "field name\n at [Source: (String)\"{'bad': 'quotation'}\"; line: 1, column: 2]"),
    ('{"not": closed mark"',
     "Event pattern is not valid. Reason: Unrecognized token 'closed': was expecting (JSON String, Number, Array, "
     "Object or token 'null', 'true' or 'false')\n at [Source: (String)\"{\"not\": closed mark\"\"; line: 1, column: 15]"),
    ('["not", "a", "dict", "but valid json"]',
     "Event pattern is not valid. Reason: Filter is not an object\n at [Source: (String)\"[\"not\", \"a\", \"dict\", "
     "\"but valid json\"]\"; line: 1, column: 2]"),
], ids=["not JSON", "single quotes", "unclosed", "an array"])
def test_a_pattern_that_is_not_a_json_object(door, pattern, message):
    with pytest.raises(ClientError) as raised:
        door.client("events").test_event_pattern(EventPattern=pattern, Event=EVENT)
    assert refusal(raised) == ({"Code": "InvalidEventPatternException", "Message": message}, 400)


@pytest.mark.parametrize("event", ["plain string", json.dumps(["plain string"]), json.dumps({"testEvent": "value"}),
                                   json.dumps({key: value for key, value in ENVELOPE.items() if key != "time"})],
                         ids=["a string", "an array", "no envelope", "no time"])
def test_an_event_that_is_not_one(door, event):
    with pytest.raises(ClientError) as raised:
        door.client("events").test_event_pattern(
            EventPattern=json.dumps({"body": {"test2": [{"numeric": [">", 100]}]}}), Event=event)
    assert refusal(raised) == ({"Code": "ValidationException", "Message": "Parameter Event is not valid."}, 400)


def test_the_source_and_detail_type(door):  # test_event_pattern_source's recorded {"Result": true} and false
    events = door.client("events")
    event = json.dumps({**ENVELOPE, "source": "order", "detail-type": "Test"})
    answers = [events.test_event_pattern(Event=event, EventPattern=json.dumps({"source": [source],
                                                                              "detail-type": ["Test"]}))["Result"]
               for source in ("order", "shipment")]
    assert answers == [True, False]


def test_put_rule_refuses_an_invalid_pattern_and_stores_nothing(door):
    events = door.client("events")
    with pytest.raises(ClientError) as raised:
        events.put_rule(Name="bad", EventPattern=json.dumps({"detail": {"c-count": [{"numeric": [">", 0, ">", 0]}]}}))
    assert refusal(raised) == ({"Code": "InvalidEventPatternException", "Message": (
        'Event pattern is not valid. Reason: Bad numeric range operator: >\n at [Source: (String)"{"detail": '
        '{"c-count": [{"numeric": [">", 0, ">", 0]}]}}"; line: 1, column: 49]')}, 400)  # content_numeric_EXC
    assert events.list_rules()["Rules"] == []
    assert events.put_rule(Name="good", EventPattern=json.dumps({"source": [{"wildcard": "shop.*"}]}))["RuleArn"] == (
        "arn:aws:events:us-east-1:123456789012:rule/good")
    assert [rule["Name"] for rule in events.list_rules()["Rules"]] == ["good"]


@pytest.mark.parametrize(("pattern", "details"), [
    # TestRuleWithPattern.test_put_events_with_rule_pattern_anything_but: a match, null, no match
    ({"detail": {"command": [{"anything-but": ["no-message"]}]}},
     [({"command": "display-message", "payload": "baz"}, True), ({"command": None, "payload": "baz"}, True),
      ({"command": "no-message", "payload": "baz"}, False)]),
    # test_put_events_with_rule_pattern_exists_true / _exists_false
    ({"detail": {"key": [{"exists": True}]}},
     [({"key": "value", "payload": "baz"}, True), ({"no-key": "no-value", "payload": "baz"}, False)]),
    ({"detail": {"key": [{"exists": False}]}},
     [({"key": "value", "payload": "baz"}, False), ({"no-key": "no-value", "payload": "baz"}, True)]),
    # the User Guide's wildcard and IP address matching, which moto's matcher does not have
    ({"detail": {"path": [{"wildcard": "dir/*.png"}], "ip": [{"cidr": "10.0.0.0/24"}]}},
     [({"path": "dir/a/b.png", "ip": "10.0.0.7"}, True), ({"path": "dir/a/b.png", "ip": "10.0.1.7"}, False)]),
], ids=["anything-but", "exists", "not exists", "wildcard and cidr"])
def test_a_rule_delivers_what_its_pattern_matches(door, pattern, details):
    events, sqs = door.client("events"), door.client("sqs")
    url, arn = queue(sqs, "matched")
    source = "core.update-account-command"
    events.put_rule(Name="matching", EventPattern=json.dumps({"source": [source], **pattern}))
    events.put_targets(Rule="matching", Targets=[{"Id": "queue", "Arn": arn}])
    put = events.put_events(Entries=[{"Source": source, "DetailType": source, "Detail": json.dumps(detail)}
                                     for detail, _ in details])
    assert put["FailedEntryCount"] == 0
    assert wait_idle(door)["Idle"]
    assert [message["detail"] for message in messages(sqs, url)] == [detail for detail, matched in details if matched]


def test_create_connection_refused_in_the_models_words_and_nothing_stored(door):
    """CreateConnection's request checked against botocore's events model before moto (which checks none) stores
    anything. Source: LocalStack's AWS-validated test_events.snapshot.json,
    TestEvents::test_create_connection_validations (recorded 08-01-2025)."""
    events = door.client("events")
    name = "This should fail with two errors 123467890123412341234123412341234"
    with pytest.raises(ClientError) as raised:
        events.create_connection(Name=name, AuthorizationType="INVALID",
                                 AuthParameters={"BasicAuthParameters": {"Username": "user", "Password": "pass"}})
    assert refusal(raised) == ({
        "Code": "ValidationException",
        "Message": f"3 validation errors detected: Value '{name}' at 'name' failed to satisfy constraint: Member must "
                   f"satisfy regular expression pattern: [\\.\\-_A-Za-z0-9]+; Value '{name}' at 'name' failed to "
                   "satisfy constraint: Member must have length less than or equal to 64; Value 'INVALID' at "
                   "'authorizationType' failed to satisfy constraint: Member must satisfy enum value set: [BASIC, "
                   "OAUTH_CLIENT_CREDENTIALS, API_KEY]"}, 400)
    assert events.list_connections()["Connections"] == []
    created = events.create_connection(Name="valid-name", AuthorizationType="BASIC",
                                       AuthParameters={"BasicAuthParameters": {"Username": "user", "Password": "pass"}})
    assert [c["Name"] for c in events.list_connections()["Connections"]] == ["valid-name"]
    assert created["ConnectionArn"].split(":")[-1].startswith("connection/valid-name/")

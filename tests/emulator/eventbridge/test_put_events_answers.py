"""PutEvents' answers per entry as EventBridge gives them, in both doors, each a whole answer AWS recorded
(LocalStack's AWS-validated tests/aws/services/events/test_events.py and test_events.snapshot.json:
test_put_events_without_source, test_put_event_without_detail_type, test_put_event_without_detail,
test_put_event_malformed_detail[STRING|ARRAY|MALFORMED_JSON|SERIALIZED_STRING], test_put_event_with_too_big_detail,
test_put_events_exceed_limit_ten_entries[custom|default], TestEventBus::test_put_events_nonexistent_event_bus;
localstack/localstack at 8b9a79f05846); a refused entry is delivered to no rule."""

from __future__ import annotations

import json

import pytest
from botocore.exceptions import ClientError

from tests.emulator.triggers.sqs_helpers import queue
from tests.emulator.trigger_helpers import wait_idle

MALFORMED = {"ErrorCode": "MalformedDetail", "ErrorMessage": "Detail is malformed."}
DETAIL = json.dumps({"command": "update-account"})


def required(name: str) -> dict[str, str]:
    return {"ErrorCode": "InvalidArgument",
            "ErrorMessage": f"Parameter {name} is not valid. Reason: {name} is a required argument."}


@pytest.mark.parametrize(("entry", "answer"), [
    ({"DetailType": "d", "Detail": DETAIL}, required("Source")),
    ({"Source": "s", "Detail": DETAIL}, required("DetailType")),
    ({"Source": "s", "DetailType": "d"}, required("Detail")),
    ({"Source": "s", "DetailType": "d", "Detail": "NotJSON"}, MALFORMED),
    ({"Source": "s", "DetailType": "d", "Detail": "[]"}, MALFORMED),
    ({"Source": "s", "DetailType": "d", "Detail": "{{}"}, MALFORMED),
    ({"Source": "s", "DetailType": "d", "Detail": json.dumps("NotJSON")}, MALFORMED),
])
def test_an_entry_eventbridge_refuses_is_answered_in_its_words_and_delivered_nowhere(door, entry, answer):
    events, sqs = door.client("events"), door.client("sqs")
    url, arn = queue(sqs, "everything")
    events.put_rule(Name="everything", EventPattern=json.dumps({"source": [{"prefix": ""}]}))
    events.put_targets(Rule="everything", Targets=[{"Id": "q", "Arn": arn}])
    put = events.put_events(Entries=[entry, {"Source": "s", "DetailType": "d", "Detail": DETAIL}])
    assert put["FailedEntryCount"] == 1
    assert put["Entries"][0] == answer and list(put["Entries"][1]) == ["EventId"]
    assert wait_idle(door)["Idle"]
    delivered = [json.loads(m["Body"]) for m in sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10)["Messages"]]
    assert [body["id"] for body in delivered] == [put["Entries"][1]["EventId"]]


def test_entries_over_256_kib_are_refused_whole(door):
    entry = {"Source": "s", "DetailType": "d", "Detail": json.dumps({"payload": ["p" * (256 * 1024 - 17)]})}
    with pytest.raises(ClientError) as refused:
        door.client("events").put_events(Entries=[entry])
    error = refused.value.response
    assert (error["Error"]["Code"], error["Error"]["Message"], error["ResponseMetadata"]["HTTPStatusCode"]) == (
        "ValidationException", "Total size of the entries in the request is over the limit.", 400)


@pytest.mark.parametrize("bus", ["custom-bus", "default"])
def test_more_than_ten_entries_are_refused_with_each_entry_written_out(door, bus):
    events = door.client("events")
    if bus != "default":
        events.create_event_bus(Name=bus)
    detail = json.dumps({"command": "update-account", "payload": {"acc_id": "0a787ecb-4015", "sf_id": "baz"}})
    entry = {"Source": "core.update-account-command", "DetailType": "core.update-account-command", "Detail": detail,
             "EventBusName": bus}
    with pytest.raises(ClientError) as refused:
        events.put_events(Entries=[entry] * 11)
    written = ("PutEventsRequestEntry(time=null, source=core.update-account-command, resources=null, "
               f"detailType=core.update-account-command, detail={detail}, eventBusName={bus}, traceHeader=null, "
               "kmsKeyIdentifier=null, internalMetadata=null)")
    assert refused.value.response["Error"] == {
        "Code": "ValidationException",
        "Message": f"1 validation error detected: Value '[{', '.join([written] * 11)}]' at 'entries' failed to satisfy "
                   "constraint: Member must have length less than or equal to 10"}


def test_an_entry_for_a_bus_that_does_not_exist_is_taken_and_goes_nowhere(door):
    events, sqs = door.client("events"), door.client("sqs")
    url, arn = queue(sqs, "default-bus")
    events.put_rule(Name="custom-type", EventPattern=json.dumps({"detail-type": ["CustomType"], "source": ["MySource"]}))
    events.put_targets(Rule="custom-type", Targets=[{"Id": "q", "Arn": arn}])
    put = events.put_events(Entries=[
        {"Source": "MySource", "DetailType": "CustomType", "Detail": json.dumps({"message": "for the default event bus"})},
        {"EventBusName": "event-bus-missing", "Source": "MySource", "DetailType": "CustomType",
         "Detail": json.dumps({"message": "for the custom event bus"})}])
    ids = [entry["EventId"] for entry in put["Entries"]]
    assert {key: value for key, value in put.items() if key != "ResponseMetadata"} == {
        "Entries": [{"EventId": ids[0]}, {"EventId": ids[1]}], "FailedEntryCount": 0}
    assert ids[0] != ids[1]
    assert wait_idle(door)["Idle"]
    [message] = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10)["Messages"]
    body = json.loads(message["Body"])
    assert body == {"version": "0", "id": ids[0], "detail-type": "CustomType", "source": "MySource",
                    "account": "123456789012", "time": body["time"], "region": "us-east-1", "resources": [],
                    "detail": {"message": "for the default event bus"}}
    with pytest.raises(ClientError) as refused:
        events.describe_event_bus(Name="event-bus-missing")
    assert refused.value.response["Error"] == {"Code": "ResourceNotFoundException",
                                               "Message": "Event bus event-bus-missing does not exist."}

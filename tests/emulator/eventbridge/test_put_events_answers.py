"""PutEvents' answers per entry as EventBridge gives them, in both doors, each a whole answer AWS recorded
(LocalStack's AWS-validated tests/aws/services/events/test_events.py and test_events.snapshot.json:
test_put_events_without_source, test_put_event_without_detail_type, test_put_event_without_detail,
test_put_event_malformed_detail[STRING|ARRAY|MALFORMED_JSON|SERIALIZED_STRING], test_put_event_with_too_big_detail);
a refused entry is delivered to no rule."""

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

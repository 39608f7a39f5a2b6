"""FilterCriteria on a queue mapping compared with AWS's recorded answers: LocalStack's AWS-validated
test_lambda_integration_sqs.py::TestSQSEventSourceMapping::test_sqs_event_filter (each case: one matching and one
unmatched message sent before the mapping; AWS invoked once with the matching one and deleted the other) and
test_sqs_invalid_event_filter (AWS's InvalidParameterValueException "Invalid filter pattern definition."), validated
2025-11-25, and its .snapshot.json. Both doors, a zip function."""

from __future__ import annotations

import json

from tests.emulator.trigger_helpers import wait_idle
from tests.emulator.triggers.sqs_helpers import delivered, queue, queue_with_reporter
from tests.emulator.triggers.test_sqs_recorded_answers import AWS_CREATED, aws_error, refusal, without_varying

#: (id, pattern, the body that matches, the body that does not), as the recorded test sends them
CASES = [
    ("single", {"body": {"my-key": ["my-value"]}}, {"my-key": "my-value"}, {"my-key": "other-value"}),
    ("or", {"body": {"my-key": ["my-value-one", "my-value-two"]}}, {"my-key": "my-value-two"}, {"my-key": "other-value"}),
    ("and", {"body": {"my-key-one": ["other-filter", "my-value-one"], "my-key-two": ["my-value-two"]}},
     {"my-key-one": "my-value-one", "my-key-two": "my-value-two"}, {"my-key-one": "other-value-", "my-key-two": "my-value-two"}),
    ("exists", {"body": {"my-key": [{"exists": True}]}}, {"my-key": "any-value-one"}, {"other-key": "any-value-two"}),
    ("numeric-bigger", {"body": {"my-number": [{"numeric": [">", 100]}]}}, {"my-number": 101}, {"my-number": 100}),
    ("numeric-smaller", {"body": {"my-number": [{"numeric": ["<", 100]}]}}, {"my-number": 99}, {"my-number": 100}),
    ("numeric-range", {"body": {"my-number": [{"numeric": [">=", 100, "<", 200]}]}}, {"my-number": 100}, {"my-number": 200}),
    ("prefix", {"body": {"my-key": [{"prefix": "yes"}]}}, {"my-key": "yes-value"}, {"my-key": "no-value"}),
    # a plain-string body against a pattern on the body's fields: dropped
    ("valid-json-filter", {"body": {"my-key": ["my-value"]}}, {"my-key": "my-value"}, "plain-string"),
]


def test_each_recorded_filter_passes_the_matching_message_and_deletes_the_other(door):
    env = queue_with_reporter(door)
    lam, sqs = env["lambda"], env["sqs"]
    queues = {}
    for name, pattern, matching, other in CASES:
        url, arn = queue(sqs, f"filter-{name}")
        sqs.send_message(QueueUrl=url, MessageBody=json.dumps(matching))
        sqs.send_message(QueueUrl=url, MessageBody=other if isinstance(other, str) else json.dumps(other))
        criteria = {"Filters": [{"Pattern": json.dumps(pattern)}]}
        created = lam.create_event_source_mapping(EventSourceArn=arn, FunctionName="reporter",
                                                  MaximumBatchingWindowInSeconds=1, FilterCriteria=criteria)
        assert without_varying(created, arn, "reporter") == dict(
            AWS_CREATED, MaximumBatchingWindowInSeconds=1, FilterCriteria=criteria)
        queues[arn] = (name, url, matching)
        # the batching window, then its batch: one case at a time, so that one execution environment answers every
        # case (nine batches at once started nine workers)
        door.advance(2)
        assert wait_idle(door)["Idle"]
    invoked: dict[str, list[list[str]]] = {}
    for records in delivered(sqs, env["deliveries"]):
        invoked.setdefault(queues[records[0]["eventSourceARN"]][0], []).append([r["body"] for r in records])
    # once per queue, with the one matching message
    assert invoked == {name: [[json.dumps(matching)]] for name, _, matching in queues.values()}
    for name, url, _ in queues.values():  # the unmatched message is deleted, not left in the queue
        assert (name, sqs.receive_message(QueueUrl=url).get("Messages", [])) == (name, [])


def test_recorded_invalid_filters_are_refused_in_aws_words(door):
    env = queue_with_reporter(door)
    lam = env["lambda"]
    for pattern in [None, "simple string", {"eventSource": "aws:sqs"}, {"eventSource": []}]:
        text = pattern if isinstance(pattern, str) else json.dumps(pattern)
        assert (text, refusal(lam.create_event_source_mapping, EventSourceArn=env["arn"], FunctionName="reporter",
                              MaximumBatchingWindowInSeconds=1, FilterCriteria={"Filters": [{"Pattern": text}]})) == (
            text, aws_error("InvalidParameterValueException", "Invalid filter pattern definition."))
    assert lam.list_event_source_mappings(EventSourceArn=env["arn"])["EventSourceMappings"] == []

"""Pipes from an SQS queue, through both doors with Python and Node.js targets: the batch as a JSON array of
Lambda's SQS records, deleted on success, a failed message back after the visibility timeout, partial failures;
SQS and SNS targets (each record a message), and an enrichment (Python and Node.js) before an SQS target."""

from __future__ import annotations

import pytest

from tests.emulator.pipes.pipe_helpers import ROLE_ARN, messages, queue, reporter
from tests.emulator.trigger_helpers import create_zip_function, wait_idle

RUNTIMES = ["python", "node"]


ENRICH = {"python": "def handler(event, context):\n    return [{'upper': r['body'].upper()} for r in event]\n",
          "node": "exports.handler = async (event) => event.map((r) => ({ upper: r.body.toUpperCase() }));\n"}


def queue_pipe(door, target: str, pipe_options: dict | None = None, **parameters) -> dict:
    sqs = door.client("sqs")
    url, arn = queue(sqs, "work", VisibilityTimeout="60")
    door.client("pipes").create_pipe(Name="work-pipe", Source=arn, Target=target, RoleArn=ROLE_ARN,
                                     SourceParameters={"SqsQueueParameters": parameters}, **(pipe_options or {}))
    return {"sqs": sqs, "url": url, "arn": arn}


def counts(sqs, url: str) -> tuple[int, int]:
    names = ["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"]
    attributes = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=names)["Attributes"]
    return int(attributes[names[0]]), int(attributes[names[1]])


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_a_pipe_from_a_queue_delivers_lambdas_sqs_records_and_deletes_them(door, runtime):
    function_arn, deliveries = reporter(door, runtime)
    env = queue_pipe(door, function_arn, BatchSize=5)
    sent = env["sqs"].send_message(QueueUrl=env["url"], MessageBody="hello")
    assert wait_idle(door)["Idle"]
    [[record]] = messages(env["sqs"], deliveries)
    assert {name: record[name] for name in ("messageId", "body", "eventSource", "eventSourceARN", "awsRegion")} == {
        "messageId": sent["MessageId"], "body": "hello", "eventSource": "aws:sqs", "eventSourceARN": env["arn"],
        "awsRegion": "us-east-1"}
    assert record["attributes"]["ApproximateReceiveCount"] == "1"
    assert counts(env["sqs"], env["url"]) == (0, 0)


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_a_failed_message_returns_after_the_visibility_timeout_and_only_it(door, runtime):
    function_arn, deliveries = reporter(door, runtime, mode="partial")
    env = queue_pipe(door, function_arn, BatchSize=10, MaximumBatchingWindowInSeconds=1)
    for body in ("one", "fail-two", "three"):
        env["sqs"].send_message(QueueUrl=env["url"], MessageBody=body)
    door.advance(1)
    assert wait_idle(door)["Idle"]
    assert [[r["body"] for r in batch] for batch in messages(env["sqs"], deliveries)] == [["one", "fail-two", "three"]]
    assert counts(env["sqs"], env["url"]) == (0, 1)  # the failed message is invisible for the visibility timeout
    door.advance(61)
    assert wait_idle(door)["Idle"]
    [[again]] = messages(env["sqs"], deliveries)
    assert (again["body"], again["attributes"]["ApproximateReceiveCount"]) == ("fail-two", "2")


@pytest.mark.parametrize("target", ["sqs", "sns"])
def test_a_pipe_from_a_queue_to_a_queue_or_a_topic_sends_each_record_as_a_message(door, target):
    sqs = door.client("sqs")
    copies, copies_arn = queue(sqs, "copies")
    arn = copies_arn
    if target == "sns":
        sns = door.client("sns")
        arn = sns.create_topic(Name="copies-topic")["TopicArn"]
        sns.subscribe(TopicArn=arn, Protocol="sqs", Endpoint=copies_arn, Attributes={"RawMessageDelivery": "true"})
    env = queue_pipe(door, arn, BatchSize=10, MaximumBatchingWindowInSeconds=1)
    sent = [sqs.send_message(QueueUrl=env["url"], MessageBody=body)["MessageId"] for body in ("one", "two", "three")]
    door.advance(1)
    assert wait_idle(door)["Idle"]
    records = sorted(messages(sqs, copies), key=lambda record: sent.index(record["messageId"]))
    assert [(r["messageId"], r["body"], r["eventSource"], r["eventSourceARN"]) for r in records] == [
        (message_id, body, "aws:sqs", env["arn"]) for message_id, body in zip(sent, ("one", "two", "three"))]
    assert counts(sqs, env["url"]) == (0, 0)  # deleted once delivered


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_a_pipe_from_a_queue_with_an_enrichment_to_a_queue(door, runtime):
    sqs = door.client("sqs")
    enriched, enriched_arn = queue(sqs, "enriched")
    enrich = create_zip_function(door.client("lambda"), "enrich", runtime, ENRICH[runtime])
    env = queue_pipe(door, enriched_arn, {"Enrichment": enrich["FunctionArn"]}, BatchSize=10,
                     MaximumBatchingWindowInSeconds=1)
    for body in ("one", "two"):
        sqs.send_message(QueueUrl=env["url"], MessageBody=body)
    door.advance(1)
    assert wait_idle(door)["Idle"]
    assert sorted(record["upper"] for record in messages(sqs, enriched)) == ["ONE", "TWO"]
    assert counts(sqs, env["url"]) == (0, 0)

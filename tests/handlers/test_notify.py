"""eddy.handlers.notify: a welcome message on SQS or SNS for each inserted item, and for nothing else."""

from __future__ import annotations

import json
from typing import Any

import boto3
import pytest

from eddy.handlers import notify

from ..emulator.helpers import create_table
from .events import stream_records


@pytest.fixture
def sqs(emu: Any) -> Any:
    return boto3.client("sqs", region_name="us-east-1")


@pytest.fixture
def signups(dynamodb: Any, streams: Any) -> dict:
    """An event from table "users": ada and bob inserted, ada modified, bob removed."""
    arn = create_table(dynamodb, "users")["LatestStreamArn"]
    dynamodb.put_item(TableName="users", Item={"pk": {"S": "ada"}, "name": {"S": "Ada"}, "rank": {"N": "7"},
                                              "score": {"N": "2.5"}})
    dynamodb.put_item(TableName="users", Item={"pk": {"S": "bob"}, "name": {"S": "Bob"}, "rank": {"N": "8"}})
    dynamodb.update_item(TableName="users", Key={"pk": {"S": "ada"}}, UpdateExpression="SET #n = :n",
                         ExpressionAttributeNames={"#n": "name"}, ExpressionAttributeValues={":n": {"S": "Ada L."}})
    dynamodb.delete_item(TableName="users", Key={"pk": {"S": "bob"}})
    records = stream_records(streams, arn)
    assert [r["eventName"] for r in records] == ["INSERT", "INSERT", "MODIFY", "REMOVE"]
    return {"Records": records}


def receive(sqs: Any, queue: str) -> list[dict]:
    messages = []
    while batch := sqs.receive_message(QueueUrl=queue, MaxNumberOfMessages=10,
                                       MessageAttributeNames=["All"]).get("Messages", []):
        messages += batch
    return messages


def test_sqs_gets_one_welcome_per_insert(sqs: Any, signups: dict, monkeypatch: pytest.MonkeyPatch) -> None:
    queue = sqs.create_queue(QueueName="welcome")["QueueUrl"]
    monkeypatch.setenv("NOTIFY_QUEUE_URL", queue)
    monkeypatch.setenv("MESSAGE_TEMPLATE", "Welcome {name}! You are number {rank} ({score} points){missing}.")
    notify.handler(signups, None)
    messages = receive(sqs, queue)
    assert sorted(m["Body"] for m in messages) == ["Welcome Ada! You are number 7 (2.5 points).",
                                                   "Welcome Bob! You are number 8 ( points)."]
    assert {m["MessageAttributes"]["event_id"]["StringValue"] for m in messages} == \
        {r["eventID"] for r in signups["Records"][:2]}


def test_without_a_template_the_message_is_the_new_item_as_json(sqs: Any, signups: dict,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    queue = sqs.create_queue(QueueName="welcome")["QueueUrl"]
    monkeypatch.setenv("NOTIFY_QUEUE_URL", queue)
    notify.handler({"Records": signups["Records"][:1]}, None)
    assert [json.loads(m["Body"]) for m in receive(sqs, queue)] == [{"pk": "ada", "name": "Ada", "rank": 7,
                                                                     "score": 2.5}]


def test_sns_topic_delivers_to_a_subscribed_queue(sqs: Any, signups: dict, monkeypatch: pytest.MonkeyPatch) -> None:
    sns = boto3.client("sns", region_name="us-east-1")
    topic = sns.create_topic(Name="welcome")["TopicArn"]
    queue = sqs.create_queue(QueueName="welcome-inbox")["QueueUrl"]
    queue_arn = sqs.get_queue_attributes(QueueUrl=queue, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    sns.subscribe(TopicArn=topic, Protocol="sqs", Endpoint=queue_arn)
    monkeypatch.setenv("NOTIFY_TOPIC_ARN", topic)
    monkeypatch.setenv("MESSAGE_TEMPLATE", "Welcome {name}!")
    notify.handler(signups, None)
    envelopes = [json.loads(m["Body"]) for m in receive(sqs, queue)]
    assert sorted(e["Message"] for e in envelopes) == ["Welcome Ada!", "Welcome Bob!"]
    assert {e["TopicArn"] for e in envelopes} == {topic}
    assert {e["MessageAttributes"]["event_id"]["Value"] for e in envelopes} == \
        {r["eventID"] for r in signups["Records"][:2]}


def test_a_fifo_queue_drops_a_redelivered_welcome(sqs: Any, signups: dict, monkeypatch: pytest.MonkeyPatch) -> None:
    queue = sqs.create_queue(QueueName="welcome.fifo", Attributes={"FifoQueue": "true"})["QueueUrl"]
    monkeypatch.setenv("NOTIFY_QUEUE_URL", queue)
    monkeypatch.setenv("MESSAGE_TEMPLATE", "Welcome {name}!")
    notify.handler(signups, None)
    notify.handler(signups, None)
    assert [m["Body"] for m in receive(sqs, queue)] == ["Welcome Ada!", "Welcome Bob!"]


def test_exactly_one_target_is_required(signups: dict, monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ValueError, match="exactly one"):
        notify.handler(signups, None)
    monkeypatch.setenv("NOTIFY_QUEUE_URL", "https://sqs.us-east-1.amazonaws.com/123456789012/q")
    monkeypatch.setenv("NOTIFY_TOPIC_ARN", "arn:aws:sns:us-east-1:123456789012:t")
    with pytest.raises(ValueError, match="exactly one"):
        notify.handler(signups, None)

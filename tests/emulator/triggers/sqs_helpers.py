"""Helpers for queue trigger tests: a queue, and a zip function (Python or Node.js) that reports each event's records
to a "deliveries" queue and fails the records whose body starts with "fail" (raising, or, with MODE=partial, as
batchItemFailures); with MODE=answer it returns the JSON a record's body gives after "answer:", "$id" standing for
that record's messageId."""

from __future__ import annotations

import json
from typing import Any

from tests.emulator.trigger_helpers import create_zip_function

REPORTER = '''
import json, os, boto3
sqs = boto3.client("sqs")
def handler(event, context):
    sqs.send_message(QueueUrl=os.environ["QUEUE_URL"], MessageBody=json.dumps(event["Records"]))
    if os.environ.get("MODE") == "answer":
        for r in event["Records"]:
            if r["body"].startswith("answer:"):
                return json.loads(r["body"][len("answer:"):].replace("$id", r["messageId"]))
    failing = [r["messageId"] for r in event["Records"] if r["body"].startswith("fail")]
    if os.environ.get("MODE") == "partial":
        return {"batchItemFailures": [{"itemIdentifier": i} for i in failing]}
    if failing:
        raise RuntimeError("failing " + ",".join(failing))
'''

NODE_REPORTER = """
const { SQSClient, SendMessageCommand } = require('@aws-sdk/client-sqs');
const sqs = new SQSClient({ useQueueUrlAsEndpoint: false });
exports.handler = async (event) => {
  await sqs.send(new SendMessageCommand({ QueueUrl: process.env.QUEUE_URL, MessageBody: JSON.stringify(event.Records) }));
  const answer = event.Records.find((r) => r.body.startsWith('answer:'));
  if (process.env.MODE === 'answer' && answer) return JSON.parse(answer.body.slice('answer:'.length).replaceAll('$id', answer.messageId));
  const failing = event.Records.filter((r) => r.body.startsWith('fail')).map((r) => r.messageId);
  if (process.env.MODE === 'partial') return { batchItemFailures: failing.map((id) => ({ itemIdentifier: id })) };
  if (failing.length) throw new Error('failing ' + failing.join(','));
};
"""


def queue(sqs, name: str, **attributes: str) -> tuple[str, str]:
    """(url, arn) of a new queue."""
    url = sqs.create_queue(QueueName=name, Attributes=attributes)["QueueUrl"]
    return url, sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]


def queue_with_reporter(door, runtime: str = "python", mode: str = "raise", name: str = "work",
                        **attributes: str) -> dict[str, Any]:
    """A queue `name` (with `attributes`), a queue "deliveries", and the function "reporter"."""
    sqs, lam = door.client("sqs"), door.client("lambda")
    url, arn = queue(sqs, name, **attributes)
    deliveries, _ = queue(sqs, "deliveries")
    create_zip_function(lam, "reporter", runtime, REPORTER if runtime == "python" else NODE_REPORTER,
                        Environment={"Variables": {"QUEUE_URL": deliveries, "MODE": mode}}, Timeout=10)
    return {"sqs": sqs, "lambda": lam, "url": url, "arn": arn, "deliveries": deliveries}


def delivered(sqs, deliveries_url: str) -> list[list[dict[str, Any]]]:
    """Every event's records the reporter sent, oldest first (the deliveries queue is emptied)."""
    events = []
    while True:
        messages = sqs.receive_message(QueueUrl=deliveries_url, MaxNumberOfMessages=10).get("Messages", [])
        if not messages:
            return events  # moto answers a standard queue's messages in the order they were sent
        for message in messages:
            events.append(json.loads(message["Body"]))
            sqs.delete_message(QueueUrl=deliveries_url, ReceiptHandle=message["ReceiptHandle"])


def bodies(events: list[list[dict[str, Any]]]) -> list[list[str]]:
    return [[record["body"] for record in records] for records in events]


def queue_counts(sqs, url: str) -> dict[str, int]:
    names = ["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"]
    attributes = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=names)["Attributes"]
    return {name: int(attributes[name]) for name in names}

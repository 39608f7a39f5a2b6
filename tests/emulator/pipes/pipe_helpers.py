"""Helpers for pipe tests: a queue, a zip function (Python or Node.js) that sends each batch it receives (a JSON
array, as Pipes sends it) to a "deliveries" queue and fails when a record's key or body starts with "fail", and
reading those deliveries back."""

from __future__ import annotations

from typing import Any

from tests.emulator.trigger_helpers import create_zip_function
from tests.emulator.triggers.sqs_helpers import delivered as messages, queue

__all__ = ["ROLE_ARN", "messages", "queue", "reporter", "stream_keys"]

ROLE_ARN = "arn:aws:iam::123456789012:role/pipes"

REPORTER = '''
import json, os, boto3
sqs = boto3.client("sqs")
def key(record):
    return record["dynamodb"]["Keys"]["pk"]["S"] if "dynamodb" in record else record.get("body", "")
def handler(event, context):
    sqs.send_message(QueueUrl=os.environ["QUEUE_URL"], MessageBody=json.dumps(event))
    failing = [r.get("eventID", r.get("messageId")) for r in event if key(r).startswith("fail")]
    if failing and os.environ.get("MODE") == "partial":
        return {"batchItemFailures": [{"itemIdentifier": i} for i in failing]}
    if failing:
        raise RuntimeError("failing " + ",".join(failing))
'''

NODE_REPORTER = """
const { SQSClient, SendMessageCommand } = require('@aws-sdk/client-sqs');
const sqs = new SQSClient({ useQueueUrlAsEndpoint: false });
const key = (r) => (r.dynamodb ? r.dynamodb.Keys.pk.S : (r.body || ''));
exports.handler = async (event) => {
  await sqs.send(new SendMessageCommand({ QueueUrl: process.env.QUEUE_URL, MessageBody: JSON.stringify(event) }));
  const failing = event.filter((r) => key(r).startsWith('fail')).map((r) => r.eventID || r.messageId);
  if (failing.length && process.env.MODE === 'partial') return { batchItemFailures: failing.map((i) => ({ itemIdentifier: i })) };
  if (failing.length) throw new Error('failing ' + failing.join(','));
};
"""


def reporter(door, runtime: str = "python", name: str = "reporter", mode: str = "raise") -> tuple[str, str]:
    """The function `name` and its "deliveries" queue: (the function's ARN, the queue's URL)."""
    sqs, lam = door.client("sqs"), door.client("lambda")
    deliveries, _ = queue(sqs, "deliveries")
    created = create_zip_function(lam, name, runtime, REPORTER if runtime == "python" else NODE_REPORTER,
                                  Environment={"Variables": {"QUEUE_URL": deliveries, "MODE": mode}}, Timeout=10)
    return created["FunctionArn"], deliveries


def stream_keys(batch: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """(key, value) of each DynamoDB record of a batch."""
    return [(r["dynamodb"]["Keys"]["pk"]["S"], r["dynamodb"]["NewImage"]["v"]["N"]) for r in batch]

"""Helpers for trigger tests: a table with a stream, and a zip function (Python or Node.js) that reports each batch
to an SQS queue."""

from __future__ import annotations

import json
import time
from typing import Any, Callable

from .helpers import create_table
from tests.emulator.functions.test_functions import ROLE, create_function, zip_of
from tests.lambda_functions import created_function

REPORTER = '''
import json, os, boto3
sqs = boto3.client("sqs")
def handler(event, context):
    batch = [[r["eventName"], r["dynamodb"]["Keys"]["pk"]["S"], r["dynamodb"]["SequenceNumber"]] for r in event["Records"]]
    sqs.send_message(QueueUrl=os.environ["QUEUE_URL"], MessageBody=json.dumps(batch))
    fail = os.environ.get("FAIL_KEY")
    if fail and any(pk == fail for _, pk, _ in batch):
        raise RuntimeError("failing on " + fail)
'''

NODE_REPORTER = """
const { SQSClient, SendMessageCommand } = require('@aws-sdk/client-sqs');
// Eddy's queue URLs name AWS's host; the SDK would send there rather than to AWS_ENDPOINT_URL
const sqs = new SQSClient({ useQueueUrlAsEndpoint: false });
exports.handler = async (event) => {
  const batch = event.Records.map((r) => [r.eventName, r.dynamodb.Keys.pk.S, r.dynamodb.SequenceNumber]);
  await sqs.send(new SendMessageCommand({ QueueUrl: process.env.QUEUE_URL, MessageBody: JSON.stringify(batch) }));
  const fail = process.env.FAIL_KEY;
  if (fail && batch.some(([, pk]) => pk === fail)) throw new Error('failing on ' + fail);
};
"""


def create_zip_function(lam, name: str, runtime: str, source: str, **options) -> dict:
    """A zip function of one file: app.py (runtime "python") or index.js (runtime "node")."""
    if runtime == "python":
        return create_function(lam, name, source, **options)
    return created_function(lam, FunctionName=name, Runtime="nodejs20.x", Role=ROLE, Handler="index.handler",
                               Code={"ZipFile": zip_of({"index.js": source})}, **options)


def stream_with_reporter(door, *, fail_key: str | None = None, view_type: str = "NEW_AND_OLD_IMAGES",
                         runtime: str = "python") -> dict[str, Any]:
    """A table "orders" with a stream, a queue "deliveries", and a zip function "reporter" that sends each batch there."""
    dynamodb, lam, sqs = door.client("dynamodb"), door.client("lambda"), door.client("sqs")
    stream_arn = create_table(dynamodb, "orders", view_type)["LatestStreamArn"]
    queue_url = sqs.create_queue(QueueName="deliveries")["QueueUrl"]
    variables = {"QUEUE_URL": queue_url}
    if fail_key:
        variables["FAIL_KEY"] = fail_key
    create_zip_function(lam, "reporter", runtime, REPORTER if runtime == "python" else NODE_REPORTER,
                        Environment={"Variables": variables}, Timeout=10)
    return {"dynamodb": dynamodb, "lambda": lam, "sqs": sqs, "stream_arn": stream_arn, "queue_url": queue_url}


def delivered_batches(sqs, queue_url: str) -> list[list[list[str]]]:
    batches = []
    while True:
        messages = sqs.receive_message(QueueUrl=queue_url, MaxNumberOfMessages=10).get("Messages", [])
        if not messages:
            return batches
        for message in messages:
            batches.append(json.loads(message["Body"]))
            sqs.delete_message(QueueUrl=queue_url, ReceiptHandle=message["ReceiptHandle"])


#: how long a test waits for what must happen: waiting ends as soon as it does, so this is generous; a busy
#: machine (two test runs at once on two cores) must never fail a test
SETTLE_SECONDS = 120


def wait_idle(door, timeout: float = SETTLE_SECONDS) -> dict:
    return door.wait_idle(timeout)


def mapping_figures(door, uuid: str) -> dict:
    figures = door.control("/_eddy/mappings") if door.name == "server" else door.emu.mapping_figures()
    [mine] = [mapping for mapping in figures["EventSourceMappings"] if mapping["UUID"] == uuid]
    return mine


def wait_for_figures(door, uuid: str, condition: Callable[[dict], bool]) -> dict:
    """The mapping's figures once `condition(figures)` holds; each look waits on the emulator's activity (an
    idle wait of a second: a mapping that is not idle makes it return as soon as it settles or after the second),
    for at most SETTLE_SECONDS."""
    deadline = time.monotonic() + SETTLE_SECONDS
    while not condition(mine := mapping_figures(door, uuid)):
        if time.monotonic() > deadline:
            raise AssertionError(f"mapping {uuid}'s figures never met the condition in {SETTLE_SECONDS} s: {mine}")
        wait_idle(door, timeout=1)
    return mine


def put(dynamodb, key: str, value: int = 0, table: str = "orders") -> None:
    dynamodb.put_item(TableName=table, Item={"pk": {"S": key}, "v": {"N": str(value)}})


def settle(door, deadline: float = 120) -> list[dict]:
    """Wait until every mapping is idle, moving the emulator's clock to each retry as it falls due (a retry's
    back-off is on the emulator's clock); returns the Failures wait_idle reported on the way."""
    failures: list[dict] = []
    end = time.monotonic() + deadline
    while time.monotonic() < end:
        report = door.wait_idle(0.2)  # a polling step: the deadline above is what bounds the wait
        failures += report["Failures"]
        if report["Idle"]:
            return failures
        due = [lane["NextAttemptAt"] for pending in report["Pending"] for lane in pending["Retrying"]]
        if due and (gap := min(due) - door.now()) > 0:
            door.advance(gap)
    raise AssertionError(f"the mappings did not settle in {deadline} s: {report}")


def retrying(door, attempts: int, deadline: float = 60) -> dict:
    """The first Retrying entry of wait_idle's Pending once a batch has failed `attempts` times."""
    end = time.monotonic() + deadline
    while time.monotonic() < end:
        report = door.wait_idle(0.2)
        for pending in report["Pending"]:
            for lane in pending["Retrying"]:
                if lane["Attempts"] == attempts:
                    return dict(lane, LastError=pending["LastError"], Mapping=pending["Mapping"])
    raise AssertionError(f"no batch failed {attempts} times in {deadline} s: {report}")

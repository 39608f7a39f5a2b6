"""Send a welcome message to SNS or SQS for every new item.

Only INSERT records count (MODIFY and REMOVE are ignored). The message is MESSAGE_TEMPLATE filled in with
str.format from the NewImage's plain values (`"Welcome {name}!"`; whole numbers print as `7`, not
`Decimal('7')`; an attribute the item lacks prints as nothing), or without a template the NewImage's
plain values as JSON. Each message carries the record's eventID as the message attribute `event_id`.
The stream's view type must be NEW_IMAGE or NEW_AND_OLD_IMAGES.

Environment (read on every call), exactly one of:
    NOTIFY_TOPIC_ARN   an SNS topic to publish to
    NOTIFY_QUEUE_URL   an SQS queue to send to
and optionally:
    MESSAGE_TEMPLATE   the str.format template

Idempotence. A batch delivered again sends its messages again (SNS and SQS standard are at-least-once
anyway): consumers dedupe on `event_id`. To a FIFO topic or queue (name ending ".fifo") the eventID is
also the MessageDeduplicationId, so a redelivery within the five-minute deduplication window is dropped;
the MessageGroupId is the source table, which keeps its welcomes in stream order.
"""

from __future__ import annotations

import json
import os

import boto3

from .stream_records import image, plain, table_name


class _Blank(dict):
    def __missing__(self, key: str) -> str:
        return ""


def handler(event: dict, context: object) -> None:
    topic, queue = os.environ.get("NOTIFY_TOPIC_ARN"), os.environ.get("NOTIFY_QUEUE_URL")
    if bool(topic) == bool(queue):
        raise ValueError("set exactly one of NOTIFY_TOPIC_ARN and NOTIFY_QUEUE_URL")
    template = os.environ.get("MESSAGE_TEMPLATE")
    inserts = [record for record in event.get("Records", []) if record["eventName"] == "INSERT"]
    client = boto3.client("sns" if topic else "sqs") if inserts else None
    for record in inserts:
        values = plain(image(record, "NewImage"))
        message = template.format_map(_Blank(values)) if template else json.dumps(values, sort_keys=True, default=str)
        extra = {"MessageAttributes": {"event_id": {"DataType": "String", "StringValue": record["eventID"]}}}
        if (topic or queue).endswith(".fifo"):
            extra.update(MessageDeduplicationId=record["eventID"], MessageGroupId=table_name(record))
        if topic:
            client.publish(TopicArn=topic, Message=message, **extra)
        else:
            client.send_message(QueueUrl=queue, MessageBody=message, **extra)

"""The SQS event Lambda sends a function, and what Lambda makes of the function's answer: pure functions.

The record is Lambda's (Lambda Developer Guide, "Using Lambda with Amazon SQS", example events for standard and FIFO
queues): messageId, receiptHandle, body, attributes (ApproximateReceiveCount, SentTimestamp, SenderId,
ApproximateFirstReceiveTimestamp; for FIFO also SequenceNumber, MessageGroupId, MessageDeduplicationId),
messageAttributes (stringValue/binaryValue, stringListValues, binaryListValues, dataType), md5OfMessageAttributes
(null without attributes), md5OfBody, eventSource "aws:sqs", eventSourceARN and awsRegion, in that order (AWS-recorded
in localstack's test_lambda_integration_sqs.snapshot.json).

ReportBatchItemFailures ("Handling errors for an SQS event source in Lambda"): the batch succeeded when the function
returns nothing, an empty object, or batchItemFailures empty or null; it failed whole when batchItemFailures is not a
list or names an itemIdentifier that is missing, empty, null or not a messageId of the batch; otherwise the named
messages failed and the others are deleted.
"""

from __future__ import annotations

import base64
import json
from typing import Any

from eddy.emulator.moto_seam.sqs_polling import ReceivedMessage


def lambda_record(message: ReceivedMessage, queue_arn: str, region: str) -> dict[str, Any]:
    return {
        "messageId": message.message_id,
        "receiptHandle": message.receipt_handle,
        "body": message.body,
        "attributes": dict(message.attributes),
        "messageAttributes": {name: _attribute(value) for name, value in message.message_attributes.items()},
        "md5OfMessageAttributes": message.md5_of_message_attributes,
        "md5OfBody": message.md5_of_body,
        "eventSource": "aws:sqs",
        "eventSourceARN": queue_arn,
        "awsRegion": region,
    }


def _attribute(value: dict[str, Any]) -> dict[str, Any]:
    attribute: dict[str, Any] = {}
    if value.get("StringValue") is not None:
        attribute["stringValue"] = value["StringValue"]
    if value.get("BinaryValue") is not None:
        binary = value["BinaryValue"]
        attribute["binaryValue"] = base64.b64encode(binary).decode() if isinstance(binary, bytes) else binary
    attribute.update({"stringListValues": [], "binaryListValues": [], "dataType": value.get("DataType")})
    return attribute


def filter_view(record: dict[str, Any]) -> dict[str, Any]:
    """The record as FilterCriteria see it: a body that is a JSON object is matched by its fields."""
    body = record["body"]
    try:
        parsed = json.loads(body)
    except ValueError:
        return record
    return dict(record, body=parsed) if isinstance(parsed, dict) else record


def failed_messages(response: Any, message_ids: list[str], reports_batch_item_failures: bool) -> tuple[set[str], str]:
    """The messageIds that failed (all of them for a malformed answer) and why; an empty set: the batch succeeded."""
    if not reports_batch_item_failures or response is None or (isinstance(response, (dict, list)) and not response):
        return set(), ""
    everything = set(message_ids)
    if not isinstance(response, dict):
        return everything, "the function's response is not a batchItemFailures object"
    failures = response.get("batchItemFailures")
    if failures is None or failures == []:
        return set(), ""
    if not isinstance(failures, list):
        return everything, "batchItemFailures is not a list"
    failed = set()
    for failure in failures:
        identifier = failure.get("itemIdentifier") if isinstance(failure, dict) else None
        if not identifier or identifier not in everything:
            return everything, f"batchItemFailures names an itemIdentifier that is not in the batch: {identifier!r}"
        failed.add(identifier)
    return failed, "the function reported batch item failures"

"""On-failure destinations: where a stream batch goes when Lambda gives up on it (SQS, SNS or S3).

The record is AWS's invocation record for stream sources: requestContext, responseContext, version,
timestamp and DDBStreamBatchInfo, or KinesisBatchInfo for a Kinesis stream (the batch's shard, first and last
sequence numbers and arrival times: whole seconds for DynamoDB, milliseconds for Kinesis). As AWS recorded it
(LocalStack's AWS-validated snapshots, test_lambda_integration_{dynamodbstreams,kinesis}.snapshot.json):
responseContext.functionError is "Unhandled" when the function raised, null when it returned a response with
batch item failures (valid or malformed), and a record given up on for its age (RecordAgeExceeded) has no
responseContext at all.
An S3 destination also gets the original event as "payload", under
aws/lambda/<mapping UUID>/<shard id>/YYYY/MM/DD/YYYY-MM-DDTHH.MM.SS-<uuid>.
Destinations are reached through boto3, as any client would (moto serves them).
"""

from __future__ import annotations

import json
import uuid
from datetime import datetime, timezone
from typing import Any, Callable


RETRY_ATTEMPTS_EXHAUSTED = "RetryAttemptsExhausted"
RECORD_AGE_EXCEEDED = "RecordAgeExceeded"


def _iso(epoch: float, milliseconds: bool = True) -> str:
    moment = datetime.fromtimestamp(epoch, timezone.utc)
    if milliseconds:
        return moment.strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def response_context(result: Any) -> dict[str, Any]:
    """The responseContext of an invocation the function answered (an InvocationResult): functionError "Unhandled" if
    it raised, else None (null); the version that ran (a mapping on an alias runs the alias's version)."""
    return {
        "statusCode": 200,
        "executedVersion": result.executed_version,
        "functionError": None if result.ok else "Unhandled",
    }


def invocation_record(
    *,
    function_arn: str,
    stream_arn: str,
    shard_id: str,
    records: list[Any],
    condition: str,
    invoke_count: int,
    request_id: str,
    now: float,
    response_context: dict[str, Any] | None,
    batch_info_key: str = "DDBStreamBatchInfo",
) -> dict[str, Any]:
    milliseconds = batch_info_key != "DDBStreamBatchInfo"
    record: dict[str, Any] = {
        "requestContext": {
            "requestId": request_id,
            "functionArn": function_arn,
            "condition": condition,
            "approximateInvokeCount": invoke_count,
        },
    }
    if response_context is not None:
        record["responseContext"] = response_context
    record.update(
        {
            "version": "1.0",
            "timestamp": _iso(now),
            batch_info_key: {
                "shardId": shard_id,
                "startSequenceNumber": str(records[0].sequence_number),
                "endSequenceNumber": str(records[-1].sequence_number),
                "approximateArrivalOfFirstRecord": _iso(records[0].created_at, milliseconds),
                "approximateArrivalOfLastRecord": _iso(records[-1].created_at, milliseconds),
                "batchSize": len(records),
                "streamArn": stream_arn,
            },
        }
    )
    return record


def s3_key(mapping_uuid: str, shard_id: str, now: float) -> str:
    moment = datetime.fromtimestamp(now, timezone.utc)
    return f"aws/lambda/{mapping_uuid}/{shard_id}/{moment:%Y/%m/%d}/{moment:%Y-%m-%dT%H.%M.%S}-{uuid.uuid4()}"


def send(
    client: Callable[..., Any],
    destination_arn: str,
    record: dict[str, Any],
    *,
    mapping_uuid: str,
    shard_id: str,
    event: dict[str, Any],
    now: float,
) -> None:
    """Deliver `record` to the destination; `client(service, region)` gives a boto3 client."""
    _, _, service, region, account_id, resource = destination_arn.split(":", 5)
    if service == "sqs":
        sqs = client("sqs", region, account_id)  # the queue's account (moto ignores QueueOwnerAWSAccountId)
        queue_url = sqs.get_queue_url(QueueName=resource)["QueueUrl"]
        sqs.send_message(QueueUrl=queue_url, MessageBody=json.dumps(record))
    elif service == "sns":
        client("sns", region, account_id).publish(TopicArn=destination_arn, Message=json.dumps(record))
    elif service == "s3":
        body = dict(record, payload=event)
        client("s3", region or "us-east-1").put_object(
            Bucket=resource, Key=s3_key(mapping_uuid, shard_id, now), Body=json.dumps(body).encode()
        )
    else:
        raise ValueError(f"not an on-failure destination: {destination_arn}")

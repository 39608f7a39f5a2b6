"""Keep a replica table with the items of the stream's source table, each with its `_replica_sequence`.

INSERT and MODIFY put the record's NewImage; REMOVE deletes the record's Keys. The stream's view type must
be NEW_IMAGE or NEW_AND_OLD_IMAGES.

Environment (read on every call):
    REPLICA_TABLE               the replica table (required); same key schema as the source
    REPLICA_REGION              its region (default: the record's awsRegion)
    REPLICA_ENDPOINT_URL        an endpoint to talk to instead of AWS's (optional)
    REPORT_BATCH_ITEM_FAILURES  "true": answer {"batchItemFailures": [...]} instead of raising (configure the
                                event source mapping with FunctionResponseTypes=["ReportBatchItemFailures"])

Idempotence. Each replica item carries the SequenceNumber of the record that wrote it, as a Number in the
reserved attribute `_replica_sequence` (a Number, so that sequence numbers of different lengths compare
numerically; DynamoDB keeps 38 digits, AWS's sequence numbers today have 21 to 26). A put or delete is
conditional on the stored sequence being lower than the record's, or absent, so a redelivered record
changes nothing and an older record redelivered after a newer one cannot move an item backwards.
A condition that fails is that case, not an error.

The tradeoff of leaving no tombstone: once an item is deleted the replica forgets its sequence, so an
older INSERT/MODIFY of that key redelivered *after* the REMOVE brings the item back until the REMOVE is
delivered again. Lambda never reorders a shard (a retry or a ReportBatchItemFailures resume replays from
a point onwards, REMOVE included), so this needs out-of-order delivery. A tombstone (keep the key with
its sequence and a deleted flag) would close that gap at the price of items readers must filter out.

Any other error is raised, so Lambda retries the batch; with REPORT_BATCH_ITEM_FAILURES the failing
record and every record after it are reported instead (the batch resumes from there, in order).
"""

from __future__ import annotations

import logging
import os

import boto3
from botocore.exceptions import ClientError

from .stream_records import image

SEQUENCE = "_replica_sequence"
NEWER_ONLY = dict(
    ConditionExpression="attribute_not_exists(#seq) OR #seq < :seq", ExpressionAttributeNames={"#seq": SEQUENCE}
)

logger = logging.getLogger(__name__)


def handler(event: dict, context: object) -> dict | None:
    records = event.get("Records", [])
    report = os.environ.get("REPORT_BATCH_ITEM_FAILURES", "").lower() == "true"
    table = os.environ["REPLICA_TABLE"]
    region = os.environ.get("REPLICA_REGION") or next((record["awsRegion"] for record in records), None)
    dynamodb = boto3.client("dynamodb", region_name=region, endpoint_url=os.environ.get("REPLICA_ENDPOINT_URL") or None)
    failed: list[dict] = []
    for position, record in enumerate(records):
        try:
            apply(dynamodb, table, record)
        except Exception:
            if not report:
                raise
            logger.exception("replicating record %s failed", record["dynamodb"]["SequenceNumber"])
            failed = records[position:]
            break
    if report:
        return {"batchItemFailures": [{"itemIdentifier": r["dynamodb"]["SequenceNumber"]} for r in failed]}
    return None


def apply(dynamodb: object, table: str, record: dict) -> None:
    """Write one record to the replica unless the replica already holds that change or a newer one."""
    sequence = {":seq": {"N": record["dynamodb"]["SequenceNumber"]}}
    try:
        if record["eventName"] == "REMOVE":
            dynamodb.delete_item(
                TableName=table, Key=record["dynamodb"]["Keys"], ExpressionAttributeValues=sequence, **NEWER_ONLY
            )
        else:
            dynamodb.put_item(
                TableName=table,
                Item={**image(record, "NewImage"), SEQUENCE: sequence[":seq"]},
                ExpressionAttributeValues=sequence,
                **NEWER_ONLY,
            )
    except ClientError as error:
        if error.response["Error"]["Code"] != "ConditionalCheckFailedException":
            raise

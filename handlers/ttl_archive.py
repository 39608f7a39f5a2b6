"""Archive the items that DynamoDB's TTL deleted, to S3 as JSON lines.

Only REMOVE records made by TTL count: those with userIdentity {"type": "Service", "principalId":
"dynamodb.amazonaws.com"}; a user's own delete and every INSERT/MODIFY are ignored. The stream's view
type must be OLD_IMAGE or NEW_AND_OLD_IMAGES (the archived item is the OldImage).

A batch with TTL deletions becomes one object,
    <ARCHIVE_PREFIX><table>/<yyyy>/<mm>/<dd>/<first sequence number>-<last sequence number>.jsonl
(the date, UTC, is the first deletion's), one line per deleted item, in stream order:
    {"keys": <Keys>, "item": <OldImage>, "deleted_at": <ApproximateCreationDateTime>, "sequence_number": "..."}
with Keys and OldImage in DynamoDB JSON, so that no type is lost.

Environment (read on every call):
    ARCHIVE_BUCKET   the S3 bucket
    ARCHIVE_PREFIX   the key prefix (default "ttl-archive/")

Idempotence. The key and the body follow from the batch alone, so a batch delivered again overwrites
its object with the same bytes. If Lambda delivers the same records in different batches (a bisected
retry, a resume after ReportBatchItemFailures), a record can land in two objects; readers that need
exactly once drop duplicate sequence_numbers.
"""

from __future__ import annotations

import os
from datetime import datetime, timezone

import boto3

from .stream_records import canonical, image, table_name

TTL_PRINCIPAL = {"type": "Service", "principalId": "dynamodb.amazonaws.com"}


def handler(event: dict, context: object) -> None:
    expired = [record for record in event.get("Records", []) if is_ttl_delete(record)]
    if not expired:
        return
    first, last = expired[0]["dynamodb"], expired[-1]["dynamodb"]
    day = datetime.fromtimestamp(first["ApproximateCreationDateTime"], timezone.utc)
    key = (
        f"{os.environ.get('ARCHIVE_PREFIX', 'ttl-archive/')}{table_name(expired[0])}/{day:%Y/%m/%d}/"
        f"{first['SequenceNumber']}-{last['SequenceNumber']}.jsonl"
    )
    body = "".join(canonical(archive_line(record)) + "\n" for record in expired)
    boto3.client("s3").put_object(
        Bucket=os.environ["ARCHIVE_BUCKET"], Key=key, Body=body.encode(), ContentType="application/x-ndjson"
    )


def is_ttl_delete(record: dict) -> bool:
    identity = record.get("userIdentity") or {}
    return record["eventName"] == "REMOVE" and all(identity.get(k) == v for k, v in TTL_PRINCIPAL.items())


def archive_line(record: dict) -> dict:
    change = record["dynamodb"]
    return {
        "keys": change["Keys"],
        "item": image(record, "OldImage"),
        "deleted_at": change["ApproximateCreationDateTime"],
        "sequence_number": change["SequenceNumber"],
    }

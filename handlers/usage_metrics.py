"""Count a table's changes per event type and time bucket, in a metrics table.

Each record counts once in the item keyed pk = "<source table>#<bucket start, ISO 8601 UTC>", e.g.
"orders#2024-05-01T12:34:00Z", under an attribute named after its event type (INSERT, MODIFY or REMOVE).
The bucket is the record's ApproximateCreationDateTime rounded down to BUCKET_SECONDS. The item also
holds `table` and `bucket_start` (epoch seconds). A batch is summed first, then each bucket gets one
UpdateItem with `ADD` (atomic, so concurrent invocations on other shards add up correctly).
Any stream view type will do.

Environment (read on every call):
    METRICS_TABLE    the metrics table, with a String partition key `pk`
    BUCKET_SECONDS   bucket width in seconds (default 60)

Idempotence: none. ADD is not idempotent, so a batch that Lambda delivers again (after an error or a
timeout) is counted again; AWS's guidance for atomic counters says the same. That suits usage metrics,
which tolerate a small overcount. Exact counts need a conditional write per record (e.g. a ledger of
eventIDs written with attribute_not_exists, in the same transaction as the count).
"""

from __future__ import annotations

import os
from collections import Counter, defaultdict
from datetime import datetime, timezone

import boto3

from .stream_records import table_name


def handler(event: dict, context: object) -> None:
    metrics_table = os.environ["METRICS_TABLE"]
    width = int(os.environ.get("BUCKET_SECONDS", "60"))
    counts: defaultdict[tuple[str, int], Counter] = defaultdict(Counter)
    for record in event.get("Records", []):
        created = int(record["dynamodb"]["ApproximateCreationDateTime"])
        counts[table_name(record), created - created % width][record["eventName"]] += 1
    if not counts:
        return
    dynamodb = boto3.client("dynamodb")
    for (table, start), by_event in counts.items():
        adds = ", ".join(f"#{name} :{name}" for name in by_event)
        dynamodb.update_item(
            TableName=metrics_table,
            Key={"pk": {"S": f"{table}#{bucket_label(start)}"}},
            UpdateExpression=f"SET #table = :table, #start = :start ADD {adds}",
            ExpressionAttributeNames={"#table": "table", "#start": "bucket_start", **{f"#{n}": n for n in by_event}},
            ExpressionAttributeValues={
                ":table": {"S": table},
                ":start": {"N": str(start)},
                **{f":{n}": {"N": str(count)} for n, count in by_event.items()},
            },
        )


def bucket_label(start: int) -> str:
    """A bucket's start as it appears in the metrics key: ISO 8601 in UTC, to the second."""
    return datetime.fromtimestamp(start, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")

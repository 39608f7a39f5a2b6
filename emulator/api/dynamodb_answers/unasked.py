"""What moto answers unasked, taken out as DynamoDB leaves it out: ConsumedCapacity and ItemCollectionMetrics only
when the request asked for them; and DynamoDB's ItemCollectionMetrics added where it was asked for (the fast path's
answer shaped before it is encoded: `shape`, which the engine calls under its lock, as moto's answer shares values
with moto's items)."""

from __future__ import annotations

import json
import zlib
from typing import Any

from eddy.emulator.api.dynamodb_answers import collection_key, item_collection_metrics
from eddy.emulator.aws_requests import Response

#: the operations whose answer moto gives ConsumedCapacity or ItemCollectionMetrics unasked (AWS: only when asked)
CAPACITY_REPORTED = frozenset({"UpdateItem", "BatchGetItem", "BatchWriteItem", "TransactWriteItems"})


def shape(operation: str, params: dict[str, Any], answered: dict[str, Any], account_id: str, region: str) -> None:
    """The fast path's answer (moto's, serialized) as DynamoDB gives it, changed in place."""
    if operation in CAPACITY_REPORTED:
        unasked_removed(params, answered)
    if (
        "ReturnItemCollectionMetrics" in params
        and item_collection_metrics.asked(params)
        and operation in item_collection_metrics.OPERATIONS
    ):  # DynamoDB's, for a table with an LSI
        item_collection_metrics.added(operation, params, answered, collection_key(account_id, region))


def unasked_capacity_removed(operation: str, params: dict[str, Any], response: Response) -> Response:
    """moto's full-path answer without the ConsumedCapacity and ItemCollectionMetrics the request did not ask for."""
    if response.status != 200 or operation not in CAPACITY_REPORTED:
        return response
    answered = json.loads(response.body)
    if not unasked_removed(params, answered):
        return response
    body = json.dumps(answered).encode()
    headers = {
        name: value for name, value in response.headers.items() if name.lower() not in ("content-length", "x-amz-crc32")
    }
    headers["x-amz-crc32"] = str(zlib.crc32(body))
    return Response(response.status, headers, body)


def unasked_removed(params: dict[str, Any], answered: dict[str, Any]) -> bool:
    """AWS answers ConsumedCapacity only for ReturnConsumedCapacity TOTAL or INDEXES (with each table's and index's
    share, `Table`, only for INDEXES) and ItemCollectionMetrics only for ReturnItemCollectionMetrics SIZE (DynamoDB
    API reference, BatchWriteItem/UpdateItem "Response Elements"; LocalStack's AWS-recorded test_batch_write_items
    answer has neither). True when something was removed."""
    removed = False
    asked = params.get("ReturnConsumedCapacity")
    if asked not in ("TOTAL", "INDEXES"):
        removed = answered.pop("ConsumedCapacity", None) is not None or removed
    elif asked == "TOTAL" and isinstance(answered.get("ConsumedCapacity"), list):
        for consumed in answered["ConsumedCapacity"]:
            removed = consumed.pop("Table", None) is not None or removed
    if params.get("ReturnItemCollectionMetrics") != "SIZE":
        removed = answered.pop("ItemCollectionMetrics", None) is not None or removed
    return removed

"""What moto answers unasked, taken out as DynamoDB leaves it out: ConsumedCapacity and ItemCollectionMetrics only
when the request asked for them; and DynamoDB's ItemCollectionMetrics added where it was asked for (the fast path's
answer shaped before it is encoded: `shape`, which the engine calls under its lock, as moto's answer shares values
with moto's items)."""

from __future__ import annotations

import json
import zlib
from typing import Any, Callable

from eddy.emulator.api.dynamodb.answers import (
    collection_key,
    consumed_capacity,
    index_entries,
    item_collection_metrics,
    table_indexes,
)
from eddy.emulator.aws_requests import Response
from eddy.emulator.moto_seam.tables import views as moto_tables
from eddy.emulator.moto_seam.tables.views import TableKey
from eddy.emulator.streams.item_size import item_size

#: the operations whose answer moto gives ConsumedCapacity or ItemCollectionMetrics unasked (AWS: only when asked)
CAPACITY_REPORTED = frozenset({"UpdateItem", "BatchGetItem", "BatchWriteItem", "TransactWriteItems"})


def shape(
    operation: str,
    params: dict[str, Any],
    answered: dict[str, Any],
    account_id: str,
    region: str,
    written: Callable[[], list[tuple[TableKey, Any, Any]]] | None = None,
) -> None:
    """The fast path's answer (moto's, serialized) as DynamoDB gives it, changed in place; `written`: the items the
    operation has written so far (the engine's capture), for an item write's ConsumedCapacity."""
    if operation in CAPACITY_REPORTED:
        unasked_removed(params, answered)
    if params.get("ReturnConsumedCapacity") in consumed_capacity.MODES:
        _capacity(operation, params, answered, account_id, region, written)
    if (
        "ReturnItemCollectionMetrics" in params
        and item_collection_metrics.asked(params)
        and operation in item_collection_metrics.OPERATIONS
    ):  # DynamoDB's, for a table with an LSI
        item_collection_metrics.added(operation, params, answered, collection_key(account_id, region))


def _capacity(
    operation: str,
    params: dict[str, Any],
    answered: dict[str, Any],
    account_id: str,
    region: str,
    written: Callable[[], list[tuple[TableKey, Any, Any]]] | None,
) -> None:
    indexes = table_indexes(account_id, region)
    if operation in consumed_capacity.ITEM_WRITES and written is not None:
        mine = [(table[2], old, new) for table, old, new in written() if table[:2] == (account_id, region)]
        answered["ConsumedCapacity"] = consumed_capacity.of_item_writes(
            operation, params, mine, index_entries(account_id, region)
        )
    elif operation in consumed_capacity.ITEM_READS:
        answered["ConsumedCapacity"] = consumed_capacity.of_item_reads(
            operation, params, _read_sizes(operation, params, account_id, region)
        )
    elif operation in ("Query", "Scan") and params.get("IndexName") and params["ReturnConsumedCapacity"] == "INDEXES":
        consumed_capacity.index_read_placed(params, answered, indexes(params.get("TableName"))[1])


def _read_sizes(operation: str, params: dict[str, Any], account_id: str, region: str) -> dict[str, list]:
    """Each table's items a GetItem or BatchGetItem read: (the stored item's size, whether the read is consistent)."""
    if operation == "GetItem":
        asked = {params["TableName"]: {"Keys": [params.get("Key")], "ConsistentRead": params.get("ConsistentRead")}}
    else:
        asked = params.get("RequestItems") or {}
    return {
        table: [
            (item_size(moto_tables.item_image(account_id, region, table, keys)), bool(request.get("ConsistentRead")))
            for keys in request.get("Keys") or ()
        ]
        for table, request in asked.items()
    }


def with_write_capacity(
    operation: str,
    params: dict[str, Any],
    written: Callable[[], list[tuple[TableKey, Any, Any]]],
    account_id: str,
    region: str,
    response: Response,
) -> Response:
    """moto's full-path answer to an item write with the ConsumedCapacity `shape` gives the fast path's."""
    if (
        response.status != 200
        or operation not in consumed_capacity.ITEM_WRITES
        or params.get("ReturnConsumedCapacity") not in consumed_capacity.MODES
    ):
        return response
    answered = json.loads(response.body)
    _capacity(operation, params, answered, account_id, region, written)
    return _rewritten(response, answered)


def with_read_capacity(
    operation: str, params: dict[str, Any], account_id: str, region: str, response: Response
) -> Response:
    """moto's full-path answer to a read with the ConsumedCapacity `shape` gives the fast path's (an item read's
    units, an index read under its index's kind)."""
    asked = params.get("ReturnConsumedCapacity")
    if response.status != 200 or asked not in consumed_capacity.MODES:
        return response
    if operation not in consumed_capacity.ITEM_READS and not (
        operation in ("Query", "Scan") and params.get("IndexName") and asked == "INDEXES"
    ):
        return response
    answered = json.loads(response.body)
    _capacity(operation, params, answered, account_id, region, None)
    return _rewritten(response, answered)


def unasked_capacity_removed(operation: str, params: dict[str, Any], response: Response) -> Response:
    """moto's full-path answer without the ConsumedCapacity and ItemCollectionMetrics the request did not ask for."""
    if response.status != 200 or operation not in CAPACITY_REPORTED:
        return response
    answered = json.loads(response.body)
    if not unasked_removed(params, answered):
        return response
    return _rewritten(response, answered)


def _rewritten(response: Response, answered: dict[str, Any]) -> Response:
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

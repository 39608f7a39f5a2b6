"""PutItem's plainest form (no condition, no expression attributes, no old item asked back) as moto's
DynamoHandler.put_item answers it, without the work moto's handler does for the other forms (actions.py runs it for
the fast path). tests/emulator/api/test_dynamodb_fast.py compares its answers with moto's own action, and
tests/emulator/moto_seam/test_speedups_put_item.py the items it stores.

moto's handler, for such a put: its table (ResourceNotFoundException), its checks for empty key values, empty sets
and null index keys, a condition parser of no expression (always true), the backend's put_item (Table.put_item,
speedups/dynamodb_puts.py's), then the whole stored item as JSON (Item.to_json) only to drop it again, as no old item
was asked for: the answer is `{}` and the ConsumedCapacity asked for. Here the same checks in the same order with
the same errors, the item built and stored as Table.put_item builds and stores it, but with what the door's checks
allow: `item_to_put(types_checked=True)` (Eddy's validation refused what moto's attribute value checks refuse, as
for BatchWriteItem) and `fits` (the request is no longer than an item may be: its size is not measured).

    result = put_item(handler, fits=True)    # moto's ActionResult, or moto's error raised
"""

from __future__ import annotations

from moto.core.responses import ActionResult
from moto.dynamodb import responses as moto_responses
from moto.dynamodb.responses import DynamoHandler, include_consumed_capacity

from eddy.emulator.moto_seam.speedups.dynamodb_puts import item_to_put, store_item
from eddy.emulator.moto_seam.tables.lookups import table_named

moto_put_item = DynamoHandler.put_item
#: members that make a put other than the plainest: moto's own handler answers it (a set: `isdisjoint` asks about
#: them all in one call)
_NOT_PLAIN = frozenset({"Expected", "ConditionExpression", "ExpressionAttributeNames", "ExpressionAttributeValues"})
#: the value moto's validate_put_has_empty_keys looks for (an S or a B whose first member is ''), as a validated item
#: holds it: one member (a B is decoded to bytes by then, which that check's '' never equals)
_EMPTY_STRING = {"S": ""}


def put_item(handler: DynamoHandler, *, fits: bool = False) -> ActionResult:
    """moto's DynamoHandler.put_item (its ConsumedCapacity too) for a put the door has validated; `fits`: the request's
    body is no longer than an item may be."""
    body = handler.body
    if body.get("ReturnValues", "NONE") != "NONE" or not _NOT_PLAIN.isdisjoint(body):
        return moto_put_item(handler)
    return _plain_put(handler, fits=fits)  # moto's decorator takes the handler alone as an argument


@include_consumed_capacity()
def _plain_put(handler: DynamoHandler, fits: bool) -> ActionResult:
    body = handler.body
    item = body["Item"]
    table = table_named(handler.dynamodb_backend, body["TableName"])
    if _EMPTY_STRING in item.values():  # else moto's check finds nothing: not run
        moto_responses.validate_put_has_empty_keys(item, table)
    moto_responses.validate_put_has_empty_attrs(item, table)  # speedups/dynamodb_puts.py's while an emulator runs
    moto_responses.validate_put_has_gsi_keys_set_to_none(item, table)
    store_item(table, item_to_put(table, item, types_checked=True, fits=fits))
    return ActionResult({})

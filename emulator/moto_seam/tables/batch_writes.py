"""BatchWriteItem written into moto's tables all or nothing: moto's DynamoHandler.batch_write_item step for step, with
its per-table work done once per table, every request checked and every item built before any is written, then the
writes made in the request's order (actions.py runs it for the fast path; all_or_nothing.py routes moto's full path
here). tests/emulator/api/test_dynamodb_fast.py compares its answers with moto's own action, request by request.

    result = batch_write_item(handler, validated=True, fits=True)    # moto's ActionResult, or moto's error raised
"""

from __future__ import annotations

from typing import Any

from moto.core.responses import ActionResult
from moto.dynamodb.exceptions import MockValidationException
from moto.dynamodb.models.utilities import DynamoJsonEncoder
from moto.dynamodb.responses import DynamoHandler, validate_put_has_empty_keys

from eddy.emulator.moto_seam.speedups.dynamodb_puts import item_to_put, store_item
from eddy.emulator.storage.disk import fail_point

moto_batch_write_item = DynamoHandler.batch_write_item  # moto's own, also while all_or_nothing.py routes it here
_EMPTY_KEY = (
    "One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an "
    "empty string value. Key: {}"
)  # moto's custom_error_msg for a batch's puts


def batch_write_item(handler: DynamoHandler, *, validated: bool = False, fits: bool = False) -> ActionResult:
    """DynamoHandler.batch_write_item, step for step, except that nothing is written unless everything can be: each
    table found (ResourceNotFoundException) and each put's keys checked for empty strings (validate_put_has_empty_keys)
    in the request's order, then moto's duplicates rule (two puts, or two deletes, whose whole JSON is the same), then
    every put's item built with every check moto's put makes (dynamodb_puts.item_to_put) and every delete's key read
    as moto's delete reads it, in moto's order (puts, then deletes), and only then every put stored and every delete
    made, in the request's order (AWS's stream records follow it; moto made all puts, then all deletes). AWS refuses
    the whole batch when one request is bad; moto wrote the puts before the bad one. The first bad request's error
    is moto's, as before. What moto works out per item and the same for every item of a table
    (the table, the backend, a JSON encoder) is worked out once, and moto's empty-key check runs on the items that
    have an empty string at all. A request of another form (no member, an AttributeValue without one) is moto's own.
    `validated`: the body passed Eddy's validation, so moto's attribute value checks are not made again; `fits`: the
    body is no longer than an item may be, so no item's size is measured (dynamodb_puts.item_to_put).
    """
    table_batches = handler.body["RequestItems"]
    if not _plain_batch(table_batches):
        return moto_batch_write_item(handler)
    backend = handler.dynamodb_backend
    put_requests: list[tuple[Any, dict[str, Any]]] = []
    delete_requests: list[tuple[Any, dict[str, Any]]] = []
    puts_in_order: list[bool] = []  # the request's order: a put (True) or a delete (False)
    for table_name, table_requests in table_batches.items():
        table = backend.get_table(table_name)
        for table_request in table_requests:
            for request_type, request in table_request.items():  # moto reads the first member only
                break
            if request_type == "PutRequest":
                item = request["Item"]
                if any(_empty_string(value) for value in item.values()):
                    validate_put_has_empty_keys(item, table, custom_error_msg=_EMPTY_KEY)  # raises moto's error
                put_requests.append((table, item))
                puts_in_order.append(True)
            elif request_type == "DeleteRequest":
                delete_requests.append((table, request["Key"]))
                puts_in_order.append(False)
    key_names = sorted({name for table, _ in put_requests for name in table.table_key_attrs})
    for requests in (delete_requests, _alike(put_requests, key_names)):
        dumped = [_encode(request[1]) for request in requests]
        if len(set(dumped)) != len(dumped):
            raise MockValidationException("Provided list of item keys contains duplicates")
    items = [
        (table, item_to_put(table, item, types_checked=validated, fits=fits))  # the table found by the same name
        for table, item in put_requests
    ]
    deleted_keys = [(table, _delete_key(backend, table, keys)) for table, keys in delete_requests]
    writes = {True: iter(items), False: iter(deleted_keys)}
    for put in puts_in_order:
        table, written = next(writes[put])
        store_item(table, written) if put else table.delete_item(*written)
        fail_point("moto-apply")  # a test's: moto failing midway, what it wrote put back (tests/durability/)
    return ActionResult(
        {
            "ConsumedCapacity": [
                {"TableName": table_name, "CapacityUnits": 1.0, "Table": {"CapacityUnits": 1.0}}
                for table_name in table_batches
            ],
            "ItemCollectionMetrics": {},
            "UnprocessedItems": {},
        }
    )


_encode = DynamoJsonEncoder().encode  # what moto's dynamo_json_dump does, with one encoder


def _alike(put_requests: list[tuple[Any, dict[str, Any]]], key_names: list[str]) -> list[tuple[Any, dict[str, Any]]]:
    """The puts whose items might have the same JSON as another's: those that agree with another on every key
    attribute of the batch's tables (equal JSON means equal values under every name), so that moto's duplicates
    rule encodes only those rather than every item."""
    groups: dict[tuple[Any, ...], list[tuple[Any, dict[str, Any]]]] = {}
    for request in put_requests:
        groups.setdefault(tuple(_fingerprint(request[1].get(name)) for name in key_names), []).append(request)
    return [request for group in groups.values() if len(group) > 1 for request in group]


def _fingerprint(value: Any) -> Any:
    """A hashable stand-in for an attribute value: equal values (as JSON, members in the same order) give equal ones."""
    if type(value) is dict and len(value) == 1:
        for kind, content in value.items():
            if type(content) is str:
                return kind, content
    return repr(value)


def _delete_key(backend: Any, table: Any, keys: dict[str, Any]) -> tuple[Any, Any]:
    """The key moto's backend.delete_item removes, read with its checks (a key attribute missing, then the table's
    own check of a range key); its condition, absent, is moto's OpDefault, always true."""
    hash_key, range_key = backend.get_keys_value(table, keys)
    table.get_item(hash_key, range_key)
    return hash_key, range_key


def _plain_batch(table_batches: Any) -> bool:
    """Every request a dict with a member, every put's item a dict of non-empty dicts (what moto's per-item
    code reads without failing)."""
    for table_requests in table_batches.values():
        for table_request in table_requests:
            if type(table_request) is not dict or not table_request:
                return False
            for request_type, request in table_request.items():
                break
            if type(request) is not dict:
                return False
            if request_type == "PutRequest":
                item = request.get("Item")
                if type(item) is not dict or not all(type(value) is dict and value for value in item.values()):
                    return False
            elif request_type == "DeleteRequest" and "Key" not in request:
                return False
    return True


def _empty_string(value: dict[str, Any]) -> bool:
    """validate_put_has_empty_keys' test of one attribute: an S or B whose first member is ''."""
    for kind, content in value.items():
        return kind in ("S", "B") and content == ""
    return False

"""moto's DynamoDB writes made all or nothing, as AWS's are: a refused write leaves the table as it was.

- `DynamoDBBackend.update_item`: moto executes an update expression on the stored item in place, and on a key
  that does not exist it first stores a key-only item (`table.put_item(keys)`), then executes. When the
  expression fails midway (the item grows over 400 KB: "Item size to update has exceeded the maximum allowed
  size"; a later action fails) moto answers the error but keeps what it did: the attributes set before the
  failure, or the new item, which change capture then reports as an INSERT. Here the stored item is copied
  first (moto's own Item.__deepcopy__, as moto's update_item copies it for its stream record) and, if moto
  raises, put back as it was, or the item moto created removed, straight in the table's dict: moto's write hook
  (`stream_shard`) is not told, so capture, diffing each touched item against the table when the operation
  ends, finds nothing changed. UpdateItem, PartiQL UPDATE (run as UpdateItem) and a transaction's Update all
  call this method (moto also restores every table a failed transaction wrote). An update that only REMOVEs, on an
  item that is not there, leaves nothing behind either (AWS creates no item and streams no record: the
  AWS-recorded suite of issue 37), where moto kept the key-only item it made.
- `Item.update_with_attribute_updates` (UpdateItem's legacy AttributeUpdates), as DynamoDB applies them. moto's PUT
  stored every type but SS, NS, N, lists and maps as a string (a binary value became the string of its base64 text,
  a BOOL the string "True", a binary set a list of raw values no log or stream can encode) and NULL removed the
  attribute; its ADD and DELETE knew no binary set, and its DELETE left an empty set. Here PUT stores the value as
  sent, whatever its type; ADD of a set (SS, NS, BS) is the union (made when missing), DELETE of a set removes those
  members and the attribute once its set is empty, members compared as DynamoDB compares them ("1" and "1.0" are
  one number); an ADD or DELETE of another type than the stored attribute's is "Type mismatch for attribute to
  update" (dynalite's words); the rest (ADD of a number, of a list) is moto's. An UpdateItem with neither
  UpdateExpression nor AttributeUpdates updates nothing: the item moto made of the key stays, as AWS makes it.
- `DynamoHandler.batch_write_item`: moto's full path runs Eddy's rendering of the action
  (tables/batch_writes.py), which checks and builds every put and delete of the batch before it writes
  any, as the fast path does: AWS refuses the whole batch if one request is bad; moto wrote the puts before it.
- moto's condition-expression parser (`moto.dynamodb.comparisons`) refuses an expression it cannot read with a
  ValueError, which moto's Scan turns into a ValidationException but its Query (FilterExpression) and its
  conditional writes (ConditionExpression) let through, and a `:value` or `#name` the request does not define
  with a KeyError everywhere; moto's UpdateExpression validator fails the same way on an undefined `#name` in
  SET a path (`check_for_overlapping_paths`): `expression_complaint` tells such an error apart and words it
  (in the words moto's UpdateExpression errors have), for the front door to answer it as a ValidationException.

Installed beside moto_speedups while an emulator is open and moto's DynamoDB is loaded (moto_seam/__init__.py);
plain moto in the same process keeps its own.
Pinned by tests/emulator/test_failed_writes.py.
"""

from __future__ import annotations

import copy
import re
from decimal import Decimal
from typing import Any, Callable

from moto.dynamodb import comparisons
from moto.dynamodb.exceptions import MockValidationException
from moto.dynamodb.parsing import validators
from moto.dynamodb.models import DynamoDBBackend
from moto.dynamodb.models.dynamo_type import DynamoType, Item
from moto.dynamodb.models.table import Table
from moto.dynamodb.responses import DynamoHandler

from eddy.emulator.moto_seam import conditions, dynamodb_rules
from eddy.emulator.moto_seam.tables import batch_writes
from eddy.emulator.moto_seam import Patches
from eddy.emulator.errors import UNDEFINED_NAME, UNDEFINED_VALUE

_CONDITION_PARSER = comparisons.__file__
_UPDATE_VALIDATORS = validators.__file__
original_update_item = DynamoDBBackend.update_item
original_update_with_attribute_updates = Item.update_with_attribute_updates
original_batch_write_item = batch_writes.moto_batch_write_item


def _update_item(self: DynamoDBBackend, table_name: str, key: dict[str, Any], *args: Any, **kwargs: Any) -> Item:
    try:
        table = self.get_table(table_name)  # by name or ARN, as moto finds it
    except Exception:  # noqa: BLE001 - moto's ResourceNotFoundException, from moto's own method
        table = None
    found = _stored(table, key) if table is not None else None
    if found is None:  # no such table, or a key moto refuses before it stores anything: moto's own
        return original_update_item(self, table_name, key, *args, **kwargs)
    hash_key, range_key, before = found
    saved = copy.deepcopy(before) if before is not None else None
    try:
        updated = original_update_item(self, table_name, key, *args, **kwargs)
    except BaseException:
        put_back(table, hash_key, range_key, saved)
        raise
    if before is None and _only_removes(kwargs.get("update_expression", args[0] if args else None)):
        put_back(table, hash_key, range_key, None)
    return updated


_CLAUSE = re.compile(r"\b(SET|REMOVE|ADD|DELETE)\b", re.IGNORECASE)


def _only_removes(update_expression: Any) -> bool:
    """Whether an UpdateExpression has REMOVE clauses only (clause words are reserved: no attribute is named so)."""
    return isinstance(update_expression, str) and {clause.upper() for clause in _CLAUSE.findall(update_expression)} == {
        "REMOVE"
    }


def _stored(table: Table, key: Any) -> tuple[DynamoType, DynamoType | None, Item | None] | None:
    """(hash key, range key, the item stored under them or None) as moto's update_item reads the key, or None if
    it is not a plain key of the table (moto then refuses it before it stores anything)."""
    if type(key) is not dict or table.hash_key_attr not in key:
        return None
    range_attr = table.range_key_attr
    try:
        hash_key = DynamoType(key[table.hash_key_attr])
        range_key = DynamoType(key[range_attr]) if range_attr is not None and range_attr in key else None
        hash(hash_key), hash(range_key)
    except Exception:  # noqa: BLE001 - an odd value: moto's own error, from moto's own code
        return None
    if range_attr is None:
        return hash_key, None, table.items.get(hash_key)
    if range_key is None:
        return None  # moto's get_item refuses it
    partition = table.items.get(hash_key)
    return hash_key, range_key, partition.get(range_key) if partition is not None else None


def put_back(table: Table, hash_key: DynamoType, range_key: DynamoType | None, saved: Item | None) -> None:
    """The item as it was before the update (None: there was none), without telling moto's write hook."""
    items: dict[Any, Any] = table.items
    if range_key is None:
        if saved is None:
            items.pop(hash_key, None)
        else:
            items[hash_key] = saved
        return
    partition = items.get(hash_key)
    if saved is not None:
        items[hash_key][range_key] = saved
    elif partition is not None:
        partition.pop(range_key, None)
        if not partition:
            del items[hash_key]


SETS = ("SS", "NS", "BS")


def _update_with_attribute_updates(self: Item, attribute_updates: dict[str, Any] | None) -> None:
    if not attribute_updates:
        return  # an UpdateItem of its key only
    for name, update in attribute_updates.items():
        action, value, stored = update.get("Action", "PUT"), update.get("Value"), self.attrs.get(name)
        if action in ("ADD", "DELETE") and value and stored is not None and stored.type not in value:
            raise MockValidationException("Type mismatch for attribute to update")
    for name, update in attribute_updates.items():
        action, value = update.get("Action", "PUT"), update.get("Value")
        if action == "PUT":
            self.attrs[name] = DynamoType(value)
        elif action == "DELETE" and not value:
            self.attrs.pop(name, None)
        elif (kind := next(iter(value))) in SETS and action in ("ADD", "DELETE"):
            _change_set(self, name, kind, value[kind], add=action == "ADD")
        else:
            original_update_with_attribute_updates(self, {name: update})


def _change_set(item: Item, name: str, kind: str, members: list[str], *, add: bool) -> None:
    """A set attribute with `members` added or removed (each member once, as DynamoDB tells members apart)."""
    identity: Callable[[str], Any] = (lambda member: Decimal(member)) if kind == "NS" else (lambda member: member)
    stored = item.attrs.get(name)
    current = {identity(member): member for member in (stored.value if stored is not None else ())}
    for member in members:
        if add:
            current.setdefault(identity(member), member)
        else:
            current.pop(identity(member), None)
    if current:
        item.attrs[name] = DynamoType({kind: list(current.values())})
    else:
        item.attrs.pop(name, None)


def _batch_write_item(self: DynamoHandler) -> Any:
    return batch_writes.batch_write_item(self)


_patches = Patches()


def install() -> None:
    _patches.set(DynamoDBBackend, "update_item", _update_item)
    _patches.set(Item, "update_with_attribute_updates", _update_with_attribute_updates)
    _patches.set(DynamoHandler, "batch_write_item", _batch_write_item)
    dynamodb_rules.install()
    conditions.install()


def uninstall() -> None:
    dynamodb_rules.uninstall()
    conditions.uninstall()
    _patches.restore()


#: moto's condition parser's lookups of a request's ExpressionAttributeValues and ExpressionAttributeNames
_UNDEFINED = {
    "_lookup_expression_attribute_value": UNDEFINED_VALUE,
    "_lookup_expression_attribute_name": UNDEFINED_NAME,
}


def expression_complaint(error: BaseException) -> tuple[str, str] | None:
    """("condition", why) if `error` is moto's condition-expression parser refusing an expression (its ValueError's
    reason, or what a KeyError in its lookups of the request's names and values means); ("update", why) if it is
    moto's UpdateExpression validator looking up a name the request does not define (its overlapping-paths check
    runs before the check that words that); None for anything else."""
    trace = error.__traceback__
    while trace is not None and trace.tb_next is not None:
        trace = trace.tb_next
    if trace is None:
        return None
    module, function = trace.tb_frame.f_code.co_filename, trace.tb_frame.f_code.co_name
    if module == _CONDITION_PARSER and type(error) is ValueError:
        return "condition", str(error)
    if module == _CONDITION_PARSER and type(error) is KeyError and function in _UNDEFINED:
        return "condition", _UNDEFINED[function].format(error.args[0])
    if module == _UPDATE_VALIDATORS and type(error) is KeyError and function == "check_for_overlapping_paths":
        return "update", UNDEFINED_NAME.format(error.args[0])
    return None

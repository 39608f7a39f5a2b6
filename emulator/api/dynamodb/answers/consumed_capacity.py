"""The ConsumedCapacity of a TransactWriteItems (moto answers `[]`) and of the item writes PutItem, UpdateItem,
DeleteItem and BatchWriteItem (moto answered one unit whatever was written, and no index), as DynamoDB reports it for
ReturnConsumedCapacity TOTAL or INDEXES.

- An item write (`of_item_writes`): one unit per KB of the larger of the item's images, rounded up, at least one (a
  delete of an item that is not there costs one); each secondary index the item is in, or enters or leaves, one write
  per KB of the item's entry there (what the index projects: its keys, the table's, its NonKeyAttributes, or all), two
  when its key in the index changes (an old entry deleted, a new one put), none when its entry is unchanged (an update
  of attributes the index does not project) (DynamoDB
  developer guide, "Provisioned throughput considerations for Global Secondary Indexes": writes to an index; "Read/write
  capacity mode"). TOTAL: {TableName, CapacityUnits}; INDEXES adds Table and each index written, CapacityUnits alone at
  every level (a code generator's snapshot tests of a DynamoDB endpoint's answers, createUserLogin/updateUserLogin:
  a PutItem of an item with a GSI's key {"CapacityUnits": 2, "Table": {"CapacityUnits": 1}, "GlobalSecondaryIndexes":
  {"gsi1": {"CapacityUnits": 1}}}, a DeleteItem of it the same, an update moving it in the index 3, the index's 2).
  A Query or Scan of an index reports it under its own kind (moto put every index under LocalSecondaryIndexes).
- An item read (`of_item_reads`: GetItem, BatchGetItem): one unit per 4 KB of the stored item (whatever the projection
  returns), at least one, half for an eventually consistent read (DynamoDB developer guide, "Read/write capacity
  mode": "one strongly consistent read per second, or two eventually consistent reads per second, for an item up to
  4 KB"; GetItem "still consumes the minimum read capacity units" when there is no item); the code generator's
  snapshots: GetItem {"CapacityUnits": 0.5, "Table": {"CapacityUnits": 0.5}} (moto: 0.5 for any GetItem, one unit
  per key for BatchGetItem).

- One entry per table the transaction names, in the order it first names them.
- Each write costs twice a single write (DynamoDB developer guide, "Capacity management for transactions": "two
  underlying writes per item"): 2 x one unit per KB, rounded up, of the larger of the item's images before and after;
  a ConditionCheck, which writes nothing, two units.
- TOTAL: {TableName, CapacityUnits, WriteCapacityUnits}; INDEXES adds Table and each secondary index written
  ({CapacityUnits, WriteCapacityUnits}); a transaction's answers carry WriteCapacityUnits at every level (DynamoDB API
  reference, ConsumedCapacity/Capacity; Dynoxide's captures against DynamoDB, src/types.rs). An index write costs a
  single write (not doubled), measured as for an item write (below).
- The same request again under its ClientRequestToken (client_request_tokens.py) writes nothing: it is charged as a
  transactional read of the items the first one wrote, 2 x one unit per 4 KB (DynamoDB API reference,
  TransactWriteItems ClientRequestToken: "subsequent TransactWriteItems calls with the same client token return the
  number of read capacity units consumed in reading the item"), with ReadCapacityUnits.
"""

from __future__ import annotations

from math import ceil
from typing import Any, Callable, Iterable

from eddy.emulator.streams.item_size import item_size

MODES = ("TOTAL", "INDEXES")
ITEM_WRITES = frozenset({"PutItem", "UpdateItem", "DeleteItem", "BatchWriteItem"})
ITEM_READS = frozenset({"GetItem", "BatchGetItem"})
TRANSACTIONAL = 2
#: (table, image before, image after) of each item the transaction wrote
Written = Iterable[tuple[str, "dict | None", "dict | None"]]
#: a table's global and local secondary indexes: name -> (key attributes, what an entry keeps: None for all)
Indexes = Callable[[str], "tuple[dict[str, tuple[list[str], frozenset[str] | None]], dict]"]


def tables_named(params: dict[str, Any]) -> list[str]:
    named: list[str] = []
    for action in params.get("TransactItems") or ():
        for request in action.values():
            table = request.get("TableName") if isinstance(request, dict) else None
            if isinstance(table, str) and table not in named:
                named.append(table)
    return named


def written_sizes(written: Written) -> list[tuple[str, int]]:
    """Each written item's table and the size a write is measured on (the larger image)."""
    return [(table, max(item_size(old), item_size(new))) for table, old, new in written]


def of_writes(params: dict[str, Any], written: Written, indexes: Indexes) -> list[dict[str, Any]]:
    mode = params.get("ReturnConsumedCapacity")
    units = {
        table: {"Table": 0.0, "GlobalSecondaryIndexes": {}, "LocalSecondaryIndexes": {}}
        for table in tables_named(params)
    }
    for action in params.get("TransactItems") or ():
        check = action.get("ConditionCheck")
        if isinstance(check, dict) and check.get("TableName") in units:
            units[check["TableName"]]["Table"] += TRANSACTIONAL
    for table, old, new in written:
        if table in units:
            units[table]["Table"] += (TRANSACTIONAL - 1) * _write_units(max(item_size(old), item_size(new)))
            _add_write(units[table], old, new, indexes(table))
    return [_entry(table, shares, mode, "WriteCapacityUnits") for table, shares in units.items()]


def of_replay(params: dict[str, Any], sizes: list[tuple[str, int]]) -> list[dict[str, Any]]:
    units = {
        table: {"Table": 0.0, "GlobalSecondaryIndexes": {}, "LocalSecondaryIndexes": {}}
        for table in tables_named(params)
    }
    for table, size in sizes:
        if table in units:
            units[table]["Table"] += TRANSACTIONAL * max(1, ceil(size / 4096))
    return [
        _entry(table, shares, params.get("ReturnConsumedCapacity"), "ReadCapacityUnits")
        for table, shares in units.items()
    ]


def of_item_writes(
    operation: str, params: dict[str, Any], written: Written, indexes: Indexes
) -> dict[str, Any] | list[dict[str, Any]]:
    """PutItem's, UpdateItem's or DeleteItem's ConsumedCapacity (an entry), or BatchWriteItem's (an entry per table,
    in the order the request names them): each item written one unit per KB of the larger of its images (a request
    that wrote nothing, a delete of an item that is not there, one unit), and one write in each secondary index the
    item is in, or leaves (two when its key there changes)."""
    if operation == "BatchWriteItem":
        requests = params.get("RequestItems") or {}
        named = {table: len(writes) if isinstance(writes, list) else 0 for table, writes in requests.items()}
    else:
        named = {params["TableName"]: 1}
    units = {table: {"Table": 0.0, "GlobalSecondaryIndexes": {}, "LocalSecondaryIndexes": {}} for table in named}
    counted = dict.fromkeys(named, 0)
    for table, old, new in written:
        if table in units:
            _add_write(units[table], old, new, indexes(table))
            counted[table] += 1
    for table, requests in named.items():
        units[table]["Table"] += float(max(0, requests - counted[table]))  # writes that found nothing to write
    mode = params.get("ReturnConsumedCapacity")
    entries = [_entry(table, shares, mode, None) for table, shares in units.items()]
    return entries if operation == "BatchWriteItem" else entries[0]


def of_item_reads(operation: str, params: dict[str, Any], sizes: dict[str, list[tuple[int, bool]]]) -> Any:
    """GetItem's ConsumedCapacity (an entry), or BatchGetItem's (an entry per table, in the order the request names
    them): each item read one unit per 4 KB of the stored item, rounded up, at least one (an item not there too), half
    a unit for an eventually consistent read. `sizes`: each table's items read, (size, consistent)."""
    mode = params.get("ReturnConsumedCapacity")
    entries = []
    for table, reads in sizes.items():
        units = sum(max(1, ceil(size / 4096)) * (1.0 if consistent else 0.5) for size, consistent in reads)
        entries.append(
            _entry(table, {"Table": units, "GlobalSecondaryIndexes": {}, "LocalSecondaryIndexes": {}}, mode, None)
        )
    return entries if operation == "BatchGetItem" else entries[0]


def index_read_placed(params: dict[str, Any], answered: dict[str, Any], global_indexes: dict[str, Any]) -> None:
    """A Query's or Scan's capacity on a global secondary index under GlobalSecondaryIndexes (moto's answer, changed
    in place)."""
    consumed, name = answered.get("ConsumedCapacity"), params.get("IndexName")
    local = consumed.get("LocalSecondaryIndexes") if isinstance(consumed, dict) else None
    if isinstance(local, dict) and name in global_indexes and name in local:
        consumed["GlobalSecondaryIndexes"] = {name: local.pop(name)}
        if not local:
            del consumed["LocalSecondaryIndexes"]


def _add_write(shares: dict[str, Any], old: dict | None, new: dict | None, indexes: tuple[dict, dict]) -> None:
    """One item's write: its table's units, and its indexes' (a single write each, not a transaction's two)."""
    shares["Table"] += _write_units(max(item_size(old), item_size(new)))
    global_indexes, local_indexes = indexes
    for kind, defined in (("GlobalSecondaryIndexes", global_indexes), ("LocalSecondaryIndexes", local_indexes)):
        for name, (keys, kept) in defined.items():
            cost = _index_units(keys, kept, old, new)
            if cost:
                shares[kind][name] = shares[kind].get(name, 0.0) + cost


def _entry(table: str, shares: dict[str, Any], mode: Any, axis: str | None) -> dict[str, Any]:
    """One table's entry; `axis` (WriteCapacityUnits, ReadCapacityUnits) beside each CapacityUnits, as a
    transaction's answers carry it (None: an item operation's answers carry CapacityUnits alone)."""
    total = (
        shares["Table"] + sum(shares["GlobalSecondaryIndexes"].values()) + sum(shares["LocalSecondaryIndexes"].values())
    )

    def capacity(units: float) -> dict[str, float]:
        return {"CapacityUnits": units, axis: units} if axis else {"CapacityUnits": units}

    entry: dict[str, Any] = {"TableName": table, **capacity(total)}
    if mode == "INDEXES":
        entry["Table"] = capacity(shares["Table"])
        for kind in ("GlobalSecondaryIndexes", "LocalSecondaryIndexes"):
            if shares[kind]:
                entry[kind] = {name: capacity(units) for name, units in shares[kind].items()}
    return entry


def _write_units(size: int) -> float:
    return float(max(1, ceil(size / 1024)))


def _index_units(keys: list[str], kept: frozenset[str] | None, old: dict | None, new: dict | None) -> float:
    """A single write's units in an index: an item is in it when it has every key attribute of the index; its entry
    there is what the index keeps of it (`kept`, None: all of it). An entry put or deleted costs one write per KB of
    it, one whose key changes two (deleted, then put), one that stays with other values one per KB of the larger,
    one that stays as it was nothing."""
    entries = [
        None if image is None or not all(name in image for name in keys) else _entry_of(image, kept)
        for image in (old, new)
    ]
    before, after = entries
    if before is not None and after is not None and [before[name] for name in keys] == [after[name] for name in keys]:
        return 0.0 if before == after else _write_units(max(item_size(before), item_size(after)))
    return sum(_write_units(item_size(entry)) for entry in entries if entry is not None)


def _entry_of(image: dict, kept: frozenset[str] | None) -> dict:
    return image if kept is None else {name: value for name, value in image.items() if name in kept}

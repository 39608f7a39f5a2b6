"""A TransactWriteItems' ConsumedCapacity, as DynamoDB reports it for ReturnConsumedCapacity TOTAL or INDEXES (moto
answers `[]`).

- One entry per table the transaction names, in the order it first names them.
- Each write costs twice a single write (DynamoDB developer guide, "Capacity management for transactions": "two
  underlying writes per item"): 2 x one unit per KB, rounded up, of the larger of the item's images before and after;
  a ConditionCheck, which writes nothing, two units.
- TOTAL: {TableName, CapacityUnits, WriteCapacityUnits}; INDEXES adds Table and each secondary index written
  ({CapacityUnits, WriteCapacityUnits}); a transaction's answers carry WriteCapacityUnits at every level (DynamoDB API
  reference, ConsumedCapacity/Capacity; Dynoxide's captures against DynamoDB, src/types.rs). An index write costs a
  single write (not doubled), measured on the whole item, moving out of an index and into it two.
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
TRANSACTIONAL = 2
#: (table, image before, image after) of each item the transaction wrote
Written = Iterable[tuple[str, "dict | None", "dict | None"]]
#: a table's global and local secondary indexes: name -> key attributes
Indexes = Callable[[str], tuple[dict[str, list[str]], dict[str, list[str]]]]


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
        if table not in units:
            continue
        units[table]["Table"] += TRANSACTIONAL * _write_units(max(item_size(old), item_size(new)))
        global_indexes, local_indexes = indexes(table)
        for kind, defined in (("GlobalSecondaryIndexes", global_indexes), ("LocalSecondaryIndexes", local_indexes)):
            for name, keys in defined.items():
                cost = _index_units(keys, old, new)
                if cost:
                    units[table][kind][name] = units[table][kind].get(name, 0.0) + cost
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


def _entry(table: str, shares: dict[str, Any], mode: Any, axis: str) -> dict[str, Any]:
    total = (
        shares["Table"] + sum(shares["GlobalSecondaryIndexes"].values()) + sum(shares["LocalSecondaryIndexes"].values())
    )
    entry: dict[str, Any] = {"TableName": table, "CapacityUnits": total, axis: total}
    if mode == "INDEXES":
        entry["Table"] = {"CapacityUnits": shares["Table"], axis: shares["Table"]}
        for kind in ("GlobalSecondaryIndexes", "LocalSecondaryIndexes"):
            if shares[kind]:
                entry[kind] = {name: {"CapacityUnits": units, axis: units} for name, units in shares[kind].items()}
    return entry


def _write_units(size: int) -> float:
    return float(max(1, ceil(size / 1024)))


def _index_units(keys: list[str], old: dict | None, new: dict | None) -> float:
    """A single write's units in an index: an item is in it when it has every key attribute of the index."""
    key_of = [
        None if image is None or not all(name in image for name in keys) else [image[name] for name in keys]
        for image in (old, new)
    ]
    if key_of[0] is not None and key_of[1] is not None and key_of[0] == key_of[1]:
        return _write_units(max(item_size(old), item_size(new)))
    return sum(_write_units(item_size(image)) for image, key in zip((old, new), key_of) if key is not None)

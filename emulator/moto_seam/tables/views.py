"""moto's DynamoDB tables seen through Eddy's own views: what the engine, the door and storage read of a table and
change on it, by the table's key (account, region, name). No moto object (Table, Item, DynamoType) leaves here.

- `view(account_id, region, name)`: a TableView (name, ARN, key schema with attribute types, billing mode), None
  when moto has no such table;
- `set_stream`: moto's description kept in step with Eddy's stream (LatestStreamArn, StreamSpecification);
- `billing_mode_changed`, `as_aws`, `answer_as_aws`, `table_id`: the table's description as AWS answers it
  (table_descriptions.py);
- `indexes`: its partition key attribute and its secondary indexes' key attributes; `index_entries`: what an item's
  entry in each index keeps (its projection);
- `item_image`: a stored item's image by its key (what a read is measured on);
- `contents()`: every table's key and a reader of its items' images' text (a snapshot's tables);
- `restore_items`, `restore_changes`, `created_at`, `set_created_at`: a table's items and CreationDateTime put back
  as they were before a restart (streams/durable.py);
- `drop`: a table taken out of moto (before anyone saw it, or a replica whose deletion is over).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Callable, Iterator

from eddy.emulator.aws_requests import Response
from eddy.emulator.moto_seam import bridge, table_descriptions
from eddy.emulator.moto_seam.tables import item_images
from eddy.emulator.streams.records import Image, ImageText

TableKey = tuple[str, str, str]  # account, region, table name
Projected = tuple[list[str], "frozenset[str] | None"]  # an index's key attributes, what its entries keep (None: all)


@dataclass(frozen=True)
class TableView:
    """A table as Eddy reads it: a copy, not moto's table."""

    account_id: str
    region: str
    name: str
    arn: str
    key_schema: list[dict[str, str]]  # each element with its AttributeType (S, N or B)
    billing_mode: str | None

    @property
    def key(self) -> TableKey:
        return self.account_id, self.region, self.name


def view(account_id: str, region: str, name: str) -> TableView | None:
    table = bridge.find_table(account_id, region, name)
    if table is None:
        return None
    return TableView(
        account_id, region, table.name, table.table_arn, bridge.table_key_schema(table), table.billing_mode
    )


def indexes(account_id: str, region: str, name: str) -> tuple[str | None, dict[str, list[str]], dict[str, list[str]]]:
    """The table's partition key attribute and its global and local secondary indexes (name -> key attributes); None
    and none for a table that is not there."""
    table = bridge.find_table(account_id, region, name)
    return (None, {}, {}) if table is None else bridge.table_indexes(table)


def index_entries(account_id: str, region: str, name: str) -> tuple[dict[str, Projected], dict[str, Projected]]:
    """The table's global and local secondary indexes as an item's entry in each is made: name -> (the index's key
    attributes, the attributes its entry keeps: the table's and the index's keys and its NonKeyAttributes, or None for
    a projection of ALL of them); none for a table that is not there."""
    table = bridge.find_table(account_id, region, name)
    if table is None:
        return {}, {}
    table_keys = [element["AttributeName"] for element in table.schema]

    def entries(indexes: Any) -> dict[str, Projected]:
        made = {}
        for index in indexes:
            keys = [element["AttributeName"] for element in index.schema]
            projection = index.projection or {}
            kept = (
                None
                if projection.get("ProjectionType", "ALL") == "ALL"
                else frozenset(table_keys + keys + list(projection.get("NonKeyAttributes") or ()))
            )
            made[index.name] = (keys, kept)
        return made

    return entries(table.global_indexes), entries(table.indexes)


def item_image(account_id: str, region: str, name: str, keys: dict[str, Any]) -> Image | None:
    """The stored item of the table with these key attributes, as an image (None: no such item, or table, or a key
    that is not the table's: what a read finds then is nothing)."""
    table = bridge.find_table(account_id, region, name)
    if table is None:
        return None
    try:
        return item_images.image_of(bridge.item_by_keys(table, keys))
    except (KeyError, TypeError, ValueError):
        return None


def table_id(key: TableKey) -> str | None:
    """The table's TableId as its descriptions answer it (table_descriptions.py); None for a table that is not there."""
    table = bridge.find_table(*key)
    return None if table is None else table_descriptions.id_of(table)


def set_stream(key: TableKey, label: str, view_type: str | None) -> None:
    """Keep moto's table description in step with Eddy's stream (nothing if the table is gone)."""
    table = bridge.find_table(*key)
    if table is not None:
        bridge.set_table_stream(table, label, view_type)


def billing_mode_changed(key: TableKey, billing_mode: str | None, now: float) -> None:
    """After an UpdateTable that found the table in `billing_mode` (table_descriptions.py)."""
    table_descriptions.billing_mode_changed(bridge.find_table(*key), billing_mode, now)


def as_aws(operation: str, params: dict[str, Any], body: dict[str, Any], key: TableKey | None) -> dict[str, Any]:
    """moto's answer's body reshaped as AWS answers `operation` (the table read if it is still there)."""
    return table_descriptions.as_aws(operation, params, body, None if key is None else bridge.find_table(*key))


def answer_as_aws(operation: str, params: dict[str, Any], response: Response, caller: tuple[str, str]) -> Response:
    """moto's answer to `operation` for `caller` (account, region) as AWS answers it, where it describes a table (an
    error, or another operation's answer, as it is)."""
    if response.status != 200 or operation not in table_descriptions.OPERATIONS:
        return response
    name = params.get("TableName")
    key = (*caller, name) if isinstance(name, str) else None
    return bridge.with_body(response, as_aws(operation, params, json.loads(response.body), key))


def contents() -> Iterator[tuple[TableKey, Callable[[], list[ImageText]]]]:
    """Every table moto holds: its key and a reader of its items' images as their compact JSON text (each as its last
    write left it: the text the item keeps, not decoded)."""
    for table in bridge.all_tables():
        yield (table.account_id, table.region_name, table.name), _texts_of(table)


def _texts_of(table: Any) -> Callable[[], list[ImageText]]:
    return lambda: [item_images.image_text_of(item) for item in table.all_items()]


def drop(key: TableKey) -> None:
    bridge.drop_table(*key)


def restore_items(key: TableKey, images: list[Image]) -> None:
    """Items put back as they were stored before a restart: no validation, no capture (they had both already)."""
    table = bridge.find_table(*key)
    for image in images:
        bridge.restore_item(table, image)


def restore_changes(key: TableKey, changes: list[tuple[Image, Image | None]]) -> None:
    """A logged commit's changes put back: each item (by its keys) stored as its new image, or deleted (None)."""
    table = bridge.find_table(*key)
    for keys, new in changes:
        if new is not None:
            bridge.restore_item(table, new)
        else:
            bridge.delete_item_by_keys(table, keys)


def created_at(key: TableKey) -> str:
    """The table's CreationDateTime (ISO 8601), to be kept with its definition."""
    return bridge.table_created_at(bridge.find_table(*key))


def set_created_at(key: TableKey, created_at: str) -> None:
    """The table's CreationDateTime as it was before a restart rebuilt the table."""
    bridge.set_table_created_at(bridge.find_table(*key), created_at)

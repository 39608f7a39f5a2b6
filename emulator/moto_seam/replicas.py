"""moto's tables as global tables' replication writes and reads them: an item stored, or deleted by its keys,
through moto's own table (so change capture, the write-ahead log and the table's indexes see it), and every item's
image (a new replica's fill)."""

from __future__ import annotations

from typing import Iterator

from moto.dynamodb.models.table import Table

from emulator.moto_seam.bridge import delete_item_by_keys, image_of
from emulator.streams.records import Image


def put_image(table: Table, image: Image) -> None:
    table.put_item(dict(image))


def delete_image(table: Table, keys: Image) -> None:
    delete_item_by_keys(table, keys)


def images(table: Table) -> Iterator[tuple[Image, Image]]:
    """Every item of the table: its keys and its image."""
    key_names = [name for name in (table.hash_key_attr, table.range_key_attr) if name]
    for item in table.all_items():
        image = image_of(item)
        yield {name: image[name] for name in key_names}, image

"""moto as global tables use it: its tables, by their key, as replication writes and reads them (an item stored, or deleted by its
keys, through moto's own table, so change capture, the write-ahead log and the table's indexes see it; every item's
image, for a new replica's fill), and its Application Auto Scaling, read: a replica of a PROVISIONED table can be
added only when its write capacity is auto scaled, a scalable target on `dynamodb:table:WriteCapacityUnits`
(`dynamodb:index:WriteCapacityUnits` for an index) AND a scaling policy on it (AWS, recorded: a bare target is
refused like none)."""

from __future__ import annotations

import sys
from typing import Iterator

from eddy.emulator.moto_seam.bridge import delete_item_by_keys, find_table
from eddy.emulator.moto_seam.tables.item_images import image_of
from eddy.emulator.streams.records import Image

TableKey = tuple[str, str, str]  # account, region, table name


def has_table(key: TableKey) -> bool:
    """Whether moto has the table (a replica deleted in its own region has none)."""
    return find_table(*key) is not None


def put_image(key: TableKey, image: Image) -> None:
    find_table(*key).put_item(dict(image))


def delete_image(key: TableKey, keys: Image) -> None:
    delete_item_by_keys(find_table(*key), keys)


def images(key: TableKey) -> Iterator[tuple[Image, Image]]:
    """Every item of the table: its keys and its image."""
    table = find_table(*key)
    key_names = [name for name in (table.hash_key_attr, table.range_key_attr) if name]
    for item in table.all_items():
        image = image_of(item)
        yield {name: image[name] for name in key_names}, image


def writes_autoscaled(account_id: str, region: str, table_name: str, index_name: str | None = None) -> bool:
    """Read only where moto's Application Auto Scaling was used: its models (which load EC2's and ECS's, seconds
    of imports) are not loaded to say that nothing is scaled."""
    models = sys.modules.get("moto.applicationautoscaling.models")
    if models is None:
        return False
    try:
        backend = models.applicationautoscaling_backends[account_id][region]
    except KeyError:
        return False
    resource_id = f"table/{table_name}" + (f"/index/{index_name}" if index_name else "")
    dimension = "dynamodb:index:WriteCapacityUnits" if index_name else "dynamodb:table:WriteCapacityUnits"
    if resource_id not in backend.targets.get(dimension, {}):
        return False
    return any(
        policy.resource_id == resource_id and policy.scalable_dimension == dimension
        for policy in backend.policies.values()
    )

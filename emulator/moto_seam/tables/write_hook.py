"""moto's item writes handed to change capture (one module of the seam, emulator/moto_seam/).

moto calls `table.stream_shard.add(old_item, new_item)` on every item it stores or removes (pinned by
tests/emulator/moto_seam/test_bridge.py). While moto is patched, `Table.stream_shard` is Eddy's property: it
reports nothing (and never lets moto build its own StreamShard) until a capture is activated. The engine passes its
capture when it starts (`moto_seam.activate(MODULE, capture)`, so `activate(capture)` here once moto's DynamoDB is
loaded) and takes it back when it closes: the capture is held by the patched property, never by a module global.
Each add is a touch for that capture: the item's image before the operation, and how to read it after.
"""

from __future__ import annotations

from contextlib import contextmanager
from functools import partial
from typing import Any, Iterator

from moto.dynamodb.models import dynamodb_backends
from moto.dynamodb.models.dynamo_type import DynamoType, Item
from moto.dynamodb.models.table import Table

from eddy.emulator.moto_seam import Patches
from eddy.emulator.moto_seam.tables.item_images import plain, sized_image_of
from eddy.emulator.moto_seam.speedups import dynamodb_puts, dynamodb_text_items
from eddy.emulator.streams.capture import Capture, Touch
from eddy.emulator.streams.records import SizedImage

#: the name moto_seam.activate knows this module by
MODULE = "eddy.emulator.moto_seam.tables.write_hook"
#: an item's image's text as its last write left it, kept on moto's Item (bridge.py's image_text_of reads it)
_IMAGE = dynamodb_puts.IMAGE
_IMAGE_SIZE = dynamodb_puts.IMAGE_SIZE


class _WriteHook:
    """What moto sees as `table.stream_shard`: every add(old, new) is a touch for change capture."""

    __slots__ = ("table", "capture")

    def __init__(self, table: Table, capture: Capture) -> None:
        self.table = table
        self.capture = capture

    def add(self, old: Item | None, new: Item | None) -> None:
        table = self.table
        if new is not None:
            dynamodb_text_items.forget_image(new)  # moto may have changed it: its image is read when the operation ends
        item = old if old is not None else new
        hash_key, range_key = item.hash_key, item.range_key
        # the item by moto's own key equality (a DynamoType's type and cast value), hashed once
        key = (
            table.account_id,
            table.region_name,
            table.name,
            hash_key.type,
            hash_key.cast_value,
            None if range_key is None else (range_key.type, range_key.cast_value),
        )
        self.capture.touched(key, partial(_touch, table, old, hash_key, range_key))


def _touch(table: Table, old: Item | None, hash_key: DynamoType, range_key: DynamoType | None) -> Touch:
    """An item's first touch in an operation: its keys, its image's text before the operation, and how to read it
    after."""
    account_id, region, name = table.account_id, table.region_name, table.name
    keys = {table.hash_key_attr: plain(hash_key)}  # as image_of writes the key attributes
    if range_key is not None:
        keys[table.range_key_attr] = plain(range_key)
    return Touch(
        (account_id, region, name),
        keys,
        sized_image_of(old),
        partial(_current_image, account_id, region, name, hash_key, range_key),
    )


def _current_image(
    account_id: str, region: str, name: str, hash_key: DynamoType, range_key: DynamoType | None
) -> SizedImage | None:
    """The item's image's text and size as the table holds it now (a rolled-back transaction restores moto's tables: found
    again), kept on the item. moto's backends are read as plain dicts: a table that was written has its account's
    and region's."""
    regions = dict.get(dynamodb_backends, account_id)
    backend = dict.get(regions, region) if regions is not None else None
    current = backend.tables.get(name) if backend is not None else None
    item = current.get_item(hash_key, range_key) if current is not None else None
    if item is None:
        return None
    text, size = sized = sized_image_of(item)
    setattr(item, _IMAGE, text)
    setattr(item, _IMAGE_SIZE, size)
    return sized


def _write_hook(capture: Capture, table: Table) -> _WriteHook:
    return _WriteHook(table, capture)


def _unseen(table: Table) -> None:
    """No capture: moto's writes are not reported (and moto builds no StreamShard of its own)."""
    return None


_patches = Patches()  # Table.stream_shard while moto is patched: no capture
_writes = Patches()  # the write hook of the capture activated (the engine's, from its start to its close)


def install() -> None:
    _patches.set(Table, "stream_shard", property(_unseen, _keep_moto_stream_shard))


def uninstall() -> None:
    _writes.restore()
    _patches.restore()


def activate(capture: Capture) -> None:
    """moto's item writes handed to `capture` (`Table.stream_shard.add`), from now until deactivate(); the engine
    passes its capture through moto_seam.activate when it starts."""
    _writes.restore()
    _writes.set(Table, "stream_shard", property(partial(_write_hook, capture), _keep_moto_stream_shard))


def deactivate() -> None:
    _writes.restore()


@contextmanager
def writes_to(capture: Any) -> Iterator[None]:
    """moto's item writes handed to `capture` for the block, then to where they went before (seam tests)."""
    patches = Patches()
    patches.set(Table, "stream_shard", property(partial(_write_hook, capture), _keep_moto_stream_shard))
    try:
        yield
    finally:
        patches.restore()


def _keep_moto_stream_shard(table: Table, value: Any) -> None:
    """moto's own StreamShard, kept where moto keeps it (never used while Eddy's property is in place): a table
    made while an emulator was open still has it once moto is moto again."""
    table.__dict__["stream_shard"] = value

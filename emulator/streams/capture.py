"""Change capture: what one committed operation did to each item, as one change per item.

moto calls the write hook (moto_bridge) every time it stores or removes an item. Capture remembers,
per item, the image before the operation's first touch; when the operation ends it reads each item's
state as it is now and diffs the two. So an item written several times in one operation (UpdateItem on
a new key, a transaction) yields one change, a write that changed nothing or was rolled back yields
none, and the changes of one operation are committed together: one commit version per table, and one write to
the log for all its tables. If that commit fails (the log refused it), every item the operation changed is put back
as it was before the operation (`put_back`, unseen by the write hook), so nothing of a refused write stays visible.
"""

from __future__ import annotations

import json
import threading
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Callable, Hashable, Iterator

from eddy.emulator.streams.records import EventName, Image, ImageText, SizedImage, image_of_text
from eddy.emulator.streams.stream import Change

TableKey = tuple[str, str, str]  # account, region, table name


@dataclass
class Touch:
    """An item's first touch in an operation: its table, its keys, its image before (its compact JSON text,
    records.image_json's, and its item size) and how to read its image's text and size after."""

    table: TableKey
    keys: Image
    old_image: SizedImage | None
    read_current: Callable[[], SizedImage | None]


@dataclass
class Operation:
    by_ttl: bool = False
    failed: bool = False
    depth: int = 0
    touches: dict[Hashable, Touch] = field(default_factory=dict)


class Capture:
    def __init__(
        self,
        commit: Callable[[dict[TableKey, list[Change]], bool], None],
        lock: threading.RLock,
        put_back: Callable[[TableKey, Change], None],
    ) -> None:
        self._commit = commit
        self._lock = lock
        self._put_back = put_back
        self._local = threading.local()

    def begin(self, by_ttl: bool = False) -> None:
        operation = getattr(self._local, "operation", None)
        if operation is None:
            operation = self._local.operation = Operation(by_ttl=by_ttl)
        operation.depth += 1

    @contextmanager
    def operation(self, by_ttl: bool = False) -> Iterator[None]:
        """One captured operation: committed when the block ends, every item it touched put back if it raises."""
        self.begin(by_ttl)
        try:
            yield
        except BaseException:
            self.end(failed=True)
            raise
        self.end()

    def end(self, failed: bool = False) -> None:
        """The operation is over: its changes committed, or (`failed`: it raised, a fault of Eddy's or moto's and
        not an answer) every item it touched put back as it was, as when the commit itself fails."""
        operation: Operation = self._local.operation
        operation.failed = operation.failed or failed
        operation.depth -= 1
        if operation.depth:
            return
        self._local.operation = None
        by_table: dict[TableKey, list[Change]] = {}
        for touch in operation.touches.values():
            change = _diff(touch)
            if change is not None:
                by_table.setdefault(touch.table, []).append(change)
        if not by_table:
            return
        try:
            if operation.failed:
                raise _Failed
            self._commit(by_table, operation.by_ttl)
        except BaseException as error:
            for table, changes in by_table.items():
                for change in changes:
                    self._put_back(table, change)
            if not isinstance(error, _Failed):
                raise

    def touched(self, item: Hashable, make_touch: Callable[[], Touch]) -> None:
        """An item is about to change or has changed; `make_touch` snapshots it on the operation's first touch."""
        operation = getattr(self._local, "operation", None)
        if operation is None:  # a write outside any front-door operation still commits, on its own
            with self._lock:
                self.begin()
                try:
                    self.touched(item, make_touch)
                finally:
                    self.end()
            return
        if item not in operation.touches:
            operation.touches[item] = make_touch()

    def images(self) -> list[tuple[TableKey, Image | None, Image | None]]:
        """Each item the current operation has touched so far: its table, its image before the operation, its image
        now (what a write's ConsumedCapacity is measured on)."""
        operation = getattr(self._local, "operation", None)
        return (
            []
            if operation is None
            else [
                (touch.table, _image(touch.old_image), _image(touch.read_current()))
                for touch in operation.touches.values()
            ]
        )


class _Failed(Exception):
    """The operation raised: its changes are put back, not committed."""


def _image(sized: SizedImage | None) -> Image | None:
    return None if sized is None else image_of_text(sized[0])


def _diff(touch: Touch) -> Change | None:
    old, new = touch.old_image, touch.read_current()
    if old is None and new is None:
        return None
    keys = touch.keys
    if old is None:
        return (EventName.INSERT, keys, None, new[0], 0, new[1])
    if new is None:
        return (EventName.REMOVE, keys, old[0], None, old[1], 0)
    if old[0] == new[0] or _same_image(old[0], new[0]):
        return None
    return (EventName.MODIFY, keys, old[0], new[0], old[1], new[1])


def _same_image(old: ImageText, new: ImageText) -> bool:
    """Two different texts of one image: its attributes (or a map's) in another order. Such texts are as long as
    each other, so only texts of one length are decoded to be compared."""
    return len(old) == len(new) and json.loads(old) == json.loads(new)

"""Change capture: what one committed operation did to each item, as one change per item.

moto calls the write hook (moto_bridge) every time it stores or removes an item. Capture remembers,
per item, the image before the operation's first touch; when the operation ends it reads each item's
state as it is now and diffs the two. So an item written several times in one operation (UpdateItem on
a new key, a transaction) yields one change, a write that changed nothing or was rolled back yields
none, and the changes of one operation are committed together: one commit version per table.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Callable, Hashable

from eddy.emulator.streams.records import EventName, Image
from eddy.emulator.streams.stream import Change

TableKey = tuple[str, str, str]  # account, region, table name


@dataclass
class Touch:
    table: TableKey
    key_names: tuple[str, ...]
    old_image: Image | None
    read_current: Callable[[], Image | None]


@dataclass
class Operation:
    by_ttl: bool = False
    depth: int = 0
    touches: dict[Hashable, Touch] = field(default_factory=dict)


class Capture:
    def __init__(self, commit: Callable[[TableKey, list[Change], bool], None], lock: threading.RLock) -> None:
        self._commit = commit
        self._lock = lock
        self._local = threading.local()

    def begin(self, by_ttl: bool = False) -> None:
        operation = getattr(self._local, "operation", None)
        if operation is None:
            operation = self._local.operation = Operation(by_ttl=by_ttl)
        operation.depth += 1

    def end(self) -> None:
        operation: Operation = self._local.operation
        operation.depth -= 1
        if operation.depth:
            return
        self._local.operation = None
        by_table: dict[TableKey, list[Change]] = {}
        for touch in operation.touches.values():
            change = _diff(touch)
            if change is not None:
                by_table.setdefault(touch.table, []).append(change)
        for table, changes in by_table.items():
            self._commit(table, changes, operation.by_ttl)

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


def _diff(touch: Touch) -> Change | None:
    old, new = touch.old_image, touch.read_current()
    if old == new:
        return None
    current = new if new is not None else old
    keys = {name: current[name] for name in touch.key_names}
    if old is None:
        return (EventName.INSERT, keys, None, new)
    if new is None:
        return (EventName.REMOVE, keys, old, None)
    return (EventName.MODIFY, keys, old, new)

"""A table's definition kept as it is before a request changes it, to be put back if the disk refuses the request's
log entry (streams/durable.py TablesChannel.definition_changing, through the request's unit of work).

A definition request (CreateTable, UpdateTable, DeleteTable, UpdateTimeToLive, tags, backups, Eddy's resource
policies) changes moto's Table object's attributes, or whether its backend holds it. The table is kept as its object
and a copy of its attributes; its items, and moto's stream shard that refers to them, by reference: no definition
request changes them, and copying them would cost as much as the table is large.
"""

from __future__ import annotations

import copy
from eddy.emulator.moto_seam import bridge

TableKey = tuple[str, str, str]
#: what is kept by reference: the items, and what holds them
_AS_THEY_ARE = frozenset({"items", "stream_shard", "lambda_event_source_mappings"})


class Kept:
    """A table as it was: its object and its attributes then (None: the backend held no such table)."""

    def __init__(self, key: TableKey) -> None:
        self.key = key
        self.table = bridge.find_table(*key)
        self.attributes = (
            None
            if self.table is None
            else {
                name: value if name in _AS_THEY_ARE else copy.deepcopy(value)
                for name, value in vars(self.table).items()
            }
        )

    def put_back(self) -> None:
        """The table as it was kept: dropped if there was none, else its object back with its attributes."""
        bridge.drop_table(*self.key)
        if self.table is None or self.attributes is None:
            return
        attributes = vars(self.table)
        attributes.clear()
        attributes.update(self.attributes)
        bridge.put_table(self.table)


"""A table of moto's found by the name a request gives, as moto's DynamoDBBackend.get_table finds it.

moto's get_table tests `if table := self.tables.get(name)`, which calls Table.__bool__ and its __nonzero__ (two
Python calls, always True) on every item request; here the name is looked up first and moto's own method is asked
only when it finds nothing (a table given by its ARN, or moto's ResourceNotFoundException).

    table = table_named(backend, "orders")
"""

from __future__ import annotations

from typing import Any


def table_named(backend: Any, name: str) -> Any:
    """moto's table `name` (by its name, else as moto's get_table finds it: by its ARN, or its error raised)."""
    table = backend.tables.get(name)
    return table if table is not None else backend.get_table(name)

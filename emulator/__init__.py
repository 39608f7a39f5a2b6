"""Eddy's emulator: DynamoDB Streams with shards, lineage, iterators and retention, in-process or on a port.

Its public names are `eddy`'s (emulate, Clock, Emulator, Settings, NotDeliveredError, StateDirectoryInUseError),
each imported on first use: importing a part of the package, such as the pytest plugin
(eddy.emulator.pytest_plugin), loads neither the engine nor moto.
"""

from __future__ import annotations

from typing import Any

import eddy

__all__ = eddy.__all__


def __getattr__(name: str) -> Any:
    if name not in eddy.__all__:
        raise AttributeError(f"module 'eddy.emulator' has no attribute {name!r}")
    return getattr(eddy, name)


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(eddy.__all__))

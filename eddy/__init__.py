"""Eddy: a local emulator of DynamoDB Streams and the triggers around them, in-process or on a port.

    from eddy import emulate

    with emulate() as emu:
        ...  # every boto3 client of the process talks to Eddy

Importing `eddy` loads nothing else: each public name below is imported on first use, so a project that has Eddy
installed pays nothing for it until a test uses it. The parts of the package are eddy.emulator (the engine and its
two front doors), eddy.handlers (ready-made Lambda handlers), eddy.infra (stack files) and eddy.spark_batch (the
Spark path, with the `eddy[spark]` extra).
"""

from __future__ import annotations

import importlib
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from eddy.emulator.api.inprocess import emulate
    from eddy.emulator.clock import Clock
    from eddy.emulator.engine import Emulator
    from eddy.emulator.settings import Settings
    from eddy.emulator.storage.ownership import StateDirectoryInUseError
    from eddy.emulator.triggers.failures import NotDeliveredError

#: each public name and the module it comes from
_PUBLIC = {
    "Clock": "eddy.emulator.clock",
    "Emulator": "eddy.emulator.engine",
    "NotDeliveredError": "eddy.emulator.triggers.failures",
    "Settings": "eddy.emulator.settings",
    "StateDirectoryInUseError": "eddy.emulator.storage.ownership",
    "emulate": "eddy.emulator.api.inprocess",
}

__all__ = sorted(_PUBLIC)


#: the names whose module's first import loads the engine and moto: the regular expressions it compiles are read
#: from the per-user cache of compiled patterns (compiled_patterns.py)
_ENGINE = ("Emulator", "emulate")


def __getattr__(name: str) -> Any:
    if name not in _PUBLIC:
        raise AttributeError(f"module 'eddy' has no attribute {name!r}")
    if name in _ENGINE and _PUBLIC[name] not in sys.modules:
        from eddy import compiled_patterns

        with compiled_patterns.kept_per_user():
            module = importlib.import_module(_PUBLIC[name])
    else:
        module = importlib.import_module(_PUBLIC[name])
    value = getattr(module, name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_PUBLIC))

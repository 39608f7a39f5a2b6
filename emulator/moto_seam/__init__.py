"""The one seam between Eddy and moto's internals: every module that imports from moto's models, responses or
backends lives here, each patch pinned by a test against moto's original (tests/emulator/moto_seam/), so a moto
upgrade fails in one place.

  bridge.py    moto's DynamoDB backend: requests in, the items an operation touched out (capture), tables
  actions.py   moto's DynamoHandler actions called without its per-request machinery (the fast path)
  speedups/    moto's methods replaced by equivalent, faster ones: dynamodb.py (Item / Table / DynamoType),
               sqs.py (Queue.delete_message, Queue.messages)
  all_or_nothing.py  moto's writes made all or nothing, and its errors read for the door
  s3.py        moto's S3Backend put_object / delete_object wrapped for object changes (volume streams)
  kinesis/     moto's Kinesis made to keep lineage, read under Eddy's lock, trimmed on Eddy's clock
  layers.py    moto's Lambda layer versions, read for a function's Layers
  (this package's own module) apply() / remove(): INERT UNTIL USED, every patch of moto on while an emulator is
               open, off when the last one closes (below)

Every patch Eddy makes to moto, applied while an emulator is open and removed when the last one closes.

Importing Eddy (or loading its pytest plugin) changes nothing in moto: a project's own `mock_aws` tests run against
moto as moto ships it. Each module of the seam that changes moto has an `install()` that makes its changes (through
`Patches`, which remembers what it replaced) and an `uninstall()` that puts moto back. `apply()` runs every install the
first time an emulator opens (Emulator.__init__: `emulate()`, `eddy serve`, the fixtures); `remove()` runs every
uninstall, in the reverse order, when the last open emulator closes (Emulator.close), so `mock_aws` and `emulate()`
can alternate in one process, each seeing its own moto:

    apply()                  # count 0 -> 1: moto patched
    apply()                  # 1 -> 2 (a second emulator)
    remove(); remove()       # 2 -> 1 -> 0: moto as it was

Importing `eddy` (or loading its pytest plugin) imports no seam module, and importing one patches nothing.
"""

from __future__ import annotations

import importlib
import threading
from typing import Any

#: the seam modules that change moto, in the order their patches go on (a later one may wrap what an earlier one
#: installed: s3.py's capture wraps notifications' versioned delete; they come off in the reverse order)
MODULES = (
    "eddy.emulator.moto_seam.bridge",
    "eddy.emulator.moto_seam.botocore_hook",
    "eddy.emulator.moto_seam.kinesis.streams",
    "eddy.emulator.moto_seam.services.moments",
    "eddy.emulator.moto_seam.notifications",
    "eddy.emulator.moto_seam.eventbridge.rules",
    "eddy.emulator.moto_seam.speedups",
    "eddy.emulator.moto_seam.all_or_nothing",
    "eddy.emulator.moto_seam.sqs",
    "eddy.emulator.moto_seam.s3",
)

_lock = threading.Lock()
_count = 0

_ABSENT = object()


class Patches:
    """One seam module's changes to moto: `set` replaces an attribute (of a class, a module or an object) and
    remembers what was there; `restore` puts every one back, the last set first (an attribute that was inherited
    or absent is deleted again, so moto's own lookup finds what it found before)."""

    def __init__(self) -> None:
        self._replaced: list[tuple[Any, str, Any]] = []

    def set(self, owner: Any, name: str, value: Any) -> None:
        self._replaced.append((owner, name, vars(owner).get(name, _ABSENT)))
        setattr(owner, name, value)

    def restore(self) -> None:
        while self._replaced:
            owner, name, original = self._replaced.pop()
            if original is _ABSENT:
                delattr(owner, name)
            else:
                setattr(owner, name, original)

    def __bool__(self) -> bool:
        return bool(self._replaced)


def apply() -> None:
    """An emulator opens: moto patched, if it is the first one open."""
    global _count
    with _lock:
        if _count == 0:
            for name in MODULES:
                importlib.import_module(name).install()
        _count += 1


def remove() -> None:
    """An emulator closed: moto as it ships, if it was the last one open."""
    global _count
    with _lock:
        if _count == 0:
            return
        _count -= 1
        if _count == 0:
            for name in reversed(MODULES):
                importlib.import_module(name).uninstall()


def applied() -> bool:
    """Whether moto is patched now (an emulator is open in this process)."""
    return _count > 0

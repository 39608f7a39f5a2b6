"""The one seam between Eddy and moto's internals: every module that imports from moto's models, responses or
backends lives here, each patch pinned by a test against moto's original (tests/emulator/moto_seam/), so a moto
upgrade fails in one place.

  bridge.py    moto's DynamoDB backend: requests in, the items an operation touched out (capture), tables
  actions.py   moto's DynamoHandler actions called without its per-request machinery (the fast path)
  speedups/    moto's methods replaced by equivalent, faster ones: dynamodb.py (DynamoType, Table.query),
               dynamodb_items.py (Item), dynamodb_puts.py (Table.put_item),
               sqs.py (Queue.delete_message, Queue.messages), s3.py (an aws-chunked body read in linear time),
               mock_start.py (mock_aws's start registers the `requests` mock's responses it built once),
               action_lookup.py (a request's action looked for by its name, not in a list of the class's members)
  all_or_nothing.py  moto's writes made all or nothing, and its errors read for the door
  s3/          moto's S3: objects stored as S3 stores them (encryption, checksum types), a Suspended bucket's
               versions kept, put_object / delete_object wrapped for object changes (volume streams), bucket
               policies over HTTPS
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

A service's patches go on when moto's package for it is loaded (LOAD ON FIRST USE): `apply()` installs those of
the packages already loaded and watches the imports of the others (a finder on `sys.meta_path`, while an emulator is
open), so an emulator that has only served DynamoDB has loaded none of moto's S3, SQS, SNS or EventBridge. What
Eddy tells a seam module when it starts (`activate`: its clock, where to deliver) waits likewise for the module's
service: `activate(module, *args)` calls the module's activate now if its service is loaded, else once it is.
"""

from __future__ import annotations

import importlib
import importlib.abc
import sys
import threading
from typing import Any

#: moto's package -> the seam modules that change it, in the order their patches go on once it is loaded (a later
#: one may wrap what an earlier one installed: s3/object_changes.py's capture wraps object_events' versioned delete;
#: they come off in the reverse order of going on)
PATCHES = (
    (
        "moto.core",
        (
            "eddy.emulator.moto_seam.botocore_hook",
            "eddy.emulator.moto_seam.services.access_keys",
            "eddy.emulator.moto_seam.services.moments",
            "eddy.emulator.moto_seam.services.iam_checks",
            "eddy.emulator.moto_seam.services.botocore_data",
            "eddy.emulator.moto_seam.services.query_errors",
            "eddy.emulator.moto_seam.speedups.mock_start",
            "eddy.emulator.moto_seam.speedups.action_lookup",
        ),
    ),
    (
        "moto.dynamodb",
        (
            "eddy.emulator.moto_seam.bridge",
            "eddy.emulator.moto_seam.tables.write_hook",
            "eddy.emulator.moto_seam.speedups.dynamodb",
            "eddy.emulator.moto_seam.all_or_nothing",
        ),
    ),
    ("moto.kinesis", ("eddy.emulator.moto_seam.kinesis.streams",)),
    ("moto.iam", ("eddy.emulator.moto_seam.services.aws_managed_policies",)),
    ("moto.kms", ("eddy.emulator.moto_seam.services.kms_keys",)),
    (
        "moto.sqs",
        (
            "eddy.emulator.moto_seam.services.long_polls",
            "eddy.emulator.moto_seam.speedups.sqs",
            "eddy.emulator.moto_seam.sqs",
        ),
    ),
    (
        "moto.sns",
        (
            "eddy.emulator.moto_seam.notifications.subscriptions",
            "eddy.emulator.moto_seam.notifications.filter_policies",
            "eddy.emulator.moto_seam.sns_signatures",
            "eddy.emulator.moto_seam.notifications.subscription_principals",  # inside http_subscriptions' answer
            "eddy.emulator.moto_seam.notifications.topic_attributes",
            "eddy.emulator.moto_seam.notifications.http_subscriptions",
            "eddy.emulator.moto_seam.notifications.sns_errors",
            "eddy.emulator.moto_seam.notifications.sns_answers",
            "eddy.emulator.moto_seam.notifications.fifo_topics",
        ),
    ),
    (
        "moto.s3",
        (
            "eddy.emulator.moto_seam.services.bucket_moments",
            "eddy.emulator.moto_seam.notifications.configurations",
            "eddy.emulator.moto_seam.notifications.trace_headers",
            "eddy.emulator.moto_seam.s3.versioning",  # beneath object_events' versioned delete, which calls it
            "eddy.emulator.moto_seam.notifications.object_events",
            "eddy.emulator.moto_seam.notifications.lifecycle_expirations",
            "eddy.emulator.moto_seam.s3.objects",
            "eddy.emulator.moto_seam.s3.object_changes",
            "eddy.emulator.moto_seam.s3.bucket_policies",
            "eddy.emulator.moto_seam.speedups.s3",
        ),
    ),
    ("moto.events", ("eddy.emulator.moto_seam.eventbridge.rules", "eddy.emulator.moto_seam.eventbridge.event_buses")),
    ("moto.awslambda", ("eddy.emulator.moto_seam.layers",)),
)
#: every seam module that changes moto
MODULES = tuple(module for _, modules in PATCHES for module in modules)
_SERVICE_OF = {module: package for package, modules in PATCHES for module in modules}

_lock = threading.RLock()  # a seam module's install may import another of moto's packages (itself watched)
_count = 0
#: the seam modules whose patches are on, in the order they went on
_installed: list[str] = []
#: what Eddy told each seam module while an emulator is open (activate(module, *args)), given when it loads
_activations: dict[str, tuple[Any, ...]] = {}

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
    """An emulator opens: moto patched, if it is the first one open (the services loaded now; the others as they load)."""
    global _count
    with _lock:
        _count += 1
        if _count == 1:
            sys.meta_path.insert(0, _watch)
            for package, _ in PATCHES:
                if package in sys.modules:
                    _imported(package)  # as if imported now: a package an install loads waits for the install


def remove() -> None:
    """An emulator closed: moto as it ships, if it was the last one open."""
    global _count
    with _lock:
        if _count == 0:
            return
        _count -= 1
        if _count == 0:
            if _watch in sys.meta_path:
                sys.meta_path.remove(_watch)
            _activations.clear()
            while _installed:
                importlib.import_module(_installed.pop()).uninstall()


def applied() -> bool:
    """Whether moto is patched now (an emulator is open in this process)."""
    return _count > 0


def activate(module: str, *args: Any) -> None:
    """`module`'s activate(*args) (a seam module's: a clock, a target), now if its moto service is loaded, else
    when it loads while an emulator is open."""
    with _lock:
        _activations[module] = args
        if module in _installed:
            importlib.import_module(module).activate(*args)


def deactivate(module: str, *args: Any) -> None:
    """`module`'s deactivate(*args), if it was activated (a service never loaded was never told anything)."""
    with _lock:
        if _activations.pop(module, None) is not None and module in _installed:
            importlib.import_module(module).deactivate(*args)


def _loaded(package: str) -> None:
    """moto's `package` is loaded: its seam modules' patches go on, in order (and what they were told to activate).
    A seam module still being imported stops the order there: it and those after it go on when its import is done."""
    with _lock:
        if _count == 0 or not _ready(package):
            return
        for module in dict(PATCHES)[package]:
            if module in _installed:
                continue
            if module in sys.modules and not _ready(module):
                return
            seam = importlib.import_module(module)
            seam.install()
            _installed.append(module)
            if module in _activations:
                seam.activate(*_activations[module])


def _ready(name: str) -> bool:
    """Whether module `name` is loaded and its import done (not one still running further up this thread's imports)."""
    module = sys.modules.get(name)
    return module is not None and not getattr(getattr(module, "__spec__", None), "_initializing", False)


#: this thread's imports of watched modules under way (`depth`), the packages they loaded (`loaded`), and whether it
#: is installing patches now (`installing`)
_thread = threading.local()


def _imported(package: str) -> None:
    """A watched module's import is done: once this thread's outermost watched import is, the patches of every
    package they loaded go on (not in the middle of an import, whose modules may not all be whole yet)."""
    loaded = _thread.__dict__.setdefault("loaded", [])
    loaded.append(package)
    if getattr(_thread, "depth", 0) or getattr(_thread, "installing", False):
        return
    _thread.installing = True
    try:
        while loaded:
            _loaded(loaded.pop(0))
    finally:
        _thread.installing = False


class _Watch(importlib.abc.MetaPathFinder):
    """On sys.meta_path while an emulator is open: when moto's package for a service (or a seam module of it) has
    been imported, the service's patches go on (`_imported`)."""

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> Any:
        package = _PACKAGES.get(name)
        if package is None:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(name, path, target)
            if spec is not None:
                break
        else:
            return None
        if spec.loader is not None and hasattr(spec.loader, "exec_module"):
            execute = spec.loader.exec_module

            def execute_then_patch(module: Any) -> None:
                depth = getattr(_thread, "depth", 0)
                _thread.depth = depth + 1
                try:
                    execute(module)
                finally:
                    _thread.depth = depth
                spec._initializing = False  # its import is done but for this: _ready() says so
                _imported(package)

            spec.loader.exec_module = execute_then_patch  # this spec's own loader (a finder makes one per module)
        return spec


#: moto's packages and the seam modules of each, by name -> the package whose patches they are
_PACKAGES = {name: package for package, modules in PATCHES for name in (package, *modules)}
_watch = _Watch()

"""Regular expressions compiled once per machine, not once per start: `eddy serve`'s imports compile about 400 of
them (moto's backend index alone 183, then urllib3, yaml, werkzeug, http.cookiejar, ...), a sixth of the imports'
CPU time, the same ones at every start; the in-process door's first import of the engine (and moto) about 250.

    with compiled_patterns.kept_per_user():
        import ...  # every re.compile of a str or bytes pattern in here is read from the cache or added to it

Used around those imports: cli/serve.py's, and `eddy.emulate` / `eddy.Emulator`'s first use (eddy/__init__.py) and
the pytest plugin's in-process fixtures'.

While inside, CPython's compiler of a pattern (re._compiler.compile, which re.compile calls for a pattern it has not
compiled in this process) is one that keeps what it compiles: the pattern's final flags, its code (the list of
integers _sre runs), its groups and their names, keyed by the pattern and its flags; a kept pattern is made again
from them by _sre.compile, as the compiler itself makes it, without parsing it again. The Pattern made is equal to
the compiler's own (Pattern's == compares the pattern, its flags and its code: pinned by
tests/test_compiled_patterns.py). On the way out the compiler is put back, and the patterns compiled
for the first time are added to the file (written whole to a temporary file, then os.replace: a concurrent start
reads the old file or the new one). Measured (bench/starts.py): about 0.1 s of the start's CPU to DynamoDB loaded.

The file is in the per-user cache (storage/user_cache.py: $XDG_CACHE_HOME/eddy, default ~/.cache/eddy), named after
the interpreter's exact version and _sre's MAGIC, so another Python never reads it; it is trusted as Eddy wrote it. A
file that cannot be read is ignored, an entry _sre refuses is compiled again (either is replaced on the way out); a
folder that cannot be written to leaves the file as it was. Where this Python's re module is not laid out as expected
(another implementation, a changed compiler), `kept` changes nothing.
"""

from __future__ import annotations

import contextlib
import functools
import marshal
import re
import sys
import threading
from pathlib import Path
from collections.abc import Iterator
from typing import Any

from eddy.emulator.storage import user_cache

try:
    import _sre
    from re import _compiler, _parser
except ImportError:  # not CPython's re
    _sre = _compiler = _parser = None  # type: ignore[assignment]

#: (final flags, code, groups - 1, group index, index group): the arguments of _sre.compile after the pattern
Entry = tuple[int, list[int], int, dict[str, int], tuple[Any, ...]]
#: a file grown past this many patterns is begun again (what a start compiles is about 400)
MOST_KEPT = 5000

_lock = threading.Lock()


def cache_file(folder: Path) -> Path:
    """The file of this interpreter's compiled patterns in `folder`."""
    magic = getattr(_sre, "MAGIC", 0)
    return folder / f"patterns-{sys.implementation.cache_tag}-{sys.hexversion:x}-{magic}.marshal"


def kept_per_user() -> contextlib.AbstractContextManager[None]:
    """`kept` in the per-user cache's folder (storage/user_cache.py); nothing kept where there is none."""
    folder = user_cache.cache_dir()
    return contextlib.nullcontext() if folder is None else kept(folder)


@contextlib.contextmanager
def kept(folder: Path) -> Iterator[None]:
    """Patterns compiled inside are read from `folder`'s file where it holds them, and the others added to it on the
    way out. Not nested: an inner `kept` (or a compiler replaced by someone else meanwhile) changes nothing."""
    if not _usable():
        yield
        return
    path = cache_file(folder)
    known = _read(path)
    added: dict[tuple[Any, int], Entry] = {}
    original = _compiler.compile

    def compile(pattern: Any, flags: int = 0) -> Any:
        if type(pattern) not in (str, bytes) or flags & re.DEBUG:  # exactly: what marshal writes
            return original(pattern, flags)
        key = (pattern, int(flags))
        entry = known.get(key)
        if isinstance(entry, tuple) and len(entry) == 5:
            try:
                return _sre.compile(pattern, *entry)
            except (TypeError, ValueError, RuntimeError, OverflowError):  # not as _entry makes it: _sre refused it
                pass
        entry = _entry(pattern, flags)
        added[key] = entry
        return _sre.compile(pattern, *entry)

    with _lock:
        installed = _compiler.compile is original and not getattr(original, "_eddy_kept", False)
        if installed:
            compile._eddy_kept = True  # type: ignore[attr-defined]
            _compiler.compile = compile
    try:
        yield
    finally:
        if installed:
            with _lock:
                if _compiler.compile is compile:
                    _compiler.compile = original
            if added:
                patterns = {**({} if len(known) + len(added) > MOST_KEPT else known), **added}
                user_cache.write_whole(path, marshal.dumps(patterns))


def _entry(pattern: str | bytes, flags: int) -> Entry:
    """What re._compiler.compile passes _sre.compile for `pattern` (its own steps, the code kept as plain ints)."""
    parsed = _parser.parse(pattern, flags)
    code = [int(word) for word in _compiler._code(parsed, flags)]
    groupindex = dict(parsed.state.groupdict)
    indexgroup: list[Any] = [None] * parsed.state.groups
    for name, number in groupindex.items():
        indexgroup[number] = name
    return int(flags | parsed.state.flags), code, parsed.state.groups - 1, groupindex, tuple(indexgroup)


@functools.cache
def _usable() -> bool:
    """Whether this re is CPython's as this module knows it: a probe pattern made from its entry equals the
    compiler's own (asked once in the process)."""
    if _sre is None or not all(hasattr(_compiler, name) for name in ("compile", "_code")):
        return False
    probe = r"(?P<name>[a-z]+)-(\d{2,})|(?i:x)$"
    try:
        return _sre.compile(probe, *_entry(probe, 0)) == _compiler.compile(probe, 0)
    except Exception:  # a compiler laid out otherwise
        return False


def _read(path: Path) -> dict[Any, Any]:
    """The file's patterns by pattern and flags; none where it is missing or unreadable. An entry is checked where it
    is used (_sre.compile refuses code it cannot run)."""
    data = user_cache.read(path)
    try:
        kept = marshal.loads(data) if data is not None else {}
    except (EOFError, ValueError, TypeError):
        return {}
    return kept if isinstance(kept, dict) else {}

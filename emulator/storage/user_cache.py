"""The per-user cache: what a start would otherwise work out again each time from files that do not change between
starts (the regular expressions the imports of `eddy serve` and the in-process door compile, the regions in
botocore's endpoint data), kept in $XDG_CACHE_HOME/eddy (default ~/.cache/eddy, the folder node_sdk.py installs the
Node.js SDK into).

A cached file is written whole (a temporary file beside it, then os.replace: a concurrent reader finds the old file
or the new one) and only ever read as a hint: one that is missing, unreadable or out of date is worked out again and
written anew, and a folder that cannot be written to leaves things as they were. A user without a home directory
(and no absolute XDG_CACHE_HOME) has no cache: nothing is read or written, the work is done every time.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path


def cache_dir() -> Path | None:
    """$XDG_CACHE_HOME/eddy (an absolute XDG_CACHE_HOME: a relative one is ignored, as the XDG base directory
    specification says), default ~/.cache/eddy; None where the user has no home directory to be found (no cache)."""
    base = os.environ.get("XDG_CACHE_HOME", "")
    if os.path.isabs(base):
        return Path(base) / "eddy"
    try:
        return Path.home() / ".cache" / "eddy"
    except (RuntimeError, KeyError):  # no HOME, and no entry for the user in the password database
        return None


def read(path: Path | None) -> bytes | None:
    """The file's bytes; None where there is no cache or the file cannot be read."""
    if path is None:
        return None
    try:
        return path.read_bytes()
    except OSError:
        return None


def write_whole(path: Path | None, data: bytes) -> None:
    """`data` as the file, whole; nothing where there is no cache or its folder cannot be made or written to."""
    if path is None:
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
        try:
            with os.fdopen(handle, "wb") as file:
                file.write(data)
            os.replace(temporary, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
            raise
    except OSError:
        pass

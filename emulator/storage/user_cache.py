"""The per-user cache: what a start would otherwise work out again each time from files that do not change between
starts (the regular expressions the imports of `eddy serve` and the in-process door compile, the regions in
botocore's endpoint data), kept in $XDG_CACHE_HOME/eddy (default ~/.cache/eddy, the folder node_sdk.py installs the
Node.js SDK into).

A cached file is written whole (a temporary file beside it, then os.replace: a concurrent reader finds the old file
or the new one) and only ever read as a hint: one that is missing, unreadable or out of date is worked out again and
written anew, and a folder that cannot be written to leaves things as they were.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path


def cache_dir() -> Path:
    """$XDG_CACHE_HOME/eddy, default ~/.cache/eddy."""
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "eddy"


def read(path: Path) -> bytes | None:
    """The file's bytes; None where it cannot be read."""
    try:
        return path.read_bytes()
    except OSError:
        return None


def write_whole(path: Path, data: bytes) -> None:
    """`data` as the file, whole; nothing where the folder cannot be made or written to."""
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

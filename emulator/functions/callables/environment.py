"""A registered callable's environment variables: Lambda's, and the function's own, seen by its invocation only.

A zip function's worker is a process with Lambda's environment (runtimes/base.py). A registered callable runs
on a thread of this process, where several functions may run at once (and one may invoke another and wait for
it). So os.environ becomes a mapping that shows each invoking thread its function's variables over the
process's own: a handler's `boto3.client("dynamodb")` finds AWS_REGION, `os.environ["TABLE"]` its table, and
a thread not running a function sees the process's environment unchanged.

    with overlay({"AWS_LAMBDA_FUNCTION_NAME": "on-order", "TABLE": "orders"}):
        handler(event, context)               # sees them; other threads do not

The process's variables are the same object underneath (os.putenv too), so anything that kept a reference to
the old os.environ reads and writes the same environment. A thread the handler starts itself, and a
subprocess it starts, see the process's environment (Lambda's own would see the function's: a difference
worth knowing when a handler forks work).
"""

from __future__ import annotations

import os
import threading
from contextlib import contextmanager
from typing import Any, Iterator


class ThreadEnviron(os._Environ):  # type: ignore[misc, name-defined]
    """os.environ, with the variables of the function this thread is running on top."""

    def __init__(self, base: Any) -> None:
        super().__init__(base._data, base.encodekey, base.decodekey, base.encodevalue, base.decodevalue)
        self._local = threading.local()

    def _overlay(self) -> dict[str, str] | None:
        return getattr(self._local, "variables", None)

    def __getitem__(self, key: str) -> str:
        overlay = self._overlay()
        if overlay is not None and key in overlay:
            return overlay[key]
        return super().__getitem__(key)

    def __setitem__(self, key: str, value: str) -> None:
        overlay = self._overlay()
        if overlay is not None and key in overlay:  # the function changes its own variable, as in its sandbox
            overlay[key] = str(value)
            return
        super().__setitem__(key, value)

    def __delitem__(self, key: str) -> None:
        overlay = self._overlay()
        if overlay is not None and key in overlay:
            del overlay[key]
            return
        super().__delitem__(key)

    def __iter__(self) -> Iterator[str]:
        overlay = self._overlay() or {}
        yield from overlay
        yield from (key for key in super().__iter__() if key not in overlay)

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def __repr__(self) -> str:
        return f"environ({dict(self)!r})"


_install_lock = threading.Lock()


def _thread_environ() -> ThreadEnviron:
    """os.environ as a ThreadEnviron (installed once per process; it behaves as os.environ did until a thread
    runs a function)."""
    with _install_lock:
        if not isinstance(os.environ, ThreadEnviron):
            os.environ = ThreadEnviron(os.environ)
        return os.environ


@contextmanager
def overlay(variables: dict[str, str]) -> Iterator[None]:
    """`variables` over os.environ for this thread, for the block (blocks nest: the innermost wins)."""
    environ = _thread_environ()
    previous = environ._overlay()
    environ._local.variables = {**(previous or {}), **variables}
    try:
        yield
    finally:
        environ._local.variables = previous

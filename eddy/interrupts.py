"""Ctrl-C, kept from the `eddy` command's first line (eddy/__main__.py) until `eddy serve` waits for it.

Python answers a SIGINT by raising KeyboardInterrupt wherever the main thread is, and drops it when that place cannot
raise to anyone: importlib's module-lock callback, which the garbage collector runs in the middle of an import, prints
"Exception ignored in ... KeyboardInterrupt" and goes on. `eddy serve` then started and waited for a Ctrl-C that had
already come (tests/emulator/cli/test_cli.py's sweep of Ctrl-C moments caught it in a loaded suite, once during the
command's own imports, before serve.py could keep it). So from the command's first line every SIGINT is also put in
`received`, which `eddy serve` waits on, and a KeyboardInterrupt that Python drops prints nothing.

The standard library only: this module is imported before the rest of Eddy.
"""

from __future__ import annotations

import queue
import signal
import sys
from typing import Any

#: each SIGINT received since keep() (and each SIGINT or SIGTERM `eddy serve` receives once it serves):
#: SimpleQueue.put is safe in a signal handler, where a lock another frame of the same thread holds is not
received: queue.SimpleQueue[int] = queue.SimpleQueue()


def keep() -> None:
    """From here on a Ctrl-C is put in `received`, then raised as KeyboardInterrupt; if Python drops that
    KeyboardInterrupt, it says nothing about it (the Ctrl-C is in `received`)."""
    signal.signal(signal.SIGINT, _kept_and_raised)
    if sys.unraisablehook is not _quiet_about_interrupts:
        global _unraisablehook
        _unraisablehook = sys.unraisablehook
        sys.unraisablehook = _quiet_about_interrupts


def _kept_and_raised(signum: int, _frame: Any) -> None:
    received.put(signum)
    raise KeyboardInterrupt


_unraisablehook = sys.__unraisablehook__


def _quiet_about_interrupts(unraisable: Any) -> None:
    """sys.unraisablehook, but silent about a KeyboardInterrupt Python dropped: its Ctrl-C is in `received`."""
    if not isinstance(unraisable.exc_value, KeyboardInterrupt):
        _unraisablehook(unraisable)

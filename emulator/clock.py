"""The emulator's clock: wall time plus an offset that tests and tools move forward.

Everything time-dependent in Eddy (retention, iterator expiry, TTL, shard rollover, batching windows,
record age) reads this clock, never time.time() directly, so `clock.advance(4 * 3600)` makes four
hours pass for the whole emulator at once.

    >>> clock = Clock(source=lambda: 1000.0)
    >>> clock.advance(60)
    >>> clock.now()
    1060.0
"""

from __future__ import annotations

import threading
import time
from typing import Callable


class Clock:
    def __init__(self, source: Callable[[], float] = time.time, offset: float = 0.0) -> None:
        self._source = source
        self._offset = float(offset)
        self._listeners: list[Callable[[], None]] = []
        #: what keeps an advance before it is made (`keep_with`), or None
        self._keeper: Callable[[float, Callable[[float], None]], None] | None = None
        self._lock = threading.Lock()

    def now(self) -> float:
        """Seconds since the epoch on the emulator's clock."""
        return self._source() + self._offset

    @property
    def offset(self) -> float:
        """How far this clock has been advanced from its source."""
        return self._offset

    def skew(self) -> float:
        """How far this clock is from the computer's (time.time()): the offset when the source is the computer's
        clock, else what the source says now against the computer (a fixed or custom source drifts)."""
        if self._source is time.time:
            return self._offset
        return self.now() - time.time()

    def advance(self, seconds: float) -> None:
        """Move the clock forward; anything waiting on time (pollers, windows) is told. If a keeper refuses the move
        (raises: the emulator's log could not keep it), the clock stays where it was and the error is raised."""
        seconds = float(seconds)
        if seconds != seconds or seconds < 0:
            raise ValueError("the clock only moves forward: advance takes a number of seconds >= 0")
        keeper = self._keeper
        if keeper is None:
            self._move(seconds)
        else:
            keeper(seconds, self._move)
        with self._lock:
            listeners = list(self._listeners)
        for listener in listeners:
            listener()

    def _move(self, seconds: float) -> None:
        with self._lock:
            self._offset += seconds

    def restore_offset(self, offset: float) -> None:
        """Put the offset back as it was before a restart (nothing is told: nothing is waiting yet)."""
        with self._lock:
            self._offset = float(offset)

    def keep_with(self, keeper: Callable[[float, Callable[[float], None]], None]) -> None:
        """Every advance from now on is handed to `keeper(seconds, move)`, which keeps it (the emulator's log) and then
        makes it with `move(seconds)`, under a lock of its own if it likes; raising instead refuses it (the clock
        stays where it was). A later keeper replaces an earlier one."""
        with self._lock:
            self._keeper = keeper

    def on_advance(self, listener: Callable[[], None]) -> None:
        with self._lock:
            self._listeners.append(listener)

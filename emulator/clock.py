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
        #: told the offset an advance would set before it is set (`keep_with`)
        self._keepers: list[Callable[[float], None]] = []
        self._lock = threading.Lock()
        #: one advance at a time, from its keepers to its new offset
        self._advancing = threading.Lock()

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
        with self._advancing:
            offset = self._offset + seconds
            for keeper in list(self._keepers):
                keeper(offset)
            with self._lock:
                self._offset = offset
                listeners = list(self._listeners)
        for listener in listeners:
            listener()

    def restore_offset(self, offset: float) -> None:
        """Put the offset back as it was before a restart (nothing is told: nothing is waiting yet)."""
        with self._lock:
            self._offset = float(offset)

    def keep_with(self, keeper: Callable[[float], None]) -> None:
        """`keeper(offset)` is called with the offset an advance would set, before it is set; raising refuses it."""
        with self._lock:
            self._keepers.append(keeper)

    def on_advance(self, listener: Callable[[], None]) -> None:
        with self._lock:
            self._listeners.append(listener)

"""Write rates: how many items each table's writes changed per second, over the last few seconds of the clock.

    rates = WriteRates(window_seconds=10)
    rates.note(("123456789012", "us-east-1", "orders"), 3, now)   # a commit that changed three items
    rates.per_second(("123456789012", "us-east-1", "orders"), now)  # 0.3 while it is within the window

The engine notes every committed table operation (streams or not); the dashboard shows the rate.
"""

from __future__ import annotations

from collections import deque

from eddy.emulator.streams.capture import TableKey


class WriteRates:
    def __init__(self, window_seconds: int = 10) -> None:
        self.window_seconds = window_seconds
        #: per table: (clock second, items changed in it), oldest first, only seconds within the window
        self._seconds: dict[TableKey, deque[list[int]]] = {}

    def note(self, table: TableKey, items: int, now: float) -> None:
        second = int(now)
        seconds = self._seconds.setdefault(table, deque())
        if seconds and seconds[-1][0] == second:
            seconds[-1][1] += items
        else:
            seconds.append([second, items])
        self._drop_old(seconds, second)

    def per_second(self, table: TableKey, now: float) -> float:
        """Items changed per second, averaged over the last `window_seconds` seconds up to now."""
        seconds = self._seconds.get(table)
        if not seconds:
            return 0.0
        self._drop_old(seconds, int(now))
        return sum(count for _, count in seconds) / self.window_seconds

    def _drop_old(self, seconds: deque[list[int]], second: int) -> None:
        while seconds and seconds[0][0] <= second - self.window_seconds:
            seconds.popleft()

    def forget(self, table: TableKey) -> None:
        self._seconds.pop(table, None)

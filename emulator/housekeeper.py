"""The housekeeper: the background thread that runs the emulator's periodic chores."""

from __future__ import annotations

import logging
import threading
from typing import Callable


class Housekeeper(threading.Thread):
    """Every `interval` seconds, `chores()`: TTL deletions, shard rollover and retention (Emulator.housekeeping)."""

    def __init__(self, chores: Callable[[], None], interval: float) -> None:
        super().__init__(name="eddy-housekeeper", daemon=True)
        self.chores = chores
        self.interval = interval
        self._stop_event = threading.Event()

    def run(self) -> None:
        while not self._stop_event.wait(self.interval):
            try:
                self.chores()
            except Exception:  # housekeeping must never take Eddy down; the next round tries again
                logging.getLogger("eddy").exception("housekeeping failed")

    def stop(self) -> None:
        self._stop_event.set()
        self.join(timeout=5)

"""The housekeeper: the background thread that runs the emulator's periodic chores."""

from __future__ import annotations

import logging
import threading
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from eddy.emulator.engine import Emulator


class Housekeeper(threading.Thread):
    """Every `interval` seconds: TTL deletions, shard rollover and retention (Emulator.housekeeping)."""

    def __init__(self, emulator: Emulator, interval: float) -> None:
        super().__init__(name="eddy-housekeeper", daemon=True)
        self.emulator = emulator
        self.interval = interval
        self._stop_event = threading.Event()

    def run(self) -> None:
        while not self._stop_event.wait(self.interval):
            try:
                self.emulator.housekeeping()
            except Exception:  # housekeeping must never take Eddy down; the next round tries again
                logging.getLogger("eddy").exception("housekeeping failed")

    def stop(self) -> None:
        self._stop_event.set()
        self.join(timeout=5)

"""`<state_dir>/clock.json`: the emulator's time, for readers of the state directory in other processes.

    {"offset": -46137600.0, "now": 1748779200.0}

A reader (a Spark job, a table stream, `eddy export`) cannot call the emulator's clock, so the file says how
far the emulator's time is from the computer's: `offset` (the clock's skew, Clock.skew), so that the emulator's
time is the reader's `time.time() + offset`; `now` is the emulator's time when the file was written (for people).

With the computer's clock as the source the skew is the clock's offset: it moves only when the clock is advanced,
and the file is rewritten then. A custom source (`Clock(source=...)`: a fixed moment, a clock of its own) drifts
from the computer's, so `refresh()`, called at every commit and at housekeeping, rewrites the file once the skew
has moved more than DRIFT_SECONDS from what the file says: a reader is then never further off than that plus the
time since the emulator last wrote or swept. Written to a temp file, swapped in with os.replace.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from eddy.emulator.clock import Clock

#: how far a custom source may drift from the file before it is written again
DRIFT_SECONDS = 0.5


class ClockFile:
    def __init__(self, path: Path, clock: Clock) -> None:
        self.path = path
        self.clock = clock
        self._written: float | None = None

    def write(self) -> None:
        skew = self.clock.skew()
        temporary = self.path.with_name(self.path.name + ".tmp")
        temporary.write_text(json.dumps({"offset": skew, "now": self.clock.now()}))
        os.replace(temporary, self.path)
        self._written = skew

    def refresh(self) -> None:
        """Write the file again if the clock's skew has moved (a custom source) since it was written."""
        if self._written is not None and abs(self.clock.skew() - self._written) > DRIFT_SECONDS:
            self.write()

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

ClockChannel, the file's `channel`, is the clock's durable channel (storage/channels.py): its offset in the log and
the snapshot's header.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from eddy.emulator.clock import Clock
from eddy.emulator.storage.channels import NOT_KEPT, Channel, DurableLog

#: how far a custom source may drift from the file before it is written again
DRIFT_SECONDS = 0.5


class ClockFile:
    def __init__(self, path: Path, clock: Clock, log: DurableLog = NOT_KEPT) -> None:
        self.path = path
        self.clock = clock
        #: the clock's durable channel (registered with storage by the composition root)
        self.channel = ClockChannel(log, clock)
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


class ClockChannel(Channel):
    """The clock's offset kept: in the log each time it moves, in the snapshot's header."""

    name, ops = "clock", ("clock",)

    def __init__(self, log: DurableLog, clock: Clock) -> None:
        self.log = log
        self.clock = clock

    def moved(self) -> None:
        self.log.log({"op": "clock", "offset": self.clock.offset})

    def header_fields(self) -> dict[str, Any]:
        return {"clock_offset": self.clock.offset}

    def restore_header(self, header: dict[str, Any]) -> None:
        self.clock.restore_offset(header["clock_offset"])

    def replay(self, entry: dict[str, Any]) -> None:
        self.clock.restore_offset(entry["offset"])

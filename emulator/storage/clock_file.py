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
the snapshot's header. An advance is logged before the clock moves, without the log's reserve: one the disk refuses
is not made at all (nothing fires: no retention trim, rollover, TTL deletion or retry), and the control that asked
answers 500; the file follows the move once it is logged.
"""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path
from typing import Any, Callable

from eddy.emulator.clock import Clock
from eddy.emulator.storage.channels import NOT_KEPT, Channel, DurableLog
from eddy.emulator.storage.disk import DiskState, WriteFailed

#: how far a custom source may drift from the file before it is written again
DRIFT_SECONDS = 0.5


class ClockFile:
    """Built with the clock, the log its moves are written to before they are made (under `lock`, the emulator's:
    the log's order is the order things happened in) and the disk's state (a refused write of the file noted)."""

    def __init__(
        self, path: Path, clock: Clock, log: DurableLog = NOT_KEPT, lock: Any = None, disk: DiskState | None = None
    ) -> None:
        self.path = path
        self.clock = clock
        self.disk = disk
        #: the clock's durable channel (registered with storage by the composition root)
        self.channel = ClockChannel(log, clock)
        self._lock = lock if lock is not None else threading.RLock()
        self._closed = False
        clock.keep_with(self._keep)
        self._written: float | None = None
        #: whether the last write was refused (the file says an older time)
        self._stale = False

    def write(self) -> None:
        """The file written again (WriteFailed: the disk refused it, and the file is as it was: `refresh` writes it
        at the next commit or housekeeping)."""
        skew = self.clock.skew()
        temporary = self.path.with_name(self.path.name + ".tmp")
        try:
            temporary.write_text(json.dumps({"offset": skew, "now": self.clock.now()}))
            os.replace(temporary, self.path)
        except OSError as error:
            temporary.unlink(missing_ok=True)
            self._stale = True
            raise WriteFailed(self.path, error) from error
        self._written, self._stale = skew, False

    def _keep(self, seconds: float, move: Callable[[float], None]) -> None:
        """An advance (Clock.keep_with), logged with the offset it sets, then made, under the emulator's lock (so
        advances are logged in the order they are made); refused (WriteFailed), it is not made, and the control
        that asked answers 500."""
        with self._lock:
            if not self._closed:  # a clock outlives its emulator (emulate(clock=...)): its log is closed
                self.channel.moving(self.clock.offset + seconds)
            move(seconds)

    def close(self) -> None:
        """Log no more moves of the clock (the emulator is closing)."""
        self._closed = True

    def moved(self) -> None:
        """The clock moved (its log entry written): the file follows; if the disk refuses it, the refusal is noted and
        `refresh` writes it at the next commit or housekeeping (the file lags; the move stands)."""
        try:
            self.write()
        except WriteFailed as failure:
            if self.disk is not None:
                self.disk.refused(failure, self.clock.now())

    def refresh(self) -> None:
        """Write the file again if the clock's skew has moved (a custom source) since it was written, or if its last
        write was refused."""
        if self._stale or (self._written is not None and abs(self.clock.skew() - self._written) > DRIFT_SECONDS):
            self.write()


class ClockChannel(Channel):
    """The clock's offset kept: in the log each time it moves, in the snapshot's header."""

    name, ops = "clock", ("clock",)

    def __init__(self, log: DurableLog, clock: Clock) -> None:
        self.log = log
        self.clock = clock

    def moving(self, offset: float) -> None:
        """The clock is about to be set to `offset` (Clock.keep_with): logged first, without the log's reserve (the
        move is not made yet: refused, WriteFailed, it is not made at all)."""
        self.log.log_all([json.dumps({"op": "clock", "offset": offset}, separators=(",", ":")).encode()])

    def header_fields(self) -> dict[str, Any]:
        return {"clock_offset": self.clock.offset}

    def restore_header(self, header: dict[str, Any]) -> None:
        self.clock.restore_offset(header["clock_offset"])

    def replay(self, entry: dict[str, Any]) -> None:
        self.clock.restore_offset(entry["offset"])

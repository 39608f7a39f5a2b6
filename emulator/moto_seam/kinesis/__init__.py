"""moto's Kinesis: streams made to keep lineage (streams.py), and their state for persistence (state.py).

This module loads neither moto's Kinesis nor those two: what the composition root hands the seam (an Observer) and
the clock's trim and the recovery report's streams, which have nothing to do while moto's Kinesis was never loaded (no stream can exist).
"""

from __future__ import annotations

import sys
from typing import Any, Callable, NamedTuple


class Observer(NamedTuple):
    """What moto's Kinesis tells Eddy of (given to moto_bridge.connect): records put and reshards."""

    activity: Any  # the emulator's threading.Condition: held while moto's Kinesis changes, notified after
    now: Callable[[], float]  # the emulator's clock: a record's arrival time
    #: told of every change: kinesis_record_put(stream, shard, record), kinesis_stream_changed(stream),
    #: kinesis_stream_deleted(stream); None in memory, where nothing is kept
    persistence: Any = None


def all_streams() -> list[Any]:
    """Every stream moto's Kinesis holds (none while it was never loaded)."""
    if "moto.kinesis.models" not in sys.modules:
        return []
    from eddy.emulator.moto_seam.kinesis.state import all_streams as streams

    return list(streams())


def trim(now: float) -> None:
    """Drop every record older than its stream's retention period (on Eddy's clock), as Kinesis does."""
    if "moto.kinesis.models" in sys.modules:
        from eddy.emulator.moto_seam.kinesis.streams import trim as trim_streams

        trim_streams(now)

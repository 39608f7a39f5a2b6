"""Tumbling windows (TumblingWindowInSeconds): a lane's current window, its state, and the event's window fields.

A window starts at a multiple of its size on the records' creation time (AWS: windows are aligned to the clock),
carries the state the function returns from one invocation to the next, and ends with a final invocation
(`isFinalInvokeForWindow`), early when its shard ends or its state grows past 1 MB (`isWindowTerminatedEarly`).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

MAX_WINDOW_STATE_BYTES = 1024 * 1024


@dataclass
class Window:
    start: float
    end: float
    state: dict[str, Any]
    invoked: bool = False

    @classmethod
    def of(cls, created_at: float, size: int) -> "Window":
        start = window_start(created_at, size)
        return cls(start, start + size, {})

    def event_fields(self, shard_id: str, stream_arn: str, *, final: bool, terminated_early: bool) -> dict[str, Any]:
        """What a tumbling window adds to the Lambda event."""
        return {
            "window": {"start": iso(self.start), "end": iso(self.end)},
            "state": self.state,
            "shardId": shard_id,
            "eventSourceARN": stream_arn,
            "isFinalInvokeForWindow": final,
            "isWindowTerminatedEarly": terminated_early,
        }

    def state_too_large(self) -> bool:
        return len(str(self.state)) > MAX_WINDOW_STATE_BYTES


def window_start(created_at: float, size: int) -> float:
    return (int(created_at) // size) * size


def iso(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")

"""GetRecords calls per shard per second: past Settings.get_records_per_second_per_shard, AWS's
LimitExceededException (the throttle DynamoDB Streams applies to more than a few readers of one shard)."""

from __future__ import annotations

from typing import Callable

from eddy.emulator.errors import LimitExceededException


class ReadLimits:
    def __init__(self, allowed: Callable[[], int | None], now: Callable[[], float]) -> None:
        self._allowed = allowed
        self._now = now
        self._reads: dict[str, tuple[int, int]] = {}

    def count(self, shard_id: str) -> None:
        """One GetRecords call on the shard, now; refused when the shard's calls this second exceed the limit."""
        allowed = self._allowed()
        if allowed is None:
            return
        second = int(self._now())
        last_second, count = self._reads.get(shard_id, (second, 0))
        count = count + 1 if last_second == second else 1
        self._reads[shard_id] = (second, count)
        if count > allowed:
            raise LimitExceededException(
                f"Rate exceeded for shard {shard_id}: at most {allowed} GetRecords calls per second"
            )

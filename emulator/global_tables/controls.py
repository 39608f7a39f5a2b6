"""The controls of global tables' replication (control_api.py's /_eddy/replication: a region outage, the delay, the
state, wait until converged), a part of Replication (replication.py), which holds what they read and change.
"""

from __future__ import annotations

import threading
import time
from typing import Any, Callable

from eddy.emulator.errors import ValidationException
from eddy.emulator.global_tables.backlog import Queues, rows
from eddy.emulator.global_tables.replica_groups import ReplicaGroups


class ReplicationControls:
    """What the controls use of Replication (its __init__ sets them)."""

    _lock: threading.RLock
    _activity: threading.Condition
    _paused: set[str]
    _queues: Queues
    delay: float
    groups: ReplicaGroups
    applied: int
    passed_over: int

    _now: Callable[[], float]
    #: settle the replicas and apply every due write (the lock held); how long until the next is due
    step: Callable[[], float]

    def pause(self, region: str) -> None:
        """A region outage: nothing is replicated to or from `region` until resume(region)."""
        with self._activity:
            self._paused.add(region)

    def resume(self, region: str) -> None:
        with self._activity:
            self._paused.discard(region)
            self._activity.notify_all()

    @property
    def paused_regions(self) -> frozenset[str]:
        return frozenset(self._paused)

    def set_delay(self, seconds: float) -> None:
        """Writes committed from now on reach the other replicas `seconds` after their commit (emulator's clock)."""
        if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or not 0 <= seconds <= 86400:
            raise ValidationException("DelaySeconds must be a number of seconds from 0 to 86400")
        with self._activity:
            self.delay = float(seconds)
            self._activity.notify_all()

    def backlog(self) -> list[dict[str, Any]]:
        """Per source and target replica: the writes not yet applied, and the oldest one's age (lock held)."""
        return rows(self._queues, self._paused, self._now())

    def state(self) -> dict[str, Any]:
        with self._lock:
            return {
                "DelaySeconds": self.delay,
                "PausedRegions": sorted(self._paused),
                "Backlog": self.backlog(),
                "GlobalTables": [
                    {
                        "TableName": group.table_name,
                        "Replicas": [
                            {"RegionName": region, "ReplicaStatus": replica.status}
                            for region, replica in group.replicas.items()
                        ],
                    }
                    for group in self.groups
                ],
                "AppliedWrites": self.applied,
                "PassedOverWrites": self.passed_over,
            }

    def wait_replicated(self, timeout: float) -> dict[str, Any]:
        """Block until every write has reached every replica that is not paused, or `timeout` seconds passed.

        {"Converged": True, "Backlog": []} once nothing is left to apply; else Converged false and what is left
        (a paused region's backlog never drains: Converged stays false until it is resumed).
        """
        activity = self._activity
        deadline = time.monotonic() + timeout
        with activity:
            while True:
                self.step()
                backlog = self.backlog()
                remaining = deadline - time.monotonic()
                if not backlog or remaining <= 0:
                    return {"Converged": not backlog, "Backlog": backlog}
                activity.wait(min(remaining, 0.05))

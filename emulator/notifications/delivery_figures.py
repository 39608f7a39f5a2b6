"""Each push trigger's deliveries: an SNS subscription's (to a function or a queue) and an S3 bucket's notification
configuration's (to a queue, a topic or a function), counted where moto_seam/notifications/ delivers them.

    figures = DeliveryFigures(clock.now)
    figures.delivered(("sns", subscription_arn)); figures.failed(("s3", "uploads", "to-inbox"), "...")
    figures.of(("sns", subscription_arn))
    # {"NumberOfNotificationsDelivered": 1, "NumberOfNotificationsFailed": 0, "NumberOfNotificationsFilteredOut": 0,
    #  "LastError": None, "LastErrorTime": None}

The names are SNS's CloudWatch metrics for a topic's deliveries (NumberOfNotificationsDelivered, ...Failed,
...FilteredOut), used for S3's configurations too (S3 publishes no such figures). A delivery is the destination
taking the event: a queue's message sent, a topic's message published, a function's event queued for its
asynchronous invocation (the function's own errors are its asynchronous queue's figures). Figures are this run's,
as the mappings' are: a restart, or a reset, begins them again.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any, Callable

#: ("sns", subscription ARN) or ("s3", bucket name, configuration id)
Trigger = tuple[str, ...]


@dataclass
class Deliveries:
    delivered: int = 0
    failed: int = 0
    filtered_out: int = 0
    last_error: str | None = None
    last_error_time: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "NumberOfNotificationsDelivered": self.delivered,
            "NumberOfNotificationsFailed": self.failed,
            "NumberOfNotificationsFilteredOut": self.filtered_out,
            "LastError": self.last_error,
            "LastErrorTime": self.last_error_time,
        }


class DeliveryFigures:
    """Every trigger's Deliveries, on the emulator's clock (`now`) for the time of the last error."""

    def __init__(self, now: Callable[[], float]) -> None:
        self._now = now
        self._lock = threading.Lock()
        self._figures: dict[Trigger, Deliveries] = {}

    def delivered(self, trigger: Trigger) -> None:
        with self._lock:
            self._figures.setdefault(trigger, Deliveries()).delivered += 1

    def failed(self, trigger: Trigger, error: str) -> None:
        with self._lock:
            figures = self._figures.setdefault(trigger, Deliveries())
            figures.failed += 1
            figures.last_error, figures.last_error_time = error, self._now()

    def filtered_out(self, trigger: Trigger) -> None:
        with self._lock:
            self._figures.setdefault(trigger, Deliveries()).filtered_out += 1

    def of(self, trigger: Trigger) -> dict[str, Any]:
        with self._lock:
            return self._figures.get(trigger, Deliveries()).to_dict()

    def reset(self) -> None:
        with self._lock:
            self._figures.clear()

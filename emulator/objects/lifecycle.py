"""S3 Lifecycle's expirations carried out on the emulator's clock (moto applies no lifecycle rule).

Each sweep (the housekeeper's round, or POST /_eddy/s3/lifecycle/sweep, `emulator.sweep_lifecycle()`) asks the seam
which objects their buckets' rules expire now (moto_seam/notifications/lifecycle_expirations.py, by
objects/lifecycle_rules.py's reckoning: the midnight UTC after an object's age) and deletes each with a DeleteObject
of Eddy's own through its front door, marked as S3 Lifecycle's (LIFECYCLE_HEADER). The front door journals it like
any S3 change (a restart replays it), and the seam sends S3 Lifecycle's events for it."""

from __future__ import annotations

import threading
from typing import Any, Callable

from eddy.emulator.moto_seam.notifications.lifecycle_expirations import LIFECYCLE_HEADER, due


class Lifecycle:
    def __init__(self, aws_client: Callable[..., Any], now: Callable[[], float]) -> None:
        self._aws_client = aws_client
        self._now = now
        self._marking = threading.local()  # the rule whose deletion this thread's DeleteObject carries out
        self._sweeping = threading.Lock()  # one sweep at a time: two would delete one object twice

    def sweep(self) -> int:
        """Carry out every expiration due now; how many objects (or versions) were deleted."""
        with self._sweeping:
            expired = due(self._now())
            for item in expired:
                s3 = self._client(item.region, item.account_id)
                self._marking.rule = item.rule_id or "-"
                try:
                    if item.version_id is None:
                        s3.delete_object(Bucket=item.bucket, Key=item.key)
                    else:
                        s3.delete_object(Bucket=item.bucket, Key=item.key, VersionId=item.version_id)
                finally:
                    self._marking.rule = None
            return len(expired)

    def _client(self, region: str, account_id: str) -> Any:
        client = self._aws_client("s3", region, account_id, as_aws=True)
        client.meta.events.register("before-sign.s3.DeleteObject", self._mark, unique_id="eddy-s3-lifecycle")
        return client

    def _mark(self, request: Any, **_: Any) -> None:
        rule = getattr(self._marking, "rule", None)
        if rule:
            request.headers[LIFECYCLE_HEADER] = rule

"""The journal of moto's services: every request that changed S3, SQS, SNS, Lambda layers, IAM, tags, ... kept.

One mechanism for every service moto serves (and every one it serves next): both front doors hand the requests
the router does not claim to `run`, which
  - lets reads through as they are (GET, HEAD, and operations named Get..., List..., Describe..., Head...);
  - runs a request that may change state one at a time, under the emulator's lock, inside a moment
    (moto_seam/services/moments.py: one instant on the emulator's clock, one seeded random stream for moto's ids);
  - when moto accepted it (2xx), writes it to the write-ahead log (seed, instant, the request as it came and
    its body, and what it drew that no seed makes again: asymmetric KMS keys) before the client hears the answer;
    persistence folds the services into snapshots.
Recovery hands each logged request back to `replay`, which runs it through the same path of moto in the
same moment: the same ids, timestamps, receipt handles, visibility and receive counts as before.

DynamoDB, DynamoDB Streams and Kinesis are not journaled here: Eddy logs them as changes (storage/).
"""

from __future__ import annotations

import base64
import json
import threading
from html import escape
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable
from urllib.parse import urlsplit

from eddy.emulator.moto_seam.services import moments, requests as service_requests
from eddy.emulator.moto_seam.services.requests import Seen
from eddy.emulator.moto_seam.services import state as service_state
from eddy.emulator.moto_seam.services.state import BODY_INLINE_LIMIT, EDDY_OWNED
from eddy.emulator.storage.disk import WriteFailed
from eddy.emulator.storage.service_log import ServiceLog, ServicesChannel
from eddy.emulator.storage.wal import CorruptStateError

if TYPE_CHECKING:
    from eddy.emulator.kernel import Kernel
    from eddy.emulator.storage.disk import DiskState
    from eddy.emulator.storage.channels import DurableLog

#: operations that only read (S3, SQS, SNS, IAM, Lambda, STS, ... name theirs so)
READ_PREFIXES = ("Get", "List", "Describe", "Head", "Lookup", "Search")


def may_change_state(seen: Seen, body: bytes) -> bool:
    """Whether a request may change state: not a GET, HEAD or OPTIONS, nor an operation named as a read."""
    if seen.method.upper() in ("GET", "HEAD", "OPTIONS") or urlsplit(seen.url).path.startswith("/moto-api/"):
        return False
    operation = service_requests.operation_of(seen.method, seen.target, seen.url, seen.content_type, body)
    return not (operation and operation.startswith(READ_PREFIXES))


class ServiceJournal:
    """Built with the kernel (its lock and clock), the persistence that writes each request down (through the
    journal's durable channel: bodies and the services' state as files under `state_dir`) and the disk's state (a
    full disk refuses a request before moto sees it)."""

    def __init__(self, kernel: Kernel, persistence: DurableLog, disk: DiskState, state_dir: Path, fsync: bool) -> None:
        self._now = kernel.clock.now
        self._persistence = persistence
        #: the services' durable channel (registered with storage by the composition root): replayed by `replay`
        self.channel = ServicesChannel(ServiceLog(state_dir, service_state, fsync=fsync), persistence, self.replay)
        self._disk = disk
        #: notified whenever a request changed moto's services (a long poll waits on it)
        self.changed = threading.Condition(kernel.lock)
        moments.activate(self._now, self.changed.wait)

    def close(self) -> None:
        moments.deactivate(self._now)

    @staticmethod
    def may_change(seen: Seen, body: bytes) -> bool:
        """Whether the request may change one of moto's services (DynamoDB, Streams and Kinesis are logged as
        changes, not journaled)."""
        return (
            may_change_state(seen, body) and service_requests.service_of(seen.authorization, seen.url) not in EDDY_OWNED
        )

    def run(
        self,
        seen: Seen,
        via: str,
        request: Callable[[], dict[str, Any]],
        body: bytes,
        call: Callable[[], Any],
        status_of: Callable[[Any], int | None],
    ) -> Any:
        """moto's answer to a request (`call`), journaled when it may change state and moto accepted it.

        `request` gives the request as the `via` path replays it (services/requests.py)."""
        if not self.may_change(seen, body):
            if self._persistence.durable and may_change_state(seen, body):
                self._disk.room_for(len(body))  # Kinesis: its seam logs what moto changed, which needs room
            return call()
        with self.changed:
            persistence, disk = self._persistence, self._disk
            if persistence.durable:  # a full disk refuses the request before moto sees it: nothing to take back
                disk.room_for(len(body))  # and keeps the log's reserve for its entry, should the disk fill meanwhile
                if len(body) > BODY_INLINE_LIMIT:  # its body's file, before moto sees it (the entry names it)
                    self.channel.service_log.put_body(body)
            moment = moments.begin(moments.next_seed(), self._now())
            try:
                answer = call()
            finally:
                moments.end()
            status = status_of(answer)
            if status is not None and 200 <= status < 300:
                service = service_requests.service_of(seen.authorization, seen.url)
                fields = {"service": service, "via": via, "seed": moment.seed, "ts": moment.now, "request": request()}
                if moment.kept:
                    fields["kept"] = [base64.b64encode(drawn).decode() for drawn in moment.kept]
                self.channel.request_accepted(fields, body)
                if disk.refusing:
                    disk.accepted()
            self.changed.notify_all()
        return answer

    def refused(self, seen: Seen, failure: WriteFailed) -> tuple[int, dict[str, str], bytes]:
        """A request the disk refused (before moto saw it), answered in its service's shape of an internal error,
        which the SDKs retry: S3's InternalError, a JSON service's or a query service's InternalFailure."""
        self._disk.refused(failure, self._now())
        message = escape(f"The request was not applied: {failure.reason}")
        if service_requests.service_of(seen.authorization, seen.url) == "s3":
            return (
                500,
                {"Content-Type": "application/xml"},
                (
                    f"<?xml version='1.0' encoding='UTF-8'?>\n<Error><Code>InternalError</Code><Message>{message}"
                    f"</Message></Error>"
                ).encode(),
            )
        if urlsplit(seen.url).path.startswith("/20"):  # Lambda's REST API: its ServiceException
            return (
                500,
                {"Content-Type": "application/json", "x-amzn-ErrorType": "ServiceException"},
                json.dumps({"Type": "Service", "message": failure.reason}).encode(),
            )
        if "json" in seen.content_type:
            return (
                500,
                {"Content-Type": seen.content_type.split(";")[0], "x-amzn-query-error": "InternalFailure;Receiver"},
                json.dumps({"__type": "InternalFailure", "message": failure.reason}).encode(),
            )
        return (
            500,
            {"Content-Type": "text/xml"},
            (
                f"<ErrorResponse><Error><Type>Receiver</Type><Code>InternalFailure</Code><Message>{message}</Message>"
                f"</Error></ErrorResponse>"
            ).encode(),
        )

    def replay(self, entry: dict[str, Any], body: bytes) -> None:
        """A logged request run again (recovery): its moment, its path, nothing waited for."""
        moments.begin(
            entry["seed"],
            entry["ts"],
            replaying=True,
            kept=[base64.b64decode(drawn) for drawn in entry.get("kept", ())],
        )
        try:
            status = service_requests.replay(entry["via"], entry["request"], body)
        except Exception as error:
            raise CorruptStateError(
                f"replaying a request to {entry.get('service')} failed ({type(error).__name__}: {error})"
            ) from error
        finally:
            moments.end()
        if not 200 <= status < 300:
            raise CorruptStateError(
                f"replaying a request to {entry.get('service')} "
                f"({entry['request'].get('REQUEST_METHOD') or entry['request'].get('method')}) "
                f"answered {status} where it had succeeded"
            )

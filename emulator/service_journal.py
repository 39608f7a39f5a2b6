"""The journal of moto's services: every request that changed S3, SQS, SNS, Lambda layers, IAM, tags, ... kept.

One mechanism for every service moto serves (and every one it serves next): both front doors hand the requests
the router does not claim to `run`, which
  - lets reads through as they are (GET, HEAD, and operations named Get..., List..., Describe..., Head...);
  - runs a request that may change state one at a time, under the emulator's lock, inside a moment
    (moto_seam/services/moments.py: one instant on the emulator's clock, one seeded random stream for moto's ids);
  - when moto accepted it (2xx), writes it to the write-ahead log (seed, instant, the request as it came and
    its body, and what it drew that no seed makes again: asymmetric KMS keys) before the client hears the answer,
    in one append with what the request queued (its unit of work, storage/units_of_work.py: an S3 notification's
    or a rule's delivery is kept and run only once written); persistence folds the services into snapshots;
  - if the disk refuses that entry (or a line moto's change writes on its way, S3's object changes) once moto has
    applied the request, puts moto's services back as the log holds them (the snapshot the log continues from, then
    the log's entries since) and answers the service's 500: nothing of a refused request is seen, before or after a
    restart. A full disk rarely gets this far (the log's reserve takes the entry); a disk that fails otherwise
    (EIO, EFBIG, EROFS, ...) does.
Recovery hands each logged request back to `replay`, which runs it through the same path of moto in the
same moment: the same ids, timestamps, receipt handles, visibility and receive counts as before.

DynamoDB, DynamoDB Streams and Kinesis are not journaled here: Eddy logs them as changes (storage/).
"""

from __future__ import annotations

import base64
import json
import logging
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
    from eddy.emulator.objects.object_changes import ObjectChanges
    from eddy.emulator.storage.disk import DiskState
    from eddy.emulator.storage.channels import DurableLog

log = logging.getLogger("eddy")

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
    journal's durable channel: bodies and the services' state as files under `state_dir`), the disk's state (a
    full disk refuses a request before moto sees it) and S3's object change log (its lines of a request the log
    refused are taken back)."""

    def __init__(
        self,
        kernel: Kernel,
        persistence: DurableLog,
        disk: DiskState,
        state_dir: Path,
        fsync: bool,
        object_changes: ObjectChanges,
    ) -> None:
        self._now = kernel.clock.now
        self._persistence = persistence
        #: the services' durable channel (registered with storage by the composition root): replayed by `replay`
        self.channel = ServicesChannel(ServiceLog(state_dir, service_state, fsync=fsync), persistence, self.replay)
        self._disk = disk
        self._object_changes = object_changes
        #: the refusal of a change moto applied that the log does not hold, until the services are put back
        self._unlogged: WriteFailed | None = None
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
        if self._unlogged is not None:  # moto's services hold a change the log does not: nothing is shown of them
            with self.changed:
                self._put_back()  # or WriteFailed: refused
        if not self.may_change(seen, body):
            if self._persistence.durable and may_change_state(seen, body):
                self._disk.room_for(len(body))  # Kinesis: its seam logs what moto changed, which needs room
            with self._persistence.unit():  # Kinesis's entries in one append
                return call()
        with self.changed:
            persistence, disk = self._persistence, self._disk
            if persistence.durable:  # a full disk refuses the request before moto sees it: nothing to take back
                disk.room_for(len(body))  # and keeps the log's reserve for its entry, should the disk fill meanwhile
                if len(body) > BODY_INLINE_LIMIT:  # its body's file, before moto sees it (the entry names it)
                    self.channel.service_log.put_body(body)
            try:
                with self._object_changes.taken_back_if_refused(), persistence.unit():  # what it queued, once written
                    answer = self._accepted(seen, via, request, body, call, status_of)
            except WriteFailed as failure:  # applied (in part, maybe) but not logged: undone, then refused
                self._unlogged = failure
                log.warning(
                    "a request to %s was applied but could not be logged (%s): moto's services are put back "
                    "as the log holds them",
                    service_requests.service_of(seen.authorization, seen.url),
                    failure.reason,
                )
                self._put_back()
                raise
            finally:
                self.changed.notify_all()
        return answer

    def _accepted(
        self,
        seen: Seen,
        via: str,
        request: Callable[[], dict[str, Any]],
        body: bytes,
        call: Callable[[], Any],
        status_of: Callable[[Any], int | None],
    ) -> Any:
        """moto's answer, in a moment; logged if moto accepted it (WriteFailed: something of it was not)."""
        moment = moments.begin(moments.next_seed(), self._now())
        try:
            answer = (
                call()
            )  # WriteFailed from here too: what moto applied was refused on its way to disk (S3's changes)
        finally:
            moments.end()
        status = status_of(answer)
        if status is not None and 200 <= status < 300:
            service = service_requests.service_of(seen.authorization, seen.url)
            fields = {"service": service, "via": via, "seed": moment.seed, "ts": moment.now, "request": request()}
            if moment.kept:
                fields["kept"] = [base64.b64encode(drawn).decode() for drawn in moment.kept]
            self.channel.request_accepted(fields, body)
            if self._disk.refusing:
                self._persistence.after_commit(self._disk.accepted)
        return answer

    def _put_back(self) -> None:
        """moto's services put back as the log holds them (storage/service_log.py's put_back), after a change applied
        to them was refused by the disk on its way to the log (a disk that failed otherwise than by filling, or filled
        with the reserve used): the client's 500 is then the truth. Until it succeeds (tried again at each request),
        every request to moto's services is refused with the WriteFailed that caused it."""
        failure = self._unlogged
        if failure is None:  # put back already
            return
        try:
            self.channel.put_back()
        except Exception as error:
            log.error(
                "moto's services cannot be put back as the log holds them (%s: %s): every request to them is "
                "refused until they can be",
                type(error).__name__,
                error,
            )
            raise failure from error
        self._unlogged = None

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

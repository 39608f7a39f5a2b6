"""The durable side of moto's services: request bodies as files, and the services' state in snapshots.

The write-ahead log carries each accepted request to one of moto's services (service_journal.py) as a
"request" entry; its body is in the entry (base64) up to BODY_INLINE_LIMIT bytes, else in
`bodies/<sha256>`, written (and flushed, or fsynced with --fsync) before the entry that names it, with a
temporary name swapped in, so a body the log names is always whole.

A snapshot folds the services into `snapshots/<generation>.services` (moto_seam/services/state.py: every
backend, large bytes as body files), named with its SHA-256 by a "services" entry of the snapshot; once the
snapshot is in place, older services files and bodies nothing refers to any more are deleted.

Nothing is lost when moto's state holds something pickle cannot carry (state.py's reducers carry what moto is
known to hold; a new moto may hold more): the snapshot then keeps the last state that could be written and, as
`snapshots/<generation>.journal`, every log entry that changed the services since (requests, SQS receives and
deletes, function logs), carried from snapshot to snapshot until a state can be written again. Recovery loads the
state, then replays the journal, as it replays the log.

ServicesChannel is their durable channel (storage/channels.py), registered by the composition root with the
services' journal's replay (service_journal.py) and the seam's reading and writing of moto's state.
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import logging
import os
import shutil
from pathlib import Path
from typing import Any, Callable, Iterable, Protocol

from eddy.emulator.storage.channels import Channel
from eddy.emulator.storage.disk import WriteFailed
from eddy.emulator.storage.wal import CorruptStateError, WriteAheadLog, read_entries

log = logging.getLogger("eddy")

#: the log entries that change moto's services: folded into their state by a snapshot, or kept as its journal
SERVICE_OPS = frozenset({"request", "sqs_messages", "function_logs"})
#: how many log entries a request to moto's services counts as toward the next snapshot (replaying one through
#: moto takes ~2 ms, a DynamoDB commit ~0.1 ms): at the default, a snapshot every 10,000 such requests
SERVICE_REQUEST_WEIGHT = 10


class ServicesState(Protocol):
    """moto's services' state as the seam writes and reads it (moto_seam/services/state.py)."""

    BODY_INLINE_LIMIT: int

    def dump(self, file: io.BufferedIOBase, put_body: Callable[[bytes], str]) -> set[str]: ...

    def load(self, file: io.BufferedIOBase, get_body: Callable[[str], bytes]) -> None: ...

    def reset(self) -> None: ...


class ServiceLog:
    def __init__(self, directory: Path, state: ServicesState, fsync: bool = False) -> None:
        self.bodies = directory / "bodies"
        self.snapshots = directory / "snapshots"
        self.state = state
        self.fsync = fsync
        #: the services' entry of the last snapshot written or read: the base of the next one
        self.last: dict[str, Any] = {}

    # -- bodies ----------------------------------------------------------------------------------------

    def put_body(self, body: bytes) -> str:
        digest = hashlib.sha256(body).hexdigest()
        path = self.bodies / digest
        if not path.exists():
            temporary = path.with_suffix(".tmp")
            try:
                self.bodies.mkdir(parents=True, exist_ok=True)
                with open(temporary, "wb") as out:
                    out.write(body)
                    out.flush()
                    if self.fsync:
                        os.fsync(out.fileno())
                os.replace(temporary, path)
            except OSError as error:  # the disk refused it: no half body left behind
                temporary.unlink(missing_ok=True)
                raise WriteFailed(path, error) from error
        return digest

    def get_body(self, digest: str) -> bytes:
        path = self.bodies / digest
        try:
            body = path.read_bytes()
        except FileNotFoundError:
            raise CorruptStateError(f"{path}: a request body the state names is missing") from None
        if hashlib.sha256(body).hexdigest() != digest:
            raise CorruptStateError(f"{path}: a request body does not match its checksum")
        return body

    def entry(self, fields: dict[str, Any], body: bytes) -> dict[str, Any]:
        """The log entry of an accepted request: `fields` and its body, inline or as a file."""
        if len(body) > self.state.BODY_INLINE_LIMIT:
            return {"op": "request", **fields, "body_file": self.put_body(body)}
        return {"op": "request", **fields, "body": base64.b64encode(body).decode()}

    def body_of(self, entry: dict[str, Any]) -> bytes:
        if "body_file" in entry:
            return self.get_body(entry["body_file"])
        return base64.b64decode(entry["body"])

    # -- snapshots ---------------------------------------------------------------------------------------

    def write(self, generation: int, wal: WriteAheadLog) -> dict[str, Any]:
        """The services' state as `snapshots/<generation>.services`; answers the snapshot's entry naming it.

        When the state cannot be pickled, the entry names the last state written and a journal of the entries
        that changed the services since: the previous journal's and those of `wal`'s generation (the log since the
        last snapshot)."""
        self.snapshots.mkdir(parents=True, exist_ok=True)
        path = self.snapshots / f"{generation:012d}.services"
        temporary = path.with_suffix(".services-tmp")
        try:
            with open(temporary, "wb") as out:
                bodies = self.state.dump(out, self.put_body)
                out.flush()
                os.fsync(out.fileno())
        except OSError:
            temporary.unlink(missing_ok=True)  # a full disk, say: the last state written stays the one named
            raise
        except Exception as error:  # pickle refused something in moto's state
            temporary.unlink(missing_ok=True)
            log.warning(
                "moto's services cannot be folded into a snapshot (%s: %s): the requests that changed them "
                "are kept beside it and replayed at the next start",
                type(error).__name__,
                error,
            )
            since = wal.path(wal.generation)
            self.last = self._journal(generation, read_entries(since, repair=False) if since.exists() else ())
            return self.last
        os.replace(temporary, path)
        self.last = {"kind": "services", "file": path.name, "sha256": _sha256(path), "bodies": sorted(bodies)}
        return self.last

    def _journal(self, generation: int, logged: Iterable[dict[str, Any]]) -> dict[str, Any]:
        entry = {key: value for key, value in self.last.items() if key not in ("journal", "journal_sha256")}
        entry.setdefault("kind", "services")
        bodies = set(entry.get("bodies", ()))
        path = self.snapshots / f"{generation:012d}.journal"
        temporary = path.with_suffix(".journal-tmp")
        with open(temporary, "wb") as out:
            for kept in [*self._journal_entries(self.last), *logged]:
                if kept["op"] in SERVICE_OPS:
                    out.write(json.dumps(kept, separators=(",", ":")).encode() + b"\n")
                    bodies.update([kept["body_file"]] if "body_file" in kept else [])
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, path)
        return {**entry, "journal": path.name, "journal_sha256": _sha256(path), "bodies": sorted(bodies)}

    def _journal_entries(self, entry: dict[str, Any]) -> list[dict[str, Any]]:
        if "journal" not in entry:
            return []
        path = self.snapshots / entry["journal"]
        data = self._checked(path, entry["journal_sha256"], "the journal of moto's services")
        try:
            return [json.loads(line) for line in data.splitlines()]
        except ValueError as error:
            raise CorruptStateError(f"{path}: the journal of moto's services cannot be read ({error})") from None

    def _checked(self, path: Path, sha256: str, what: str) -> bytes:
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            raise CorruptStateError(f"{path}: the snapshot's {what} is missing") from None
        if hashlib.sha256(data).hexdigest() != sha256:
            raise CorruptStateError(f"{path}: {what} is corrupt (its checksum does not match)")
        return data

    def read(self, entry: dict[str, Any]) -> list[dict[str, Any]]:
        """Put the snapshot's state of the services back; answers its journal's entries, to be replayed."""
        if "file" in entry:
            path = self.snapshots / entry["file"]
            data = self._checked(path, entry["sha256"], "the state of moto's services")
            try:
                self.state.load(io.BytesIO(data), self.get_body)
            except CorruptStateError:
                raise
            except Exception as error:  # an unpickling failure of any kind: the file cannot be trusted
                raise CorruptStateError(
                    f"{path}: the state of moto's services cannot be read ({type(error).__name__}: {error})"
                ) from None
        self.last = entry
        return self._journal_entries(entry)

    def collect(self, entry: dict[str, Any]) -> None:
        """After the snapshot `entry` is in place: drop older services files and bodies nothing names."""
        for old in [*self.snapshots.glob("*.services"), *self.snapshots.glob("*.journal")]:
            if old.name not in (entry.get("file"), entry.get("journal")):
                old.unlink()
        kept = set(entry["bodies"])
        if self.bodies.exists():
            for body in self.bodies.iterdir():
                if body.name not in kept:
                    body.unlink()

    def reset(self) -> None:
        shutil.rmtree(self.bodies, ignore_errors=True)
        self.last = {}


class ServicesChannel(Channel):
    """moto's services' durable channel: each accepted request a log entry (its body inline or a file), their state a
    snapshot's "services" entry (with the journal of the entries since the last state written, replayed through
    the channels that declared them). `replay_request(entry, body)` is the services' journal's replay
    (service_journal.py): the request run again through moto in its moment."""

    name, ops, kinds = "services", ("request",), ("services",)

    def __init__(
        self, service_log: ServiceLog, persistence: Any, replay_request: Callable[[dict[str, Any], bytes], None]
    ) -> None:
        self.service_log = service_log
        #: storage/persistence.py's Persistence (its log, and its replay of the journal's entries), or NOT_KEPT
        self.persistence = persistence
        self.replay_request = replay_request
        #: the services' entry of the snapshot the log continues from (read at recovery, or the last written whole)
        self.in_effect: dict[str, Any] = {}

    def request_accepted(self, fields: dict[str, Any], body: bytes) -> None:
        """moto accepted a request that may have changed one of its services."""
        if self.persistence.durable and not self.persistence.replaying:  # its replay costs ten commits': a snapshot
            self.persistence.log(self.service_log.entry(fields, body), weight=SERVICE_REQUEST_WEIGHT)  # comes sooner

    def snapshot_entries(self, generation: int) -> Iterable[dict[str, Any]]:
        yield self.service_log.write(generation, self.persistence.wal)

    def snapshot_written(self, generation: int) -> None:
        self.in_effect = self.service_log.last
        self.service_log.collect(self.service_log.last)

    def restore(self, entry: dict[str, Any]) -> None:
        self.in_effect = entry
        for logged in self.service_log.read(entry):
            self.persistence.replay(logged)

    def put_back(self) -> None:
        """moto's services as the log holds them, after a change applied to them could not be logged: every backend
        made new, then the state of the snapshot the log continues from, then the entries that changed the services
        since, replayed in order (nothing is logged meanwhile). Raises what reading them raises (the disk failing
        again: OSError; CorruptStateError)."""
        persistence = self.persistence
        with persistence.replaying_now():
            self.service_log.state.reset()
            for logged in [*self.service_log.read(self.in_effect), *persistence.logged_since_snapshot()]:
                if logged["op"] in SERVICE_OPS:
                    persistence.replay(logged)

    def replay(self, entry: dict[str, Any]) -> None:
        self.replay_request(entry, self.service_log.body_of(entry))

    def reset(self) -> None:
        self.service_log.reset()
        self.in_effect = {}  # the snapshots are gone with the log: the services begin again from nothing


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()

"""The durable side of moto's services: request bodies as files, and the services' state in snapshots.

The write-ahead log carries each accepted request to one of moto's services (service_journal.py) as a
"request" entry; its body is in the entry (base64) up to BODY_INLINE_LIMIT bytes, else in
`bodies/<sha256>`, written (and flushed, or fsynced with --fsync) before the entry that names it, with a
temporary name swapped in, so a body the log names is always whole.

A snapshot folds the services into `snapshots/<generation>.services` (moto_seam/services/state.py: every
backend, large bytes as body files), named with its SHA-256 by a "services" entry of the snapshot; once the
snapshot is in place, older services files and bodies nothing refers to any more are deleted.
"""

from __future__ import annotations

import base64
import hashlib
import io
import os
import shutil
from pathlib import Path
from typing import Any

from emulator.moto_seam.services import state as service_state
from emulator.storage.wal import CorruptStateError

BODY_INLINE_LIMIT = service_state.BODY_INLINE_LIMIT


class ServiceLog:
    def __init__(self, directory: Path, fsync: bool = False) -> None:
        self.bodies = directory / "bodies"
        self.snapshots = directory / "snapshots"
        self.fsync = fsync

    # -- bodies ----------------------------------------------------------------------------------------

    def put_body(self, body: bytes) -> str:
        digest = hashlib.sha256(body).hexdigest()
        path = self.bodies / digest
        if not path.exists():
            self.bodies.mkdir(parents=True, exist_ok=True)
            temporary = path.with_suffix(".tmp")
            with open(temporary, "wb") as out:
                out.write(body)
                out.flush()
                if self.fsync:
                    os.fsync(out.fileno())
            os.replace(temporary, path)
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
        if len(body) > BODY_INLINE_LIMIT:
            return {"op": "request", **fields, "body_file": self.put_body(body)}
        return {"op": "request", **fields, "body": base64.b64encode(body).decode()}

    def body_of(self, entry: dict[str, Any]) -> bytes:
        if "body_file" in entry:
            return self.get_body(entry["body_file"])
        return base64.b64decode(entry["body"])

    # -- snapshots ---------------------------------------------------------------------------------------

    def write(self, generation: int) -> dict[str, Any]:
        """The services' state as `snapshots/<generation>.services`; answers the snapshot's entry naming it."""
        self.snapshots.mkdir(parents=True, exist_ok=True)
        path = self.snapshots / f"{generation:012d}.services"
        temporary = path.with_suffix(".services-tmp")
        with open(temporary, "wb") as out:
            bodies = service_state.dump(out, self.put_body)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, path)
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        return {"kind": "services", "file": path.name, "sha256": digest, "bodies": sorted(bodies)}

    def read(self, entry: dict[str, Any]) -> None:
        path = self.snapshots / entry["file"]
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            raise CorruptStateError(f"{path}: the snapshot's state of moto's services is missing") from None
        if hashlib.sha256(data).hexdigest() != entry["sha256"]:
            raise CorruptStateError(f"{path}: the state of moto's services is corrupt (its checksum does not match)")
        try:
            service_state.load(io.BytesIO(data), self.get_body)
        except CorruptStateError:
            raise
        except Exception as error:  # an unpickling failure of any kind: the file cannot be trusted
            raise CorruptStateError(f"{path}: the state of moto's services cannot be read "
                                    f"({type(error).__name__}: {error})") from None

    def collect(self, entry: dict[str, Any]) -> None:
        """After the snapshot `entry` is in place: drop older services files and bodies nothing names."""
        for old in self.snapshots.glob("*.services"):
            if old.name != entry["file"]:
                old.unlink()
        kept = set(entry["bodies"])
        if self.bodies.exists():
            for body in self.bodies.iterdir():
                if body.name not in kept:
                    body.unlink()

    def reset(self) -> None:
        shutil.rmtree(self.bodies, ignore_errors=True)

"""Snapshots: the whole state at one moment, as JSON lines ending in a checksum, written to a temp file
and swapped in with os.replace.

A file is `<generation>.snapshot`: a header (clock offset, last sequence number, commit versions), then
tables (their definition requests and items), streams, the latest stream of each table, functions, Kinesis
streams, the asynchronous queues' work not yet done (storage/async_queue.py) and mappings, then
`{"kind": "end", "lines": N, "sha256": …}` over the lines before it. Reading one yields its entries and raises
CorruptStateError when the checksum, the line count or the end marker is wrong.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Iterator

from eddy.emulator.moto_seam.tables import views as moto_tables
from eddy.emulator.functions.registry import Function
from eddy.emulator.functions.versions import Alias
from eddy.emulator.moto_seam.kinesis import state as kinesis_state
from eddy.emulator.storage.async_queue import ASYNC_EVENTS, QUEUES, LoggedQueue, Restorable
from eddy.emulator.storage.wal import CorruptStateError
from eddy.emulator.storage.disk import inject

if TYPE_CHECKING:
    from eddy.emulator.engine import Emulator
    from eddy.emulator.triggers.event_source_mappings import EventSourceMapping

log = logging.getLogger("eddy")

TableKey = tuple[str, str, str]
ITEMS_PER_LINE = 500


def write_snapshot(directory: Path, generation: int, entries: Iterable[dict[str, Any]]) -> Path:
    """Write `entries` as `<directory>/<generation>.snapshot` and delete every older snapshot."""
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{generation:012d}.snapshot"
    temporary = path.with_suffix(".tmp")
    digest = hashlib.sha256()
    lines = 0
    try:
        inject("snapshot", temporary)
        with open(temporary, "wb") as out:
            for entry in entries:
                line = json.dumps(entry, separators=(",", ":")).encode() + b"\n"
                digest.update(line)
                out.write(line)
                lines += 1
            out.write(json.dumps({"kind": "end", "lines": lines, "sha256": digest.hexdigest()}).encode() + b"\n")
            out.flush()
            os.fsync(out.fileno())
    except BaseException:  # a full disk, say: the previous snapshot stays the newest, and no half file is left
        temporary.unlink(missing_ok=True)
        raise
    os.replace(temporary, path)
    for old in directory.glob("*.snapshot"):
        if old != path:
            old.unlink()
    log.info("snapshot %s written (%d lines)", path, lines)
    return path


def read_snapshot(path: Path) -> Iterator[dict[str, Any]]:
    """The entries of a snapshot file, checked against its end marker (CorruptStateError otherwise)."""
    digest = hashlib.sha256()
    lines = 0
    try:
        with open(path, "rb") as snapshot:
            for raw in snapshot:
                entry = json.loads(raw)
                if entry.get("kind") == "end":
                    if entry.get("sha256") != digest.hexdigest() or entry.get("lines") != lines:
                        raise CorruptStateError(f"{path}: snapshot is corrupt (its checksum does not match its contents)")
                    return
                digest.update(raw)
                lines += 1
                yield entry
    except (ValueError, KeyError, TypeError) as error:
        raise CorruptStateError(f"{path}: snapshot is corrupt ({type(error).__name__}: {error})") from None
    raise CorruptStateError(f"{path}: snapshot is incomplete (no end marker)")


def snapshot_entries(emulator: "Emulator", generation: int, ddl: dict[TableKey, list[dict[str, Any]]],
                     directory: Path) -> Iterator[dict[str, Any]]:
    """The emulator's whole state as snapshot entries (tables not created through Eddy are not kept)."""
    yield {"kind": "header", "generation": generation, "clock_offset": emulator.clock.offset,
           "sequence_number": str(emulator.sequence_numbers.last), "s3_sequencer": emulator.notifications.last_sequencer,
           "commit_versions": [[*key, version] for key, version in emulator.commit_versions.items()]}
    for key, images in moto_tables.contents():
        if key not in ddl:
            log.warning("table %s was not created through Eddy's DynamoDB API: it is not kept", key)
            continue
        yield {"kind": "table", "key": list(key), "ddl": ddl[key]}
        items = images()
        for start in range(0, len(items), ITEMS_PER_LINE):
            yield {"kind": "items", "key": list(key), "items": items[start:start + ITEMS_PER_LINE]}
    for stream in emulator.streams.streams.values():
        yield {"kind": "stream", "state": stream.to_state()}
    yield {"kind": "latest", "streams": [stream.arn for stream in emulator.streams.latest.values()]}
    for function in emulator.functions.functions.values():
        if function.target is None:
            yield {"kind": "function", "state": function_state(function, directory)}
            for version in function.versions.values():  # each after its $LATEST, which recovery puts it under
                yield {"kind": "function", "state": function_state(version, directory)}
    for stream in kinesis_state.all_streams():
        yield {"kind": "kinesis_stream", "shape": kinesis_state.stream_shape(stream)}
        records = [kinesis_state.record_state(shard, record)
                   for shard in stream.shards.values() for record in shard.records.values()]
        for start in range(0, len(records), ITEMS_PER_LINE):
            yield {"kind": "kinesis_records", "stream": stream.arn, "records": records[start:start + ITEMS_PER_LINE]}
    for table, destinations in emulator.kinesis.tables.items():
        yield {"kind": "kinesis_destinations", "table": list(table),
               "destinations": [asdict(destination) for destination in destinations]}
    for logged in QUEUES:
        yield from logged.snapshot_entries(queue_owner(emulator, logged))
    for mapping in (emulator.triggers.mappings.values() if emulator.mappings_made else ()):  # none: not made
        yield {"kind": "mapping", "state": mapping_state(mapping),
               "start": str(emulator.triggers.start_positions.get(mapping.uuid, 0))}


def queue_owner(emulator: "Emulator", logged: LoggedQueue) -> Restorable:
    """The emulator's queue whose work `logged` writes down (storage/async_queue.py)."""
    return emulator.async_invocations if logged is ASYNC_EVENTS else emulator.eventbridge.deliveries


def function_state(function: Function, directory: Path) -> dict[str, Any]:
    state = {name: getattr(function, name) for name in (
        "name", "account_id", "region", "handler", "runtime", "timeout", "memory_size", "environment", "role",
        "description", "code_sha256", "code_size", "last_modified", "layers", "logging_config",
        "event_invoke_config", "dead_letter_target", "tags", "policy", "reserved_concurrency", "revision_id",
        "version", "last_version", "source_fingerprint")}
    state["code_dir"] = os.path.relpath(function.code_dir, directory) if function.code_dir else None
    state["aliases"] = [alias.to_state() for alias in function.aliases.values()]
    return state


def function_from_state(state: dict[str, Any], directory: Path) -> Function:
    """A function's $LATEST or one of its versions as function_state wrote it (functions/registry.py restore puts a
    version under its $LATEST)."""
    code_dir = state.pop("code_dir")
    state["aliases"] = {alias["name"]: Alias(**alias) for alias in state.pop("aliases", [])}
    function = Function(**state)
    function.code_dir = directory / code_dir if code_dir else None
    return function


def mapping_state(mapping: "EventSourceMapping") -> dict[str, Any]:
    state = {name: value for name, value in vars(mapping).items() if name != "filters"}
    return json.loads(json.dumps(state))

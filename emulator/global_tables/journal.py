"""The replication journal: what a restart needs to know of global tables that the tables and streams do not say.

`<state_dir>/global_tables/journal.jsonl`, one JSON object per line, appended and flushed before the change it
describes is acknowledged to anyone (fsynced with --fsync), like the write-ahead log:

    {"group": {...}, "log": [g, size]}      a replica group as it now is (the latest line for a table wins)
    {"ungroup": [account, table], "log": …} a table that is no longer global
    {"applied": [account, table, source region, target region, source sequence number],
     "stamp": [time, region, sequence number], "record": target sequence number or null}
                                            a replicated write was applied to (or, older, passed over by) a replica

A group's line is written with its request's unit of work, just before the request's log entries (storage/
units_of_work.py's `alongside`), and "log" says where those entries start in the write-ahead log (its generation and
size). A kill -9 between the line and the entries leaves the line of a request never answered: recovery drops a
group line whose log did not grow past that point (`read_back`). Recovery reads the lines back (a torn last line is
cut, as in the log), then writes the journal again, compacted (`compact`). Which writes are still to replicate is not kept here: it is every source record past the last
one applied, read back from the source replica's stream.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Callable, Iterator

from eddy.emulator.global_tables.replica_groups import ReplicaGroup, ReplicaGroups
from eddy.emulator.storage.disk import WriteFailed, append_whole, crash_point
from eddy.emulator.streams.capture import TableKey

#: (write time, region written in, sequence number there): the later stamp is the last writer
Stamp = tuple[float, str, int]
#: per (source replica, target region): the last source sequence number applied there
Through = dict[tuple[TableKey, str], int]
#: per target replica: the stamp of each record replication made there, by the record's sequence number
Replicated = dict[TableKey, dict[int, Stamp]]


class Journal:
    def __init__(self, directory: Path, *, fsync: bool = False) -> None:
        self.path = directory / "global_tables" / "journal.jsonl"
        self._fsync = fsync
        self._file: Any = None

    def _open(self) -> Any:
        if self._file is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._file = open(self.path, "ab", buffering=0)
        return self._file

    def append(self, entry: dict[str, Any], log_position: list[int] | None = None) -> Callable[[], None]:
        """The line appended (the whole line or none of it: storage/disk.py's WriteFailed); how to cut it off again
        (a request's unit of work whose log entries the disk refused, called before anything else is appended).
        `log_position`: where the request's log entries start, should the line be one of a request's."""
        if log_position is not None:
            entry = {**entry, "log": log_position}
        handle = self._open()
        size = os.fstat(handle.fileno()).st_size
        append_whole(handle, json.dumps(entry, separators=(",", ":")).encode() + b"\n", self.path, "replicas")
        crash_point("replicas-written")  # a test's kill -9 between the line and the request's log entries
        if self._fsync:
            try:
                os.fsync(handle.fileno())
            except OSError as error:  # not flushed: not kept either
                os.ftruncate(handle.fileno(), size)
                raise WriteFailed(self.path, error) from error

        def cut() -> None:
            os.ftruncate(handle.fileno(), size)
            if self._fsync:
                os.fsync(handle.fileno())

        return cut

    def entries(self) -> Iterator[dict[str, Any]]:
        """The journal's entries in order; a last line torn by a kill is left out."""
        if not self.path.exists():
            return
        with open(self.path, "rb") as handle:
            for line in handle:
                if not line.endswith(b"\n"):
                    return  # torn: never acknowledged
                yield json.loads(line)

    def read_back(self, groups: ReplicaGroups, logged_past: Callable[[list[int]], bool]) -> tuple[Through, Replicated]:
        """The journal's groups put into `groups`; how far each source has been applied to each target, and the
        records replication made (recovery). A group's line whose request's log entries never reached the log
        (`logged_past` its "log" false: a kill -9 came between) is left out."""
        through: Through = {}
        replicated: Replicated = {}
        for entry in self.entries():
            if "log" in entry and not logged_past(entry["log"]):
                continue  # the line of a request never answered
            if "group" in entry:
                groups.put(ReplicaGroup.from_state(entry["group"]))
            elif "ungroup" in entry:
                group = groups.named(*entry["ungroup"])
                if group is not None:
                    group.replicas.clear()
                    groups.drop_if_single(group)
            elif "applied" in entry:
                account, name, source_region, target_region, sequence_number = entry["applied"]
                pair = ((account, source_region, name), target_region)
                through[pair] = max(through.get(pair, 0), int(sequence_number))
                if entry["record"] is not None:
                    replicated.setdefault((account, target_region, name), {})[int(entry["record"])] = tuple(
                        entry["stamp"]
                    )  # type: ignore[assignment]
        return through, replicated

    def compact(self, groups: ReplicaGroups, through: Through, replicated: Replicated) -> None:
        """The journal written again with only what read_back needs: the groups, how far each pair is applied, the
        records replication made."""
        entries: list[dict[str, Any]] = [{"group": group.to_state()} for group in groups]
        for (source, region), sequence_number in through.items():
            entries.append(
                {
                    "applied": [source[0], source[2], source[1], region, sequence_number],
                    "stamp": [0, "", 0],
                    "record": None,
                }
            )
        for table, records in replicated.items():
            for record, stamp in records.items():
                entries.append(
                    {"applied": [table[0], table[2], stamp[1], table[1], 0], "stamp": list(stamp), "record": record}
                )
        self.rewrite(entries)

    def rewrite(self, entries: list[dict[str, Any]]) -> None:
        """Replace the journal by `entries` (a compacted form of it), swapped in whole; none: no journal."""
        self.close()
        if not entries:
            self.path.unlink(missing_ok=True)
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        temporary = self.path.with_suffix(".tmp")
        with open(temporary, "wb") as handle:
            for entry in entries:
                handle.write(json.dumps(entry, separators=(",", ":")).encode() + b"\n")
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, self.path)

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None

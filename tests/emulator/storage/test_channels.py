"""Durable channels (storage/channels.py) as storage/persistence.py keeps them: a channel storage has never heard of
logs its entries, has its part of each snapshot, and gets both back at recovery, in order; what no channel declared
stops recovery."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterator

import pytest

from eddy.emulator.storage.channels import NOT_KEPT, Channel, DurableLog
from eddy.emulator.storage.persistence import Persistence
from eddy.emulator.storage.snapshots import read_snapshot
from eddy.emulator.storage.wal import CorruptStateError


class Tally(Channel):
    """A component of a test's own: named counters, each change logged, all of them in snapshots."""

    name, ops, kinds = "tally", ("tally_set", "tally_dropped"), ("tally",)

    def __init__(self, log: DurableLog) -> None:
        self.log = log
        self.counts: dict[str, int] = {}
        self.total = 0
        self.read_back: list[tuple[str, str]] = []  # ("log" | "snapshot" | "recovered", what)

    def set(self, name: str, count: int) -> None:
        self.counts[name] = count
        self.total += count
        self.log.log({"op": "tally_set", "name": name, "count": count})

    def drop(self, name: str) -> None:
        del self.counts[name]
        self.log.log({"op": "tally_dropped", "name": name})

    def header_fields(self) -> dict[str, Any]:
        return {"tally_total": self.total}

    def restore_header(self, header: dict[str, Any]) -> None:
        self.total = header["tally_total"]

    def snapshot_entries(self, generation: int) -> Iterator[dict[str, Any]]:
        for name, count in self.counts.items():
            yield {"kind": "tally", "name": name, "count": count}

    def restore(self, entry: dict[str, Any]) -> None:
        self.read_back.append(("snapshot", entry["name"]))
        self.counts[entry["name"]] = entry["count"]

    def replay(self, entry: dict[str, Any]) -> None:
        self.read_back.append(("log", entry["name"]))
        if entry["op"] == "tally_set":
            self.counts[entry["name"]] = entry["count"]
        else:
            self.counts.pop(entry["name"])

    def recovered(self) -> None:
        self.read_back.append(("recovered", ",".join(sorted(self.counts))))


def started(directory: Path) -> tuple[Persistence, Tally]:
    """A Persistence over `directory` with a Tally registered, recovered as an emulator's start recovers it."""
    persistence = Persistence(directory)
    tally = Tally(persistence)
    persistence.register(tally)
    persistence.recover()
    return persistence, tally


def restarted(directory: Path) -> Tally:
    return started(directory)[1]


def test_a_channel_is_logged_snapshotted_and_read_back_in_order(tmp_path: Path):
    persistence, tally = started(tmp_path)
    tally.set("a", 1)
    tally.set("b", 2)
    snapshot = persistence.snapshot()
    tally.set("c", 3)
    tally.drop("a")
    persistence.wal.close()  # a kill -9 after the last append: no snapshot at close

    assert list(read_snapshot(snapshot)) == [
        {"kind": "header", "generation": 1, "tally_total": 3},
        {"kind": "tally", "name": "a", "count": 1},
        {"kind": "tally", "name": "b", "count": 2},
    ]
    again = restarted(tmp_path)
    assert (again.counts, again.total) == ({"b": 2, "c": 3}, 3)
    assert again.read_back == [("snapshot", "a"), ("snapshot", "b"), ("log", "c"), ("log", "a"), ("recovered", "b,c")]


def test_an_entry_no_channel_declares_stops_recovery(tmp_path: Path):
    persistence, tally = started(tmp_path)
    tally.set("a", 1)
    persistence.wal.close()

    persistence = Persistence(tmp_path)  # the channel is not registered this time
    with pytest.raises(CorruptStateError, match="unknown log entry 'tally_set'"):
        persistence.recover()


def test_a_channel_registered_again_replaces_the_earlier_one_and_two_cannot_share_an_entry(tmp_path: Path):
    persistence = Persistence(tmp_path)
    first, second = Tally(persistence), Tally(persistence)
    persistence.register(first)
    persistence.register(second)  # a reset's new component: the same name
    assert list(persistence.channels.values()) == [second]

    class Imposter(Tally):
        name = "imposter"

    with pytest.raises(ValueError, match="channel 'imposter' declares entries channel 'tally' declares already"):
        persistence.register(Imposter(persistence))


def test_nothing_is_logged_while_recovering_nor_after_leave_as_is(tmp_path: Path):
    persistence, tally = started(tmp_path)
    tally.set("a", 1)
    persistence.leave_as_is()
    tally.set("b", 2)
    persistence.close()  # no snapshot: the files stay as they were

    assert not (tmp_path / "snapshots").exists()
    assert restarted(tmp_path).counts == {"a": 1}


def test_an_in_memory_log_writes_nothing(tmp_path: Path):
    tally = Tally(NOT_KEPT)
    tally.set("a", 1)
    NOT_KEPT.register(tally)
    NOT_KEPT.close()
    assert (tally.counts, NOT_KEPT.durable, list(tmp_path.iterdir())) == ({"a": 1}, False, [])

"""Units of work (storage/units_of_work.py) alone: entries appended as one at the end, undos run newest first when
the append is refused, what was queued released only once written, and the lock kept only while entries wait.

The append is a stand-in for the write-ahead log that refuses with the WriteFailed the disk raises; the durability
tests (tests/durability/test_units_of_work.py) make the disk itself refuse."""

from __future__ import annotations

import errno
import threading
from pathlib import Path

import pytest

from eddy.emulator.storage.disk import WriteFailed
from eddy.emulator.storage.units_of_work import UnitsOfWork


class Log:
    def __init__(self) -> None:
        self.appends: list[tuple[list[bytes], int, bool]] = []
        self.refusing = False
        self.snapshots_asked = 0

    def append(self, entries: list[bytes], counted: int, reserve: bool) -> None:
        if self.refusing:
            raise WriteFailed(Path("/state/wal"), OSError(errno.EIO, "Input/output error"))
        self.appends.append((entries, counted, reserve))

    def committed(self) -> None:
        self.snapshots_asked += 1


def test_a_units_entries_are_one_append_and_what_it_queued_runs_after_it() -> None:
    log, done = Log(), []
    work = UnitsOfWork(log.append, log.committed)
    with work.unit():
        work.hold(b"a", 1, reserve=True)
        work.after_commit(lambda: done.append(("released", list(log.appends))))
        work.hold(b"b", 10, reserve=True)
        assert log.appends == []
    assert log.appends == [([b"a", b"b"], 11, True)]
    assert done == [("released", [([b"a", b"b"], 11, True)])]
    assert log.snapshots_asked == 1
    work.after_commit(lambda: done.append("outside a unit: at once"))
    assert done[-1] == "outside a unit: at once"


def test_a_refused_unit_is_undone_newest_first_and_releases_nothing() -> None:
    log, done = Log(), []
    work = UnitsOfWork(log.append, log.committed)
    log.refusing = True
    with pytest.raises(WriteFailed):
        with work.unit():
            work.hold(b"a", 1, reserve=True)
            work.on_undo(lambda: done.append("undo a"))
            work.hold(b"b", 1, reserve=True)
            work.on_undo(lambda: done.append("undo b"))
            work.after_commit(lambda: done.append("released"))
    assert (done, log.appends, log.snapshots_asked, work.open) == (["undo b", "undo a"], [], 0, False)


def test_an_inner_unit_commits_with_the_outer_entries_and_a_refused_one_undoes_only_its_own() -> None:
    log, done = Log(), []
    work = UnitsOfWork(log.append, log.committed)
    with work.unit():
        work.hold(b"outer", 1, reserve=True)
        work.on_undo(lambda: done.append("undo outer"))
        log.refusing = True
        with pytest.raises(WriteFailed):
            with work.unit():
                work.hold(b"inner", 1, reserve=False, kept=False)
                work.on_undo(lambda: done.append("undo inner"))
        assert done == ["undo inner"]
        log.refusing = False
        with work.unit():  # a change logged before it is made (a DynamoDB commit): written now, with the outer's
            work.hold(b"commit", 1, reserve=False, kept=False)
        assert log.appends == [([b"outer", b"commit"], 2, True)]
    assert log.appends == [([b"outer", b"commit"], 2, True)]  # nothing left for the outer unit's end
    assert done == ["undo inner"]


def test_a_unit_put_back_by_its_owner_is_not_written_in_the_reserve() -> None:
    log = Log()
    work = UnitsOfWork(log.append, log.committed)
    with work.unit(put_back=True):
        work.hold(b"shard", 1, reserve=True)
    assert log.appends == [([b"shard"], 1, False)]


def test_another_exception_writes_what_was_changed() -> None:
    log = Log()
    work = UnitsOfWork(log.append, log.committed)
    with pytest.raises(KeyError):
        with work.unit():
            work.hold(b"changed", 1, reserve=True)
            raise KeyError("after the change")
    assert log.appends == [([b"changed"], 1, True)]


def test_the_lock_is_kept_from_the_first_held_entry_to_the_commit() -> None:
    log, lock = Log(), threading.RLock()
    work = UnitsOfWork(log.append, log.committed, lock)
    seen = []

    def other_thread_can_lock() -> bool:
        result = []
        thread = threading.Thread(target=lambda: result.append(lock.acquire(blocking=False)) or (
            result[0] and lock.release()))
        thread.start()
        thread.join()
        return result[0]

    with work.unit():
        seen.append(other_thread_can_lock())
        with lock:
            work.hold(b"a", 1, reserve=True)
        seen.append(other_thread_can_lock())
    seen.append(other_thread_can_lock())
    log.refusing = True
    with pytest.raises(WriteFailed):
        with work.unit():
            work.hold(b"b", 1, reserve=True)
    seen.append(other_thread_can_lock())
    assert seen == [True, False, True, True]


def test_a_put_back_unit_ended_by_an_exception_writes_none_of_it() -> None:
    # persistence.together(): a rollover's owner (streams/stream.py _shard_change) puts its shards back on any
    # exception, so its entries must not be written either, or the log holds a rollover memory does not
    log = Log()
    work = UnitsOfWork(log.append, log.committed)
    with work.unit():
        work.hold(b"request", 1, reserve=True)
        with pytest.raises(ValueError):
            with work.unit(put_back=True):
                work.hold(b"shard", 1, reserve=True)
                raise ValueError("a rollover failing half-way")
    assert (log.appends, work.open) == ([([b"request"], 1, True)], False)


def test_an_append_failing_otherwise_is_taken_back_and_lets_go_of_the_lock() -> None:
    # the log's append may fail with more than WriteFailed (wal.py's fsync raises the OSError it gets): the unit is
    # then taken back as refused and the emulator's lock let go, or every other thread waits on it for ever
    lock, undone = threading.RLock(), []

    def append(entries: list[bytes], counted: int, reserve: bool) -> None:
        raise OSError(errno.EIO, "Input/output error")

    work = UnitsOfWork(append, lambda: None, lock)
    with pytest.raises(OSError):
        with work.unit():
            work.hold(b"a", 1, reserve=True)
            work.on_undo(lambda: undone.append("a"))
    free: list[bool] = []
    other = threading.Thread(target=lambda: free.append(lock.acquire(blocking=False)))
    other.start()
    other.join()
    assert (undone, work.open, free) == (["a"], False, [True])


def test_an_action_after_the_commit_failing_keeps_neither_the_others_nor_the_answer_from_going_on(caplog) -> None:
    """The entries are written, so the request is done: a 500 would make an SDK's retry apply it a second time."""
    log, done = Log(), []
    work = UnitsOfWork(log.append, log.committed)

    def failing() -> None:
        raise RuntimeError("a bug in a released action")

    with work.unit():
        work.hold(b"a", 1, reserve=True)
        work.after_commit(failing)
        work.after_commit(lambda: done.append("released"))
    assert (log.appends, done, log.snapshots_asked, work.open) == ([([b"a"], 1, True)], ["released"], 1, False)
    assert [(r.levelname, r.getMessage()) for r in caplog.records] == [
        ("ERROR", "an action after a request's entries were written failed")]


def test_a_record_kept_beside_the_log_is_written_before_the_entries_and_cut_off_if_they_are_refused() -> None:
    """`alongside`: a record in a file of its own (a global table's group) is written at the commit, just before the
    entries, under the lock, told where they start in the log (None when it is all the unit writes); refused entries
    cut it off and undo the unit; a refused record refuses the unit before any entry is appended; outside a unit it
    is written at once."""
    log, lock, done = Log(), threading.RLock(), []
    work = UnitsOfWork(log.append, log.committed, lock, lambda: ["log at", len(log.appends)])

    def record(name: str, refused: bool = False):
        def write(position):
            assert lock._is_owned()  # nothing else is written to its file between it and the entries
            if refused:
                raise WriteFailed(Path("/state/global_tables"), OSError(errno.ENOSPC, "No space left on device"))
            done.append(f"wrote {name} with {len(log.appends)} appends, entries from {position}")
            return lambda: done.append(f"cut {name}")
        return write

    with work.unit():
        work.hold(b"a", 1, reserve=False)
        work.alongside(record("group"))
        assert done == []
    assert (done, log.appends) == (["wrote group with 0 appends, entries from ['log at', 0]"], [([b"a"], 1, False)])
    done.clear()
    log.refusing = True
    with pytest.raises(WriteFailed):
        with work.unit():
            work.alongside(record("first"))
            work.on_undo(lambda: done.append("undo"))
            work.hold(b"b", 1, reserve=False)
            work.alongside(record("second"))
    assert done == ["wrote first with 1 appends, entries from ['log at', 1]",
                    "wrote second with 1 appends, entries from ['log at', 1]", "cut second", "cut first", "undo"]
    done.clear()
    log.refusing = False
    with pytest.raises(WriteFailed):
        with work.unit():
            work.on_undo(lambda: done.append("undo"))
            work.alongside(record("kept"))
            work.hold(b"c", 1, reserve=False)
            work.alongside(record("refused", refused=True))
            work.after_commit(lambda: done.append("released"))
    assert (done, log.appends[1:]) == (["wrote kept with 1 appends, entries from ['log at', 1]", "cut kept", "undo"], [])
    assert not lock._is_owned()
    done.clear()
    with work.unit():  # a unit with nothing but a record writes it
        work.alongside(record("alone"))
    work.alongside(record("outside"))
    assert (done, len(log.appends)) == (["wrote alone with 1 appends, entries from None",
                                         "wrote outside with 1 appends, entries from None"], 1)


def test_a_snapshot_waits_for_the_end_of_the_outermost_unit() -> None:
    """An inner unit's commit (a function's own request in process, a stack's resource) writes, but the snapshot it
    may bring waits for the outermost unit, whose changes may be half made: asked once it ended, refused or not; so
    does one put off by entries written before their change (`defer_snapshot`: log_all inside a unit)."""
    log, done = Log(), []
    work = UnitsOfWork(log.append, log.committed)
    with work.unit():
        work.hold(b"outer", 1, reserve=True)
        with work.unit():
            work.hold(b"inner", 1, reserve=True)
        assert (log.appends, log.snapshots_asked) == ([([b"outer", b"inner"], 2, True)], 0)
    assert log.snapshots_asked == 1
    with work.unit():
        work.defer_snapshot()
        assert log.snapshots_asked == 1
    assert log.snapshots_asked == 2
    with pytest.raises(WriteFailed):
        with work.unit():
            with work.unit():
                work.hold(b"inner", 1, reserve=True)
            work.hold(b"refused", 1, reserve=True)
            work.on_undo(lambda: done.append(("undo", log.snapshots_asked)))
            log.refusing = True
    assert (done, log.snapshots_asked, log.appends[-1]) == ([("undo", 2)], 3, ([b"inner"], 1, True))

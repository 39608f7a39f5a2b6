"""Table streams: net change sets, offsets that only consuming moves, stale streams, SQL views."""

from __future__ import annotations

import json
from decimal import Decimal as D
from pathlib import Path

import pytest
from pyspark.sql import Row
from pyspark.testing import assertDataFrameEqual

from eddy.spark_batch.errors import StaleStreamError, StreamExistsError, StreamNotFoundError
from eddy.spark_batch.table_streams import TableStreams

from .segments import ChangeLog, at, insert, modify, remove

COLUMNS = ["__change_type", "__commit_version", "__commit_timestamp", "pk", "n"]
T1, T2, T3, T4 = "2025-05-01 10:00:00.000", "2025-05-01 10:00:01.000", "2025-05-01 10:00:02.000", "2025-05-01 10:00:03.000"


def item(pk: str, n: int) -> dict:
    return {"pk": {"S": pk}, "n": {"N": str(n)}}


def key(pk: str) -> dict:
    return {"pk": {"S": pk}}


def row(change: str, version: int | None, when: str | None, pk: str, n: int) -> Row:
    return Row(__change_type=change, __commit_version=version, __commit_timestamp=at(when) if when else None,
               pk=pk, n=D(n))


@pytest.fixture
def log(tmp_path: Path) -> ChangeLog:
    """Three commits on table `t`, each item showing one way changes net out."""
    log = ChangeLog(tmp_path / "state", "t")
    log.commit(1, T1, insert(item("updated", 1), key("updated")), insert(item("back", 1), key("back")),
               insert(item("recreated", 1), key("recreated")))
    log.commit(2, T2, modify(item("updated", 1), item("updated", 2), key("updated")),
               insert(item("brief", 1), key("brief")), modify(item("back", 1), item("back", 2), key("back")),
               remove(item("recreated", 1), key("recreated")))
    log.commit(3, T3, modify(item("updated", 2), item("updated", 3), key("updated")),
               remove(item("brief", 1), key("brief")), modify(item("back", 2), item("back", 1), key("back")),
               insert(item("recreated", 7), key("recreated")))
    return log


@pytest.fixture
def streams(spark, tmp_path: Path, log: ChangeLog) -> TableStreams:
    return TableStreams(spark, tmp_path / "state", tmp_path / "offsets")


def test_changes_net_to_the_minimal_set(streams: TableStreams) -> None:
    since_one = streams.create("since_one", "t", at_version=1)
    assertDataFrameEqual(since_one.read().select(COLUMNS), [
        # several updates: the first old image (written by version 1) and the last new one
        row("UPDATE_BEFORE", 1, T1, "updated", 1), row("UPDATE_AFTER", 3, T3, "updated", 3),
        # deleted and inserted again: an update too
        row("UPDATE_BEFORE", 1, T1, "recreated", 1), row("UPDATE_AFTER", 3, T3, "recreated", 7),
        # "brief" (inserted, then deleted) and "back" (changed, then changed back) net to nothing
    ])
    from_start = streams.create("from_start", "t", at_version=0)
    assertDataFrameEqual(from_start.read().select(COLUMNS), [
        row("INSERT", 3, T3, "updated", 3), row("INSERT", 3, T3, "back", 1), row("INSERT", 3, T3, "recreated", 7)])
    signups = streams.create("signups", "t", mode="APPEND_ONLY", at_version=1)
    assertDataFrameEqual(signups.read().select(COLUMNS), [
        row("INSERT", 2, T2, "brief", 1), row("INSERT", 3, T3, "recreated", 7)])


def test_only_consuming_moves_an_offset_and_each_stream_has_its_own(spark, streams: TableStreams, log: ChangeLog,
                                                                    tmp_path: Path) -> None:
    first = streams.create("first", "t")  # now: after version 3
    second = streams.create("second", "t", at_version=2)
    assert (first.offset, second.offset) == (3, 2)
    log.commit(4, T4, modify(item("updated", 3), item("updated", 4), key("updated")))
    first.read().collect()
    assert streams.get("first").offset == 3

    batches = []
    assert first.consume(lambda rows, batch_id: batches.append((batch_id, rows.select(COLUMNS).collect()))) == 4
    [(batch_id, rows)] = batches
    assert batch_id == "first:3:4"
    assertDataFrameEqual(rows, [row("UPDATE_BEFORE", 3, T3, "updated", 3), row("UPDATE_AFTER", 4, T4, "updated", 4)])
    again = TableStreams(spark, tmp_path / "state", tmp_path / "offsets")  # offsets are on disk
    assert (again.get("first").offset, again.get("second").offset) == (4, 2)
    assertDataFrameEqual(again.get("first").read().select(COLUMNS), [])
    assert again.get("second").read().count() == 6  # updated, back: 2 rows each; brief: DELETE; recreated: INSERT


def test_a_failed_write_leaves_the_offset_where_it_was(streams: TableStreams, tmp_path: Path) -> None:
    stream = streams.create("s", "t", at_version=1)

    def broken(rows, batch_id):
        rows.write.parquet(str(tmp_path / "out"))
        raise OSError("disk full")

    with pytest.raises(OSError, match="disk full"):
        stream.consume(broken)
    assert streams.get("s").offset == 1 and streams.get("s").state["pending"] is None
    assert stream.consume(lambda rows, batch_id: None) == 3
    assert streams.get("s").offset == 3


def test_a_consume_that_died_after_writing_runs_the_same_range_again(streams: TableStreams, log: ChangeLog,
                                                                     tmp_path: Path) -> None:
    stream = streams.create("s", "t", at_version=1)
    path = tmp_path / "offsets" / "s.json"
    state = json.loads(path.read_text())
    path.write_text(json.dumps({**state, "pending": {"after": 1, "upto": 2}}))  # as a kill mid-consume leaves it
    seen = []
    assert streams.get("s").consume(lambda rows, batch_id: seen.append((batch_id, rows.count()))) == 2
    assert seen == [("s:1:2", 6)]  # version 2 alone: 6 rows (versions 2..3 net to 4); 3 waits for the next


def test_a_stream_older_than_the_retained_log_is_stale(spark, tmp_path: Path) -> None:
    log = ChangeLog(tmp_path / "state", "trimmed")  # versions 1..4 are gone
    log.commit(5, T1, insert(item("a", 1), key("a")))
    log.commit(6, T2, modify(item("a", 1), item("a", 2), key("a")))
    streams = TableStreams(spark, tmp_path / "state", tmp_path / "offsets")
    assert streams.create("current", "trimmed", at_version=4).read().count() == 1  # one INSERT
    old = streams.create("old", "trimmed", at_version=2)
    assert old.is_stale()
    with pytest.raises(StaleStreamError, match=r"table stream old is stale: its offset \(version 2\) is older than the "
                                               r"retained change log of table trimmed \(.*commits 3\.\.6 are not all"):
        old.read()
    with pytest.raises(StaleStreamError, match="older than the retained change log"):
        streams.create("older", "trimmed", at_timestamp=at("2025-05-01 09:00:00.000"))


def test_streams_as_sql_views(spark, streams: TableStreams, tmp_path: Path) -> None:
    streams.create("changes_t", "t", at_version=1)
    streams.create("news_t", "t", mode="APPEND_ONLY", at_version=2)
    assert streams.create_temp_views() == ["changes_t", "news_t"]
    assertDataFrameEqual(spark.sql("select pk, n from changes_t where __change_type = 'UPDATE_AFTER'"),
                         [Row(pk="updated", n=D(3)), Row(pk="recreated", n=D(7))])
    assertDataFrameEqual(spark.sql("select __change_type, pk from news_t"), [Row(__change_type="INSERT", pk="recreated")])


def test_initial_rows_timestamps_and_names(streams: TableStreams, log: ChangeLog) -> None:
    stream = streams.create("with_rows", "t", show_initial_rows=True)  # now, and every item as an INSERT first
    assertDataFrameEqual(stream.read().select(COLUMNS), [
        row("INSERT", 3, T3, "updated", 3), row("INSERT", 3, T3, "back", 1), row("INSERT", 3, T3, "recreated", 7)])
    assert stream.consume(lambda rows, batch_id: None) == 3
    assertDataFrameEqual(stream.read().select(COLUMNS), [])

    between = streams.create("between", "t", at_timestamp=at("2025-05-01 10:00:01.500"))
    assert between.offset == 2
    with pytest.raises(StreamExistsError):
        streams.create("between", "t")
    assert streams.create("between", "t", replace=True).offset == 3
    streams.drop("between")
    with pytest.raises(StreamNotFoundError):
        streams.get("between")
    with pytest.raises(ValueError, match="letters, digits and _"):
        streams.create("no-dashes", "t")

"""The Spark readers on state directories the emulator wrote, with tables made through boto3 in both doors
(issue 26): exports and the search index rebuilt from them, the emulator's clock (a custom source, an advanced
clock, in-process and from another process), and a state directory that is not one."""

from __future__ import annotations

import gzip
import json
from datetime import datetime, timezone
from pathlib import Path
from typing import Iterator

import boto3
import pytest

from eddy import Clock, emulate
from eddy.handlers.search_index import index_contents
from eddy.spark_batch.errors import IncompleteHistoryError, MissingChangeLogError, StaleStreamError
from eddy.spark_batch.export import export_table
from eddy.spark_batch.table_streams import TableStreams
from tests.conftest import QUIET, REGION, Door, InProcessDoor, ServerDoor, eddy_server
from tests.emulator.helpers import create_table

from .test_jobs import eddy

JUNE = datetime(2025, 6, 1, 12, tzinfo=timezone.utc).timestamp()


@pytest.fixture(params=["inprocess", "server"])
def durable_door(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[Door, Path]]:
    """A door whose emulator keeps its state in tmp_path/state: emulate(state_dir=...) or `eddy serve --state-dir`."""
    state = tmp_path / "state"
    if request.param == "inprocess":
        with emulate(state_dir=state, **QUIET) as emu:
            yield InProcessDoor(emu), state
    else:
        with eddy_server("--state-dir", str(state), "--housekeeping-interval", "0") as (url, _):
            yield ServerDoor(url), state


def put(dynamodb, pk: str, title: str, **more: dict) -> None:
    dynamodb.put_item(TableName="books", Item={"pk": {"S": pk}, "title": {"S": title}, **more})


def exported_items(directory: str) -> list[dict]:
    return sorted((json.loads(line)["Item"] for path in sorted(Path(directory, "data").glob("*.json.gz"))
                   for line in gzip.decompress(path.read_bytes()).decode().splitlines()), key=lambda i: i["pk"]["S"])


def test_export_and_search_index_rebuild_from_a_table_made_through_boto3(spark, durable_door, tmp_path: Path,
                                                                         capsys) -> None:
    door, state = durable_door
    dynamodb = door.client("dynamodb")
    create_table(dynamodb, "books")  # creation and enabling its stream: versions 1 and 2, without records
    put(dynamodb, "b1", "The Hobbit")
    put(dynamodb, "b2", "Dune")
    put(dynamodb, "b3", "Emma", year={"N": "1815"})
    dynamodb.update_item(TableName="books", Key={"pk": {"S": "b1"}}, UpdateExpression="SET title = :t",
                         ExpressionAttributeValues={":t": {"S": "The Hobbit, or There and Back Again"}})
    dynamodb.delete_item(TableName="books", Key={"pk": {"S": "b2"}})
    table = sorted(dynamodb.scan(TableName="books")["Items"], key=lambda item: item["pk"]["S"])

    assert eddy("export", "--table", "books", "--to", str(tmp_path / "exports"), "--state-dir", str(state)) == 0
    full, incremental = capsys.readouterr().out.splitlines()
    assert full.startswith("FULL_EXPORT: 2 items -> ") and incremental.startswith("INCREMENTAL_EXPORT: 2 items -> ")
    export = full.split(" -> ")[1]
    assert exported_items(export) == table

    index = str(tmp_path / "index.sqlite")
    assert eddy("spark", "search-index-rebuild", "--export", export, "--state-dir", str(state),
                "--attributes", "title,year", "--index", index) == 0
    assert index_contents(index) == [
        {"table": "books", "id": '{"pk":{"S":"b1"}}', "fields": {"title": "The Hobbit, or There and Back Again"}},
        {"table": "books", "id": '{"pk":{"S":"b3"}}', "fields": {"title": "Emma", "year": "1815"}}]

    # a table deleted and created again is a new table: its export has only what the new one holds
    dynamodb.delete_table(TableName="books")
    create_table(dynamodb, "books")
    put(dynamodb, "n1", "Beowulf")
    [summary] = export_table(spark, str(state), "books", str(tmp_path / "again"), formats=("full",))
    assert exported_items(summary["directory"]) == [{"pk": {"S": "n1"}, "title": {"S": "Beowulf"}}]

    # what check_history is for still holds: writes while the stream was off are not in the log
    dynamodb.update_table(TableName="books", StreamSpecification={"StreamEnabled": False})
    put(dynamodb, "n2", "Ivanhoe")
    dynamodb.update_table(TableName="books", StreamSpecification={"StreamEnabled": True,
                                                                  "StreamViewType": "NEW_AND_OLD_IMAGES"})
    put(dynamodb, "n3", "Kidnapped")
    with pytest.raises(IncompleteHistoryError, match=r"table books: commits 1\.\.6 are not all in the change log "
                                                     r"\(found 5 versions from 1\)"):
        export_table(spark, str(state), "books", str(tmp_path / "gap"), formats=("full",))


def test_a_custom_clock_source_is_the_readers_time_in_process(spark, tmp_path: Path) -> None:
    """The issue's repro: a fixed source in 2025, a table created, deleted and created again, a table stream
    made without clock= (it reads clock.json, as a reader in another process does)."""
    state, offsets = tmp_path / "state", tmp_path / "offsets"
    with emulate(state_dir=state, clock=Clock(source=lambda: JUNE), **QUIET) as emu:
        dynamodb = boto3.client("dynamodb", region_name=REGION)
        create_table(dynamodb, "books")
        put(dynamodb, "old", "Gone")
        dynamodb.delete_table(TableName="books")
        create_table(dynamodb, "books")
        streams = TableStreams(spark, state, offsets)
        assert streams.now() == pytest.approx(JUNE, abs=30)
        stream = streams.create("s", "books")
        for pk in ("r1", "r2", "r3"):
            put(dynamodb, pk, pk.upper())
        assert sorted((row["__change_type"], row["pk"]) for row in stream.read().collect()) == [
            ("INSERT", "r1"), ("INSERT", "r2"), ("INSERT", "r3")]

        [summary] = export_table(spark, str(state), "books", str(tmp_path / "exports"), formats=("full",))
        assert summary["startTime"].startswith("2025-06-01T12:00")  # the emulator's time, not the computer's
        assert summary["exportTime"] == "2025-06-01T12:00:00.000Z"

        emu.clock.advance(25 * 3600)  # a day and an hour later by the emulator's clock: the stream is stale
        with pytest.raises(StaleStreamError, match="table stream s is stale"):
            TableStreams(spark, state, offsets).get("s").read()


def test_an_advanced_clock_is_the_readers_time_from_another_process(spark, tmp_path: Path) -> None:
    state, offsets = tmp_path / "state", tmp_path / "offsets"
    with eddy_server("--state-dir", str(state), "--housekeeping-interval", "0") as (url, _):
        door = ServerDoor(url)
        dynamodb = door.client("dynamodb")
        create_table(dynamodb, "books")
        door.advance(2 * 86400)
        put(dynamodb, "a", "A")
        streams = TableStreams(spark, state, offsets)
        assert streams.now() == pytest.approx(door.now(), abs=30)
        stream = streams.create("s", "books", at_version=0)
        assert stream.state["created_at"] == pytest.approx(door.now(), abs=30)
        assert [row["pk"] for row in stream.read().collect()] == ["a"]
        door.advance(25 * 3600)
        with pytest.raises(StaleStreamError, match="table stream s is stale"):
            stream.read()


@pytest.mark.parametrize("job", [["spark", "aggregate", "--out", "metrics"], ["spark", "ttl-archive", "--out", "archive"],
                                 ["export", "--table", "books", "--to", "exports"]])
def test_a_state_directory_that_is_not_one_is_an_error_naming_it(spark, tmp_path: Path, job: list[str]) -> None:
    missing = tmp_path / "does" / "not" / "exist"
    with pytest.raises(MissingChangeLogError, match=f"^state directory {missing} does not exist"):
        eddy(*job, "--state-dir", str(missing))
    (tmp_path / "empty").mkdir()
    with pytest.raises(MissingChangeLogError, match=f"{tmp_path / 'empty'} holds no change log"):
        eddy(*job, "--state-dir", str(tmp_path / "empty"))

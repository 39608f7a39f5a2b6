"""eddy.handlers.search_index: an SQLite FTS5 index that follows the table, idempotent under redelivery."""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from eddy.handlers import search_index
from eddy.handlers.stream_records import canonical
from eddy.handlers.search_index import index_contents, search

from ..emulator.helpers import create_table
from .events import batches, stream_records


def test_sqlite_here_has_fts5() -> None:
    sqlite3.connect(":memory:").execute("create virtual table t using fts5(x)")


@pytest.fixture
def index(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    path = str(tmp_path / "search.sqlite")
    monkeypatch.setenv("SEARCH_INDEX_PATH", path)
    monkeypatch.setenv("SEARCH_ATTRIBUTES", "title, body,year")
    return path


@pytest.fixture
def books(dynamodb: Any) -> str:
    return create_table(dynamodb, "books")["LatestStreamArn"]


def put(dynamodb: Any, pk: str, title: str, body: str, **more: dict) -> None:
    dynamodb.put_item(TableName="books", Item={"pk": {"S": pk}, "title": {"S": title}, "body": {"S": body}, **more})


def key(pk: str) -> dict:
    return {"pk": {"S": pk}}


def test_index_query_update_delete(dynamodb: Any, streams: Any, books: str, index: str) -> None:
    put(dynamodb, "b1", "The Hobbit", "a dragon guards the gold", year={"N": "1937"}, secret={"S": "wizard"})
    put(dynamodb, "b2", "Dune", "sand worms and spice")
    put(dynamodb, "b3", "Eragon", "a boy finds a dragon egg")
    search_index.handler({"Records": stream_records(streams, books)}, None)

    assert sorted(search(index, "dragon"), key=str) == [key("b1"), key("b3")]
    assert search(index, "spice") == [key("b2")]
    assert search(index, "1937") == [key("b1")]
    assert search(index, "wizard") == []  # not one of SEARCH_ATTRIBUTES
    assert search(index, "dragon", source="books") != [] and search(index, "dragon", source="films") == []
    assert index_contents(index) == [
        {"table": "books", "id": '{"pk":{"S":"b1"}}',
         "fields": {"title": "The Hobbit", "body": "a dragon guards the gold", "year": "1937"}},
        {"table": "books", "id": '{"pk":{"S":"b2"}}', "fields": {"title": "Dune", "body": "sand worms and spice"}},
        {"table": "books", "id": '{"pk":{"S":"b3"}}',
         "fields": {"title": "Eragon", "body": "a boy finds a dragon egg"}},
    ]

    seen = len(stream_records(streams, books))
    dynamodb.update_item(TableName="books", Key=key("b1"), UpdateExpression="SET body = :b",
                         ExpressionAttributeValues={":b": {"S": "a burglar and thirteen dwarves"}})
    dynamodb.delete_item(TableName="books", Key=key("b2"))
    search_index.handler({"Records": stream_records(streams, books)[seen:]}, None)

    assert search(index, "dragon") == [key("b3")]
    assert search(index, "dwarves") == [key("b1")]
    assert search(index, "spice") == []
    assert [doc["id"] for doc in index_contents(index)] == ['{"pk":{"S":"b1"}}', '{"pk":{"S":"b3"}}']


def test_redelivery_in_any_order_leaves_the_index_as_it_was(dynamodb: Any, streams: Any, books: str,
                                                           index: str) -> None:
    rng = random.Random(7)
    words = ["dragon", "spice", "ring", "ocean", "storm"]
    for _ in range(120):
        pk = f"b{rng.randint(1, 15)}"
        if rng.random() < 0.75:
            put(dynamodb, pk, rng.choice(words), " ".join(rng.sample(words, 2)))
        else:
            dynamodb.delete_item(TableName="books", Key=key(pk))
    events = batches(stream_records(streams, books), 10)
    for event in events:
        search_index.handler(event, None)
    built = index_contents(index)

    scan = dynamodb.scan(TableName="books")["Items"]
    assert built == sorted(({"table": "books", "id": canonical({"pk": item["pk"]}),
                             "fields": {"title": item["title"]["S"], "body": item["body"]["S"]}} for item in scan),
                           key=lambda doc: doc["id"])

    for event in events + rng.sample(events, len(events)):  # in order again, then shuffled
        search_index.handler(event, None)
    assert index_contents(index) == built
    assert {canonical(k) for k in search(index, "dragon")} == \
        {doc["id"] for doc in built if "dragon" in " ".join(doc["fields"].values())}


def test_documents_are_filed_under_the_label(dynamodb: Any, streams: Any, books: str, index: str,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SEARCH_TABLE_NAME", "library")
    put(dynamodb, "b1", "Dune", "spice")
    search_index.handler({"Records": stream_records(streams, books)}, None)
    assert [doc["table"] for doc in index_contents(index)] == ["library"]
    assert search(index, "spice", source="library") == [key("b1")]


def test_a_failing_batch_applies_nothing(dynamodb: Any, streams: Any, books: str, index: str) -> None:
    put(dynamodb, "b1", "Dune", "spice")
    put(dynamodb, "b2", "Emma", "matchmaking")
    records = stream_records(streams, books)
    del records[1]["dynamodb"]["NewImage"]
    with pytest.raises(ValueError):
        search_index.handler({"Records": records}, None)
    assert index_contents(index) == []

"""A full-text index of chosen attributes of a table's items, in an SQLite FTS5 file.

INSERT and MODIFY index the NewImage's chosen attributes as one document; REMOVE takes the document out.
A document's id is the canonical JSON of the item's Keys (`stream_records.canonical`: sorted keys, no spaces).
The stream's view type must be NEW_IMAGE or NEW_AND_OLD_IMAGES. `search(path, query)` answers FTS5
queries with the matching items' Keys; `index_contents(path)` is the whole index in one canonical,
comparable form (for a batch job that rebuilds the index from a table export to compare with).

Environment (read on every call):
    SEARCH_INDEX_PATH   the SQLite file (on Lambda, somewhere that outlives the sandbox, such as EFS)
    SEARCH_ATTRIBUTES   comma-separated attribute names to index
    SEARCH_TABLE_NAME   the label documents are filed under (default: the source table's name)

Idempotence. Every document keeps the SequenceNumber of the record that last changed it, and a record
whose sequence number is not higher is ignored, so redelivery in any order leaves the index as it was.
A removed document stays as a tombstone (its sequence number, no text), so that an older record
redelivered after the REMOVE cannot bring it back; tombstones are not searched or listed. A batch is
one transaction: if it fails, none of it is applied and Lambda's retry starts again cleanly.
"""

from __future__ import annotations

import json
import os
import sqlite3
from contextlib import closing, contextmanager
from typing import Iterator

from .stream_records import canonical, image, plain, table_name

SCHEMA = """
create table if not exists documents (
    doc integer primary key,            -- the rowid of the document's text in `search`
    source text not null,               -- SEARCH_TABLE_NAME or the source table
    id text not null,                   -- canonical JSON of the item's Keys
    sequence text not null,             -- SequenceNumber of the last record applied
    fields text,                        -- JSON {attribute: indexed text}; NULL: removed (a tombstone)
    unique (source, id)
);
create virtual table if not exists search using fts5(body);
"""


def handler(event: dict, context: object) -> None:
    attributes = [name.strip() for name in os.environ["SEARCH_ATTRIBUTES"].split(",") if name.strip()]
    label = os.environ.get("SEARCH_TABLE_NAME")
    with _index(os.environ["SEARCH_INDEX_PATH"]) as db:
        for record in event.get("Records", []):
            fields = None if record["eventName"] == "REMOVE" else _fields(image(record, "NewImage"), attributes)
            _apply(
                db,
                label or table_name(record),
                canonical(record["dynamodb"]["Keys"]),
                int(record["dynamodb"]["SequenceNumber"]),
                fields,
            )


def search(path: str, query: str, source: str | None = None) -> list[dict]:
    """The Keys (DynamoDB JSON) of the documents matching an FTS5 query, best match first."""
    sql = "select id from search join documents on doc = search.rowid where search match ?"
    params = [query]
    if source is not None:
        sql, params = sql + " and source = ?", params + [source]
    with _index(path) as db:
        return [json.loads(id) for (id,) in db.execute(sql + " order by rank", params)]


def index_contents(path: str) -> list[dict]:
    """Every document, as [{"table", "id", "fields": {attribute: text}}] sorted by table and id."""
    with _index(path) as db:
        rows = db.execute("select source, id, fields from documents where fields is not null order by source, id")
        return [{"table": source, "id": id, "fields": json.loads(fields)} for source, id, fields in rows]


def _fields(item: dict, attributes: list[str]) -> dict[str, str]:
    values = plain({name: item[name] for name in attributes if name in item})
    return {name: value if isinstance(value, str) else canonical(value) for name, value in values.items()}


def _apply(db: sqlite3.Connection, source: str, id: str, sequence: int, fields: dict | None) -> None:
    row = db.execute("select doc, sequence from documents where source = ? and id = ?", (source, id)).fetchone()
    if row and int(row[1]) >= sequence:
        return  # this change, or a newer one, is already in
    stored = None if fields is None else canonical(fields)
    if row:
        doc = row[0]
        db.execute("update documents set sequence = ?, fields = ? where doc = ?", (str(sequence), stored, doc))
        db.execute("delete from search where rowid = ?", (doc,))
    else:
        doc = db.execute(
            "insert into documents (source, id, sequence, fields) values (?, ?, ?, ?)",
            (source, id, str(sequence), stored),
        ).lastrowid
    if fields is not None:
        db.execute("insert into search (rowid, body) values (?, ?)", (doc, "\n".join(fields.values())))


@contextmanager
def _index(path: str) -> Iterator[sqlite3.Connection]:
    with closing(sqlite3.connect(path)) as db:
        db.executescript(SCHEMA)
        with db:  # one transaction: committed on success, rolled back on error
            yield db

"""Table streams over Eddy's change log: named offsets on a table, read as net change sets (Lakehouse-style).

    streams = TableStreams(spark, state_dir=".eddy", offsets_dir="offsets/")
    members = streams.create("members_stream", "members")            # offset: now (the latest commit)
    streams.create("audit", "members", at_version=0)                 # or a commit version / a timestamp
    streams.create("signups", "members", mode="APPEND_ONLY")
    members.read().show()             # __change_type, __commit_version, __commit_timestamp, the item's columns
    members.apply_changes("replica/", keys=["id"])                    # MERGE into a Parquet replica, move on
    members.consume(lambda df, batch_id: df.write.mode("append").parquet("out/"))
    streams.create_temp_views(); spark.sql("select * from members_stream")
    members.consume_sql("insert into target select id, name from members_stream")

A stream is only an offset: the commit version it has consumed through, kept in `<offsets_dir>/<name>.json`
(written to a temp file and swapped in with os.replace). Reading returns the minimal change set from the
offset to the latest commit (changes.net_changes; APPEND_ONLY: every INSERT) and never moves the offset.
Consuming writes the rows somewhere and then, only if the write returned, moves the offset to the version
read through: a failed write leaves it where it was. Before writing, the range is noted in the offset file,
so a consume that died between its write and the offset move consumes the same range, with the same
batch id, when it runs again (a writer that overwrites by batch id, or apply_changes, is then exactly-once).

What a stream reads is what the Streams API would let it read (table_history.py): whole commits only, up to
the last commit version wholly in every shard (so a consumer running while transactions commit loses and
repeats nothing); only the table it was created on (a table deleted and created again is a new history:
TableDroppedError); nothing older than the 24-hour retention by the emulator's clock (`<state_dir>/clock.json`,
or `clock=`). A stream whose offset is older than that (a commit after it is trimmed, or gone) is stale:
reading or consuming it raises StaleStreamError; move its offset (`move_to`) or create it again.
A table stream needs the table's change tracking: its DynamoDB stream (ChangeTrackingError otherwise).

Decoding: the item's columns are the attributes of the images, typed by dynamodb_json: those of every
change set this stream has returned (kept with its offset, so an empty change set still has them) and
of the one being returned, or `item_type=` if given; the key attributes first, then the rest by name.
"""

from __future__ import annotations

import os
import re
from datetime import datetime
from pathlib import Path
from typing import Any, Callable, Iterable

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from . import changes, io
from .dynamodb_json import ItemType, infer_item_type, merge
from .errors import IncompleteHistoryError, StaleStreamError, StreamExistsError, StreamNotFoundError
from .table_history import (
    RETENTION_SECONDS,
    consistent_cut,
    current_history,
    epoch,
    first_after,
    offset_at,
    stream_history,
    timestamp,
    unlogged_silent_versions,
)

MODES = ("STANDARD", "APPEND_ONLY")
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


class TableStreams:
    """The table streams whose offsets live under `offsets_dir`, on the change log under `state_dir`."""

    def __init__(
        self,
        spark: SparkSession,
        state_dir: str | os.PathLike[str],
        offsets_dir: str | os.PathLike[str],
        *,
        clock: Any = None,
        retention_seconds: float = RETENTION_SECONDS,
    ) -> None:
        self.spark = spark
        self.state_dir = str(state_dir)
        self.offsets_dir = Path(offsets_dir)
        self.clock = clock
        self.retention_seconds = retention_seconds

    def now(self) -> float:
        """The emulator's clock: `clock.now()` if given, else the time the emulator writes in clock.json."""
        if self.clock is not None:
            return float(self.clock.now())
        return io.read_emulator_time(self.spark, self.state_dir)

    def create(
        self,
        name: str,
        table: str,
        *,
        mode: str = "STANDARD",
        at_version: int | None = None,
        at_timestamp: datetime | float | None = None,
        show_initial_rows: bool = False,
        replace: bool = False,
    ) -> "TableStream":
        """A new stream on `table` whose offset is now (the latest commit), `at_version` (it returns the
        commits after that version) or `at_timestamp` (the table as of then). `show_initial_rows`: its
        first read returns every item of the table as an INSERT (needs the table's whole history)."""
        if not _NAME.match(name):
            raise ValueError(f"a table stream's name is letters, digits and _ (it is also a view name): {name!r}")
        if mode not in MODES:
            raise ValueError(f"mode must be one of {', '.join(MODES)}, not {mode!r}")
        if at_version is not None and at_timestamp is not None:
            raise ValueError("give at_version or at_timestamp, not both")
        if self._path(name).exists() and not replace:
            raise StreamExistsError(f"table stream {name} exists already (replace=True starts it over)")
        history = current_history(io.read_stream_descriptions(self.spark, self.state_dir, table), table)
        state: dict[str, Any] = {
            "name": name,
            "table": table,
            "mode": mode,
            "show_initial_rows": show_initial_rows,
            "created_at": self.now(),
            "offset": None,
            "offset_timestamp": None,
            "pending": None,
            "history": history[0]["label"],
            "keys": [k["AttributeName"] for k in history[-1]["key_schema"]],
            "key_types": {k["AttributeName"]: k.get("AttributeType", "S") for k in history[-1]["key_schema"]},
        }
        stream = TableStream(self, state)
        stream._place(at_version, at_timestamp)
        stream._save()
        return stream

    def sql(self, statement: str, *, dynamodb: Any = None) -> DataFrame | None:
        """Run one statement of the Lakehouse's table-stream SQL (stream_sql.py): CREATE / DROP / SHOW STREAMS,
        ALTER TABLE t SET PROPERTIES ('change_tracking' = 'true'), CREATE TABLE, SELECT (the offset stays),
        INSERT INTO ... SELECT and MERGE INTO (they consume). `dynamodb`: the boto3 client ALTER TABLE uses.

            streams.sql("CREATE TABLE STREAM s ON TABLE t WITH PROPERTIES ('TABLE_STREAM_MODE' = 'APPEND_ONLY')")
            streams.sql("SELECT * FROM s").show()
        """
        from . import stream_sql

        return stream_sql.run(self, statement, dynamodb=dynamodb)

    def create_volume_stream(
        self,
        name: str,
        location: str,
        *,
        mode: str = "STANDARD",
        recursive: bool = True,
        at_version: int | None = None,
        at_timestamp: datetime | float | None = None,
        replace: bool = False,
    ) -> "TableStream":
        """A stream on the objects under `location` ('s3://bucket/prefix/'), from now (or `at_version` /
        `at_timestamp`, as a table stream): rows relative_path, url, size, last_modified_time, etag, with
        __change_type, __commit_version, __commit_timestamp."""
        from .volume_streams import parse_location

        if not _NAME.match(name):
            raise ValueError(f"a stream's name is letters, digits and _ (it is also a view name): {name!r}")
        if mode not in MODES:
            raise ValueError(f"mode must be one of {', '.join(MODES)}, not {mode!r}")
        if self._path(name).exists() and not replace:
            raise StreamExistsError(f"stream {name} exists already (replace=True starts it over)")
        bucket, prefix = parse_location(location)
        state: dict[str, Any] = {
            "name": name,
            "table": bucket,
            "mode": mode,
            "show_initial_rows": False,
            "created_at": self.now(),
            "offset": None,
            "offset_timestamp": None,
            "pending": None,
            "keys": ["key"],
            "volume": {"location": location, "bucket": bucket, "prefix": prefix, "recursive": recursive},
        }
        stream = TableStream(self, state)
        stream._place(at_version, at_timestamp)
        stream._save()
        return stream

    def get(self, name: str) -> "TableStream":
        state = io.read_json_file(None, str(self._path(name)))
        if state is None:
            raise StreamNotFoundError(f"no table stream named {name} in {self.offsets_dir}")
        return TableStream(self, state)

    def drop(self, name: str) -> None:
        self.get(name)
        self._path(name).unlink()

    def names(self) -> list[str]:
        return sorted(path.stem for path in self.offsets_dir.glob("*.json")) if self.offsets_dir.exists() else []

    def create_temp_views(self) -> list[str]:
        """A temp view per stream, named after it, holding its change set as of now (call again to refresh)."""
        for name in self.names():
            self.get(name).create_temp_view()
        return self.names()

    def change_log(self, table: str, labels: Iterable[str] | None = None) -> DataFrame:
        """`table`'s change log (only the streams `labels`, if given)."""
        log = io.read_change_log(self.spark, self.state_dir, tables=[table]).where(F.col("table") == table)
        return log if labels is None else log.where(F.col("stream_label").isin(list(labels)))

    def _path(self, name: str) -> Path:
        return self.offsets_dir / f"{name}.json"


class TableStream:
    """One named stream: its table, mode and offset (the commit version it has consumed through)."""

    def __init__(self, streams: TableStreams, state: dict[str, Any]) -> None:
        self._streams = streams
        self.state = state
        self._log: DataFrame | None = None
        self._silent: dict[int, float] = {}  # the table's commit versions without records, and their times

    name = property(lambda self: self.state["name"])
    table = property(lambda self: self.state["table"])
    mode = property(lambda self: self.state["mode"])
    offset = property(lambda self: self.state["offset"], doc="consumed through this commit version (None: nothing yet)")

    def read(self, *, item_type: ItemType | None = None, raw: bool = False) -> DataFrame:
        """The change set from the offset to the latest commit. Never moves the offset."""
        return self._changes(item_type=item_type, raw=raw)[0]

    def move_to(self, *, at_version: int | None = None, at_timestamp: datetime | float | None = None) -> None:
        """Move the offset (Snowflake's CREATE OR REPLACE STREAM ... AT/BEFORE, without losing the stream):
        to `at_version` (it returns the commits after it), `at_timestamp` (the table as of then), or now."""
        self.state.update(show_initial_rows=False, pending=None)
        self._place(at_version, at_timestamp)
        self._save()

    def consume(self, write: Callable[[DataFrame, str], Any], *, item_type: ItemType | None = None) -> int:
        """Run `write(rows, batch_id)` on the change set, then move the offset to the version it ran through.

        If `write` raises, the offset stays. `batch_id` ("<name>:<from>:<to>") is the same if a consume that
        died after writing runs again. Returns the commit version the stream now stands at."""
        pending = self.state.get("pending")
        now = self._streams.now()
        rows, after, upto = self._changes(item_type=item_type, upto=pending and pending["upto"])
        if upto == after and not self.state["show_initial_rows"]:
            self.state["verified_at"] = now  # consumed through the latest commit: not stale for 24 hours
            self._save()
            return upto
        self.state["pending"] = {"after": after, "upto": upto}
        self._save()
        try:
            write(rows, f"{self.name}:{after if after is not None else ''}:{upto}")
        except BaseException:
            self.state["pending"] = None
            self._save()
            raise
        self.state.update(offset=upto, offset_timestamp=None, show_initial_rows=False, pending=None, verified_at=now)
        self._save()
        rows.unpersist()
        return upto

    def consume_sql(self, statement: str) -> int:
        """Run a Spark SQL statement that reads the stream's temp view (INSERT INTO ... SELECT ... FROM <name>);
        the offset moves once it has run."""

        def run(rows: DataFrame, batch_id: str) -> None:
            rows.createOrReplaceTempView(self.name)
            self._streams.spark.sql(statement).collect()

        return self.consume(run)

    def apply_changes(self, replica: str, keys: Iterable[str]) -> int:
        """Keep a Parquet replica of the table in sync: DELETE removes the row with those keys, INSERT and
        UPDATE_AFTER replace it (a MERGE INTO ... WHEN MATCHED / NOT MATCHED), then the offset moves."""
        keys = list(keys)

        def merge(rows: DataFrame, batch_id: str) -> None:
            io.replace_parquet(
                changes.apply_changes(io.read_parquet(self._streams.spark, replica), rows, keys), replica
            )

        return self.consume(merge)

    def create_temp_view(self, name: str | None = None) -> DataFrame:
        rows = self.read()
        rows.createOrReplaceTempView(name or self.name)
        return rows

    def is_stale(self) -> bool:
        try:
            self._range(self._snapshot())
        except StaleStreamError:
            return True
        return False

    # -- internals ---------------------------------------------------------------------------------

    def _changes(
        self, *, item_type: ItemType | None = None, raw: bool = False, upto: int | None = None
    ) -> tuple[DataFrame, int | None, int]:
        log = self._snapshot()
        after, latest = self._range(log, upto)
        volume = self.state.get("volume")
        if volume is not None:  # the cut is the bucket's; the rows, the prefix's
            from .volume_streams import under_prefix

            log = under_prefix(log, volume["prefix"], volume["recursive"])
        if self.mode == "APPEND_ONLY":
            rows = changes.inserts(log, after=after, upto=latest)
        else:
            rows = changes.net_changes(log, after=after, upto=latest)
        rows = rows.cache()
        if item_type is None:
            known = self.state.get("item_type")
            item_type = merge(ItemType.from_dict(known) if known else None, infer_item_type(rows, "__image"))
            self.state["item_type"] = item_type.to_dict()
        keys = self.state.get("keys") or changes.stream_key_names(rows)
        self.state["keys"] = keys
        key_types = self.state.get("key_types", {})  # what a key column is before any row has shown it
        decoded = changes.item_columns(rows, item_type, keys, key_types, raw=raw)
        if volume is not None:
            from .volume_streams import volume_rows

            decoded = volume_rows(decoded, volume["bucket"], volume["prefix"], changes.METADATA_COLUMNS)
        return decoded, after, latest

    def _range(self, log: DataFrame, upto: int | None = None) -> tuple[int | None, int]:
        """(after, upto): the versions this stream returns, after checking none of them is gone."""
        horizon = self._streams.now() - self._streams.retention_seconds
        verified = self.state.get("verified_at", self.state["created_at"])
        if verified < horizon:
            raise StaleStreamError(
                f"table stream {self.name} is stale: it was last created, moved or consumed at "
                f"{timestamp(verified).isoformat()}, more than the 24-hour retention of table {self.table}'s "
                f"stream ago by the emulator's clock; move its offset (move_to) or create it again"
            )
        after = None if self.state["show_initial_rows"] else self.offset
        placed_at = self.state["offset_timestamp"]
        if after is not None and placed_at is not None:  # placed 'now' when every record was trimmed
            after = max(after, first_after(log, placed_at) or after)
        if after is None and not self.state["show_initial_rows"]:
            after = first_after(log, self.state["offset_timestamp"] or self.state["created_at"])
            if after is None:
                return 0, 0  # nothing committed since the stream's offset: an empty range
        try:
            latest = consistent_cut(log, self.table, after=after, upto=upto, horizon=horizon, silent=self._silent)
        except IncompleteHistoryError as error:
            raise StaleStreamError(
                f"table stream {self.name} is stale: its offset (version {after or 0}) is older "
                f"than the retained change log of table {self.table} ({error}); create it again "
                f"at a later offset"
            ) from None
        return after, latest if upto is None else upto

    def _snapshot(self) -> DataFrame:
        """The change log of the stream's table, read once (one consistent set of records for every pass)."""
        streams = self._streams
        if self.state.get("volume") is not None:
            from .volume_streams import read_object_changes

            self._log = read_object_changes(streams.spark, streams.state_dir, self.table).localCheckpoint(eager=True)
            self._silent = {}
            return self._log
        descriptions = io.read_stream_descriptions(streams.spark, streams.state_dir, self.table)
        history = stream_history(descriptions, self.table, self.state.get("history", ""), self.name)
        labels = [d["label"] for d in history]
        if self._log is not None:
            self._log.unpersist()
        self._log = streams.change_log(self.table, labels).localCheckpoint(eager=True)
        self._silent = unlogged_silent_versions(self._log, history)
        return self._log

    def _place(self, at_version: int | None, at_timestamp: datetime | float | None) -> None:
        """Set the offset: a commit version, the table as of a time, or now (the latest whole commit)."""
        if at_version is not None and at_timestamp is not None:
            raise ValueError("give at_version or at_timestamp, not both")
        self.state["offset_timestamp"] = None
        self.state["verified_at"] = self._streams.now()
        if at_version is not None:
            if int(at_version) < 0:
                raise ValueError(f"at_version is a commit version >= 0, not {at_version}")
            self.state["offset"] = int(at_version)
        else:
            now = self._streams.now()
            since = epoch(at_timestamp) if at_timestamp is not None else None
            log = self._snapshot()
            self.state["offset"], self.state["offset_timestamp"] = offset_at(log, self.table, since, now, self._silent)
        if self.state["show_initial_rows"]:
            self._range(self._snapshot(), upto=self.state["offset"] or 0)

    def _save(self) -> None:
        io.write_json_file(self._streams._path(self.name), self.state)

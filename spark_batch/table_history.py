"""Which part of a table's change log a table stream may read, as the Streams API would let it.

- The table's current history: a table deleted and created again under its name is a new table, so a
  stream reads only the change-log folders (stream labels) of the table it was created on; a stream whose
  table was deleted raises TableDroppedError. A table with no stream (change tracking) raises
  ChangeTrackingError. Both come from the `stream.json` the emulator keeps beside each stream's shards.
- Whole commits only: each record carries how many records its commit wrote (`commit_records`); the cut is
  the last commit version below the first one not wholly in the log yet (a commit's records reach the
  shards' segment files one shard at a time), so a reader never sees half a transaction.
- Versions without records: the table's creation is its version 1 and enabling its stream takes a version
  (`enabled_version` in stream.json), as the Lakehouse counts CREATE TABLE and enabling change tracking; a
  commit is missing from the log only if it is none of those.
- Nothing trimmed: a record older than the retention horizon (24 hours before the emulator's clock), or a
  commit missing from the log, makes the range unreadable (IncompleteHistoryError; a stream is then stale).
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any, Iterable

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from .changes import version_range
from .errors import ChangeTrackingError, IncompleteHistoryError, StaleStreamError, TableDroppedError

#: how long the Streams API keeps a record (DynamoDB Streams: 24 hours)
RETENTION_SECONDS = 24 * 3600


def since_last_deletion(descriptions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The stream descriptions of the table now under that name (after the last deletion), oldest first."""
    start = max((index + 1 for index, d in enumerate(descriptions) if d["table_deleted"]), default=0)
    return descriptions[start:]


def current_history(descriptions: list[dict[str, Any]], table: str) -> list[dict[str, Any]]:
    """The stream descriptions of the table now under that name (after the last deletion), oldest first;
    raises ChangeTrackingError if it has no stream enabled."""
    current = since_last_deletion(descriptions)
    if not current or current[-1]["status"] != "ENABLED":
        raise ChangeTrackingError(
            f"table {table} has no change tracking: it does not exist, or its DynamoDB stream is not enabled "
            f"(enable it: UpdateTable StreamSpecification={{StreamEnabled: true, StreamViewType: "
            f"NEW_AND_OLD_IMAGES}}, or ALTER TABLE {table} SET PROPERTIES ('change_tracking' = 'true'))"
        )
    return current


def stream_history(
    descriptions: list[dict[str, Any]], table: str, since_label: str, stream: str
) -> list[dict[str, Any]]:
    """The descriptions of the table a stream was created on (its streams from `since_label` on); raises
    TableDroppedError if that table was deleted."""
    mine = [d for d in descriptions if d["label"] >= since_label]
    if not mine or any(d["table_deleted"] for d in mine):
        raise TableDroppedError(
            f"table {table}, which table stream {stream} was created on, was dropped: "
            f"drop the stream, or create it again on the table now named {table}"
        )
    return mine


def silent_versions(history: list[dict[str, Any]]) -> dict[int, float]:
    """The commit versions of the table that have no records, and when they were: its creation (version 1;
    no later than its first stream) and each enabling of its stream."""
    if not history:
        return {}
    versions = {1: float(history[0]["created_at"])}
    versions.update({d["enabled_version"]: float(d["created_at"]) for d in history if d.get("enabled_version")})
    return versions


def unlogged_silent_versions(log: DataFrame, history: list[dict[str, Any]]) -> dict[int, float]:
    """silent_versions(history) that have no record in `log` (in a log whose numbering began before creation
    and enabling took versions, version 1 carries records): the versions the log may lack, and their times."""
    silent = silent_versions(history)
    if not silent:
        return {}
    logged = {
        row[0]
        for row in log.where(F.col("commit_version").isin(list(silent))).select("commit_version").distinct().collect()
    }
    return {version: at for version, at in silent.items() if version not in logged}


def last_whole_version(log: DataFrame, silent: Iterable[int] = ()) -> int | None:
    """The latest commit version in `log` (or of `silent`, versions without records) below the first one
    not wholly there (None: no commit)."""
    per_version = log.groupBy("commit_version").agg(F.count("*").alias("records"), F.max("commit_records").alias("of"))
    partial = F.col("of").isNotNull() & (F.col("records") < F.col("of"))
    last, first_partial = per_version.agg(
        F.max("commit_version"), F.min(F.when(partial, F.col("commit_version")))
    ).first()
    whole = last if first_partial is None else first_partial - 1
    candidates = [v for v in (whole, *silent) if v and (first_partial is None or v < first_partial)]
    return max(candidates, default=None)


def consistent_cut(
    log: DataFrame,
    table: str,
    *,
    after: int | None,
    horizon: float,
    upto: int | None = None,
    silent: Iterable[int] = (),
) -> int:
    """The latest commit version V (at most `upto`) such that every commit in (after, V] is whole in `log`
    (or is one of `silent`, the versions without records) and none of its records is older than `horizon`
    (epoch seconds); `after` if there is none.
    Raises IncompleteHistoryError naming what is missing or trimmed. Reads `log` twice: pass a snapshot."""
    start = (after or 0) + 1
    rows = log.where(F.col("commit_version") >= start)
    if upto is not None:
        rows = rows.where(F.col("commit_version") <= upto)
    per_version = rows.groupBy("commit_version").agg(
        F.count("*").alias("records"),
        F.max("commit_records").alias("of"),
        F.min(F.unix_micros("commit_timestamp")).alias("at"),
    )
    partial = F.col("of").isNotNull() & (F.col("records") < F.col("of"))
    last, first_partial = per_version.agg(
        F.max("commit_version"), F.min(F.when(partial, F.col("commit_version")))
    ).first()
    quiet = sorted(v for v in silent if v >= start and (upto is None or v <= upto))
    candidates = [v for v in (last, *quiet) if v is not None]
    if not candidates:
        return after or 0
    cut = max(candidates) if first_partial is None else first_partial - 1
    if cut < start:
        return after or 0
    in_range = per_version.where(F.col("commit_version") <= cut)
    quiet = [v for v in quiet if v <= cut]
    first, count, oldest, quiet_logged = in_range.agg(
        F.min("commit_version"),
        F.count("*"),
        F.min("at"),
        F.count(F.when(F.col("commit_version").isin(quiet), 1)) if quiet else F.lit(0),
    ).first()
    first = min(v for v in (first, *quiet) if v is not None)
    count += len(quiet) - quiet_logged
    if first != start or count != cut - start + 1:
        raise IncompleteHistoryError(
            f"table {table}: commits {start}..{cut} are not all in the change log (found {count} versions "
            f"from {first}); the rest were trimmed past retention, or written while its stream was disabled"
        )
    if oldest is not None and oldest / 1_000_000 < horizon:
        raise IncompleteHistoryError(
            f"table {table}: commits from {start} on include records older than the 24-hour retention "
            f"(trimmed: GetRecords would refuse them)"
        )
    return cut


# -- where an offset stands -------------------------------------------------------------------------


def offset_at(
    log: DataFrame, table: str, since: float | None, now: float, silent: dict[int, float]
) -> tuple[int | None, float | None]:
    """(offset, offset_timestamp) of a stream created at `since` (None: now): the last commit version at or
    before then; with no commit in the log yet, no version but a time (the commits after it are returned)."""
    bounded = log if since is None else log.where(F.col("commit_timestamp") <= F.lit(timestamp(since)))
    last = last_whole_version(bounded, [v for v, at in silent.items() if since is None or at <= since])
    first, _, _ = version_range(log)
    if last is not None and not (first is not None and any(v not in silent for v in range(last + 1, first))):
        # (versions between it and the first retained one that are not silent: trimmed). With no record left at
        # all, commits after the last silent version may have been trimmed: the time says where 'now' was too
        return last, (now if since is None and first is None else None)
    if first is None:
        return None, now if since is None else since
    if first == 1:
        return 0, None  # the table's first commit came after `since`: it was empty then
    raise StaleStreamError(
        f"table {table}: {timestamp(since).isoformat()} is older than the retained change "
        f"log (its first commit there is version {first})"
    )


def first_after(log: DataFrame, since: float) -> int | None:
    """The offset for 'the commits after `since`' once they exist: the version before the first of them."""
    first, _, _ = version_range(log.where(F.col("commit_timestamp") > F.lit(timestamp(since))))
    return None if first is None else first - 1


def epoch(moment: datetime | float) -> float:
    if isinstance(moment, datetime):
        return (moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)).timestamp()
    return float(moment)


def timestamp(epoch: float) -> datetime:
    return datetime.fromtimestamp(epoch, timezone.utc)

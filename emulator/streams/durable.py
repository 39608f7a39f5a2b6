"""DynamoDB's durable channels (storage/channels.py): tables (their definitions and items) and their streams.

TablesChannel
  log entries   {"op": "ddl", "account", "region", "target", "body"[, "created_at"]}: a request that changed a
                table's definition, run again through moto at recovery (moto_seam/tables/definition_requests.py);
                {"op": "commit", "table", "version", "ts", "items": [[keys, new image], ...], "seq"}: a commit's
                item images (None: deleted) and the last stream sequence number it produced
  snapshot      {"kind": "table", "key", "ddl"} and {"kind": "items", "key", "items"} for each table made through
                Eddy's DynamoDB API; the header's "commit_versions"
StreamsChannel
  log entries   {"op": "stream", "state"}, {"op": "shard", "stream", "state"} (opened, closed, trimmed),
                {"op": "stream_disabled", "stream", "at"}
  snapshot      {"kind": "stream", "state"}, {"kind": "latest", "streams"}; the header's "sequence_number"
  recovered     each shard's records read back from its segment files, up to the last acknowledged commit (a
                commit's "seq", or a shard's range), and moto's tables told of their streams
"""

from __future__ import annotations

import logging
import shutil
from pathlib import Path
from typing import Any, ContextManager, Iterator

from eddy.emulator.moto_seam.tables import resource_policies, time_to_live_changes
from eddy.emulator.moto_seam.tables import views as moto_tables
from eddy.emulator.moto_seam.tables.definition_requests import run_table_request
from eddy.emulator.moto_seam.tables.definitions_kept import Kept as KeptTable
from eddy.emulator.settings import Settings
from eddy.emulator.storage.channels import Channel, DurableLog
from eddy.emulator.storage.wal import CorruptStateError
from eddy.emulator.streams.records import LoggedRecord, StreamViewType, compact_json
from eddy.emulator.streams.shards import SequenceNumbers, Shard
from eddy.emulator.streams.stream import Stream, StreamObserver
from eddy.emulator.streams.stream_registry import StreamRegistry

log = logging.getLogger("eddy")

TableKey = tuple[str, str, str]
ITEMS_PER_LINE = 500


def stream_state(stream: Stream) -> dict[str, Any]:
    """What the log and a snapshot keep of a stream (its records are in its shards' segment files)."""
    return {
        "account_id": stream.account_id,
        "region": stream.region,
        "table_name": stream.table_name,
        "table_arn": stream.arn.split("/stream/")[0],
        "label": stream.label,
        "view_type": stream.view_type.value,
        "key_schema": stream.key_schema,
        "created_at": stream.created_at,
        "status": stream.status,
        "disabled_at": stream.disabled_at,
        "last_shard_ms": stream.last_shard_ms,
        "enabled_version": stream.enabled_version,
        "table_deleted": stream.table_deleted,
        "shards": [shard.to_state() for shard in stream.shards.values()],
    }


def stream_from_state(
    state: dict[str, Any],
    *,
    settings: Settings,
    sequence_numbers: SequenceNumbers,
    directory: Path,
    observer: StreamObserver,
) -> Stream:
    """A stream as stream_state() kept it, its shards put back."""
    stream = Stream(
        account_id=state["account_id"],
        region=state["region"],
        table_name=state["table_name"],
        table_arn=state["table_arn"],
        label=state["label"],
        view_type=StreamViewType(state["view_type"]),
        key_schema=state["key_schema"],
        created_at=state["created_at"],
        settings=settings,
        sequence_numbers=sequence_numbers,
        directory=directory,
        observer=observer,
        first_shard=False,
        enabled_version=state.get("enabled_version"),
    )
    stream.status, stream.disabled_at = state["status"], state["disabled_at"]
    stream.table_deleted = state.get("table_deleted", False)
    stream.last_shard_ms = state["last_shard_ms"]
    for shard_state in state["shards"]:
        stream.restore_shard(shard_state)
    return stream


class StreamsChannel(Channel, StreamObserver):
    """The streams' shapes, told by each stream (its observer), and their records' high-water mark."""

    name, ops, kinds = "streams", ("stream", "shard", "stream_disabled"), ("stream", "latest")

    def __init__(self, log: DurableLog, registry: StreamRegistry, versions: dict[TableKey, int]) -> None:
        self.log = log
        self.registry = registry
        registry.observer = self  # told of every stream enabled, and each stream of its shards (stream_from_state)
        self.settings = registry.settings
        self.sequence_numbers = registry.sequence_numbers
        self.versions = versions
        #: the last sequence number a commit that reached the log produced (records past it are cut at recovery)
        self.confirmed = 0

    def confirm(self, sequence_number: int) -> None:
        self.confirmed = max(self.confirmed, sequence_number)

    # -- told by the streams ---------------------------------------------------------------------------

    def stream_enabled(self, stream: Stream) -> None:
        self.log.log({"op": "stream", "state": stream_state(stream)})

    def shard_opened(self, stream: Stream, shard: Shard) -> None:
        self.log.log({"op": "shard", "stream": stream.arn, "state": shard.to_state()})

    shard_closed = shard_opened
    shard_trimmed = shard_opened

    def together(self) -> ContextManager[None]:
        """A rollover's, split's or merge's shards logged in one append, or none of them."""
        return self.log.together()

    def stream_disabled(self, stream: Stream) -> None:
        self.log.log({"op": "stream_disabled", "stream": stream.arn, "at": stream.disabled_at})

    # -- snapshots and recovery ------------------------------------------------------------------------

    def header_fields(self) -> dict[str, Any]:
        return {"sequence_number": str(self.sequence_numbers.last)}

    def restore_header(self, header: dict[str, Any]) -> None:
        self.confirm(int(header["sequence_number"]))

    def snapshot_entries(self, generation: int) -> Iterator[dict[str, Any]]:
        for stream in self.registry.streams.values():
            yield {"kind": "stream", "state": stream_state(stream)}
        yield {"kind": "latest", "streams": [stream.arn for stream in self.registry.latest.values()]}

    def restore(self, entry: dict[str, Any]) -> None:
        if entry["kind"] == "latest":
            self.registry.latest = {}
            for arn in entry["streams"]:
                stream = self.registry.streams[arn]
                self.registry.latest[(stream.account_id, stream.region, stream.table_name)] = stream
        else:
            self.replay({"op": "stream", "state": entry["state"]})

    def replay(self, entry: dict[str, Any]) -> None:
        op = entry["op"]
        if op == "stream":
            state = entry["state"]
            directory = self.registry.stream_directory(
                state["account_id"], state["region"], state["table_name"], state["label"]
            )
            stream = stream_from_state(
                state,
                settings=self.settings,
                sequence_numbers=self.sequence_numbers,
                directory=directory,
                observer=self,
            )
            self.registry.add(stream)
            if stream.enabled_version is not None:  # enabling took a commit version
                key = (stream.account_id, stream.region, stream.table_name)
                self.versions[key] = max(self.versions.get(key, 1), stream.enabled_version)
        elif op == "shard":
            shard = self.registry.streams[entry["stream"]].restore_shard(entry["state"])
            self.confirm(max(shard.starting_sequence_number, shard.ending_sequence_number or 0))
        else:  # stream_disabled
            stream = self.registry.streams[entry["stream"]]
            stream.status, stream.disabled_at = "DISABLED", entry["at"]

    def recovered(self) -> None:
        """Each shard's records back from its segment files, up to the last acknowledged commit; moto's tables told
        of their streams."""
        highest = self.confirmed
        for stream in self.registry.streams.values():
            for shard in stream.shards.values():
                trimmed = shard.trimmed_through
                shard.records = [
                    LoggedRecord(line, number, created_at)
                    for line, number, created_at in shard.log.load(self.confirmed)
                    if number > trimmed
                ]
                highest = max(highest, shard.starting_sequence_number, shard.ending_sequence_number or 0)
        self.sequence_numbers.restore(highest)
        for (account_id, region, name), stream in self.registry.latest.items():
            view_type = stream.view_type.value if stream.status == "ENABLED" else None
            moto_tables.set_stream((account_id, region, name), stream.label, view_type)  # if moto has the table


class TablesChannel(Channel):
    """The tables' definitions (the requests that made them) and their committed items."""

    name, ops, kinds = "tables", ("ddl", "commit"), ("table", "items")

    def __init__(self, log: DurableLog, versions: dict[TableKey, int], registry: StreamRegistry) -> None:
        self.log = log
        self.versions = versions
        #: the tables' streams' channel (a commit confirms the sequence numbers it produced; a table deleted has no
        #: latest stream)
        self.streams = StreamsChannel(log, registry, versions)
        #: the DynamoDB requests that made each live table's definition, replayed to rebuild it
        self.ddl: dict[TableKey, list[dict[str, Any]]] = {}

    def table_request(self, account_id: str, region: str, target: str, body: dict[str, Any], at: float) -> None:
        """A DynamoDB request changed a table's definition, `at` on the emulator's clock (an UpdateTimeToLive's time
        is kept with the table and logged: DynamoDB refuses another change within the hour, also after a restart)."""
        entry = {"op": "ddl", "account": account_id, "region": region, "target": target, "body": body}
        if target == "CreateTable":
            entry["created_at"] = moto_tables.created_at((account_id, region, table_name(body)))
        elif target == "UpdateTimeToLive":
            time_to_live_changes.note(account_id, region, table_name(body), at)
            entry["at"] = at
        self._keep(entry)
        self.log.log(entry)

    def definition_changing(self, account_id: str, region: str, body: dict[str, Any]) -> None:
        """A request is about to change a table's definition: should the disk refuse its request's entries
        (storage/units_of_work.py), the table, its definition requests, its streams and its commit version are put
        back as they are now."""
        if not self.log.durable:
            return
        key = (account_id, region, table_name(body))
        table = KeptTable(key)
        ddl = list(self.ddl[key]) if key in self.ddl else None
        registry = self.streams.registry
        latest, arns, version = registry.latest.get(key), set(registry.streams), self.versions.get(key)
        stream_as_it_was = latest.kept() if latest is not None else None

        def put_back() -> None:
            table.put_back()
            _put(self.ddl, key, ddl)
            for arn in set(registry.streams) - arns:  # enabled by the change refused: no reader finds its folder
                shutil.rmtree(registry.streams.pop(arn).directory, ignore_errors=True)
            _put(registry.latest, key, latest)
            if stream_as_it_was is not None:
                stream_as_it_was()
            _put(self.versions, key, version)

        self.log.on_undo(put_back)

    def _keep(self, entry: dict[str, Any]) -> None:
        key = (entry["account"], entry["region"], table_name(entry["body"]))
        if entry["target"] == "CreateTable":
            self.ddl[key] = [entry]
        elif entry["target"] == "DeleteTable":
            self.ddl.pop(key, None)
        elif key in self.ddl:
            self.ddl[key].append(entry)

    def commit_entry(
        self,
        table: TableKey,
        version: int,
        now: float,
        changes: list[Any],
        by_ttl: bool,
        last_sequence_number: int | None,
    ) -> bytes | None:
        """A commit's log entry, encoded whole before anything of the commit is written or shown (None: nothing is
        written down)."""
        if not self.log.durable:
            return None
        # the new images' text as capture made it (the records' change-log lines write the same str)
        items = ",".join(f"[{compact_json(keys)},{new or 'null'}]" for _, keys, _, new, _, _ in changes)
        seq = "null" if last_sequence_number is None else f'"{last_sequence_number}"'
        return (
            f'{{"op":"commit","table":{compact_json(list(table))},"version":{version},'
            f'"ts":{compact_json(now)},"items":[{items}],"seq":{seq}}}'
        ).encode()

    def log_commits(self, entries: list[bytes]) -> None:
        """One operation's commits (a table each) in the log together, all of them or none (WriteFailed)."""
        self.log.log_all(entries)

    # -- snapshots and recovery ------------------------------------------------------------------------

    def header_fields(self) -> dict[str, Any]:
        return {"commit_versions": [[*key, version] for key, version in self.versions.items()]}

    def restore_header(self, header: dict[str, Any]) -> None:
        for account_id, region, name, version in header["commit_versions"]:
            self.versions[(account_id, region, name)] = version

    def snapshot_entries(self, generation: int) -> Iterator[dict[str, Any] | bytes]:
        """Every table made through Eddy's DynamoDB API, its definition and its items (others are not kept). An items
        entry is written from its images' text as the items keep it, joined, not decoded: the line
        json.dumps({"kind": "items", "key", "items": [image, ...]}, separators=(",", ":")) would write."""
        for key, texts in moto_tables.contents():
            if key not in self.ddl:
                log.warning("table %s was not created through Eddy's DynamoDB API: it is not kept", key)
                continue
            yield {"kind": "table", "key": list(key), "ddl": self.ddl[key]}
            items, head = texts(), f'{{"kind":"items","key":{compact_json(list(key))},"items":['
            for start in range(0, len(items), ITEMS_PER_LINE):
                yield (head + ",".join(items[start : start + ITEMS_PER_LINE]) + "]}").encode()

    def restore(self, entry: dict[str, Any]) -> None:
        if entry["kind"] == "table":
            for request in entry["ddl"]:
                self.replay(request)
        else:
            moto_tables.restore_items(tuple(entry["key"]), entry["items"])

    def replay(self, entry: dict[str, Any]) -> None:
        if entry["op"] == "ddl":
            self._replay_ddl(entry)
            return
        moto_tables.restore_changes(tuple(entry["table"]), entry["items"])
        self.versions[tuple(entry["table"])] = entry["version"]
        if entry["seq"] is not None:
            self.streams.confirm(int(entry["seq"]))

    def _replay_ddl(self, entry: dict[str, Any]) -> None:
        account_id, region, target, body = entry["account"], entry["region"], entry["target"], entry["body"]
        if target in resource_policies.LOGGED:  # Eddy's own: the policy's slot as it was written
            if not resource_policies.restore(account_id, region, table_name(body), body):
                raise CorruptStateError(f"{target} of {body['ResourceArn']} without its table")
            self.ddl[(account_id, region, table_name(body))].append(entry)
            return
        status, answer = run_table_request(account_id, region, target, body)
        if status != 200:
            raise CorruptStateError(f"replaying {target} of {body.get('TableName')} failed: {answer[:300]!r}")
        key = (account_id, region, table_name(body))
        if target == "CreateTable":
            moto_tables.set_created_at(key, entry["created_at"])
        elif target == "UpdateTimeToLive" and "at" in entry:  # logged before its time was kept: not known
            time_to_live_changes.note(*key, entry["at"])
        elif target == "DeleteTable":
            self.streams.registry.latest.pop(key, None)
            self.versions.pop(key, None)
        self._keep(entry)

    def reset(self) -> None:
        self.ddl.clear()


def _put(kept: dict[Any, Any], key: Any, value: Any) -> None:
    """`kept[key]` as it was: `value`, or none (None)."""
    if value is None:
        kept.pop(key, None)
    else:
        kept[key] = value


def table_name(body: dict[str, Any]) -> str:
    """The table a definition request is about (TagResource and friends name it by ARN)."""
    return body.get("TableName") or str(body.get("ResourceArn", "")).split(":table/")[-1].split("/")[0]

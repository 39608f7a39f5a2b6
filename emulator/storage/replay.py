"""Recovery's replay: what each log entry and each snapshot entry does to the emulator when it is read back.

Persistence (persistence.py) writes the entries and drives recovery (the newest snapshot, then the log after it);
LogReplay is the part of it that applies one entry: a table's definition request run again through moto's DynamoDB,
a commit's item images, streams and shards, functions, mappings, Kinesis streams and records, the asynchronous
queues' work (async_queue.py), moto's services' requests (service_journal.py), functions' log events, queue
mappings' message changes. An entry it does not know is corruption (CorruptStateError), never skipped.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from eddy.emulator.aws_requests import Request
from eddy.emulator import callers
from eddy.emulator.moto_seam import bridge as moto_bridge
from eddy.emulator.moto_seam.tables import resource_policies
from eddy.emulator.moto_seam.cloudwatch_logs import put_events
from eddy.emulator.moto_seam.kinesis import state as kinesis_state
from eddy.emulator.storage.async_queue import QUEUES
from eddy.emulator.storage.service_log import ServiceLog
from eddy.emulator.storage.snapshots import function_from_state, queue_owner
from eddy.emulator.storage.wal import CorruptStateError, WriteAheadLog
from eddy.emulator.streams.stream import Stream

if TYPE_CHECKING:
    from eddy.emulator.engine import Emulator

TableKey = tuple[str, str, str]
QUEUE_NAMES = {logged.name: logged for logged in QUEUES}


class LogReplay:
    """Applies log and snapshot entries (a part of Persistence: these are its attributes)."""

    emulator: "Emulator"
    directory: Path
    wal: WriteAheadLog
    services: ServiceLog
    ddl: dict[TableKey, list[dict[str, Any]]]
    _confirmed: int

    def _apply_header(self, entry: dict[str, Any]) -> int:
        emulator = self.emulator
        emulator.clock.restore_offset(entry["clock_offset"])
        self._confirmed = max(self._confirmed, int(entry["sequence_number"]))
        emulator.notifications.restore_sequencer(entry.get("s3_sequencer", 0))  # absent in older snapshots
        for account_id, region, name, version in entry["commit_versions"]:
            emulator.commit_versions[(account_id, region, name)] = version
        return entry["generation"]

    def _apply_snapshot_entry(self, entry: dict[str, Any]) -> None:
        kind = entry["kind"]
        if kind == "table":
            for request in entry["ddl"]:
                self._apply(request)
        elif kind == "items":
            table = moto_bridge.find_table(*entry["key"])
            for item in entry["items"]:
                moto_bridge.restore_item(table, item)
        elif kind == "stream":
            self._apply({"op": "stream", "state": entry["state"]})
        elif kind == "latest":
            registry = self.emulator.streams
            registry.latest = {}
            for arn in entry["streams"]:
                stream = registry.streams[arn]
                registry.latest[(stream.account_id, stream.region, stream.table_name)] = stream
        elif kind in ("function", "mapping", "kinesis_stream", "kinesis_destinations"):
            self._apply({"op": kind, **{k: v for k, v in entry.items() if k != "kind"}})
        elif kind == "services":
            for logged in self.services.read(entry):
                self._apply(logged)
        elif kind in QUEUE_NAMES:
            self._apply_queued(kind, entry)
        elif kind == "kinesis_records":
            for record in entry["records"]:
                kinesis_state.restore_record(entry["stream"], record)
        else:
            raise ValueError(f"unknown snapshot entry {kind!r}")

    def _apply(self, entry: dict[str, Any]) -> None:
        emulator = self.emulator
        op = entry["op"]
        if op == "ddl":
            self._replay_ddl(entry)
        elif op == "commit":
            table = moto_bridge.find_table(*entry["table"])
            for keys, new in entry["items"]:
                if new is not None:
                    moto_bridge.restore_item(table, new)
                else:
                    moto_bridge.delete_item_by_keys(table, keys)
            emulator.commit_versions[tuple(entry["table"])] = entry["version"]
            if entry["seq"] is not None:
                self._confirmed = max(self._confirmed, int(entry["seq"]))
        elif op == "stream":
            state = entry["state"]
            stream = Stream.from_state(state, settings=emulator.settings, sequence_numbers=emulator.sequence_numbers,
                                       directory=emulator.streams.stream_directory(state["account_id"], state["region"],
                                                                                   state["table_name"], state["label"]),
                                       observer=self)
            emulator.streams.add(stream)
            if stream.enabled_version is not None:  # enabling took a commit version
                key = (stream.account_id, stream.region, stream.table_name)
                emulator.commit_versions[key] = max(emulator.commit_versions.get(key, 1), stream.enabled_version)
        elif op == "shard":
            shard = emulator.streams.streams[entry["stream"]].restore_shard(entry["state"])
            self._confirmed = max(self._confirmed, shard.starting_sequence_number, shard.ending_sequence_number or 0)
        elif op == "stream_disabled":
            stream = emulator.streams.streams[entry["stream"]]
            stream.status, stream.disabled_at = "DISABLED", entry["at"]
        elif op == "clock":
            emulator.clock.restore_offset(entry["offset"])
        elif op == "function":
            emulator.functions.restore(function_from_state(entry["state"], self.directory))
        elif op == "function_deleted":
            emulator.functions.forget(entry["arn"])
        elif op == "mapping":
            emulator.triggers.restore(entry["state"], int(entry["start"]))
        elif op == "mapping_deleted":
            emulator.triggers.mappings.pop(entry["uuid"], None)
        elif op == "kinesis_stream":
            kinesis_state.restore_shape(entry["shape"])
        elif op == "kinesis_record":
            kinesis_state.restore_record(entry["stream"], entry["record"])
        elif op == "kinesis_stream_deleted":
            kinesis_state.delete_stream(entry["stream"])
        elif op == "kinesis_destinations":
            emulator.kinesis.restore(tuple(entry["table"]), entry["destinations"])
        elif op.removesuffix("_done") in QUEUE_NAMES:
            self._apply_queued(op.removesuffix("_done"), entry)
        elif op == "request":
            emulator.services.replay(entry, self.services.body_of(entry))
        elif op == "function_logs":
            put_events(entry["account"], entry["region"], entry["group"], entry["stream"], entry["events"])
        elif op == "sqs_messages":
            from eddy.emulator.moto_seam import sqs as sqs_seam  # moto's SQS: loaded by its first change

            sqs_seam.apply_change(entry)
        else:
            raise CorruptStateError(f"{self.wal.directory}: unknown log entry {op!r}")

    def _apply_queued(self, name: str, entry: dict[str, Any]) -> None:
        """An asynchronous queue's entry (storage/async_queue.py) into its owner."""
        logged = QUEUE_NAMES[name]
        logged.apply(queue_owner(self.emulator, logged), entry)

    def _replay_ddl(self, entry: dict[str, Any]) -> None:
        account_id, region, target, body = entry["account"], entry["region"], entry["target"], entry["body"]
        if target in resource_policies.LOGGED:  # Eddy's own: the policy's slot as it was written
            if not resource_policies.restore(account_id, region, table_name(body), body):
                raise CorruptStateError(f"{self.wal.directory}: {target} of {body['ResourceArn']} without its table")
            self.ddl[(account_id, region, table_name(body))].append(entry)
            return
        headers = {"X-Amz-Target": f"DynamoDB_20120810.{target}", "x-moto-account-id": account_id,
                   "Content-Type": "application/x-amz-json-1.0",
                   "Authorization": callers.authorization(region, "dynamodb")}
        request = Request("POST", f"https://dynamodb.{region}.amazonaws.com/", headers)
        response = moto_bridge.DynamoDBCall(request, json.dumps(body).encode()).run()
        if response.status != 200:
            raise CorruptStateError(f"{self.wal.directory}: replaying {target} of {body.get('TableName')} failed: "
                                    f"{response.body[:300]!r}")
        key = (account_id, region, table_name(body))
        if target == "CreateTable":
            self.ddl[key] = [entry]
            moto_bridge.set_table_created_at(moto_bridge.find_table(*key), entry["created_at"])
        elif target == "DeleteTable":
            self.ddl.pop(key, None)
            self.emulator.streams.latest.pop(key, None)
            self.emulator.commit_versions.pop(key, None)
        elif key in self.ddl:
            self.ddl[key].append(entry)


def table_name(body: dict[str, Any]) -> str:
    """The table a definition request is about (TagResource and friends name it by ARN)."""
    return body.get("TableName") or str(body.get("ResourceArn", "")).split(":table/")[-1].split("/")[0]

"""Lambda functions' durable channel (storage/channels.py): the functions, and the log events invocations wrote.

log entries   {"op": "function", "state"}: a function created or changed (a registered callable is not kept: it
              lives in its process, and is registered again after a restart); {"op": "function_deleted", "arn"};
              {"op": "function_logs", "account", "region", "group", "stream", "events"}: an invocation's log
              events, put back into moto's CloudWatch Logs (moto's services' snapshot keeps them after that)
snapshot      {"kind": "function", "state"} for each function and each of its versions (after it); its code stays in its
              code directory, named relative to the state directory
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any, Callable, Iterator

from eddy.emulator.functions.registry import Function, FunctionRegistry
from eddy.emulator.functions.versions import Alias
from eddy.emulator.moto_seam.cloudwatch_logs import put_events
from eddy.emulator.storage.channels import Channel, DurableLog
from eddy.emulator.storage.disk import WriteFailed

#: what a function's state keeps, besides its code directory
FIELDS = (
    "name", "account_id", "region", "handler", "runtime", "timeout", "memory_size", "environment", "role",
    "description", "code_sha256", "code_size", "last_modified", "layers", "logging_config", "event_invoke_config",
    "dead_letter_target", "tags", "policy", "reserved_concurrency", "provisioned_concurrency", "url_configs", "revision_id", "version",
    "last_version",
    "source_fingerprint",
)  # fmt: skip


class FunctionsChannel(Channel):
    """Told of every function saved or deleted (the registry's observer) and of every invocation's log events."""

    name, ops, kinds = "functions", ("function", "function_deleted", "function_logs"), ("function",)

    def __init__(
        self,
        log: DurableLog,
        registry: FunctionRegistry,
        state_dir: Path,
        lock: threading.RLock,
        refused: Callable[[WriteFailed], None],
    ) -> None:
        self.log = log
        self.registry = registry
        registry.observer = self  # told of every function saved or deleted
        self.state_dir = state_dir
        #: the lock snapshots are taken under (the emulator's)
        self.lock = lock
        #: told of log events the disk refused (storage/disk.py's DiskState.refused)
        self.refused = refused

    def function_saved(self, function: Function) -> None:
        if function.target is None:  # a registered callable lives in its process; register it again after a restart
            self.log.log({"op": "function", "state": function_state(function, self.state_dir)})

    def function_deleted(self, function: Function) -> None:
        self.log.log({"op": "function_deleted", "arn": function.qualified_arn})  # a version's is qualified

    def write_logs(self, account_id: str, region: str, group: str, stream: str, events: list[tuple[int, str]]) -> None:
        """An invocation's log events (functions/log_groups.py) logged, then put in moto's CloudWatch Logs, under the
        lock a snapshot is taken under: kill -9 loses none that an invocation's caller was answered after. In memory,
        moto's own lock is enough (and pollers running invocations do not wait on the emulator's lock for their
        logs)."""
        if not self.log.durable:
            return put_events(account_id, region, group, stream, events)
        with self.lock:
            try:  # logged first: a full disk's events are dropped, not shown only to vanish at a restart
                self.log.log(
                    {"op": "function_logs", "account": account_id, "region": region, "group": group,
                     "stream": stream, "events": events}
                )  # fmt: skip
            except WriteFailed as failure:
                return self.refused(failure)
            put_events(account_id, region, group, stream, events)

    def snapshot_entries(self, generation: int) -> Iterator[dict[str, Any]]:
        for function in self.registry.functions.values():
            if function.target is None:
                yield {"kind": "function", "state": function_state(function, self.state_dir)}
                for version in function.versions.values():  # each after its $LATEST, which recovery puts it under
                    yield {"kind": "function", "state": function_state(version, self.state_dir)}

    def replay(self, entry: dict[str, Any]) -> None:
        op = entry["op"]
        if op == "function":
            self.registry.restore(function_from_state(entry["state"], self.state_dir))
        elif op == "function_deleted":
            self.registry.forget(entry["arn"])
        else:
            put_events(entry["account"], entry["region"], entry["group"], entry["stream"], entry["events"])


def function_state(function: Function, state_dir: Path) -> dict[str, Any]:
    state = {name: getattr(function, name) for name in FIELDS}
    state["code_dir"] = os.path.relpath(function.code_dir, state_dir) if function.code_dir else None
    state["aliases"] = [alias.to_state() for alias in function.aliases.values()]
    return state


def function_from_state(state: dict[str, Any], state_dir: Path) -> Function:
    """A function's $LATEST or one of its versions as function_state wrote it (functions/registry.py restore puts a
    version under its $LATEST)."""
    code_dir = state.pop("code_dir")
    state["aliases"] = {alias["name"]: Alias(**alias) for alias in state.pop("aliases", [])}
    function = Function(**state)
    function.code_dir = state_dir / code_dir if code_dir else None
    return function

"""Lambda functions' durable channel (storage/channels.py): the functions, and the log events invocations wrote.

log entries   {"op": "function", "state"}: a function created or changed (a registered callable is not kept: it
              lives in its process, and is registered again after a restart); {"op": "function_deleted", "arn"};
              {"op": "function_logs", "account", "region", "group", "stream", "events"}: an invocation's log
              events, put back into moto's CloudWatch Logs (moto's services' snapshot keeps them after that)
snapshot      {"kind": "function", "state"} for each function and each of its versions (after it); its code stays in its
              code directory, named relative to the state directory
A function's state holds its update in progress ("update": when it ends on the clock unless read sooner, its
RevisionId, and the function as it was before, whose code folder stays until the update completes), or null: a restart
neither completes an update nor loses what runs meanwhile; one whose time on the clock passed is completed when the
function is next looked at (registry.settle), as without a restart.
"""

from __future__ import annotations

import copy
import json
import os
import threading
from pathlib import Path
from typing import Any, Callable, Iterator

from eddy.emulator.functions.function import Function, Update

from eddy.emulator.functions.registry import FunctionRegistry
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
    "source_fingerprint", "environment_given", "architectures", "ephemeral_storage", "tracing_mode", "snap_start",
    "role_session", "recursive_loop",
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
        #: each function's and version's state as the log holds it, by qualified ARN (when written down): what a
        #: change its request's log entries were refused for is put back to
        self.logged: dict[str, dict[str, Any]] = {}

    def function_saved(self, function: Function) -> None:
        if function.target is None:  # a registered callable lives in its process; register it again after a restart
            state = function_state(function, self.state_dir)
            self.log.log({"op": "function", "state": state})
            if self.log.durable:  # refused with its request: put back as the log holds it
                arn, previous = function.qualified_arn, self.logged.get(function.qualified_arn)
                self.logged[arn] = copy.deepcopy(state)  # its own: a change in place (AddPermission) is not the log's
                transition = function.transition  # not written down: an update the change started is not started
                self.log.on_undo(lambda: self._put_back(function, arn, previous, transition))

    def function_deleted(self, function: Function) -> None:
        arn = function.qualified_arn  # a version's is qualified
        self.log.log({"op": "function_deleted", "arn": arn})
        if self.log.durable:  # refused with its request: not deleted
            gone = {key: state for key, state in self.logged.items() if key == arn or key.startswith(f"{arn}:")}
            for key in gone:
                del self.logged[key]
            self.log.on_undo(lambda: (self.logged.update(gone), self.registry.restore_deleted(function)))

    def on_undo(self, undo: Callable[[], Any]) -> None:
        """How to take back a change to a function's files, should its request be refused."""
        self.log.on_undo(undo)

    def after_commit(self, action: Callable[[], Any]) -> None:
        """Done once the change's request is written down (a deleted function's files removed)."""
        self.log.after_commit(action)

    def _put_back(
        self, function: Function, arn: str, previous: dict[str, Any] | None, transition: tuple[str, str] | None
    ) -> None:
        """A function or version as the log holds it, after a change to it the disk refused, in the state it was in
        before (an update the change started is not in progress): not made, if the log holds none."""
        if previous is None:
            self.logged.pop(arn, None)
            self.registry.forget(arn)
            return
        self.logged[arn] = previous
        before = function_from_state(copy.deepcopy(previous), self.state_dir)
        function.changed()  # its workers are of the change refused
        for name in (*FIELDS, "aliases", "code_dir", "update"):  # its RevisionId, and its update in progress or none
            setattr(function, name, getattr(before, name))
        if function.update is not None:
            function.update.previous.latest = function
        function.transition = transition

    def write_logs(self, account_id: str, region: str, group: str, stream: str, events: list[tuple[int, str]]) -> None:
        """An invocation's log events (functions/logs/log_groups.py) logged, then put in moto's CloudWatch Logs, under the
        lock a snapshot is taken under: kill -9 loses none that an invocation's caller was answered after. In memory,
        moto's own lock is enough (and pollers running invocations do not wait on the emulator's lock for their
        logs)."""
        if not self.log.durable:
            return put_events(account_id, region, group, stream, events)
        with self.lock:
            try:  # logged first, at once: a full disk's events are dropped, not shown only to vanish at a restart
                self.log.log_all([json.dumps(
                    {"op": "function_logs", "account": account_id, "region": region, "group": group,
                     "stream": stream, "events": events}, separators=(",", ":")
                ).encode()])  # fmt: skip
            except WriteFailed as failure:
                return self.refused(failure)
            put_events(account_id, region, group, stream, events)

    def reset(self) -> None:
        self.logged.clear()

    def snapshot_entries(self, generation: int) -> Iterator[dict[str, Any]]:
        for function in self.registry.functions.values():
            if function.target is None:
                yield {"kind": "function", "state": function_state(function, self.state_dir)}
                for version in function.versions.values():  # each after its $LATEST, which recovery puts it under
                    yield {"kind": "function", "state": function_state(version, self.state_dir)}

    def replay(self, entry: dict[str, Any]) -> None:
        op = entry["op"]
        if op == "function":
            function = function_from_state(copy.deepcopy(entry["state"]), self.state_dir)
            self.logged[function.qualified_arn] = entry["state"]
            self.registry.restore(function)
        elif op == "function_deleted":
            arn = entry["arn"]
            for key in [key for key in self.logged if key == arn or key.startswith(f"{arn}:")]:
                del self.logged[key]
            self.registry.forget(arn)
        else:
            put_events(entry["account"], entry["region"], entry["group"], entry["stream"], entry["events"])


def function_state(function: Function, state_dir: Path) -> dict[str, Any]:
    state = {name: getattr(function, name) for name in FIELDS}
    state["code_dir"] = os.path.relpath(function.code_dir, state_dir) if function.code_dir else None
    state["aliases"] = [alias.to_state() for alias in function.aliases.values()]
    update = function.update
    state["update"] = None if update is None else {
        "ends": update.ends, "revision_id": update.revision_id, "published": update.published,
        "previous": function_state(update.previous, state_dir),
    }  # fmt: skip
    return state


def function_from_state(state: dict[str, Any], state_dir: Path) -> Function:
    """A function's $LATEST or one of its versions as function_state wrote it (functions/registry.py restore puts a
    version under its $LATEST)."""
    code_dir = state.pop("code_dir")
    update = state.pop("update", None)  # none in a state written before updates were kept
    state["aliases"] = {alias["name"]: Alias(**alias) for alias in state.pop("aliases", [])}
    function = Function(**state)
    function.code_dir = state_dir / code_dir if code_dir else None
    if update is not None:
        previous = function_from_state(update["previous"], state_dir)
        previous.latest = function  # it answers to $LATEST for what is kept there (Function.as_before_update)
        function.update = Update(ends=update["ends"], revision_id=update["revision_id"], previous=previous,
                                 published=update.get("published"))
    return function

"""Stacks on disk: <state_dir>/cloudformation/stacks.json, every stack (its template, parameters, resources and
events), change set and export, swapped in whole with os.replace at each operation's commit point (stack_commits.py),
before the answer; read back when the emulator starts. The resources themselves are durable as any (they were made
through Eddy's APIs). A write the disk refuses raises WriteFailed (fault point `stacks`) and leaves the file as it
was."""

from __future__ import annotations

import json
import os
from dataclasses import asdict, fields
from pathlib import Path
from typing import Any

from eddy.emulator.cloudformation.change_sets import ChangeSet
from eddy.emulator.cloudformation.stacks import Stack, StackResource
from eddy.emulator.cloudformation.values import Exports
from eddy.emulator.storage.disk import WriteFailed, inject
from eddy.emulator.storage.wal import CorruptStateError


def save(path: Path, stacks: list[Stack], change_sets: dict[str, ChangeSet], exports: Exports) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    state = {
        "stacks": [stack_state(stack) for stack in stacks],
        "change_sets": [
            {
                **{field.name: getattr(change_set, field.name) for field in fields(ChangeSet) if field.name != "stack"},
                "stack": change_set.stack.stack_id,
            }
            for change_set in change_sets.values()
        ],
        "exports": [[*key, *value] for key, value in exports.exported.items()],
        "importers": [[*key, sorted(users)] for key, users in exports.importers.items()],
    }
    text = json.dumps(state).encode()
    if path.exists() and path.read_bytes() == text:
        return  # nothing changed (an operation refused before it changed anything)
    temporary = path.with_suffix(".json.tmp")
    try:
        inject("stacks", path)
        temporary.write_bytes(text)
        os.replace(temporary, path)
    except OSError as error:  # the file as it was
        temporary.unlink(missing_ok=True)
        raise WriteFailed(path, error) from error


def stack_state(stack: Stack) -> dict[str, Any]:
    state = asdict(stack)
    state["imports"] = sorted(stack.imports)
    state["resources"] = [asdict(resource) for resource in stack.resources.values()]
    return state


def load(path: Path) -> tuple[list[Stack], dict[str, ChangeSet], Exports]:
    exports = Exports()
    if not path.exists():
        return [], {}, exports
    try:
        state = json.loads(path.read_text())
        stacks = []
        for saved in state["stacks"]:
            resources = [StackResource(**resource) for resource in saved.pop("resources")]
            stack = Stack(**{**saved, "imports": set(saved["imports"])})
            stack.resources = {resource.logical_id: resource for resource in resources}
            stacks.append(stack)
        by_id = {stack.stack_id: stack for stack in stacks}
        change_sets = {}
        for saved in state["change_sets"]:
            change_set = ChangeSet(**{**saved, "stack": by_id[saved["stack"]]})
            change_sets[change_set.change_set_id] = change_set
        for account, region, name, stack_id, value in state["exports"]:
            exports.exported[(account, region, name)] = (stack_id, value)
        for account, region, name, users in state["importers"]:
            exports.importers[(account, region, name)] = set(users)
    except (ValueError, KeyError, TypeError) as error:
        raise CorruptStateError(f"{path}: the stacks file is corrupt ({type(error).__name__}: {error})") from None
    return stacks, change_sets, exports

"""A stack operation all or nothing against the disk: writing stacks.json (stack_store.py) is its commit point.

The resources an operation makes, changes or deletes are made through Eddy's own APIs, each in a request of its own
(durable on its own); the stacks' record is the file. So an operation writes the file while what it did can still
be taken back, and takes it back if the disk refuses the file:
  - a create (CreateStack, a change set that creates): at its end; refused, every resource it made is deleted;
  - an update (UpdateStack, a change set that updates): before its cleanup, so the old physical resources a
    replacement left and the resources the new template dropped are deleted only once the file holds the update
    (stack_operations.py's `commit`); refused, every resource it made (new, or a replacement) is deleted and every
    one it changed in place is changed back, as an update's rollback does;
  - a delete (DeleteStack): before any resource is deleted (DELETE_IN_PROGRESS on disk); refused, none was.
Then the operation's stacks (those it works on: Operations.touching), their change sets and their exports are put
back as the file holds them, every other stack left as it is (another request's, running at the same time on
another thread: its resources and its record are its own), and the request answers
CloudFormation's 500 InternalFailure (api/cloudformation), which the SDKs retry; nothing of the operation is seen,
then or after a restart. What a stack's own requests wrote is taken back by requests too (a queue deleted again),
so a disk that refuses every write can leave a resource the operation made (its deletion refused as well): logged.
A write refused after the commit point (the last statuses and events) is logged and the operation stands: the file
holds its changes, and the next write carries its final status.

A nested stack's operation (its parent's AWS::CloudFormation::Stack making or changing it through the API, in a
request of its own: on this thread in-process, on another over HTTP) started while its parent's operation has not
reached its commit point is part of the parent's: it writes nothing itself, the parent's commit writes it, a refusal
takes it back with the parent, and an update's cleanup inside it waits for the parent's commit (AWS cleans nested
stacks up in the root stack's cleanup phase). The parent names the child before asking for it (`nesting`).
"""

from __future__ import annotations

import logging
import threading
from contextlib import contextmanager
from typing import Any, Callable, Iterator, TypeVar

from eddy.emulator.cloudformation import stack_store
from eddy.emulator.cloudformation.resource_types import kind_of
from eddy.emulator.cloudformation.stacks import STACK_TYPE, Stack
from eddy.emulator.cloudformation.values import Exports, StackValues
from eddy.emulator.storage.disk import WriteFailed

#: the stacks' service (service.py's CloudFormation: its stacks, change sets, exports, lock, file, provisioning)
CloudFormation = Any

log = logging.getLogger("eddy")
T = TypeVar("T")


class Operations:
    """The stack operations running on each thread (one inside another: a nested stack's own request, in-process),
    each with the stacks it works on: a refused one takes back those alone, never a stack another request is making
    at the same time (on another thread)."""

    def __init__(self) -> None:
        self._threads = threading.local()
        #: the stacks a running operation is asking for, by name (`nesting`): the operation each is part of
        self._nesting: dict[str, _Running] = {}
        self._nesting_lock = threading.Lock()

    def _running(self) -> list[_Running]:
        try:
            return self._threads.running  # type: ignore[no-any-return]
        except AttributeError:
            self._threads.running = []
            return self._threads.running  # type: ignore[no-any-return]

    @contextmanager
    def nesting(self, name: str) -> Iterator[None]:
        """Inside, an operation on the stack `name` (the thread's innermost operation's nested stack, asked for
        through the API) is part of the thread's innermost operation, should that one not have reached its commit
        point."""
        running = self._running()
        if not running or running[-1].committed:
            yield
            return
        with self._nesting_lock:
            self._nesting[name] = running[-1]
        try:
            yield
        finally:
            with self._nesting_lock:
                self._nesting.pop(name, None)

    def touching(self, stack_id: str) -> None:
        """The thread's innermost operation works on the stack `stack_id` (and so does each operation it is part of)."""
        running = self._running()
        if not running:
            return
        state = running[-1]
        if state.parent is None and not state.stacks:  # its first stack: a nested stack its parent is asking for?
            with self._nesting_lock:
                parent = self._nesting.get(_name_of(stack_id))
            if parent is not None and parent is not state and not parent.committed:
                state.parent = parent
        while state is not None:
            state.stacks.add(stack_id)
            state = state.parent

    @property
    def joined(self) -> bool:
        """Whether the thread's innermost operation is part of another's (its commit is that one's)."""
        running = self._running()
        return bool(running) and running[-1].parent is not None

    def after_root_commit(self, cleanup: Callable[[], None]) -> None:
        """`cleanup` (a nested stack's update's) done at the commit of the operation the thread's is part of."""
        root = self._running()[-1]
        while root.parent is not None:
            root = root.parent
        root.cleanups.append(cleanup)

    def committed(self) -> list[Callable[[], None]]:
        """The thread's innermost operation passed its commit point: the cleanups of the nested stacks part of it,
        to do now."""
        running = self._running()
        if not running:
            return []
        running[-1].committed = True
        cleanups, running[-1].cleanups = running[-1].cleanups, []
        return cleanups

    def run(self, service: CloudFormation, operation: Callable[[], T]) -> T:
        """`operation` (one that may change stacks) run all or nothing against the disk (the module's docstring):
        WriteFailed if the disk refused it before its commit point, everything of it taken back."""
        running = self._running()
        state = _Running()
        running.append(state)
        try:
            try:
                answer = operation()
            except WriteFailed:  # its commit point refused (an update's, a delete's)
                take_back(service, state.stacks)
                raise
            except BaseException:  # refused otherwise: what it changed before is written down, as before
                _end(service, state)
                raise
            _end(service, state)
            return answer
        finally:
            running.pop()


def _name_of(stack_id: str) -> str:
    """A stack's name from its id (arn:aws:cloudformation:<region>:<account>:stack/<name>/<uuid>)."""
    return stack_id.split(":stack/", 1)[-1].split("/", 1)[0]


class _Running:
    """One running operation: the stacks it works on, whether it passed its commit point, the operation it is part
    of (a nested stack's, its parent's) and the cleanups of the nested stacks part of it."""

    __slots__ = ("stacks", "committed", "parent", "cleanups")

    def __init__(self) -> None:
        self.stacks: set[str] = set()
        self.committed = False
        self.parent: _Running | None = None
        self.cleanups: list[Callable[[], None]] = []


def _end(service: CloudFormation, state: _Running) -> None:
    if state.parent is not None:  # part of another operation, whose commit and end write it
        return
    try:
        service.save()
    except WriteFailed as failure:
        if not state.committed:
            take_back(service, state.stacks)
            raise
        log.warning("a stack operation stands, but its last statuses could not be written: %s", failure.reason)


def take_back(service: CloudFormation, stack_ids: set[str]) -> None:
    """The stacks `stack_ids` taken back where their record differs from the file's: the resources each made deleted,
    the ones it changed in place changed back; then those stacks, their change sets and their exports put back as the
    file holds them. Every other stack (another request's, running now) is left as it is."""
    saved, saved_change_sets, saved_exports = stack_store.load(service.path)
    by_id = {stack.stack_id: stack for stack in saved}
    with service.lock:
        changed = [
            stack
            for stack in service.stacks
            if stack.stack_id in stack_ids
            and (
                stack.stack_id not in by_id
                or stack_store.stack_state(stack) != stack_store.stack_state(by_id[stack.stack_id])
            )
        ]
    for stack in changed:  # a nested stack taken back here is taken back as a stack, not through its parent's resource
        _undo_resources(service, stack, by_id.get(stack.stack_id), stack_ids)
    changed_ids = {stack.stack_id for stack in changed}
    with service.lock:
        service.stacks[:] = [
            by_id[stack.stack_id] if stack.stack_id in changed_ids else stack
            for stack in service.stacks
            if stack.stack_id not in changed_ids or stack.stack_id in by_id
        ]
        current = {stack.stack_id: stack for stack in service.stacks}
        for change_set_id, change_set in list(service.change_sets.items()):
            if change_set.stack.stack_id in stack_ids:
                del service.change_sets[change_set_id]
        for change_set_id, change_set in saved_change_sets.items():
            if change_set.stack.stack_id in stack_ids:
                change_set.stack = current[change_set.stack.stack_id]
                service.change_sets[change_set_id] = change_set
        _put_back_exports(service.exports, saved_exports, stack_ids)


def _put_back_exports(exports: Exports, saved: Exports, stack_ids: set[str]) -> None:
    """The exports the stacks `stack_ids` make and import put back as `saved` holds them; the others' left as they
    are."""
    for key in set(exports.exported) | set(saved.exported):
        if key in saved.exported and saved.exported[key][0] in stack_ids:
            exports.exported[key] = saved.exported[key]
        elif key in exports.exported and exports.exported[key][0] in stack_ids:
            del exports.exported[key]
    for key in set(exports.importers) | set(saved.importers):
        users = {user for user in exports.importers.get(key, ()) if user not in stack_ids}
        users |= {user for user in saved.importers.get(key, ()) if user in stack_ids}
        if users:
            exports.importers[key] = users
        else:
            exports.importers.pop(key, None)


def _undo_resources(service: CloudFormation, stack: Stack, saved: Stack | None, taken_back: set[str]) -> None:
    """The resources `stack` holds that its saved record does not (made, or a replacement) deleted, dependents
    first, whatever their DeletionPolicy (a refused operation leaves nothing); those changed in place changed
    back. A nested stack among `taken_back` is left to its own taking back."""
    values = StackValues(stack, {}, {}, service.exports, service._azs, service.name_of)
    provisioning = service.deployment(stack, values).provisioning
    for logical_id in service.order(stack):
        resource = stack.resources[logical_id]
        kind = kind_of(resource.type)
        if kind is None or not resource.physical_id or resource.status == "DELETE_COMPLETE":
            continue
        if resource.type == STACK_TYPE and resource.physical_id in taken_back:
            continue
        before = saved.resources.get(logical_id) if saved is not None else None
        try:
            if before is None or before.status == "DELETE_COMPLETE" or before.physical_id != resource.physical_id:
                kind.delete(provisioning(logical_id), resource.physical_id, resource.properties)
            elif before.properties != resource.properties:
                kind.update(provisioning(logical_id), resource.physical_id, resource.properties, before.properties)
        except Exception:  # the others are still taken back
            log.exception(
                "a resource of a stack operation the disk refused could not be taken back: %s %s (%s)",
                resource.type,
                resource.physical_id,
                logical_id,
            )


"""A function's execution environments: the worker subprocesses that run uploaded code (runtimes/workers.py), kept
idle per version and kind (on demand, provisioned) between invocations, and known by the code folder each one runs
in, so that a folder is removed only once no worker runs in it.

    environments = ExecutionEnvironments(start)       # start(function, kind): a new Worker (the Invoker's)
    worker = environments.take(function, ON_DEMAND)   # an idle one of its revision, else a new one; None once closed
    environments.give_back(function, worker, ON_DEMAND)
    environments.ended(worker)                        # it died or was killed: its folder may go
    environments.when_unused(folder, remove)          # remove() once no worker runs in `folder` or below it

Lambda finishes an invocation on the code it started with: one in flight while its function's update completes, or
while the function is deleted, still finds its files (the registry's removal of the previous code waits here). When
the emulator closes or is reset, every worker is stopped, busy or idle, before its files go.
"""

from __future__ import annotations

import threading
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Callable

if TYPE_CHECKING:
    from eddy.emulator.functions.function import Function
    from eddy.emulator.functions.runtimes.workers import Worker


class ExecutionEnvironments:
    def __init__(self, start: Callable[[Function, str], Worker]) -> None:
        self._start = start
        #: idle workers by the version they run and their kind of environment
        self._idle: dict[tuple[str, str], list[Worker]] = {}
        #: every worker not known to have ended, by the code folder it runs in
        self._folders: dict[Worker, Path] = {}
        #: the code folders workers are being started in (a removal waits for those too)
        self._starting: Counter[Path] = Counter()
        #: removals waiting for a folder's workers to end: (folder, what removes it)
        self._waiting: list[tuple[Path, Callable[[], None]]] = []
        #: close() was called: no worker is started or kept from then on
        self._closed = False
        self._changed = threading.Condition()

    def take(self, function: Function, kind: str) -> Worker | None:
        """An idle worker of the function's revision, else a new one; None once closed (an invocation still running
        when its emulator closes: the code folder a new worker would run in is being removed)."""
        stale = []
        with self._changed:
            if self._closed:
                return None
            idle = self._idle.setdefault((function.qualified_arn, kind), [])
            while idle:
                worker = idle.pop()
                if worker.revision == function.revision and worker.process.poll() is None:
                    break
                stale.append(worker)
            else:
                worker = None
        self._stop(stale)
        return worker if worker is not None else self.start(function, kind)

    def start(self, function: Function, kind: str) -> Worker | None:
        """A new worker of the function (None once closed)."""
        folder = _folder_of(function)
        with self._changed:
            if self._closed:
                return None
            self._starting[folder] += 1
        worker = None
        try:
            worker = self._start(function, kind)
        finally:
            with self._changed:
                self._starting[folder] -= 1
                if not self._starting[folder]:
                    del self._starting[folder]
                if worker is not None:
                    self._folders[worker] = folder
                closed = self._closed
                self._changed.notify_all()
            if worker is None:  # it could not be started: a removal may have waited for it
                self._run(self._unblocked())
        if closed:  # closed while it started
            self._stop([worker])
            return None
        return worker

    def give_back(self, function: Function, worker: Worker, kind: str) -> None:
        """An invocation's worker, idle again; stopped instead once closed (nothing will take it again) or when its
        code folder is to be removed (its function was updated or deleted while it ran)."""
        with self._changed:
            folder = self._folders.get(worker)
            retired = folder is not None and any(_within(folder, removed) for removed, _ in self._waiting)
            if not self._closed and not retired:
                self._idle.setdefault((function.qualified_arn, kind), []).append(worker)
                return
        self._stop([worker])

    def ended(self, worker: Worker) -> None:
        """A worker that was killed or died: the removals that waited for it run."""
        with self._changed:
            self._folders.pop(worker, None)
            ready = self._unblocked()
        self._run(ready)

    def retire(self, function: Function) -> None:
        """Stop the idle workers of a function's version, of every kind (its code or configuration changed, or it was
        deleted)."""
        with self._changed:
            keys = [key for key in self._idle if key[0] == function.qualified_arn]
            workers = [worker for key in keys for worker in self._idle.pop(key)]
        self._stop(workers)

    def stop_all(self) -> None:
        """Stop every worker, busy or idle (the emulator is reset: every function's files go); workers being started
        are waited for, then stopped too."""
        with self._changed:
            self._changed.wait_for(lambda: not self._starting)
            workers = list(self._folders)
            self._idle.clear()
        self._stop(workers)

    def close(self) -> None:
        """No worker is started or kept from now on, and every one is stopped (its emulator removes the folders)."""
        with self._changed:
            self._closed = True
        self.stop_all()

    def when_unused(self, folder: Path, remove: Callable[[], None]) -> None:
        """remove() now if no worker runs in `folder` or a folder below it, else once the last of them ended."""
        with self._changed:
            self._waiting.append((folder, remove))
            ready = self._unblocked()
        self._run(ready)

    def _stop(self, workers: list[Worker]) -> None:
        for worker in workers:
            worker.kill()
        with self._changed:
            for worker in workers:
                self._folders.pop(worker, None)
            ready = self._unblocked()
        self._run(ready)

    def _unblocked(self) -> list[Callable[[], None]]:
        """The waiting removals no worker holds back any more, taken off the list (called holding the lock)."""
        used = [*self._folders.values(), *self._starting]
        ready = [(f, remove) for f, remove in self._waiting if not any(_within(u, f) for u in used)]
        self._waiting = [waiting for waiting in self._waiting if waiting not in ready]
        return [remove for _, remove in ready]

    @staticmethod
    def _run(removals: list[Callable[[], None]]) -> None:
        for remove in removals:
            remove()


def _folder_of(function: Function) -> Path:
    assert function.code_dir is not None, "a registered callable has no worker"
    return Path(function.code_dir)


def _within(folder: Path, removed: Path) -> bool:
    return folder == removed or removed in folder.parents

"""Every process Eddy starts dies with the process that started it, whatever ends that one (SIGKILL included).

    process = start([...], stdin=subprocess.PIPE, ...)     # subprocess.Popen's arguments; a Popen

On Linux the child asks the kernel, between fork and exec, for SIGKILL when its parent dies
(prctl(PR_SET_PDEATHSIG), set by a preexec_fn through ctypes). The kernel sends it when the *thread* that forked
the child ends, not when the process does (prctl(2): "the parent thread"), so every child is forked by a thread
that lives as long as the process: the main thread, or else one starter thread made on first use. A worker
started from a thread of a pool, or from a mapping's poller that stops later, would otherwise be killed with that
thread. A child whose parent died between the fork and the prctl kills itself at once.

Elsewhere there is no such signal: a worker subprocess still ends when the pipe it reads its requests from
closes (between invocations), and Spark's JVM when its stdin closes (pyspark's gateway watches it).
"""

from __future__ import annotations

import ctypes
import os
import queue
import signal
import subprocess
import sys
import threading
from concurrent.futures import Future
from typing import Any, Callable

#: <linux/prctl.h>
PR_SET_PDEATHSIG = 1
#: what a child gets when its parent dies: nothing of a worker or a server started for a test may outlive it
DEATH_SIGNAL = signal.SIGKILL


def start(argv: list[str], **popen_options: Any) -> subprocess.Popen:
    """subprocess.Popen(argv, **popen_options), the child bound to this process's life (on Linux)."""
    if not sys.platform.startswith("linux"):
        return subprocess.Popen(argv, **popen_options)
    if "preexec_fn" in popen_options:
        raise ValueError("start() sets the child's preexec_fn itself")
    preexec = _dies_with_parent(DEATH_SIGNAL)
    return _starter.run(lambda: subprocess.Popen(argv, preexec_fn=preexec, **popen_options))


def _dies_with_parent(signum: int) -> Callable[[], None]:
    """The preexec_fn: everything it calls is looked up here, in the parent, so the child only makes one call."""
    prctl = ctypes.CDLL(None, use_errno=True).prctl
    prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]
    parent = os.getpid()
    getpid, getppid, kill = os.getpid, os.getppid, os.kill

    def preexec() -> None:
        prctl(PR_SET_PDEATHSIG, signum, 0, 0, 0)
        if getppid() != parent:  # the parent died before the prctl: no signal will come
            kill(getpid(), signum)

    return preexec


class _Starter:
    """Forks children from a thread that lives as long as the process (see the module's docstring)."""

    def __init__(self) -> None:
        self._requests: queue.SimpleQueue[tuple[Callable[[], Any], Future]] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def run(self, fork: Callable[[], subprocess.Popen]) -> subprocess.Popen:
        if threading.current_thread() is threading.main_thread():
            return fork()
        with self._lock:
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._serve, name="eddy-child-starter", daemon=True)
                self._thread.start()
        done: Future = Future()
        self._requests.put((fork, done))
        return done.result()

    def _serve(self) -> None:
        while True:
            fork, done = self._requests.get()
            try:
                done.set_result(fork())
            except BaseException as error:  # the caller gets it, as if it had called Popen itself
                done.set_exception(error)


_starter = _Starter()

"""Python workers forked from a template that has already imported boto3 (worker_template.py, beside this module).

    process = start_worker(argv, cwd, environment)   # a ForkedWorker, or None: start this worker by exec (Popen)

A fresh interpreter spends about 0.5 s of CPU importing boto3 and botocore, which most handlers import: a worker
forked from the template finds them imported and pays for its handler's own work only. One template per Eddy
process, started with the first Python worker (through processes/children.py: it dies with Eddy, and its children
with it), forks every worker it can start as that worker's own command would have run:

- the command is this interpreter running worker.py, and the worker's interpreter start-up variables (PYTHON*, the
  locale's LANG, LC_ALL, LC_CTYPE) are the template's (the function sets none of its own);
- its PYTHONPATH is the function's folders (its code, its layers) before the template's own path, and none of those
  folders holds a module the template has imported (a function that bundles its own boto3 gets its own: Lambda puts
  the function's code first), nor a sitecustomize or usercustomize.

Any other worker, and every worker while the template cannot be started, starts by exec as before (a template that
died is replaced by the next worker that needs one). A ForkedWorker is the part of subprocess.Popen a Worker uses
(pid, stdin, stdout, poll, wait, kill): the template, its parent, reaps it and says its exit status, and kills its
process group when asked while it is not reaped (so never another process's group).
"""

from __future__ import annotations

import io
import json
import os
import queue
import signal
import socket
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

from eddy.emulator.processes import children

SCRIPT = Path(__file__).resolve().with_name("worker_template.py")
WORKER = Path(__file__).resolve().parents[1] / "worker.py"
#: the variables the interpreter reads as it starts (besides PYTHONPATH): a worker that sets others than the
#: template's starts by exec (the PYTHON* ones the Python Runtime honours, and the locale it decodes with)
LOCALE = ("LANG", "LC_ALL", "LC_CTYPE")
#: modules a fresh interpreter imports from its path when it starts (site.py): a function that has one starts by exec
START_UP_MODULES = frozenset({"sitecustomize", "usercustomize"})
#: how long the template may take to import what it preloads, and a fork to be answered, before it is given up on
STARTING_SECONDS = 60
#: a template's answer or a worker's exit, read by the template's reader thread
LARGEST = 1 << 16


class TemplateGone(Exception):
    """The template ended, or did not answer: the worker starts by exec."""


def start_up_variables(environment: dict[str, str]) -> dict[str, str]:
    return {name: value for name, value in environment.items()
            if (name.startswith("PYTHON") and name != "PYTHONPATH") or name in LOCALE}  # fmt: skip


class Template:
    """One template process and the thread that reads what it says."""

    def __init__(self, environment: dict[str, str]) -> None:
        self.environment = environment
        self.path = [entry for entry in environment["PYTHONPATH"].split(os.pathsep) if entry]
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self._channel = ours
        self._starting = threading.Lock()  # one request answered at a time
        self._answers: queue.SimpleQueue[dict[str, Any] | None] = queue.SimpleQueue()
        self._exits = threading.Condition()
        self._statuses: dict[int, int] = {}  # a forked worker's exit status, until its ForkedWorker takes it
        self.alive = True
        try:
            self.process = children.start(
                [sys.executable, str(SCRIPT), str(theirs.fileno())],
                pass_fds=(theirs.fileno(),),
                env=environment,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                start_new_session=True,  # a terminal's Ctrl-C is Eddy's to answer, as for its workers
            )
        except OSError:
            ours.close()
            raise
        finally:
            theirs.close()
        ours.settimeout(STARTING_SECONDS)
        try:
            hello = json.loads(ours.recv(LARGEST) or b"{}")
        except (OSError, ValueError):
            hello = {}
        ours.settimeout(None)
        if not hello.get("ready"):
            self.stop()
            raise TemplateGone("the template did not start")
        self.modules = frozenset(hello["modules"]) | START_UP_MODULES
        threading.Thread(target=self._read, name="eddy-python-template", daemon=True).start()

    def forks(self, argv: list[str], environment: dict[str, str]) -> bool:
        """Whether `argv` in `environment` would run as a child of this template runs (see the module's docstring)."""
        if argv[:2] != [sys.executable, str(WORKER)] or len(argv) != 3:
            return False
        if start_up_variables(environment) != start_up_variables(self.environment):
            return False
        entries = [entry for entry in environment.get("PYTHONPATH", "").split(os.pathsep) if entry]
        if len(entries) < len(self.path) or entries[len(entries) - len(self.path):] != self.path:
            return False
        for folder in entries[: len(entries) - len(self.path)]:
            try:
                names = os.listdir(folder)
            except FileNotFoundError:  # a layer's folder a function does not have
                continue
            except OSError:
                return False
            if any(name.partition(".")[0] in self.modules for name in names):
                return False
        return True

    def fork(self, argv: list[str], cwd: str, environment: dict[str, str]) -> ForkedWorker:
        """A worker forked with this environment and folder; OSError as Popen raises it (its folder is gone),
        TemplateGone if the template ended or did not answer."""
        stdin_read, stdin_write = os.pipe()
        stdout_read, stdout_write = os.pipe()
        request = json.dumps({"argv": argv, "cwd": cwd, "env": environment}).encode()
        try:
            said = self._ask(request, [stdin_read, stdout_write, 2])  # its stderr is this process's, as Popen's
        finally:
            os.close(stdin_read)
            os.close(stdout_write)
        if said is None or "failed" in said:
            os.close(stdin_write)
            os.close(stdout_read)
        if said is None:
            raise TemplateGone("the template ended or did not answer")
        if "failed" in said:
            raise OSError(*said["failed"])
        return ForkedWorker(self, said["started"], argv, stdin_write, stdout_read)

    def _ask(self, request: bytes, fds: list[int]) -> dict[str, Any] | None:
        """The template's answer to a fork request; None if it ended, or did not answer in time (then it is ended)."""
        with self._starting:
            if not self.alive:
                return None
            try:
                socket.send_fds(self._channel, [request], fds)
                return self._answers.get(timeout=STARTING_SECONDS)
            except OSError:
                return None
            except queue.Empty:
                self.stop()
                return None

    def kill(self, pid: int) -> None:
        """The worker's process group killed, unless the template has reaped the worker already."""
        try:
            self._channel.send(json.dumps({"kill": pid}).encode())
        except OSError:  # the template ended: its workers with it
            pass

    def wait(self, worker: ForkedWorker, timeout: float | None) -> None:
        """worker.returncode set once the worker has ended (waiting up to `timeout`; None: as long as it runs). Any
        number of threads may wait for one worker (an invocation reading its end while close() kills it): the
        first to see its status sets it, under the lock the others look at it with. A template that ended ended its
        workers (their death signal, SIGKILL)."""
        if self.alive and self.process.poll() is not None:  # it ended, and its reader has not said so yet
            self._ended()
        with self._exits:
            self._exits.wait_for(
                lambda: worker.returncode is not None or worker.pid in self._statuses or not self.alive, timeout
            )
            if worker.returncode is None and worker.pid in self._statuses:
                worker.returncode = self._statuses.pop(worker.pid)
            elif worker.returncode is None and not self.alive:
                worker.returncode = -signal.SIGKILL

    def stop(self) -> None:
        self.process.kill()
        self.process.wait()
        self._ended()

    def _read(self) -> None:
        while True:
            try:
                message = self._channel.recv(LARGEST)
            except OSError:
                message = b""
            if not message:
                break
            said = json.loads(message)
            if "exited" in said:
                with self._exits:
                    self._statuses[said["exited"]] = said["status"]
                    self._exits.notify_all()
            else:
                self._answers.put(said)
        self._ended()  # its workers are sent their death signal as it ends: none is waited for or killed again
        self.process.wait()

    def _ended(self) -> None:
        with self._exits:
            self.alive = False
            self._exits.notify_all()
        self._answers.put(None)


class ForkedWorker:
    """A worker forked by the template: what Worker uses of subprocess.Popen (stdin written as text, line by line;
    stdout read by its descriptor). kill() kills its process group, as Worker.kill does a Popen's."""

    def __init__(self, template: Template, pid: int, argv: list[str], stdin: int, stdout: int) -> None:
        self.pid, self.args, self.returncode = pid, argv, None
        self._template = template
        self.stdin = io.TextIOWrapper(io.open(stdin, "wb"), write_through=True, line_buffering=True)
        self.stdout = io.open(stdout, "rb")

    def poll(self) -> int | None:
        if self.returncode is None:
            self._template.wait(self, timeout=0)
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        if self.returncode is None:
            self._template.wait(self, timeout)
        if self.returncode is None:
            raise subprocess.TimeoutExpired(self.args, timeout or 0)
        return self.returncode

    def kill(self) -> None:
        if self.poll() is None:
            self._template.kill(self.pid)


class _Templates:
    """The one template of this process, started on first use and again once it has ended."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._template: Template | None = None

    def current(self) -> Template | None:
        with self._lock:
            if self._template is None or not self._template.alive:
                try:
                    self._template = Template(_template_environment())
                except (OSError, TemplateGone):  # workers start by exec until the next one tries again
                    self._template = None
            return self._template


def _template_environment() -> dict[str, str]:
    """What a Python worker's environment has that is not its function's: this process's variables (Lambda's AWS_*
    ones are the function's), unbuffered output, this interpreter's path after the function's folders."""
    environment = {name: value for name, value in os.environ.items() if not name.startswith("AWS_")}
    environment.update(PYTHONUNBUFFERED="1", PYTHONPATH=os.pathsep.join(sys.path[1:]))
    return environment


_templates = _Templates()


def start_worker(argv: list[str], cwd: str, environment: dict[str, str]) -> ForkedWorker | None:
    """The worker forked from the template, or None when it is to start by exec (see the module's docstring)."""
    if not sys.platform.startswith("linux") or argv[:2] != [sys.executable, str(WORKER)]:
        return None
    template = _templates.current()
    if template is None or not template.forks(argv, environment):
        return None
    try:
        return template.fork(argv, cwd, environment)
    except TemplateGone:
        return None

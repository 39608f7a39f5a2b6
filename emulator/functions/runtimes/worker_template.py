"""The template Python workers are forked from: an interpreter that has already imported what Lambda's Python runtime
provides (boto3, botocore and what they import) and what worker.py imports, so that a worker's Init costs only its
handler's own work (a fresh interpreter pays about 0.5 s of CPU to import boto3 before the handler's first line),
and has read the botocore data files a first client reads (read_sdk_data: about 0.1 s more for a handler's first
client).

    python emulator/functions/runtimes/worker_template.py <socket fd>   (a script, as worker.py: no emulator imported)

runtimes/python_template.py starts it, one per Eddy process, and speaks to it over a Unix socketpair (SOCK_SEQPACKET,
one JSON message a packet). It first says {"ready": true, "modules": [the top-level modules it has imported]}. Each
request {"argv", "env", "cwd"} carries the worker's stdin, stdout and stderr (SCM_RIGHTS); the template forks and
answers {"started": pid} once the child is set up, or {"failed": [errno, message, filename]} (its folder is gone,
as Popen's FileNotFoundError says it). When a child ends the template reaps it and says {"exited": pid, "status":
its exit code, or minus the signal that ended it}. {"kill": pid} kills the child's process group if the child has
not been reaped (the template is its only reaper: no other process's group can have its number then).

A child becomes what `python worker.py <handler>` would be: a session of its own (the worker's process group), killed
when the template dies (which dies with Eddy), the three descriptors as 0, 1 and 2, the function's folder, its
environment (os.environ replaced, the time zone read again), sys.path rebuilt from PYTHONPATH as a fresh interpreter
builds it, sys.argv and sys.orig_argv (a failed Init's retry execs a fresh interpreter of that command line), stdin,
stdout and stderr made as the interpreter makes them under PYTHONUNBUFFERED, then worker.py run as __main__; it ends
as an interpreter ends (SystemExit's code, an uncaught exception's 1, threads waited for, atexit run).
"""

from __future__ import annotations

import ctypes
import gc
import importlib
import io
import json
import os
import runpy
import select
import signal
import socket
import sys
import time
from typing import Any

#: <linux/prctl.h>
PR_SET_PDEATHSIG = 1
#: a request and its three descriptors fit in one packet (an environment of a few hundred variables)
LARGEST = 1 << 20


def preload() -> None:
    """Import what a handler's Init would: worker.py's modules, boto3 and botocore, and what a client and a
    DynamoDB resource import when they are made (their S3 and DynamoDB customisations)."""
    import decimal, itertools, logging, traceback, typing  # noqa: E401, F401  worker.py's own

    for name in ("boto3", "boto3.s3.inject", "boto3.s3.transfer", "boto3.dynamodb.conditions", "boto3.dynamodb.types",
                 "boto3.resources.factory", "boto3.resources.action", "boto3.resources.collection",
                 "botocore.client", "s3transfer.subscribers"):  # fmt: skip
        try:
            importlib.import_module(name)
        except ImportError:  # an interpreter without the SDK still forks workers: worker.py's imports are made
            pass
    read_sdk_data()


#: the services whose models the template reads (besides botocore's endpoints, partitions and default configuration,
#: which every client reads): the ones handlers' clients most often speak to. Each costs the template once (DynamoDB's
#: about 0.05 s of CPU); a client of another service reads its own two files as it would anyway
READ_SERVICES = ("dynamodb", "sqs")


def read_sdk_data() -> None:
    """Read once, here, the botocore data files a handler's first client reads and parses (a fresh interpreter's
    first client, boto3.client("sqs"), spends about 0.1 s of CPU on them, its module already imported): each botocore
    Loader made in a forked worker starts holding them, as the Loader that read them holds them, when it would read
    them from the same place: botocore's own data folder, the only one it searches (no AWS_DATA_PATH, no
    ~/.aws/models). They are botocore's package files, the ones the worker would read; a Loader that searches
    anywhere else reads everything itself."""
    try:
        import boto3.session
        from botocore import loaders
    except ImportError:
        return
    session = boto3.session.Session(aws_access_key_id="template", aws_secret_access_key="template",
                                    region_name="us-east-1")  # fmt: skip
    for service in READ_SERVICES:
        session.client(service)  # what a client reads, under the keys its Loader's cache looks them up by
    read = dict(session._session.get_component("data_loader")._cache)
    # botocore's endpoint resolver completes each endpoint it resolves in place, in the data it read (regions.py's
    # EndpointResolver._merge_keys): the workers get the file as read
    read["load_data_with_path", "endpoints"] = loaders.Loader().load_data_with_path("endpoints")
    builtin_only = [loaders.Loader.CUSTOMER_DATA_PATH, loaders.Loader.BUILTIN_DATA_PATH]
    made = loaders.Loader.__init__

    def __init__(self: loaders.Loader, *args: Any, **kwargs: Any) -> None:
        made(self, *args, **kwargs)
        if (self.search_paths == builtin_only and not os.path.isdir(builtin_only[0])
                and not os.path.isdir(os.path.expanduser(os.path.join("~", ".aws", "models")))):  # fmt: skip
            self._cache.update(read)

    loaders.Loader.__init__ = __init__


def serve(channel: socket.socket) -> dict[str, Any]:
    """Fork a worker for each request until Eddy closes its end; returns only in a forked child: its request."""
    children: dict[int, int] = {}  # pidfd -> pid of each child not yet reaped
    template = os.getpid()
    while True:
        readable, _, _ = select.select([channel, *children], [], [])
        for pidfd in [fd for fd in readable if fd in children]:
            pid = children.pop(pidfd)
            os.close(pidfd)
            _, status = os.waitpid(pid, 0)
            channel.send(json.dumps({"exited": pid, "status": os.waitstatus_to_exitcode(status)}).encode())
        if channel not in readable:
            continue
        message, fds, _, _ = socket.recv_fds(channel, LARGEST, 3)
        if not message:  # Eddy ended: so do its workers (their death signal)
            sys.exit(0)
        request = json.loads(message)
        if "kill" in request:
            if request["kill"] in children.values():  # not reaped: the group is the worker's
                try:
                    os.killpg(request["kill"], signal.SIGKILL)
                except ProcessLookupError:
                    pass
            continue
        errors_read, errors_write = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(errors_read)
            for pidfd in children:
                os.close(pidfd)
            channel.close()
            _become(request, fds, template, errors_write)
            return request
        for fd in (*fds, errors_write):
            os.close(fd)
        with os.fdopen(errors_read, "rb") as errors:
            failure = errors.read()  # nothing: the child closed it set up (or died before it could say)
        if failure:
            os.waitpid(pid, 0)
            channel.send(json.dumps({"failed": json.loads(failure)}).encode())
            continue
        children[os.pidfd_open(pid)] = pid
        channel.send(json.dumps({"started": pid}).encode())


def _become(request: dict[str, Any], fds: list[int], template: int, errors: int) -> None:
    """The forked child made the worker `request` describes; a failure is written to `errors` and ends it."""
    try:
        os.setsid()
        prctl = ctypes.CDLL(None, use_errno=True).prctl
        prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        if os.getppid() != template:  # the template died before the prctl: no signal will come
            os.kill(os.getpid(), signal.SIGKILL)
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
            os.close(fd)
        try:
            os.chdir(request["cwd"])
        except OSError as error:
            raise OSError(error.errno, error.strerror, request["cwd"]) from None
        os.environ.clear()
        os.environ.update(request["env"])
        time.tzset()
        if "tempfile" in sys.modules:
            sys.modules["tempfile"].tempdir = None  # found again from TMPDIR on first use, as a fresh one does
        entries = [os.path.abspath(entry) for entry in request["env"].get("PYTHONPATH", "").split(os.pathsep) if entry]
        script = os.path.dirname(os.path.abspath(request["argv"][1]))  # a fresh interpreter's first entry
        sys.path[:] = list(dict.fromkeys([script, *entries, *sys.path[1:]]))
        importlib.invalidate_caches()
        sys.argv, sys.orig_argv = list(request["argv"][1:]), list(request["argv"])
        _standard_streams()
    except OSError as error:
        os.write(errors, json.dumps([error.errno, error.strerror, error.filename]).encode())
        os._exit(255)
    os.close(errors)


def _standard_streams() -> None:
    """stdin, stdout and stderr over descriptors 0, 1 and 2 as the interpreter makes them with PYTHONUNBUFFERED
    (CPython's create_stdio: stdin buffered, stdout and stderr raw, each written through, newline "\\n")."""
    made = []
    for fd, name, mode, old in ((0, "<stdin>", "r", sys.__stdin__), (1, "<stdout>", "w", sys.__stdout__),
                                (2, "<stderr>", "w", sys.__stderr__)):  # fmt: skip
        binary = io.open(fd, mode + "b", buffering=-1 if mode == "r" else 0, closefd=False)
        (binary if mode == "w" else binary.raw).name = name
        stream = io.TextIOWrapper(binary, old.encoding, old.errors, "\n", write_through=True)
        stream.mode = mode
        made.append(stream)
    sys.stdin, sys.stdout, sys.stderr = made
    sys.__stdin__, sys.__stdout__, sys.__stderr__ = made


if __name__ == "__main__":
    preload()
    channel = socket.socket(fileno=int(sys.argv[1]))
    imported = sorted({name.partition(".")[0] for name in sys.modules})
    channel.send(json.dumps({"ready": True, "modules": imported}).encode())
    gc.collect()
    gc.freeze()  # what the template made stays in pages its children share (their collector never touches them)
    worker = serve(channel)
    del channel
    runpy.run_path(worker["argv"][1], run_name="__main__")

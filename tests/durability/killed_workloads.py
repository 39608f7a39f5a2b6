"""A workload run and then killed with kill -9, for the durability tests in both doors, and the refusals they expect
of the emulator that starts again on its state.

A workload is a script (a test module's WORKLOAD) that defines `workload(client)` and ends with
`run_workload(workload, ...)`: run with workload_command(), it takes its door from its arguments ("server" and a
server's URL, or "inprocess" and a state directory), so each script writes only what it does, not how it reaches
the emulator or how it dies. In process, the script runs emulate() in a process of its own, which kills itself; for a
server, acknowledged_then_killed runs it in the test's own process (it is only the server's client: the server is what
is killed), sparing a Python and its boto3 import per test."""

from __future__ import annotations

import contextlib
import io
import os
import signal
import subprocess
import sys
import urllib.request
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from botocore.exceptions import ClientError

from tests.conftest import REGION, eddy_server

#: the repository's root: where a workload script imports this module from, whatever the directory pytest runs in
ROOT = Path(__file__).resolve().parents[2]


def workload_command(workload: str, mode: str, target: str) -> list[str]:
    """The command that runs the workload script `workload` on a door: mode "server" and a server's URL, or
    "inprocess" and a state directory (the script then runs emulate() on it itself)."""
    prelude = f"import sys; sys.path.insert(0, {str(ROOT)!r})\n"
    return [sys.executable, "-c", prelude + workload, mode, target]


def says_package(says: str) -> bytes:
    """A function's deployment package: app.handler answers {"says": says}."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("app.py", "def handler(event, context):\n    return {'says': %r}\n" % says)
    return buffer.getvalue()


def run_workload(workload: Callable[..., None], *, attempts: int | None = None, delivered: bool = False,
                 server_killed_under_it: bool = False, kill_itself: bool = True,
                 settings: dict[str, Any] | None = None) -> None:
    """A workload script's last line: `workload(client)` on the door its arguments name, `client(name)` giving a
    boto3 client for a service there (and `delivered`: a second argument, a call that waits until every delivery
    has reached its target). `attempts`: server clients' total_max_attempts (1: a request the kill interrupts is
    not retried behind the test's back). `server_killed_under_it`: the test kills the server while the workload
    runs, so a failed request ends the script quietly. `kill_itself`: in process, once the workload returns, the
    process kills itself with kill -9 (no final snapshot: what was acknowledged must be in the log). `settings`: the
    in-process emulator's (a server's are acknowledged_then_killed's `server_flags`)."""
    import boto3
    from botocore.config import Config

    mode, target = sys.argv[1], sys.argv[2]
    if mode == "server":
        config = Config(retries={"total_max_attempts": attempts}) if attempts else None

        def client(name: str) -> Any:
            return boto3.client(name, endpoint_url=target, region_name=REGION, aws_access_key_id="k",
                                aws_secret_access_key="s", config=config)

        def wait_delivered() -> None:
            request = urllib.request.Request(target + "/_eddy/delivered", data=b'{"timeout": 60}', method="POST")
            urllib.request.urlopen(request, timeout=90).read()

        try:
            workload(client, *([wait_delivered] if delivered else []))
        except Exception:
            if not server_killed_under_it:
                raise
            sys.exit(0)
        return
    from eddy import emulate

    with emulate(state_dir=target, **{"housekeeping_interval": None, **(settings or {})}) as emu:
        workload(lambda name: boto3.client(name, region_name=REGION),
                 *([lambda: emu.assert_delivered(60)] if delivered else []))
        if kill_itself:
            os.kill(os.getpid(), signal.SIGKILL)


def acknowledged_then_killed(kind: str, state: str, workload: str, server_flags: tuple[str, ...] = ()) -> str:
    """Run `workload` (a workload script that prints "ACKED <text>" once its requests were answered) on `state`,
    then kill -9 the process that owns it (the in-process workload kills itself); answers the text. `server_flags`:
    the server's settings (`eddy serve` flags)."""

    def acknowledged(printed: str, errors: str) -> str:
        lines = [line for line in printed.splitlines() if line.startswith("ACKED ")]
        assert lines, errors
        return lines[0][len("ACKED ") :]

    if kind == "inprocess":
        done = subprocess.run(workload_command(workload, "inprocess", state), capture_output=True, text=True,
                              timeout=300, check=False)
        return acknowledged(done.stdout, done.stderr)
    with eddy_server("--state-dir", state, "--housekeeping-interval", "0", *server_flags) as (url, server):
        printed = run_here(workload, "server", url)
        server.send_signal(signal.SIGKILL)
        server.wait(timeout=60)
    return acknowledged(printed, "the workload printed no ACKED line")


def run_here(workload: str, mode: str, target: str) -> str:
    """The workload script run in this process, as workload_command() runs it in its own (its arguments `mode` and
    `target`); answers what it printed."""
    printed, argv = io.StringIO(), sys.argv
    sys.argv = ["-c", mode, target]
    try:
        with contextlib.redirect_stdout(printed):
            exec(compile(workload, "<workload>", "exec"), {"__name__": "__main__"})
    finally:
        sys.argv = argv
    return printed.getvalue()


def refused(call: Callable[[], Any]) -> tuple[str, str]:
    """The error code and message of the ClientError `call` raises."""
    with pytest.raises(ClientError) as error:
        call()
    return error.value.response["Error"]["Code"], error.value.response["Error"]["Message"]

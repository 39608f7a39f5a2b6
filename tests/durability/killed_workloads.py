"""A workload run in a process of its own and then killed with kill -9, for the durability tests in both doors, and
the refusals they expect of the emulator that starts again on its state."""

from __future__ import annotations

import signal
import subprocess
import sys
from collections.abc import Callable
from typing import Any

import pytest
from botocore.exceptions import ClientError

from tests.conftest import eddy_server


def acknowledged_then_killed(kind: str, state: str, workload: str) -> str:
    """Run `workload` (a script given "server" and a server's URL, or "inprocess" and the state directory, that
    prints "ACKED <text>" once its requests were answered) on `state`, then kill -9 the process that owns it (the
    in-process workload kills itself); answers the text."""

    def run(*argv: str) -> str:
        done = subprocess.run(
            [sys.executable, "-c", workload, *argv], capture_output=True, text=True, timeout=300, check=False
        )
        lines = [line for line in done.stdout.splitlines() if line.startswith("ACKED ")]
        assert lines, done.stderr
        return lines[0][len("ACKED ") :]

    if kind == "inprocess":
        return run("inprocess", state)
    with eddy_server("--state-dir", state, "--housekeeping-interval", "0") as (url, server):
        acknowledged = run("server", url)
        server.send_signal(signal.SIGKILL)
        server.wait(timeout=60)
    return acknowledged


def refused(call: Callable[[], Any]) -> tuple[str, str]:
    """The error code and message of the ClientError `call` raises."""
    with pytest.raises(ClientError) as error:
        call()
    return error.value.response["Error"]["Code"], error.value.response["Error"]["Message"]

"""No orphans: a pytest process killed in the middle of a test (SIGTERM, as CI timeouts send it, or SIGKILL) leaves
no Eddy process behind: not the `eddy serve` of eddy_server, not its function workers (Python and Node.js, one
running an invocation, one idle), not the workers of the in-process `eddy`. Eddy's processes are found by a marker
in their environment, which every one of them inherits from the pytest process."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid

import pytest

from tests.conftest import processes_with

pytestmark = pytest.mark.slow

PROJECT_TESTS = '''
import io
import os
import threading
import zipfile

import boto3

READY = os.environ["EDDY_ORPHANS_READY"]
PYTHON = "import os, time\\ndef handler(event, context):\\n    open(os.environ['READY'], 'w').close()\\n    time.sleep(900)\\n"
NODE = ("import { writeFileSync } from 'node:fs';\\n"
        "export const handler = async () => { writeFileSync(process.env.READY, ''); await new Promise(() => {}); };\\n")
QUICK = "def handler(event, context):\\n    return 'done'\\n"


def zipped(name, code):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr(name, code)
    return buffer.getvalue()


def start(lambda_client, name, runtime, file, code):
    """A function that says it started (a file in READY) and then runs until it is killed, invoked once."""
    lambda_client.create_function(
        FunctionName=name, Runtime=runtime, Handler="app.handler", Role="arn:aws:iam::123456789012:role/x",
        Code={"ZipFile": zipped(file, code)}, Timeout=900, Environment={"Variables": {"READY": os.path.join(READY, name)}})
    lambda_client.get_waiter("function_active").wait(FunctionName=name)  # Pending until Active, as on AWS
    lambda_client.invoke(FunctionName=name, InvocationType="Event", Payload=b"{}")


def test_killed_in_the_middle(eddy, eddy_server):
    start(boto3.client("lambda"), "in-process", "python3.12", "app.py", PYTHON)
    served = eddy_server.client("lambda")
    start(served, "python", "python3.12", "app.py", PYTHON)
    start(served, "node", "nodejs20.x", "app.mjs", NODE)
    served.create_function(FunctionName="quick", Runtime="python3.12", Handler="app.handler",
                           Role="arn:aws:iam::123456789012:role/x", Code={"ZipFile": zipped("app.py", QUICK)})
    served.get_waiter("function_active").wait(FunctionName="quick")
    assert served.invoke(FunctionName="quick")["Payload"].read() == b'"done"'  # its worker stays, idle
    open(os.path.join(READY, "test"), "w").close()
    threading.Event().wait()  # until this process is killed
'''
#: what each ready file says: the test reached its end, and each long invocation is running in its worker
READY_FILES = {"test", "in-process", "python", "node"}
#: how long the processes may take to go once pytest is killed (the issue's figure)
GONE_WITHIN = 5.0


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc; the parent-death signal is Linux's")
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGKILL], ids=["SIGTERM", "SIGKILL"])
def test_a_killed_pytest_leaves_no_eddy_process(pytester: pytest.Pytester, signum: int) -> None:
    pytester.makepyfile(test_killed=PROJECT_TESTS)
    ready = pytester.path / "ready"
    ready.mkdir()
    marker = f"EDDY_ORPHANS_MARKER={uuid.uuid4()}"
    name, value = marker.split("=", 1)
    env = {**os.environ, name: value, "EDDY_ORPHANS_READY": str(ready), "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
    log = pytester.path / "pytest.log"
    with log.open("w") as output:
        pytest_process = subprocess.Popen([sys.executable, "-m", "pytest", "-p", "eddy", "-p", "no:cacheprovider",
                                           "-q", "test_killed.py"], cwd=pytester.path, env=env, stdout=output,
                                          stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 300  # a bound on a busy machine: starting eddy serve, Node.js and two workers
        while {path.name for path in ready.iterdir()} != READY_FILES:
            assert pytest_process.poll() is None, log.read_text()
            assert time.monotonic() < deadline, f"not ready: {sorted(path.name for path in ready.iterdir())}"
            time.sleep(0.1)  # polling a condition (files appear), bounded by the deadline
        running = processes_with(marker)
        commands = sorted(running.values())
        assert [c for c in commands if " -m eddy serve " in c] and [c for c in commands if "node_worker" in c], commands
        # the three Python workers (in-process, python, quick) are forked from the worker template of the Eddy that
        # runs them (runtimes/worker_template.py), whose command line they carry: the template and its three workers
        assert len([c for c in commands if "runtimes/worker_template.py " in c]) == 4, "\n".join(commands)
        pytest_process.send_signal(signum)
        pytest_process.wait()
    finally:
        if pytest_process.poll() is None:
            pytest_process.kill()
            pytest_process.wait()
    killed_at = time.monotonic()
    left = processes_with(marker)
    while left and time.monotonic() - killed_at < GONE_WITHIN:
        time.sleep(0.05)  # polling a condition (the processes are gone), bounded by the 5 s
        left = processes_with(marker)
    for pid in left:  # none should be; the test must not leave them either
        os.kill(pid, signal.SIGKILL)
    assert left == {}, f"still running {GONE_WITHIN:g} s after pytest got signal {signum}: {left}"

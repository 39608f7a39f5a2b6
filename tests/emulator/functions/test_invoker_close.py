"""An Invoker closed while invocations run (its emulator closing): no worker is started from then on, and a worker
whose invocation ends afterwards is stopped, not kept. Before, an invocation in flight could start a worker in the
code folder the closing emulator was removing: the worker died at its first os.getcwd() and printed a traceback into
the test run's output (session 12's final run), and a worker returned after close() stayed idle until its parent
exited."""

from __future__ import annotations

import io
import os
import threading
import zipfile

import pytest

from eddy.emulator.functions.invocation import Invoker
from eddy.emulator.functions.registry import FunctionRegistry

#: a handler that says it runs (opening the `running` FIFO for writing waits for the test to read it), then waits
#: for the test to let it answer (reading the `go` FIFO)
BLOCKING = """import os
def handler(event, context):
    with open(os.environ["RUNNING"], "w") as running:
        running.write("running")
    with open(os.environ["GO"]) as go:
        go.read()
    return {"answered": True}
"""


def zipped(code: str) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("app.py", code)
    return buffer.getvalue()


def function_in(tmp_path, code: str, environment: dict[str, str] | None = None):
    return FunctionRegistry(tmp_path / "functions").create(
        name="on-close", account_id="123456789012", region="eu-west-1", handler="app.handler", runtime="python3.11",
        zip_file=zipped(code), now=1_800_000_000.0, timeout=60, memory_size=128, environment=environment or {},
        role="arn:aws:iam::123456789012:role/r", description="",
    )  # fmt: skip


def test_a_closed_invoker_starts_no_worker_and_the_invocation_fails_as_an_exited_runtime(tmp_path):
    function = function_in(tmp_path, "def handler(event, context):\n    return 'never'\n")
    function.creation_completed()
    started = []
    invoker = Invoker()
    invoker.before_worker_start = lambda: started.append("worker")
    invoker.close()
    result = invoker.invoke(function, {}, request_id="11111111-2222-3333-4444-555555555555")
    assert started == []
    assert (result.ok, result.error.error_type, result.error.message) == (
        False,
        "Runtime.ExitError",
        "RequestId: 11111111-2222-3333-4444-555555555555 Error: Runtime exited without providing a reason",
    )


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are POSIX")
def test_a_worker_running_when_its_invoker_closes_is_stopped_with_it(tmp_path):
    """close() stops busy workers too (its emulator removes their code folders next): the invocation fails as a
    runtime that exited on a signal, and nothing is kept."""
    running, go = tmp_path / "running", tmp_path / "go"
    os.mkfifo(running)
    os.mkfifo(go)
    function = function_in(tmp_path, BLOCKING, {"RUNNING": str(running), "GO": str(go)})
    function.creation_completed()
    invoker = Invoker()
    results = []
    invocation = threading.Thread(target=lambda: results.append(invoker.invoke(function, {})))
    invocation.start()
    assert running.read_text() == "running"  # the handler runs in its worker, waiting for `go`
    invoker.close()
    invocation.join(timeout=120)
    assert not invocation.is_alive()
    [result] = results
    assert (result.ok, result.error.error_type, result.error.message) == (
        False,
        "Runtime.ExitError",
        f"RequestId: {result.request_id} Error: Runtime exited with error: signal: killed",
    )
    with pytest.raises(ProcessLookupError):  # stopped and reaped, not left idle
        os.kill(result.worker_pid, 0)
    assert invoker.environments.take(function, "on-demand") is None

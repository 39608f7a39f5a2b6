"""An invocation in flight while its function's update completes, or while the function is deleted, finishes on the
code it started with, its files still there, as on Lambda ("Lambda function states": while an update is in progress,
invocations go to the previous code; an execution environment keeps its /var/task until it is shut down); the
previous code's folder is removed once no worker runs in it. Both doors.

Before: the folder was removed as soon as the update completed or the deletion was written down, under the running
handler (it could no longer read its own files), and a worker starting there at that moment died at its first
os.getcwd() with a traceback in the test run's output."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import pytest

from tests.emulator.functions.test_functions import ROLE, zip_of
from tests.lambda_functions import created_function

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are POSIX")

#: a handler that says where it runs (opening the RUNNING FIFO for writing waits for the test to read it), waits for
#: the test to let it go on (reading the GO FIFO), then reads a file of its own package
HANDLER = """import os
def handler(event, context):
    with open(os.environ["RUNNING"], "w") as running:
        running.write(os.getcwd())
    with open(os.environ["GO"]) as go:
        go.read()
    with open(os.path.join(os.path.dirname(__file__), "code.txt")) as code:
        return {"code": code.read()}
"""


def package(code: str) -> bytes:
    return zip_of({"app.py": HANDLER, "code.txt": code})


def created(door, tmp_path: Path, name: str) -> tuple[Path, Path]:
    """The function made; the FIFOs its handler speaks through: (running, go)."""
    running, go = tmp_path / "running", tmp_path / "go"
    os.mkfifo(running)
    os.mkfifo(go)
    created_function(door.client("lambda"), FunctionName=name, Runtime="python3.12", Role=ROLE,
                     Handler="app.handler", Code={"ZipFile": package("one")}, Timeout=120,
                     Environment={"Variables": {"RUNNING": str(running), "GO": str(go)}})  # fmt: skip
    return running, go


def invoking(door, name: str) -> tuple[threading.Thread, list[dict]]:
    """An invocation running in the background: its thread, and the list its answer goes to."""
    answers: list[dict] = []

    def invoke() -> None:
        response = door.client("lambda").invoke(FunctionName=name, Payload=b"{}")
        answers.append({"StatusCode": response["StatusCode"], "ExecutedVersion": response["ExecutedVersion"],
                        "FunctionError": response.get("FunctionError"),
                        "Payload": json.loads(response["Payload"].read())})  # fmt: skip

    invocation = threading.Thread(target=invoke)
    invocation.start()
    return invocation, answers


def finished(go: Path, invocation: threading.Thread, answers: list[dict]) -> dict:
    """The invocation let go on, and its whole answer."""
    go.write_text("go")
    invocation.join(timeout=120)
    assert not invocation.is_alive()
    [answer] = answers
    return answer


def answer_of(code: str) -> dict:
    return {"StatusCode": 200, "ExecutedVersion": "$LATEST", "FunctionError": None, "Payload": {"code": code}}


def test_an_invocation_in_flight_while_an_update_completes_finishes_on_its_code(door, tmp_path):
    running, go = created(door, tmp_path, "in-flight-update")
    invocation, answers = invoking(door, "in-flight-update")
    folder = Path(running.read_text())  # the handler runs there, waiting for `go`
    lam = door.client("lambda")
    lam.update_function_code(FunctionName="in-flight-update", ZipFile=package("two"))
    lam.get_waiter("function_updated_v2").wait(FunctionName="in-flight-update")
    assert (folder / "code.txt").read_text() == "one"  # the update completed: the running code's files stay
    assert finished(go, invocation, answers) == answer_of("one")
    assert not folder.exists()  # its invocation over, its worker is not kept: the folder went with it
    invocation, answers = invoking(door, "in-flight-update")  # the new code runs, in its own folder
    new_folder = Path(running.read_text())
    assert new_folder != folder
    assert finished(go, invocation, answers) == answer_of("two")
    assert (new_folder / "code.txt").read_text() == "two"


def test_an_invocation_in_flight_while_its_function_is_deleted_finishes_on_its_code(door, tmp_path):
    running, go = created(door, tmp_path, "in-flight-delete")
    invocation, answers = invoking(door, "in-flight-delete")
    folder = Path(running.read_text())
    lam = door.client("lambda")
    lam.delete_function(FunctionName="in-flight-delete")
    with pytest.raises(lam.exceptions.ResourceNotFoundException):
        lam.get_function(FunctionName="in-flight-delete")
    assert (folder / "code.txt").read_text() == "one"
    assert finished(go, invocation, answers) == answer_of("one")
    assert not folder.exists()

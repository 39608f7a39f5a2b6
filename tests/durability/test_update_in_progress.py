"""An update in progress survives kill -9 and a clean stop (both doors): the emulator that starts again on the state
runs the function as it was before the update until the update completes (the Lambda Developer Guide, "Lambda
function states": "While a function update is in progress, invocations go to the function's previous code and
configuration"), answers the update InProgress under the RevisionId its update answered, completes it at the first
read, and then runs the new code and removes the previous code's folder; after another restart the update stays
complete. The workload's emulator takes an update an hour (--function-update-seconds 3600), so that the restarts,
however slow, come while it is in progress."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from tests.durability.killed_workloads import acknowledged_then_killed
from tests.durability.service_listings import running

WORKLOAD = textwrap.dedent('''
    from tests.durability.killed_workloads import says_package as package

    def workload(lam):
        lam.create_function(FunctionName="updating", Runtime="python3.11", Handler="app.handler",
                            Role="arn:aws:iam::123456789012:role/lambda-role", Code={"ZipFile": package("before")})
        lam.get_waiter("function_active").wait(FunctionName="updating")
        assert lam.invoke(FunctionName="updating")["Payload"].read() == b'{"says": "before"}'
        update = lam.update_function_code(FunctionName="updating", ZipFile=package("after"))
        assert lam.invoke(FunctionName="updating")["Payload"].read() == b'{"says": "before"}'
        print("ACKED", update["RevisionId"], flush=True)

    from tests.durability.killed_workloads import run_workload
    run_workload(lambda client: workload(client("lambda")), settings={"function_update_seconds": 3600})
''')


def says(lam) -> str:
    return json.loads(lam.invoke(FunctionName="updating")["Payload"].read())["says"]


def code_folders(state: str) -> list[str]:
    """The function's code folders: its first (code), and each update's (<id>/code)."""
    home = Path(state) / "functions" / "123456789012" / "us-east-1" / "updating"
    return sorted(str(path.relative_to(home)) for path in home.rglob("code") if path.is_dir())


@pytest.mark.parametrize("kind", ["server", "inprocess"])
def test_an_update_in_progress_survives_kill_9_and_a_clean_stop(kind, tmp_path):
    state = str(tmp_path / "state")
    revision_id = acknowledged_then_killed(kind, state, WORKLOAD, ("--function-update-seconds", "3600"))
    [new] = [folder for folder in code_folders(state) if folder != "code"]
    assert code_folders(state) == sorted(["code", new]) and new.endswith("/code")
    with running(kind, state) as door:  # recovered from the log
        assert says(door.client("lambda")) == "before"
    with running(kind, state) as door:  # from the snapshot the clean stop wrote
        lam = door.client("lambda")
        assert says(lam) == "before"
        read = lam.get_function_configuration(FunctionName="updating")
        assert (read["LastUpdateStatus"], read["RevisionId"]) == ("InProgress", revision_id)
        assert says(lam) == "after"
        assert code_folders(state) == [new]
    with running(kind, state) as door:
        lam = door.client("lambda")
        assert lam.get_function_configuration(FunctionName="updating")["LastUpdateStatus"] == "Successful"
        assert says(lam) == "after"
    assert code_folders(state) == [new]

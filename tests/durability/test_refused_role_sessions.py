"""A function invoked while the disk refuses writes still runs as its execution role.

A worker's credentials are its execution role's session (functions/runtimes/credentials.py: the Lambda Developer
Guide, "Lambda generates an ephemeral set of credentials by assuming your function's execution role"), an STS
AssumeRole, which is a write (journaled, so that its keys come back on replay). It was made when a worker started,
so on a disk that refused writes a new worker's AssumeRole was refused and the worker ran with Eddy's own
credentials (e65c478): STS's GetCallerIdentity from the function answered moto's default user,
arn:aws:sts::123456789012:user/moto. Now the session is made with the function's CreateFunction and kept with the
function (in its durable state): a new worker needs no write, during a refusal, and after a kill -9 and a restart.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.durability.test_disk_errors import door, failing_writes  # noqa: F401 (the door fixture)
from tests.durability.test_disk_full import Eddy, refused, running
from tests.emulator.functions.test_execution_roles import PYTHON, TRUST
from tests.emulator.functions.test_functions import zip_of
from tests.emulator.functions.test_node_functions import call

pytestmark = pytest.mark.slow


def identity(eddy: Eddy) -> dict[str, Any]:
    """What STS's GetCallerIdentity answers the function (a new worker's first invocation)."""
    response, answer = call(eddy.client("lambda"), "whoami")
    assert "FunctionError" not in response, answer
    answer.pop("ResponseMetadata", None)  # boto3's, in the function's answer
    return answer


def test_a_function_invoked_while_the_disk_refuses_writes_runs_as_its_execution_role(door: str, tmp_path: Path) -> None:
    """The disk refuses writes through the process's file size limit (test_disk_errors.py's failing_writes: EFBIG for
    any write past the log's size), so reads and Invoke are served while every write is refused."""
    state = tmp_path / "state"
    with running(door, state) as eddy:
        role = eddy.client("iam").create_role(RoleName="order-handler",
                                              AssumeRolePolicyDocument=json.dumps(TRUST))["Role"]
        eddy.client("lambda").create_function(FunctionName="whoami", Runtime="python3.12", Role=role["Arn"],
                                              Handler="app.handler", Code={"ZipFile": zip_of({"app.py": PYTHON})},
                                              Timeout=60)
        eddy.client("lambda").get_waiter("function_active").wait(FunctionName="whoami")  # Active before it is used
        expected = {"UserId": f"{role['RoleId']}:whoami", "Account": "123456789012",
                    "Arn": "arn:aws:sts::123456789012:assumed-role/order-handler/whoami"}
        grow_the_log(eddy)
        with failing_writes(eddy.pid, state):
            assert refused(lambda: eddy.client("sqs").create_queue(QueueName="refused"), "sqs")
            assert identity(eddy) == expected  # its first worker, started while writes are refused
    with running(door, state) as eddy:  # after kill -9 (server) or the block's end (in-process)
        grow_the_log(eddy)
        with failing_writes(eddy.pid, state):
            assert refused(lambda: eddy.client("sqs").create_queue(QueueName="refused"), "sqs")
            assert identity(eddy) == expected  # the session kept with the function, restored
        assert identity(eddy) == expected


def grow_the_log(eddy: Eddy) -> None:
    """The log grows past every other file the process writes while the limit holds (test_disk_errors.py)."""
    sqs = eddy.client("sqs")
    url = sqs.create_queue(QueueName="work")["QueueUrl"]
    for n in range(60):
        sqs.send_message(QueueUrl=url, MessageBody=f"{n:03}" * 300)

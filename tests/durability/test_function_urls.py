"""Function URL configurations survive kill -9 (both doors): after the restart the same URL id answers, with its
AuthType, Cors and the policy that lets it be called; the URL serves the function again."""

from __future__ import annotations

import json
import textwrap

import pytest

from tests.durability.killed_workloads import acknowledged_then_killed
from tests.durability.service_listings import running
from tests.emulator.api.lambda_.function_urls.helpers import call_json

WORKLOAD = textwrap.dedent('''
    import io, zipfile

    def package():
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w") as archive:
            archive.writestr("app.py", "def handler(event, context):\\n    return {'path': event['rawPath']}\\n")
        return buffer.getvalue()

    def workload(lam):
        lam.create_function(FunctionName="served", Runtime="python3.11", Handler="app.handler", Publish=True,
                            Role="arn:aws:iam::123456789012:role/lambda-role", Code={"ZipFile": package()})
        lam.get_waiter("function_active").wait(FunctionName="served")  # Active before it is used
        lam.create_alias(FunctionName="served", Name="live", FunctionVersion="1")
        for qualifier in ({}, {"Qualifier": "live"}):
            lam.add_permission(FunctionName="served", StatementId="url", Action="lambda:InvokeFunctionUrl",
                               Principal="*", FunctionUrlAuthType="NONE", **qualifier)
            lam.add_permission(FunctionName="served", StatementId="invoke", Action="lambda:InvokeFunction",
                               Principal="*", InvokedViaFunctionUrl=True, **qualifier)
        own = lam.create_function_url_config(FunctionName="served", AuthType="NONE",
                                             Cors={"AllowOrigins": ["*"]})["FunctionUrl"]
        aliased = lam.create_function_url_config(FunctionName="served", Qualifier="live", AuthType="NONE",
                                                 InvokeMode="BUFFERED")["FunctionUrl"]
        print("ACKED", own.rstrip("/").rsplit("/", 1)[1], aliased.rstrip("/").rsplit("/", 1)[1], flush=True)

    from tests.durability.killed_workloads import run_workload
    run_workload(lambda client: workload(client("lambda")))
''')


def check(lam, ids: list[str]) -> None:
    configs = lam.list_function_url_configs(FunctionName="served")["FunctionUrlConfigs"]
    assert [(c["FunctionArn"].rsplit(":", 1)[1], c["FunctionUrl"].rstrip("/").rsplit("/", 1)[1], c["AuthType"],
             c.get("Cors")) for c in configs] == [
        ("served", ids[0], "NONE", {"AllowOrigins": ["*"]}), ("live", ids[1], "NONE", None)]
    for config in configs:
        assert call_json(f"{config['FunctionUrl']}again") == (200, {"path": "/again"})
    assert json.loads(lam.get_policy(FunctionName="served", Qualifier="live")["Policy"])["Statement"][1]["Condition"] == {
        "Bool": {"lambda:InvokedViaFunctionUrl": "true"}}


@pytest.mark.parametrize("kind", ["server", "inprocess"])
def test_function_urls_survive_kill_9(kind, tmp_path):
    state = str(tmp_path / "state")
    ids = acknowledged_then_killed(kind, state, WORKLOAD).split()
    with running(kind, state) as door:
        check(door.client("lambda"), ids)
    with running(kind, state) as door:  # and from the snapshot the clean stop wrote
        check(door.client("lambda"), ids)

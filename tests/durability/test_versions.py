"""A function's published versions and aliases survive kill -9 (both doors), with their frozen code and configuration,
their own policies, event invoke configs and provisioned concurrency, and the numbering (a deleted version's number is not given again), as the
function itself does; then again from the snapshot a clean stop writes."""

from __future__ import annotations

import json
import textwrap

import pytest

from tests.durability.killed_workloads import acknowledged_then_killed
from tests.durability.service_listings import running

ARN = "arn:aws:lambda:us-east-1:123456789012:function:versioned"
WORKLOAD = textwrap.dedent('''
    from tests.durability.killed_workloads import says_package as package

    def workload(lam):
        lam.create_function(FunctionName="versioned", Runtime="python3.11", Handler="app.handler", Publish=True,
                            Role="arn:aws:iam::123456789012:role/lambda-role", Code={"ZipFile": package("one")})
        lam.get_waiter("function_active").wait(FunctionName="versioned")  # Active before it is used
        lam.update_function_code(FunctionName="versioned", ZipFile=package("two"), Publish=True)
        lam.get_waiter("function_updated_v2").wait(FunctionName="versioned")
        lam.update_function_configuration(FunctionName="versioned", Timeout=7)
        lam.get_waiter("function_updated_v2").wait(FunctionName="versioned")
        lam.publish_version(FunctionName="versioned")
        lam.delete_function(FunctionName="versioned", Qualifier="3")
        lam.update_function_code(FunctionName="versioned", ZipFile=package("latest"))
        lam.get_waiter("function_updated_v2").wait(FunctionName="versioned")
        alias = lam.create_alias(FunctionName="versioned", Name="live", FunctionVersion="1",
                                 RoutingConfig={"AdditionalVersionWeights": {"2": 0.25}})
        lam.add_permission(FunctionName="versioned", Qualifier="live", StatementId="s3", Principal="s3.amazonaws.com",
                           Action="lambda:InvokeFunction")
        lam.put_function_event_invoke_config(FunctionName="versioned", Qualifier="2", MaximumRetryAttempts=1)
        lam.put_provisioned_concurrency_config(FunctionName="versioned", Qualifier="live",
                                               ProvisionedConcurrentExecutions=2)
        print("ACKED", lam.get_alias(FunctionName="versioned", Name="live")["RevisionId"], flush=True)

    from tests.durability.killed_workloads import run_workload
    run_workload(lambda client: workload(client("lambda")))
''')


def check(lam, alias_revision: str) -> None:
    assert [(v["Version"], v["Timeout"]) for v in lam.list_versions_by_function(FunctionName="versioned")[
        "Versions"]] == [("$LATEST", 7), ("1", 3), ("2", 3)]
    for qualifier, says in (("1", "one"), ("2", "two"), ("$LATEST", "latest")):
        response = lam.invoke(FunctionName="versioned", Qualifier=qualifier)
        assert (response["ExecutedVersion"], json.loads(response["Payload"].read())) == (qualifier, {"says": says})
    alias = lam.get_alias(FunctionName="versioned", Name="live")
    assert {k: v for k, v in alias.items() if k != "ResponseMetadata"} == {
        "AliasArn": f"{ARN}:live", "Name": "live", "FunctionVersion": "1", "Description": "",
        "RevisionId": alias_revision, "RoutingConfig": {"AdditionalVersionWeights": {"2": 0.25}}}
    statement = json.loads(lam.get_policy(FunctionName="versioned", Qualifier="live")["Policy"])["Statement"]
    assert [(s["Sid"], s["Resource"]) for s in statement] == [("s3", f"{ARN}:live")]
    assert lam.get_function_event_invoke_config(FunctionName="versioned", Qualifier="2")["MaximumRetryAttempts"] == 1
    provisioned = lam.list_provisioned_concurrency_configs(FunctionName="versioned")["ProvisionedConcurrencyConfigs"]
    assert [(c["FunctionArn"], c["RequestedProvisionedConcurrentExecutions"]) for c in provisioned] == [
        (f"{ARN}:live", 2)]


@pytest.mark.parametrize("kind", ["server", "inprocess"])
def test_versions_and_aliases_survive_kill_9(kind, tmp_path):
    state = str(tmp_path / "state")
    alias_revision = acknowledged_then_killed(kind, state, WORKLOAD)
    with running(kind, state) as door:
        check(door.client("lambda"), alias_revision)
    with running(kind, state) as door:  # and from the snapshot the clean stop wrote
        lam = door.client("lambda")
        check(lam, alias_revision)
        lam.update_function_configuration(FunctionName="versioned", Timeout=8)
        lam.get_waiter("function_updated_v2").wait(FunctionName="versioned")
        assert lam.publish_version(FunctionName="versioned")["Version"] == "4"

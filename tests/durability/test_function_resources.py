"""A function's policy, tags and reserved concurrency, its kept settings (Architectures, EphemeralStorage,
TracingConfig, SnapStart, an Environment given without variables), and a mapping's tags, survive kill -9 (both doors: the server killed after it
answered, and a process running emulate() killing itself), as the function itself does."""

from __future__ import annotations

import json
import textwrap

import pytest

from tests.durability.killed_workloads import acknowledged_then_killed
from tests.durability.service_listings import running

WORKLOAD = textwrap.dedent('''
    import io, zipfile

    def workload(lam, ddb):
        package = io.BytesIO()
        with zipfile.ZipFile(package, "w") as archive:
            archive.writestr("app.py", "def handler(event, context):\\n    return event\\n")
        lam.create_function(FunctionName="echo", Runtime="python3.11", Handler="app.handler", Tags={"team": "data"},
                            Role="arn:aws:iam::123456789012:role/lambda-role", Code={"ZipFile": package.getvalue()},
                            Architectures=["arm64"], EphemeralStorage={"Size": 2048}, TracingConfig={"Mode": "Active"},
                            SnapStart={"ApplyOn": "PublishedVersions"}, Environment={"Variables": {}})
        lam.get_waiter("function_active").wait(FunctionName="echo")  # Active before it is used
        arn = lam.get_function(FunctionName="echo")["Configuration"]["FunctionArn"]
        lam.add_permission(FunctionName="echo", StatementId="s3", Action="lambda:InvokeFunction",
                           Principal="s3.amazonaws.com", SourceArn="arn:aws:s3:::photos")
        lam.add_permission(FunctionName="echo", StatementId="gone", Action="lambda:InvokeFunction",
                           Principal="sns.amazonaws.com")
        lam.remove_permission(FunctionName="echo", StatementId="gone")
        lam.tag_resource(Resource=arn, Tags={"stage": "prod"})
        lam.put_function_concurrency(FunctionName="echo", ReservedConcurrentExecutions=3)
        stream = ddb.create_table(TableName="orders", KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                                  AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                                  BillingMode="PAY_PER_REQUEST", StreamSpecification={
                                      "StreamEnabled": True, "StreamViewType": "NEW_IMAGE"})["TableDescription"]
        mapping = lam.create_event_source_mapping(EventSourceArn=stream["LatestStreamArn"], FunctionName="echo",
                                                  StartingPosition="LATEST", Tags={"team": "data"})
        lam.tag_resource(Resource=mapping["EventSourceMappingArn"], Tags={"stage": "prod"})
        print("ACKED", lam.get_policy(FunctionName="echo")["RevisionId"], flush=True)

    from tests.durability.killed_workloads import run_workload
    run_workload(lambda client: workload(client("lambda"), client("dynamodb")))
''')


@pytest.mark.parametrize("kind", ["server", "inprocess"])
def test_policy_tags_and_concurrency_survive_kill_9(kind, tmp_path):
    state = str(tmp_path / "state")
    revision_id = acknowledged_then_killed(kind, state, WORKLOAD)
    with running(kind, state) as door:
        lam = door.client("lambda")
        function = lam.get_function(FunctionName="echo")
        assert function["Tags"] == {"team": "data", "stage": "prod"}
        assert function["Concurrency"] == {"ReservedConcurrentExecutions": 3}
        kept = ("Architectures", "EphemeralStorage", "TracingConfig", "SnapStart", "Environment")
        assert {key: function["Configuration"][key] for key in kept} == {
            "Architectures": ["arm64"], "EphemeralStorage": {"Size": 2048}, "TracingConfig": {"Mode": "Active"},
            "SnapStart": {"ApplyOn": "PublishedVersions", "OptimizationStatus": "Off"}, "Environment": {"Variables": {}}}
        policy = lam.get_policy(FunctionName="echo")
        assert policy["RevisionId"] == revision_id == function["Configuration"]["RevisionId"]
        assert [(s["Sid"], s["Principal"], s["Condition"]) for s in json.loads(policy["Policy"])["Statement"]] == [
            ("s3", {"Service": "s3.amazonaws.com"}, {"ArnLike": {"AWS:SourceArn": "arn:aws:s3:::photos"}})]
        assert lam.get_function_concurrency(FunctionName="echo")["ReservedConcurrentExecutions"] == 3
        mapping = lam.list_event_source_mappings(FunctionName="echo")["EventSourceMappings"][0]["EventSourceMappingArn"]
        assert lam.list_tags(Resource=mapping)["Tags"] == {"team": "data", "stage": "prod"}
    with running(kind, state) as door:  # and from the snapshot the clean stop wrote
        lam = door.client("lambda")
        assert lam.list_tags(Resource=function["Configuration"]["FunctionArn"])["Tags"] == {"team": "data", "stage": "prod"}
        assert lam.get_policy(FunctionName="echo")["RevisionId"] == revision_id
        assert lam.get_function_concurrency(FunctionName="echo")["ReservedConcurrentExecutions"] == 3
        assert lam.list_tags(Resource=mapping)["Tags"] == {"team": "data", "stage": "prod"}

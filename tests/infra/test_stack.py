"""Stack files: validation with the place of each error, the CloudFormation template a stack file is, and `eddy
up`/`down` deploying it as a stack through Eddy's CloudFormation engine, in both doors."""

from __future__ import annotations

import json
from pathlib import Path

import boto3
import pytest
import yaml

from eddy.emulator.cli import main as eddy
from eddy.emulator.functions.runtimes import RUNTIMES
from eddy.infra.apply import Action, Clients, down, summary, up
from eddy.infra.load import load_stack
from eddy.infra.stack import StackError, parse_stack
from eddy.infra.stack_template import template_of
from tests.conftest import http_json

EXAMPLE = Path(__file__).resolve().parents[2] / "infra" / "examples" / "stack.yaml"


def test_errors_name_their_place_in_the_file(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump({
        "tables": {"orders": {"key": {"pk": "S"}, "stream": "NEW_IMAGES"}, "plain": {"key": {"pk": "X"}}},
        "functions": {"f": {"handler": "nodots", "runtime": "java21", "timeout": 0}},
        "mappings": [{"function": "f", "table": "orders", "batch_size": 20000, "on_failure": {"queue": "q", "topic": "t"}}],
        "surprise": 1,
    }))
    with pytest.raises(StackError) as invalid:
        load_stack(path)
    message = str(invalid.value)
    for expected in ("tables.orders.stream: Input should be 'KEYS_ONLY'", "tables.plain.key.pk: Input should be 'S', 'N' or 'B'",
                     "functions.f.handler: a handler is module.function", f"functions.f.runtime: Eddy runs {', '.join(RUNTIMES)} functions",
                     "functions.f.timeout: Input should be greater than or equal to 1",
                     "mappings.0.batch_size: Input should be less than or equal to 10000",
                     "mappings.0.on_failure: name exactly one on-failure destination", "surprise: Extra inputs are not permitted"):
        assert expected in message, expected


def test_every_problem_of_a_document_is_listed_with_its_place():
    """Each kind of problem once, in the words stack files' errors have (pydantic's, which Eddy used before)."""
    with pytest.raises(StackError) as invalid:
        parse_stack({"tables": {"t": {"key": {"pk": "S", "sk": "N", "x": "S"}, "read_capacity": "many",
                                      "indexes": ["no"]}},
                     "functions": {"f": {"timeout": 2.0, "environment": {"N": 1}}},
                     "mappings": [{"function": "f", "stream_arn": "arn", "enabled": "maybe", "filters": [1, {}, "", "", "", ""],
                                   "function_response_types": ["Other"]}],
                     "queues": "q"}, source="stack.yaml")
    assert str(invalid.value).splitlines() == [
        "stack.yaml is not a valid stack:",
        "  tables.t.key: a key is a partition key and optionally a sort key: one or two attributes",
        "  tables.t.read_capacity: Input should be a valid integer",
        "  tables.t.indexes.0: Input should be a valid dictionary or instance of Index",
        "  functions.f.handler: Field required",
        "  mappings.0.enabled: Input should be a valid boolean",
        "  mappings.0.function_response_types.0: Input should be 'ReportBatchItemFailures'",
        "  mappings.0.filters.0: Input should be a valid dictionary or a valid string",
        "  mappings.0.filters: List should have at most 5 items after validation, not 6",
        "  queues: Input should be a valid list"]
    stack = parse_stack({"functions": {"f": {"handler": "app.handler", "timeout": 2.0, "environment": {"N": 1}}},
                         "mappings": [{"function": "f", "stream_arn": "arn", "enabled": "no"}]})
    function, mapping = stack.functions["f"], stack.mappings[0]
    assert (function.timeout, function.environment, function.memory, mapping.enabled, mapping.batch_size) == (
        2, {"N": "1"}, 128, False, 100)


def test_references_must_resolve():
    with pytest.raises(StackError) as invalid:
        parse_stack({"tables": {"plain": {"key": {"pk": "S"}}}, "functions": {},
                     "mappings": [{"function": "missing", "table": "plain"}, {"function": "missing", "table": "nowhere"}]})
    message = str(invalid.value)
    assert "mappings.0.function: no function 'missing'" in message
    assert "mappings.0.table: table 'plain' has no stream" in message
    assert "mappings.1.table: no table 'nowhere'" in message


def test_unreadable_or_not_yaml(tmp_path):
    with pytest.raises(StackError, match="cannot read it"):
        load_stack(tmp_path / "absent.yaml")
    (tmp_path / "broken.yaml").write_text("tables: [unclosed")
    with pytest.raises(StackError, match="not valid YAML"):
        load_stack(tmp_path / "broken.yaml")


def clients_of(door) -> Clients:
    """Clients of `door`'s Eddy, as `eddy up` makes them (in-process: this process's boto3)."""
    return Clients(getattr(door, "url", None), "us-east-1")


def test_a_stack_file_is_a_cloudformation_template():
    stack = load_stack(EXAMPLE)
    assert stack.stack_name == "stack"
    code = {name: ("bucket", f"{name}.zip") for name in stack.functions}
    template = template_of(stack, code, {"replicate": "handlers.replicate.handler"})
    resources = template["Resources"]
    assert list(resources) == [
        "StreamFailuresQueue", "WelcomeInboxQueue", "WelcomeTopic", "SessionArchiveBucket", "OrdersTable",
        "OrdersReplicaTable", "UsageMetricsTable", "OrderAuditTable", "SessionsTable", "UsersTable", "FunctionRole",
        "ReplicateFunction", "SearchIndexFunction", "UsageMetricsFunction", "OrderAuditFunction", "TtlArchiveFunction",
        "WelcomeFunction", "ReplicateFromOrdersMapping", "SearchIndexFromOrdersMapping",
        "UsageMetricsFromOrdersMapping", "OrderAuditFromOrdersMapping", "TtlArchiveFromSessionsMapping",
        "WelcomeFromUsersMapping"]
    assert resources["OrdersTable"] == {"Type": "AWS::DynamoDB::Table", "Properties": {
        "TableName": "orders", "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
        "AttributeDefinitions": [{"AttributeName": "status", "AttributeType": "S"},
                                 {"AttributeName": "pk", "AttributeType": "S"}],
        "BillingMode": "PAY_PER_REQUEST",
        "GlobalSecondaryIndexes": [{"IndexName": "by-status", "KeySchema": [{"AttributeName": "status", "KeyType": "HASH"}],
                                    "Projection": {"ProjectionType": "ALL"}}],
        "StreamSpecification": {"StreamViewType": "NEW_AND_OLD_IMAGES"}}}
    assert resources["SessionsTable"]["Properties"]["TimeToLiveSpecification"] == {"AttributeName": "expires", "Enabled": True}
    assert resources["ReplicateFunction"] == {"Type": "AWS::Lambda::Function", "Properties": {
        "FunctionName": "replicate", "Handler": "handlers.replicate.handler", "Runtime": "python3.11",
        "Code": {"S3Bucket": "bucket", "S3Key": "replicate.zip"}, "Timeout": 30, "MemorySize": 128,
        "Role": {"Fn::GetAtt": ["FunctionRole", "Arn"]}, "Environment": {"Variables": {"REPLICA_TABLE": "orders-replica"}}}}
    assert resources["ReplicateFromOrdersMapping"] == {"Type": "AWS::Lambda::EventSourceMapping", "Properties": {
        "FunctionName": {"Ref": "ReplicateFunction"}, "EventSourceArn": {"Fn::GetAtt": ["OrdersTable", "StreamArn"]},
        "StartingPosition": "TRIM_HORIZON", "BatchSize": 100, "MaximumBatchingWindowInSeconds": 0,
        "MaximumRetryAttempts": 10, "MaximumRecordAgeInSeconds": -1, "BisectBatchOnFunctionError": True,
        "ParallelizationFactor": 1, "TumblingWindowInSeconds": 0, "Enabled": True,
        "DestinationConfig": {"OnFailure": {"Destination": {"Fn::GetAtt": ["StreamFailuresQueue", "Arn"]}}}}}
    assert resources["TtlArchiveFromSessionsMapping"]["Properties"]["FilterCriteria"] == {"Filters": [
        {"Pattern": json.dumps({"userIdentity": {"type": ["Service"], "principalId": ["dynamodb.amazonaws.com"]}})}]}


def test_up_deploys_a_stack_idempotently_and_down_deletes_it(door):
    stack, clients = load_stack(EXAMPLE), clients_of(door)
    cloudformation, dynamodb, lam = door.client("cloudformation"), door.client("dynamodb"), door.client("lambda")
    lines: list[str] = []
    planned = up(stack, clients, dry_run=True, echo=lines.append)
    assert {a.verb for a in planned} == {"create"} and len(planned) == 23
    assert dynamodb.list_tables()["TableNames"] == []
    assert [s for s in cloudformation.list_stacks()["StackSummaries"] if s["StackStatus"] != "DELETE_COMPLETE"] == []
    created = up(stack, clients, echo=lines.append)
    assert summary(created) == "23 created"
    assert "  create    OrdersTable                    AWS::DynamoDB::Table" in lines
    assert cloudformation.describe_stacks(StackName="stack")["Stacks"][0]["StackStatus"] == "CREATE_COMPLETE"
    assert summary(up(stack, clients, echo=lines.append)) == "23 left alone"
    mappings = lam.list_event_source_mappings()["EventSourceMappings"]
    assert len(mappings) == 6
    replicate = next(m for m in mappings if m["FunctionArn"].endswith(":replicate"))
    assert replicate["BisectBatchOnFunctionError"] and replicate["MaximumRetryAttempts"] == 10
    assert replicate["DestinationConfig"]["OnFailure"]["Destination"].endswith(":stream-failures")
    archive = next(m for m in mappings if m["FunctionArn"].endswith(":ttl-archive"))
    assert json.loads(archive["FilterCriteria"]["Filters"][0]["Pattern"]) == {
        "userIdentity": {"type": ["Service"], "principalId": ["dynamodb.amazonaws.com"]}}
    assert dynamodb.describe_time_to_live(TableName="sessions")["TimeToLiveDescription"]["AttributeName"] == "expires"
    dynamodb.put_item(TableName="orders", Item={"pk": {"S": "o-1"}, "status": {"S": "new"}})
    door.assert_delivered()
    assert dynamodb.get_item(TableName="orders-replica", Key={"pk": {"S": "o-1"}})["Item"]["status"] == {"S": "new"}

    stack.mappings[0].batch_size = 50
    stack.tables["users"].stream = "NEW_AND_OLD_IMAGES"
    stack.functions["welcome"].environment["MESSAGE_TEMPLATE"] = "Hello, {name}"
    changes = [a for a in up(stack, clients, echo=lines.append) if a.verb != "unchanged"]
    assert changes == [Action("update", "AWS::DynamoDB::Table", "UsersTable", "StreamSpecification"),
                       Action("update", "AWS::Lambda::Function", "WelcomeFunction", "Environment"),
                       Action("update", "AWS::Lambda::EventSourceMapping", "ReplicateFromOrdersMapping", "BatchSize")]
    assert dynamodb.describe_table(TableName="users")["Table"]["StreamSpecification"]["StreamViewType"] == "NEW_AND_OLD_IMAGES"
    welcome = next(m for m in lam.list_event_source_mappings(FunctionName="welcome")["EventSourceMappings"])
    assert welcome["EventSourceArn"] == dynamodb.describe_table(TableName="users")["Table"]["LatestStreamArn"]
    assert lam.get_function_configuration(FunctionName="welcome")["Environment"]["Variables"]["MESSAGE_TEMPLATE"] == "Hello, {name}"
    assert summary(down(stack, clients, echo=lines.append)) == "23 deleted"
    assert dynamodb.list_tables()["TableNames"] == []
    assert lam.list_functions()["Functions"] == [] and lam.list_event_source_mappings()["EventSourceMappings"] == []
    assert cloudformation.list_stacks()["StackSummaries"][0]["StackStatus"] == "DELETE_COMPLETE"
    assert summary(down(stack, clients, echo=lines.append)) == "nothing to do"


def test_a_failing_stack_says_which_resource_and_why_and_rolls_back(door, tmp_path):
    clients, sqs = clients_of(door), door.client("sqs")
    path = tmp_path / "shop.yaml"
    path.write_text("queues: [shop-inbox]\ntables:\n  'no spaces allowed': {key: {pk: S}}\n")
    with pytest.raises(StackError) as failed:
        up(load_stack(path), clients, echo=lambda line: None)
    # DynamoDB's refusal of the name, as CloudFormation words a resource handler's failure
    message = str(failed.value)
    assert message.startswith(f"{path}: stack shop is ROLLBACK_COMPLETE: NoSpacesAllowedTable (AWS::DynamoDB::Table) "
                              "CREATE_FAILED: Resource handler returned message: ")
    assert sqs.list_queues().get("QueueUrls", []) == []  # rolled back: nothing left behind
    path.write_text("queues: [shop-inbox]\ntables:\n  no-spaces-allowed: {key: {pk: S}}\n")
    lines: list[str] = []
    assert summary(up(load_stack(path), clients, echo=lines.append)) == "2 created"
    assert lines[0] == "  deleting  shop: its first creation failed and was rolled back (ROLLBACK_COMPLETE)"
    assert door.client("dynamodb").list_tables()["TableNames"] == ["no-spaces-allowed"]


def test_the_cli(server_url, capsys, tmp_path):
    http_json(server_url + "/moto-api/reset", {})
    assert eddy(["up", "-f", str(EXAMPLE), "--endpoint-url", server_url, "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"Plan for {EXAMPLE} as stack stack on {server_url}:") and "Would be: 23 created" in out
    assert eddy(["up", "-f", str(EXAMPLE), "--endpoint-url", server_url, "--stack-name", "shop"]) == 0
    out = capsys.readouterr().out
    assert "  create    OrdersTable                    AWS::DynamoDB::Table\n" in out and out.rstrip().endswith("23 created")
    assert eddy(["down", "-f", str(EXAMPLE), "--endpoint-url", server_url, "--stack-name", "shop"]) == 0
    out = capsys.readouterr().out
    assert "  delete    WelcomeFromUsersMapping        AWS::Lambda::EventSourceMapping\n" in out
    assert out.rstrip().endswith("23 deleted")
    (tmp_path / "bad.yaml").write_text("tables: {t: {key: {}}}")
    assert eddy(["up", "-f", str(tmp_path / "bad.yaml"), "--endpoint-url", server_url]) == 2
    assert "tables.t.key: a key is a partition key and optionally a sort key" in capsys.readouterr().err


def test_a_named_resource_that_exists_already_fails_and_is_left_alone(door, tmp_path):
    """CloudFormation never takes over a resource made outside the stack (a rollback would delete it): the resource
    fails with its handler's AlreadyExists, in AWS's words ("Resource of type 'AWS::SES::EmailIdentity' with
    identifier '...' already exists." (RequestToken: ..., HandlerErrorCode: AlreadyExists), quoted in
    github.com/widdix/mastodon-on-aws/issues/27). So an Eddy whose state directory holds what an older `eddy up`
    made keeps it, and says which resource is in the way."""
    sqs, sns, s3 = door.client("sqs"), door.client("sns"), door.client("s3")
    url = sqs.create_queue(QueueName="shop-inbox")["QueueUrl"]
    sqs.send_message(QueueUrl=url, MessageBody="kept")
    topic = sns.create_topic(Name="shop-news")["TopicArn"]
    s3.create_bucket(Bucket="shop-archive")
    for line, identifier in (("queues: [shop-inbox]", "AWS::SQS::Queue' with identifier 'shop-inbox"),
                             ("topics: [shop-news]", f"AWS::SNS::Topic' with identifier '{topic}"),
                             ("buckets: [shop-archive]", "AWS::S3::Bucket' with identifier 'shop-archive")):
        path = tmp_path / "shop.yaml"
        path.write_text(line + "\n")
        with pytest.raises(StackError) as failed:
            up(load_stack(path), clients_of(door), echo=lambda line: None)
        assert f"CREATE_FAILED: Resource handler returned message: \"Resource of type '{identifier}' already " \
               "exists.\" (RequestToken: " in str(failed.value) and str(failed.value).endswith("HandlerErrorCode: AlreadyExists)")
    assert sqs.receive_message(QueueUrl=url)["Messages"][0]["Body"] == "kept"
    assert [t["TopicArn"] for t in sns.list_topics()["Topics"]] == [topic]
    assert [b["Name"] for b in s3.list_buckets()["Buckets"]] == ["shop-archive"]  # no code: no deployment bucket

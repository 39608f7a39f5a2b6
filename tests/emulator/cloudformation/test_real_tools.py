"""The real deployment tools, unchanged, pointed at `eddy serve` only by AWS_ENDPOINT_URL (plus fake credentials
and a region): `aws cloudformation package` + `deploy` (awscli) and `sam build` + `sam deploy --resolve-s3`
(aws-sam-cli, a Python function, no Docker), each deploying app/ (a SAM template: a table's stream to a function
with batch item failures and an SQS on-failure destination, a bucket notifying the function, a topic to a queue),
then a redeploy with new code and a new batch size (updated in place), then deleting everything.

Deleting a stack whose bucket holds objects fails on AWS (the bucket is not empty), so the tests empty it first,
as a user does. The tools live in their own virtualenv, .tools/deploy/ (`make deploy-tools`, from the pinned
tools/deploy-tools.txt; made here when missing: deploy_tools.py), since awscli and aws-sam-cli pin botocore versions
of their own."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import boto3
import pytest

from tests.conftest import http_json
from tests.emulator.cloudformation.deploy_tools import tools, tools_environment  # noqa: F401 (tools: a fixture)

pytestmark = pytest.mark.slow
APP = Path(__file__).parent / "app"


@pytest.fixture
def server(server_url: str) -> str:
    http_json(server_url + "/moto-api/reset", {})
    return server_url


def _run(command: list[str], cwd: Path, url: str) -> str:
    done = subprocess.run(command, cwd=cwd, env=tools_environment(url), capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, f"{command} failed:\n{done.stdout}\n{done.stderr}"
    return done.stdout + done.stderr


def _client(url: str, service: str):
    return boto3.client(service, endpoint_url=url, region_name="us-east-1", aws_access_key_id="testing",
                        aws_secret_access_key="testing")


def _outputs(url: str, stack: str) -> dict[str, str]:
    described = _client(url, "cloudformation").describe_stacks(StackName=stack)["Stacks"][0]
    return {output["OutputKey"]: output["OutputValue"] for output in described["Outputs"]}


def _app(tmp_path: Path) -> Path:
    app = tmp_path / "app"
    shutil.copytree(APP, app)
    return app


def _new_code(app: Path) -> None:
    source = app / "src" / "app.py"
    source.write_text(source.read_text().replace('MARK = "one"', 'MARK = "two"'))


def _check_the_app_runs(url: str, stack: str, mark: str, batch_size: int) -> None:
    found = _outputs(url, stack)
    mappings = _client(url, "lambda").list_event_source_mappings(FunctionName=found["Copier"])["EventSourceMappings"]
    assert [(mapping["BatchSize"], mapping["FunctionResponseTypes"], mapping["MaximumRetryAttempts"])
            for mapping in mappings] == [(batch_size, ["ReportBatchItemFailures"], 1)]
    dynamodb = _client(url, "dynamodb")
    dynamodb.put_item(TableName=found["Orders"], Item={"pk": {"S": f"order-{mark}"}})
    _client(url, "s3").put_object(Bucket=found["Uploads"], Key=f"report-{mark}.csv", Body=b"1")
    http_json(url + "/_eddy/delivered", {"timeout": 120})
    http_json(url + "/_eddy/idle", {"timeout": 120})
    for key in (f"order-{mark}", f"upload:report-{mark}.csv"):
        assert dynamodb.get_item(TableName=found["Copies"], Key={"id": {"S": key}})["Item"] == {
            "id": {"S": key}, "mark": {"S": mark}}
    _client(url, "sns").publish(TopicArn=found["Topic"], Message=f"hello {mark}")
    sqs = _client(url, "sqs")
    received = sqs.receive_message(QueueUrl=found["Inbox"], WaitTimeSeconds=20)["Messages"]
    assert [message["Body"] for message in received] == [f"hello {mark}"]
    sqs.delete_message(QueueUrl=found["Inbox"], ReceiptHandle=received[0]["ReceiptHandle"])


def _empty_the_bucket(url: str, stack: str) -> None:
    s3, bucket = _client(url, "s3"), _outputs(url, stack)["Uploads"]
    for listed in s3.list_objects_v2(Bucket=bucket).get("Contents", []):
        s3.delete_object(Bucket=bucket, Key=listed["Key"])


def _check_everything_is_gone(url: str, stack: str) -> None:
    """Nothing the stack made is left: functions, mappings, tables, topics, subscriptions, queues, and the bucket
    and roles named for the stack (what the tools' own stacks made, SAM's artifacts bucket or CDK's bootstrap
    bucket and roles, stays, as on AWS)."""
    assert _client(url, "lambda").list_functions()["Functions"] == []
    assert _client(url, "lambda").list_event_source_mappings()["EventSourceMappings"] == []
    assert _client(url, "dynamodb").list_tables()["TableNames"] == []
    assert _client(url, "sns").list_topics()["Topics"] == []
    assert _client(url, "sns").list_subscriptions()["Subscriptions"] == []
    assert _client(url, "sqs").list_queues().get("QueueUrls", []) == []
    buckets = [bucket["Name"] for bucket in _client(url, "s3").list_buckets()["Buckets"]]
    roles = [role["RoleName"] for role in _client(url, "iam").list_roles()["Roles"]]
    assert [name for name in buckets + roles if name.lower().startswith(f"{stack}-")] == []


def test_aws_cloudformation_package_and_deploy(tools, server, tmp_path):
    app = _app(tmp_path)
    aws = str(tools / "aws")
    _client(server, "s3").create_bucket(Bucket="artifacts")
    package = [aws, "cloudformation", "package", "--template-file", "template.yaml", "--s3-bucket", "artifacts",
               "--output-template-file", "packaged.yaml"]
    deploy = [aws, "cloudformation", "deploy", "--template-file", "packaged.yaml", "--stack-name", "cli-app",
              "--capabilities", "CAPABILITY_IAM", "--s3-bucket", "artifacts"]
    _run(package, app, server)
    assert "Successfully created/updated stack - cli-app" in _run(deploy, app, server)
    _check_the_app_runs(server, "cli-app", "one", 10)
    assert "No changes to deploy. Stack cli-app is up to date" in _run(deploy + ["--no-fail-on-empty-changeset"], app,
                                                                       server)
    _new_code(app)
    _run(package, app, server)
    _run(deploy + ["--parameter-overrides", "BatchSize=5"], app, server)
    _check_the_app_runs(server, "cli-app", "two", 5)
    _empty_the_bucket(server, "cli-app")
    _run([aws, "cloudformation", "delete-stack", "--stack-name", "cli-app"], app, server)
    _run([aws, "cloudformation", "wait", "stack-delete-complete", "--stack-name", "cli-app"], app, server)
    _check_everything_is_gone(server, "cli-app")


def test_sam_build_and_deploy_with_resolve_s3_then_sam_delete(tools, server, tmp_path):
    app = _app(tmp_path)
    sam = str(tools / "sam")
    deploy = [sam, "deploy", "--stack-name", "sam-app", "--resolve-s3", "--capabilities", "CAPABILITY_IAM",
              "--no-confirm-changeset", "--no-progressbar", "--region", "us-east-1"]
    _run([sam, "build"], app, server)
    _run(deploy, app, server)
    _check_the_app_runs(server, "sam-app", "one", 10)
    _new_code(app)
    _run([sam, "build"], app, server)
    _run(deploy + ["--parameter-overrides", "BatchSize=5"], app, server)
    _check_the_app_runs(server, "sam-app", "two", 5)
    _empty_the_bucket(server, "sam-app")
    _run([sam, "delete", "--stack-name", "sam-app", "--no-prompts", "--region", "us-east-1"], app, server)
    _check_everything_is_gone(server, "sam-app")
    summaries = _client(server, "cloudformation").list_stacks()["StackSummaries"]
    assert sorted((summary["StackName"], summary["StackStatus"]) for summary in summaries) == [
        ("aws-sam-cli-managed-default", "CREATE_COMPLETE"), ("sam-app", "DELETE_COMPLETE")]

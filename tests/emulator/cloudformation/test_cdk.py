"""CDK end to end: the aws-cdk CLI from npm (.tools/cdk/) and a Python CDK app on aws-cdk-lib (cdk_app/, run by the
.tools/deploy/ virtualenv's Python), unchanged, pointed at `eddy serve` only by AWS_ENDPOINT_URL, fake credentials
and a region. `cdk bootstrap` makes the CDKToolkit stack (its staging bucket, roles, the SSM version parameter and
an ECR repository record); `cdk deploy` publishes the function's code asset to the staging bucket and deploys the
app through a change set (the bucket's notification through CDK's own custom resource); a redeploy with new code and
a new batch size updates them in place; a function URL (CDK's FunctionUrl) answers over HTTP; `cdk destroy`
removes everything. Each step synthesizes the app once (cdk
deploy); destroy reads the assembly the last deploy wrote (--app cdk.out)."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest
from botocore.exceptions import ClientError

from tests.emulator.api.lambda_.function_urls.helpers import call
from tests.emulator.cloudformation.deploy_tools import cdk_cli, tools  # noqa: F401 (fixtures)
from tests.emulator.cloudformation.test_real_tools import (APP, _check_everything_is_gone, _check_the_app_runs,
                                                           _client, _new_code, _outputs,
                                                           server)  # noqa: F401

pytestmark = pytest.mark.slow
CDK_APP = Path(__file__).parent / "cdk_app"
ACCOUNT = "123456789012"  # what STS answers for fake credentials (moto's default account)


def _cdk(cli: Path, tools_bin: Path, url: str, cwd: Path, *arguments: str) -> str:
    environment = {name: value for name, value in os.environ.items() if not name.startswith(("AWS_", "CDK_"))}
    # `python app.py` (cdk.json) is the tools' virtualenv's, where aws-cdk-lib is installed
    # CDK_VALIDATION=false: the app's synth skips aws-cdk-lib's built-in CloudFormation validation
    # (@aws/cloudformation-validate, run in the jsii kernel's Node.js), a local check of the template that never
    # reaches Eddy and finds nothing in this app (its validation-report.json lists no plugin reports). It was most of
    # a synth's CPU: 15.2 s with it, 4.2 s without (a cpuacct cgroup around `python app.py`, 2026-11-29); the
    # assembly is the same but for that empty report
    environment.update(AWS_ENDPOINT_URL=url, AWS_ACCESS_KEY_ID="testing", AWS_SECRET_ACCESS_KEY="testing",
                       AWS_DEFAULT_REGION="us-east-1", AWS_REGION="us-east-1", CDK_DISABLE_CLI_TELEMETRY="1",
                       CDK_VALIDATION="false", PATH=f"{tools_bin}{os.pathsep}{environment.get('PATH', '')}")
    command = [str(cli), *arguments, "--no-notices", "--ci"]
    started = time.monotonic()
    done = subprocess.run(command, cwd=cwd, env=environment, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, f"{command} failed:\n{done.stdout}\n{done.stderr}"
    output = done.stdout + done.stderr
    # the figures docs/guides/deploy.md quotes (pytest -s shows them): CDK's own, and the command's whole time
    figures = [line.strip() for line in output.splitlines() if line.strip().startswith("✨")]
    print(f"cdk {arguments[0]}: {time.monotonic() - started:.1f} s", *figures)
    return output


def test_cdk_bootstrap_deploy_redeploy_and_destroy(cdk_cli, tools, server, tmp_path):
    app = tmp_path / "cdk_app"
    shutil.copytree(CDK_APP, app)
    shutil.copytree(APP / "src", app / "src")

    _cdk(cdk_cli, tools, server, tmp_path, "bootstrap", f"aws://{ACCOUNT}/us-east-1")
    toolkit = _client(server, "cloudformation").describe_stacks(StackName="CDKToolkit")["Stacks"][0]
    outputs = {output["OutputKey"]: output["OutputValue"] for output in toolkit["Outputs"]}
    assert (toolkit["StackStatus"], outputs["BucketName"]) == (
        "CREATE_COMPLETE", f"cdk-hnb659fds-assets-{ACCOUNT}-us-east-1")
    version = _client(server, "ssm").get_parameter(Name="/cdk-bootstrap/hnb659fds/version")["Parameter"]["Value"]
    assert outputs["BootstrapVersion"] == version and int(version) >= 6  # CDK's deploy role needs 6 or later
    repositories = _client(server, "ecr").describe_repositories()["repositories"]
    assert [repository["repositoryName"] for repository in repositories] == [
        f"cdk-hnb659fds-container-assets-{ACCOUNT}-us-east-1"]

    deploy = ("deploy", "--require-approval", "never", "--progress", "events")
    assert "✅  cdk-app" in _cdk(cdk_cli, tools, server, app, *deploy)
    _check_the_app_runs(server, "cdk-app", "one", 10)
    # CDK's FunctionUrl (auth NONE, both public permissions), served by Eddy: an HTTP GET reaches the function
    web_url = _outputs(server, "cdk-app")["WebUrl"]
    assert call(f"{web_url}hello")[0::2] == (200, b"web /hello")
    _check_the_stream_invokes_the_alias(server, "1")
    _check_the_custom_resources(server)
    _check_the_log_retention(server)
    _new_code(app)
    _cdk(cdk_cli, tools, server, app, *deploy, "--context", "batch_size=5")
    _check_the_app_runs(server, "cdk-app", "two", 5)  # the new code ran: the alias's new version
    _check_the_stream_invokes_the_alias(server, "2")

    # the bucket is not emptied first: CDK's auto_delete_objects provider empties it before it is deleted
    found, s3 = _outputs(server, "cdk-app"), _client(server, "s3")
    assert [listed["Key"] for listed in s3.list_objects_v2(Bucket=found["Uploads"])["Contents"]] == [
        "report-one.csv", "report-two.csv"]
    _cdk(cdk_cli, tools, server, app, "destroy", "--app", "cdk.out", "--force")
    _check_everything_is_gone(server, "cdk-app")
    assert found["Uploads"] not in [bucket["Name"] for bucket in s3.list_buckets()["Buckets"]]
    # LogRetention's RemovalPolicy destroy: its handler deleted the function's log group
    assert _client(server, "logs").describe_log_groups(logGroupNamePrefix=f"/aws/lambda/{found['Copier']}")[
        "logGroups"] == []
    with pytest.raises(ClientError) as gone:  # the AwsCustomResource's onDelete call deleted it
        _client(server, "ssm").get_parameter(Name="/cdk-app/note")
    assert gone.value.response["Error"]["Code"] == "ParameterNotFound"
    summaries = _client(server, "cloudformation").list_stacks()["StackSummaries"]
    assert sorted((summary["StackName"], summary["StackStatus"]) for summary in summaries) == [
        ("CDKToolkit", "CREATE_COMPLETE"), ("cdk-app", "DELETE_COMPLETE")]


def _check_the_stream_invokes_the_alias(url: str, version: str) -> None:
    """The app's mapping invokes the alias "live" (CDK's lambda.Alias of fn.currentVersion), which points to
    `version`: a redeploy with new code published a new version and moved the alias."""
    awslambda = _client(url, "lambda")
    function = awslambda.get_function_configuration(FunctionName=_outputs(url, "cdk-app")["Copier"])
    [mapping] = awslambda.list_event_source_mappings(FunctionName=function["FunctionName"])["EventSourceMappings"]
    assert mapping["FunctionArn"] == f"{function['FunctionArn']}:live"
    assert awslambda.get_alias(FunctionName=function["FunctionName"], Name="live")["FunctionVersion"] == version



def _check_the_log_retention(url: str) -> None:
    """CDK's LogRetention handler (Node.js) set the function's log group's retention, and its own log group's to a
    day (what the handler does on Create)."""
    logs, functions = _client(url, "logs"), _client(url, "lambda").list_functions()["Functions"]
    [handler] = [function["FunctionName"] for function in functions if "LogRetention" in function["FunctionName"]]
    for name, days in ((f"/aws/lambda/{_outputs(url, 'cdk-app')['Copier']}", 7), (f"/aws/lambda/{handler}", 1)):
        assert [(group["logGroupName"], group["retentionInDays"])
                for group in logs.describe_log_groups(logGroupNamePrefix=name)["logGroups"]] == [(name, days)]


def _check_the_custom_resources(url: str) -> None:
    """CDK's Node.js custom resource handlers ran on Eddy and answered: the Provider framework's (it loads
    @aws-sdk/client-sfn) invoked the app's on_event function, which wrote an item; the AwsCustomResource's called
    SSM PutParameter (its answer's Version is the output). Both PUT their response with https.request."""
    found = _outputs(url, "cdk-app")
    assert (found["Greeting"], found["NoteVersion"]) == ("hello eddy", "1")
    parameter = _client(url, "ssm").get_parameter(Name="/cdk-app/note")["Parameter"]
    assert {key: parameter[key] for key in ("Name", "Type", "Value", "Version")} == {
        "Name": "/cdk-app/note", "Type": "String", "Value": "noted", "Version": 1}
    item = _client(url, "dynamodb").get_item(TableName=found["Copies"], Key={"id": {"S": "greeting:eddy"}})["Item"]
    assert item == {"id": {"S": "greeting:eddy"}, "mark": {"S": "provider"}}
    # installLatestAwsSdk (the default): the handler's npm install of a client Eddy's runtime provides was skipped
    functions = _client(url, "lambda").list_functions()["Functions"]
    [handler] = [function["FunctionName"] for function in functions
                 if "AWS679f53fac002430cb0da5b7982bd2287" in function["FunctionName"]]  # AwsCustomResource's
    logged = _client(url, "logs").filter_log_events(logGroupName=f"/aws/lambda/{handler}")["events"]
    assert [event["message"].split("\tINFO\t", 1)[1].strip() for event in logged if "AWS SDK v3" in event["message"]] == [
        "Installing latest AWS SDK v3: @aws-sdk/client-ssm",
        "Failed to install latest AWS SDK v3. Falling back to pre-installed version. Error: Error: Eddy's Node.js "
        "runtime provides @aws-sdk/client-ssm: the run-time `npm install` into /tmp is skipped (AwsCustomResource's "
        "installLatestAwsSdk) and the runtime's version is used"]

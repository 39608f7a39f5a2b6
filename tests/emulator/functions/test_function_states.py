"""An update's state as AWS answers it, in both doors: in progress until a caller reads it (boto3's waiters do), the
operations Lambda refuses meanwhile refused in AWS's words, a waiter's caller never refused. The expected answers are
AWS's recorded ones, from LocalStack's AWS-validated snapshot
github.com/localstack/localstack@8b9a79f05846835cf4dff63ab7eefdde9df83783
tests/aws/services/lambda_/test_lambda_api.snapshot.json (TestLambdaFunction::test_lambda_code_location_zipfile,
test_lambda_concurrent_code_updates and test_lambda_concurrent_config_updates; TestLambdaVersions::
test_publish_with_update), put in the same form by tests/emulator/functions/recorded.py; which operations fail during
an update is the Lambda Developer Guide's "Lambda function states" (UpdateFunctionCode, UpdateFunctionConfiguration,
PublishVersion).

A created function's Pending: which operations fail is the Developer Guide's ("Lambda does not invoke a function
during pending state. Any invocations or other API actions that operate on the function will fail"); Invoke's error
is the one its "Troubleshoot invocation issues in Lambda" page quotes, an update's the one AWS answered an
UpdateFunctionCode right after CreateFunction (aws/serverless-application-model#2356); no recording reads a function
before its creation completed, so the first read answers Active (test_lambda.snapshot.json test_function_state's
"get-fn-response", after LocalStack's fixture waited)."""

from __future__ import annotations

import json

import boto3

from eddy import emulate
from tests.conftest import QUIET
from tests.emulator.cloudformation.helpers import deploy
from tests.emulator.cloudformation.templates import ROLE as ROLE_RESOURCE, inline_function
from tests.emulator.functions.recorded import Recorded
from tests.emulator.functions.test_function_configurations import ACTIVE, CODE, IN_PROGRESS, PENDING, refused, status
from tests.emulator.functions.test_functions import ROLE, zip_of
from tests.lambda_functions import created_function

ECHO = {"index.py": "def handler(event, context):\n    return event\n"}
VERSION = {"index.py": "import os\ndef handler(event, context):\n    return os.environ['AWS_LAMBDA_FUNCTION_VERSION']\n"}


def recorded_configuration(**members) -> dict:
    """The configuration test_lambda_code_location_zipfile and test_publish_with_update recorded for
    <function-name:1> (index.handler, python3.12, no Environment), with the members that differ between answers."""
    return {
        "Architectures": ["x86_64"], "CodeSha256": "<code-sha256:2>", "CodeSize": "<code-size>", "Description": "",
        "EphemeralStorage": {"Size": 512},
        "FunctionArn": "arn:<partition>:lambda:<region>:111111111111:function:<function-name:1>",
        "FunctionName": "<function-name:1>", "Handler": "index.handler", "LastModified": "date",
        "LoggingConfig": {"LogFormat": "Text", "LogGroup": "/aws/lambda/<function-name:1>"}, "MemorySize": 128,
        "PackageType": "Zip", "Role": "arn:<partition>:iam::111111111111:role/<resource:1>", "Runtime": "python3.12",
        "RuntimeVersionConfig": {"RuntimeVersionArn": "arn:<partition>:lambda:<region>::runtime:<resource:2>"},
        "SnapStart": {"ApplyOn": "None", "OptimizationStatus": "Off"}, "Timeout": 3,
        "TracingConfig": {"Mode": "PassThrough"}, "Version": "$LATEST", **members,
    }  # fmt: skip


def created(lam, name: str, recorded: Recorded) -> None:
    """A function made and waited for as LocalStack's create_lambda_function_aws fixture does (<uuid:1> Pending,
    <uuid:2> Active, <code-sha256:1> its first code)."""
    answer = lam.create_function(FunctionName=name, Runtime="python3.12", Role=ROLE, Handler="index.handler",
                                 Code={"ZipFile": zip_of(ECHO)})
    assert recorded(answer)["State"] == "Pending"
    lam.get_waiter("function_active_v2").wait(FunctionName=name)
    assert recorded(lam.get_function(FunctionName=name)["Configuration"]) == recorded_configuration(
        CodeSha256="<code-sha256:1>", RevisionId="<uuid:2>", **ACTIVE)


def test_a_read_right_after_an_update_says_in_progress_and_the_next_successful(door):
    """test_lambda_code_location_zipfile: UpdateFunctionCode answers InProgress ("update-function-response"), and so
    does a GetFunction right after it, under the same RevisionId ("get-function-response-updated"); that read completes
    the update in Eddy, so the next says Successful under a new RevisionId (test_function_revisions_basic's rev4)."""
    lam = door.client("lambda")
    recorded = Recorded(function_names=("located",))
    created(lam, "located", recorded)
    update = lam.update_function_code(FunctionName="located", ZipFile=zip_of(VERSION))
    assert recorded(update) == recorded_configuration(RevisionId="<uuid:3>", **IN_PROGRESS, **status(200))
    assert recorded(lam.get_function(FunctionName="located")) == {
        "Code": CODE, "Configuration": recorded_configuration(RevisionId="<uuid:3>", **IN_PROGRESS), **status(200)}
    assert recorded(lam.get_function_configuration(FunctionName="located")) == recorded_configuration(
        RevisionId="<uuid:4>", **ACTIVE, **status(200))
    assert lam.invoke(FunctionName="located")["Payload"].read() == b'"$LATEST"'


def changes(lam, variable: str, code: dict[str, str]) -> tuple:
    """The calls Lambda refuses while a function is being created or updated, each with its parameters: both
    updates, an update that publishes, and PublishVersion."""
    return ((lam.update_function_configuration, {"Environment": {"Variables": {"TEST": variable}}}),
            (lam.update_function_code, {"ZipFile": zip_of(code)}),
            (lam.update_function_code, {"ZipFile": zip_of(code), "Publish": True}),
            (lam.publish_version, {}))


def conflict(name: str) -> dict:
    """"update-during-in-progress-update-exc" of test_lambda_concurrent_code_updates and _config_updates."""
    message = ("The operation cannot be performed at this time. An update is in progress for resource: "
               f"arn:aws:lambda:us-east-1:123456789012:function:{name}")
    return {"Error": {"Code": "ResourceConflictException", "Message": message}, "Type": "User", "message": message,
            "Status": 409}


def test_an_update_in_progress_refuses_updates_and_publishing_and_changes_nothing(door):
    """test_lambda_concurrent_code_updates and test_lambda_concurrent_config_updates: a second update right after an
    update is refused (409 ResourceConflictException naming the function's ARN), and so is PublishVersion (the Developer
    Guide); nothing is changed or published. After boto3's function_updated_v2 waiter each is taken."""
    lam = door.client("lambda")
    recorded = Recorded(function_names=("busy",))
    created(lam, "busy", recorded)
    first = lam.update_function_configuration(FunctionName="busy", Environment={"Variables": {"TEST": "TEST1"}})
    in_progress = recorded_configuration(CodeSha256="<code-sha256:1>", Environment={"Variables": {"TEST": "TEST1"}},
                                         RevisionId="<uuid:3>", **IN_PROGRESS)
    assert recorded(first) == in_progress | status(200)
    for call, params in changes(lam, "TEST2", VERSION):
        assert refused(call, FunctionName="busy", **params) == conflict("busy")
    assert [v["Version"] for v in lam.list_versions_by_function(FunctionName="busy")["Versions"]] == ["$LATEST"]
    assert recorded(lam.get_function_configuration(FunctionName="busy")) == in_progress | status(200)
    lam.get_waiter("function_updated_v2").wait(FunctionName="busy")
    second = lam.update_function_configuration(FunctionName="busy", Environment={"Variables": {"TEST": "TEST2"}})
    assert recorded(second) == recorded_configuration(
        CodeSha256="<code-sha256:1>", Environment={"Variables": {"TEST": "TEST2"}},
        RevisionId="<uuid:4>", **IN_PROGRESS, **status(200))
    lam.get_waiter("function_updated_v2").wait(FunctionName="busy")
    code = lam.update_function_code(FunctionName="busy", ZipFile=zip_of(VERSION))
    assert refused(lam.update_function_code, FunctionName="busy", ZipFile=zip_of(ECHO)) == conflict("busy")
    lam.get_waiter("function_updated_v2").wait(FunctionName="busy")
    assert lam.publish_version(FunctionName="busy")["CodeSha256"] == code["CodeSha256"]
    assert lam.invoke(FunctionName="busy", Qualifier="1")["Payload"].read() == b'"1"'


def test_update_function_code_publishing_answers_a_pending_version_and_latest_in_progress(door):
    """test_publish_with_update: UpdateFunctionCode with Publish answers version 1 Pending ("update_function_code_result"),
    a GetFunction of version 1 right after it says so under the same RevisionId ("get_function_version_result"), and
    $LATEST is InProgress under a RevisionId of its own ("get_function_latest_result"); each read completes its change."""
    lam = door.client("lambda")
    recorded = Recorded(function_names=("published",))
    created(lam, "published", recorded)
    version_arn = "arn:<partition>:lambda:<region>:111111111111:function:<function-name:1>:1"
    answer = lam.update_function_code(FunctionName="published", ZipFile=zip_of(VERSION), Publish=True)
    assert recorded(answer) == recorded_configuration(FunctionArn=version_arn, Version="1", RevisionId="<uuid:3>",
                                                      **PENDING, **status(200))
    assert recorded(lam.get_function(FunctionName="published", Qualifier="1")) == {
        "Code": CODE, "Configuration": recorded_configuration(FunctionArn=version_arn, Version="1",
                                                              RevisionId="<uuid:3>", **PENDING), **status(200)}
    latest_arn = "arn:<partition>:lambda:<region>:111111111111:function:<function-name:1>:$LATEST"
    assert recorded(lam.get_function(FunctionName="published", Qualifier="$LATEST")) == {
        "Code": CODE, "Configuration": recorded_configuration(FunctionArn=latest_arn, RevisionId="<uuid:4>",
                                                              **IN_PROGRESS), **status(200)}
    assert recorded(lam.get_function_configuration(FunctionName="published", Qualifier="1")) == recorded_configuration(
        FunctionArn=version_arn, Version="1", RevisionId="<uuid:5>", **ACTIVE, **status(200))
    assert recorded(lam.get_function_configuration(FunctionName="published"))["LastUpdateStatus"] == "Successful"
    assert lam.publish_version(FunctionName="published")["Version"] == "1"  # nothing changed since it was published


def pending_conflict(name: str) -> dict:
    """An update or PublishVersion of a function still Pending after CreateFunction, as AWS answered UpdateFunctionCode
    (aws/serverless-application-model#2356: 409, the unqualified ARN, the state and its reason code quoted)."""
    message = (f"The operation cannot be performed at this time. The resource "
               f"arn:aws:lambda:us-east-1:123456789012:function:{name} is currently in the following state: "
               "'Pending'. StateReasonCode: 'Creating'")
    return {"Error": {"Code": "ResourceConflictException", "Message": message}, "Type": "User", "message": message,
            "Status": 409}


#: Invoke of a Pending function (the Lambda Developer Guide, "Troubleshoot invocation issues in Lambda")
NOT_ACTIVE = "The operation cannot be performed at this time. The function is currently in the following state: Pending"
INVOKE_REFUSED = {"Error": {"Code": "ResourceConflictException", "Message": NOT_ACTIVE}, "Type": "User",
                  "message": NOT_ACTIVE, "Status": 409}


def test_a_created_function_is_pending_and_refuses_invocations_and_updates_until_read(door):
    """CreateFunction answers Pending (test_function_state's "create-fn-response"); while it is, Invoke of every
    InvocationType, InvokeAsync, both updates and PublishVersion are refused (409 ResourceConflictException), changing
    nothing: no invocation, no version, the configuration as created. The waiter's first read answers Active under a
    new RevisionId ("get-fn-response"; test_function_revisions_basic's rev1 to rev2), and then each is taken."""
    lam = door.client("lambda")
    recorded = Recorded(function_names=("fresh",))
    answer = lam.create_function(FunctionName="fresh", Runtime="python3.12", Role=ROLE, Handler="index.handler",
                                 Code={"ZipFile": zip_of(VERSION)})
    assert recorded(answer) == recorded_configuration(CodeSha256="<code-sha256:1>", RevisionId="<uuid:1>", **PENDING,
                                                      **status(201))
    for invocation_type in ("RequestResponse", "Event", "DryRun"):
        assert refused(lam.invoke, FunctionName="fresh", InvocationType=invocation_type) == INVOKE_REFUSED
    assert refused(lam.invoke_async, FunctionName="fresh", InvokeArgs=b"{}") == INVOKE_REFUSED
    for call, params in changes(lam, "TEST1", ECHO):
        assert refused(call, FunctionName="fresh", **params) == pending_conflict("fresh")
    assert [v["Version"] for v in lam.list_versions_by_function(FunctionName="fresh")["Versions"]] == ["$LATEST"]
    assert door.wait_idle(5)["Idle"]  # no asynchronous event was queued
    lam.get_waiter("function_active_v2").wait(FunctionName="fresh")
    assert recorded(lam.get_function(FunctionName="fresh")) == {
        "Code": CODE, "Configuration": recorded_configuration(CodeSha256="<code-sha256:1>", RevisionId="<uuid:2>",
                                                              **ACTIVE), **status(200)}
    assert lam.invoke(FunctionName="fresh")["Payload"].read() == b'"$LATEST"'
    assert lam.publish_version(FunctionName="fresh")["Version"] == "1"


def test_created_with_publish_its_version_is_pending_with_the_function(door):
    """CreateFunction with Publish answers version 1 Pending under the function's ARN (test_publish_version_on_create);
    the version is not invoked while the function is Pending, and the function's first read makes both Active."""
    lam = door.client("lambda")
    answer = lam.create_function(FunctionName="first", Runtime="python3.12", Role=ROLE, Handler="index.handler",
                                 Code={"ZipFile": zip_of(VERSION)}, Publish=True)
    assert (answer["Version"], answer["State"]) == ("1", "Pending")
    assert refused(lam.invoke, FunctionName="first", Qualifier="1") == INVOKE_REFUSED
    assert lam.get_function_configuration(FunctionName="first", Qualifier="1")["State"] == "Active"
    assert lam.invoke(FunctionName="first", Qualifier="1")["Payload"].read() == b'"1"'
    assert lam.get_function_configuration(FunctionName="first")["State"] == "Active"


def test_a_service_invoking_a_pending_function_completes_its_creation(door):
    """One of Lambda's services invoking the function (an SNS subscription here) runs it, as AWS's, whose deliveries
    come long after the function became Active: the invocation completes the creation, and Invoke is then taken
    without a read."""
    lam, sns, logs = door.client("lambda"), door.client("sns"), door.client("logs")
    source = "def handler(event, context):\n    print('got', event['Records'][0]['Sns']['Message'])\n    return 1\n"
    function = lam.create_function(FunctionName="subscriber", Runtime="python3.12", Role=ROLE,
                                   Handler="index.handler", Code={"ZipFile": zip_of({"index.py": source})})
    topic = sns.create_topic(Name="news")["TopicArn"]
    sns.subscribe(TopicArn=topic, Protocol="lambda", Endpoint=function["FunctionArn"])
    sns.publish(TopicArn=topic, Message="hello")
    assert door.wait_idle(30)["Idle"]
    printed = [e["message"] for e in logs.filter_log_events(logGroupName="/aws/lambda/subscriber")["events"]]
    assert "got hello\n" in printed
    assert lam.invoke(FunctionName="subscriber", Payload=json.dumps({"Records": [{"Sns": {"Message": "again"}}]}))[
        "Payload"].read() == b"1"


def test_a_function_cloudformation_made_is_active_at_once(door):
    """Eddy's CloudFormation engine waits for the function it creates to be Active, as AWS's does, so a stack's
    function is invoked and updated as soon as the stack is complete."""
    template = ("Resources:" + ROLE_RESOURCE
                + inline_function("Echo", "def handler(event, context):\n    return event\n", name="stacked"))
    deploy(door.client("cloudformation"), "create", "states", template)
    lam = door.client("lambda")
    assert lam.invoke(FunctionName="stacked", Payload=b'{"a": 1}')["Payload"].read() == b'{"a": 1}'
    assert lam.update_function_configuration(FunctionName="stacked", Timeout=9)["LastUpdateStatus"] == "InProgress"


def test_a_registered_handler_is_active_at_once():
    """A registered callable is made by Eddy in the test's process, never through CreateFunction: it is Active at
    once, invoked without a wait."""
    with emulate(**QUIET) as emu:
        emu.register_function("registered", lambda event, context: {"got": event})
        lam = boto3.client("lambda", region_name="us-east-1")
        assert lam.get_function_configuration(FunctionName="registered")["State"] == "Active"
        assert json.loads(lam.invoke(FunctionName="registered", Payload=b'{"a": 1}')["Payload"].read()) == {
            "got": {"a": 1}}


def test_created_function_helper_waits(door):
    """tests/lambda_functions.py's created_function answers CreateFunction's Pending answer and waits: the function is
    then invoked at once."""
    lam = door.client("lambda")
    assert created_function(lam, FunctionName="helped", Runtime="python3.12", Role=ROLE, Handler="index.handler",
                            Code={"ZipFile": zip_of(VERSION)})["State"] == "Pending"
    assert lam.invoke(FunctionName="helped")["Payload"].read() == b'"$LATEST"'

"""An update's state as AWS answers it, in both doors: in progress until a caller reads it (boto3's waiters do), the
operations Lambda refuses meanwhile refused in AWS's words, a waiter's caller never refused. The expected answers are
AWS's recorded ones, from LocalStack's AWS-validated snapshot
github.com/localstack/localstack@8b9a79f05846835cf4dff63ab7eefdde9df83783
tests/aws/services/lambda_/test_lambda_api.snapshot.json (TestLambdaFunction::test_lambda_code_location_zipfile,
test_lambda_concurrent_code_updates and test_lambda_concurrent_config_updates; TestLambdaVersions::
test_publish_with_update), put in the same form by tests/emulator/functions/recorded.py; which operations fail during
an update is the Lambda Developer Guide's "Lambda function states" (UpdateFunctionCode, UpdateFunctionConfiguration,
PublishVersion)."""

from __future__ import annotations

from tests.emulator.functions.recorded import Recorded
from tests.emulator.functions.test_function_configurations import ACTIVE, CODE, IN_PROGRESS, PENDING, refused, status
from tests.emulator.functions.test_functions import ROLE, zip_of

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
    for call, params in ((lam.update_function_configuration, {"Environment": {"Variables": {"TEST": "TEST2"}}}),
                         (lam.update_function_code, {"ZipFile": zip_of(VERSION)}),
                         (lam.update_function_code, {"ZipFile": zip_of(VERSION), "Publish": True}),
                         (lam.publish_version, {})):
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

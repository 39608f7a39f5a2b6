"""FunctionConfiguration as AWS answers it, whole, in both doors: the members every function has (Architectures,
EphemeralStorage, TracingConfig, SnapStart, RuntimeVersionConfig), Environment once given, and a new RevisionId with
each state change. The expected answers are AWS's recorded ones, from LocalStack's AWS-validated snapshot
github.com/localstack/localstack@8b9a79f05846835cf4dff63ab7eefdde9df83783
tests/aws/services/lambda_/test_lambda_api.snapshot.json (TestLambdaFunction::test_function_lifecycle, recorded
25-11-2025; TestLambdaRevisions::test_function_revisions_basic and test_function_revisions_version_and_alias;
TestLambdaSnapStart::test_snapstart_update_function_configuration[python3.12]), put in the same form by
tests/emulator/functions/recorded.py."""

from __future__ import annotations

import pytest
from botocore.exceptions import ClientError

from tests.emulator.functions.recorded import Recorded
from tests.emulator.functions.test_functions import ROLE, zip_of
from tests.lambda_functions import created_function

ECHO = {"handler.py": "def handler(event, context):\n    return event\n"}
VERSION = {"handler.py": "import os\ndef handler(event, context):\n    return os.environ.get('AWS_LAMBDA_FUNCTION_VERSION')\n"}


def recorded_configuration(**members) -> dict:
    """test_function_lifecycle's configuration of <function-name:1>, with the members that differ between its answers."""
    return {
        "Architectures": ["x86_64"], "CodeSha256": "<code-sha256:1>", "CodeSize": "<code-size>", "Description": "",
        "Environment": {"Variables": {}}, "EphemeralStorage": {"Size": 512},
        "FunctionArn": "arn:<partition>:lambda:<region>:111111111111:function:<function-name:1>",
        "FunctionName": "<function-name:1>", "Handler": "handler.handler", "LastModified": "date",
        "LoggingConfig": {"LogFormat": "Text", "LogGroup": "/aws/lambda/<function-name:1>"}, "MemorySize": 256,
        "PackageType": "Zip", "Role": "arn:<partition>:iam::111111111111:role/<resource:1>", "Runtime": "python3.12",
        "RuntimeVersionConfig": {"RuntimeVersionArn": "arn:<partition>:lambda:<region>::runtime:<resource:2>"},
        "SnapStart": {"ApplyOn": "None", "OptimizationStatus": "Off"}, "Timeout": 5,
        "TracingConfig": {"Mode": "PassThrough"}, "Version": "$LATEST", **members,
    }  # fmt: skip


PENDING = {"State": "Pending", "StateReason": "The function is being created.", "StateReasonCode": "Creating"}
ACTIVE = {"State": "Active", "LastUpdateStatus": "Successful"}
IN_PROGRESS = {"State": "Active", "LastUpdateStatus": "InProgress", "LastUpdateStatusReason":
               "The function is being created.", "LastUpdateStatusReasonCode": "Creating"}
CODE = {"Location": "<location>", "RepositoryType": "S3"}
UPDATED = {"Description": "Changed-Description", "Environment": {"Variables": {"ENV_A": "a"}}, "MemorySize": 512,
           "Runtime": "python3.11", "Timeout": 10,
           "RuntimeVersionConfig": {"RuntimeVersionArn": "arn:<partition>:lambda:<region>::runtime:<resource:3>"}}


def status(code: int) -> dict:
    return {"ResponseMetadata": {"HTTPHeaders": {}, "HTTPStatusCode": code}}


def test_a_functions_lifecycle_answers_as_aws_recorded_it(door):
    """test_function_lifecycle: create (Pending), get (Active), update the configuration (InProgress), get, update
    the code, get, delete, delete again; each whole answer as recorded (the fixture gave Environment without
    variables: LocalStack's testutil.create_lambda_function sends {"Variables": {}})."""
    lam = door.client("lambda")
    recorded = Recorded(function_names=("lifecycle",))
    created = lam.create_function(FunctionName="lifecycle", Runtime="python3.12", Role=ROLE, Handler="handler.handler",
                                  Code={"ZipFile": zip_of(ECHO)}, MemorySize=256, Timeout=5,
                                  Environment={"Variables": {}})
    assert recorded(created) == recorded_configuration(RevisionId="<uuid:1>", **PENDING, **status(201))
    lam.get_waiter("function_active_v2").wait(FunctionName="lifecycle")
    assert recorded(lam.get_function(FunctionName="lifecycle")) == {
        "Code": CODE, "Configuration": recorded_configuration(RevisionId="<uuid:2>", **ACTIVE), **status(200)}
    updated = lam.update_function_configuration(FunctionName="lifecycle", Runtime="python3.11",
                                                Description="Changed-Description", MemorySize=512, Timeout=10,
                                                Environment={"Variables": {"ENV_A": "a"}})
    assert recorded(updated) == recorded_configuration(RevisionId="<uuid:3>", **UPDATED, **IN_PROGRESS, **status(200))
    lam.get_waiter("function_updated_v2").wait(FunctionName="lifecycle")
    assert recorded(lam.get_function(FunctionName="lifecycle")) == {
        "Code": CODE, "Configuration": recorded_configuration(RevisionId="<uuid:4>", **UPDATED, **ACTIVE),
        **status(200)}
    code = lam.update_function_code(FunctionName="lifecycle", ZipFile=zip_of(VERSION))
    assert recorded(code) == recorded_configuration(RevisionId="<uuid:5>", CodeSha256="<code-sha256:2>", **UPDATED,
                                                    **IN_PROGRESS, **status(200))
    lam.get_waiter("function_updated_v2").wait(FunctionName="lifecycle")
    assert recorded(lam.get_function(FunctionName="lifecycle")) == {
        "Code": CODE, "Configuration": recorded_configuration(RevisionId="<uuid:6>", CodeSha256="<code-sha256:2>",
                                                              **UPDATED, **ACTIVE), **status(200)}
    assert recorded(lam.delete_function(FunctionName="lifecycle")) == {"StatusCode": 204, **status(204)}


def test_a_function_created_without_environment_answers_none(door):
    """test_lambda.snapshot.json TestLambdaBaseFeatures::test_function_state: no Environment given, none answered."""
    lam = door.client("lambda")
    created = created_function(lam, FunctionName="plain", Runtime="python3.12", Role=ROLE, Handler="handler.handler",
                                  Code={"ZipFile": zip_of(ECHO)})
    assert "Environment" not in created
    assert "Environment" not in lam.get_function_configuration(FunctionName="plain")


def refused(call, **params) -> dict:
    with pytest.raises(ClientError) as error:
        call(**params)
    return {key: value for key, value in error.value.response.items() if key != "ResponseMetadata"} | {
        "Status": error.value.response["ResponseMetadata"]["HTTPStatusCode"]}


STALE = "The Revision Id provided does not match the latest Revision Id. Call the GetFunction/GetAlias API to " \
        "retrieve the latest Revision Id"


def test_each_change_and_state_is_a_new_revision_and_a_stale_one_is_refused(door):
    """test_function_revisions_basic: rev1 (created) != rev2 (Active) != rev3 (code updated) != rev4 (Successful);
    an update with a RevisionId not the latest is PreconditionFailedException ("update_function_revision_exception",
    "update_function_configuration_revision_exception"), and changes nothing. test_function_revisions_version_and_alias:
    PublishVersion is a new revision of $LATEST (rev2 before, rev3 after); the version keeps its own."""
    lam = door.client("lambda")
    rev1 = created_function(lam, FunctionName="revised", Runtime="python3.12", Role=ROLE, Handler="handler.handler",
                               Code={"ZipFile": zip_of(ECHO)})["RevisionId"]
    rev2 = lam.get_function(FunctionName="revised")["Configuration"]["RevisionId"]
    stale = {"Error": {"Code": "PreconditionFailedException", "Message": STALE}, "Type": "User", "message": STALE,
             "Status": 412}
    assert refused(lam.update_function_code, FunctionName="revised", ZipFile=zip_of(VERSION), RevisionId="wrong") == stale
    assert refused(lam.update_function_configuration, FunctionName="revised", Timeout=9, RevisionId=rev1) == stale
    assert lam.get_function(FunctionName="revised")["Configuration"]["RevisionId"] == rev2
    rev3 = lam.update_function_code(FunctionName="revised", ZipFile=zip_of(VERSION), RevisionId=rev2)["RevisionId"]
    lam.get_waiter("function_updated_v2").wait(FunctionName="revised")
    rev4 = lam.get_function(FunctionName="revised")["Configuration"]["RevisionId"]
    assert len({rev1, rev2, rev3, rev4}) == 4
    version = lam.publish_version(FunctionName="revised")
    rev5 = lam.get_function(FunctionName="revised")["Configuration"]["RevisionId"]
    assert len({rev4, rev5, version["RevisionId"]}) == 3
    assert lam.get_function(FunctionName="revised", Qualifier="1")["Configuration"]["RevisionId"] == version["RevisionId"]


def test_settings_given_are_kept_and_answered(door):
    """test_snapstart_update_function_configuration[python3.12] ("update_function_response": SnapStart ApplyOn
    PublishedVersions, OptimizationStatus Off on $LATEST); Architectures, EphemeralStorage and TracingConfig as given
    (Lambda API Reference, FunctionConfiguration), and a version published with SnapStart On."""
    lam = door.client("lambda")
    created_function(lam, FunctionName="set", Runtime="python3.12", Role=ROLE, Handler="handler.handler",
                        Code={"ZipFile": zip_of(ECHO)}, Architectures=["arm64"], EphemeralStorage={"Size": 1024},
                        TracingConfig={"Mode": "Active"})
    answer = lam.update_function_configuration(FunctionName="set", SnapStart={"ApplyOn": "PublishedVersions"})
    assert {key: answer[key] for key in ("Architectures", "EphemeralStorage", "TracingConfig", "SnapStart")} == {
        "Architectures": ["arm64"], "EphemeralStorage": {"Size": 1024}, "TracingConfig": {"Mode": "Active"},
        "SnapStart": {"ApplyOn": "PublishedVersions", "OptimizationStatus": "Off"}}
    assert lam.invoke(FunctionName="set", Payload=b'{"runs": true}')["Payload"].read() == b'{"runs": true}'
    lam.get_waiter("function_updated_v2").wait(FunctionName="set")
    version = lam.publish_version(FunctionName="set")
    assert version["SnapStart"] == {"ApplyOn": "PublishedVersions", "OptimizationStatus": "On"}
    listed = lam.list_functions()["Functions"]
    assert [sorted(f) for f in listed] == [sorted(set(answer) - {"ResponseMetadata", "RuntimeVersionConfig", "State",
                                                                 "LastUpdateStatus", "LastUpdateStatusReason",
                                                                 "LastUpdateStatusReasonCode"})]


def test_architectures_refused_as_aws_words_them(door):
    """test_lambda_api.snapshot.json TestLambdaFunction::test_create_lambda_exceptions: "multiple_architectures" and
    "uppercase_architecture" (the whole list, every constraint of its members)."""
    lam = door.client("lambda")
    for architectures, message in (
            (["x86_64", "arm64"], "1 validation error detected: Value '[x86_64, arm64]' at 'architectures' failed to "
                                  "satisfy constraint: Member must have length less than or equal to 1"),
            (["X86_64"], "1 validation error detected: Value '[X86_64]' at 'architectures' failed to satisfy "
                         "constraint: Member must satisfy constraint: [Member must satisfy enum value set: [x86_64, "
                         "arm64], Member must not be null]")):
        assert refused(lam.create_function, FunctionName="arch", Runtime="python3.12", Role=ROLE,
                       Handler="handler.handler", Code={"ZipFile": zip_of(ECHO)}, Architectures=architectures) == {
            "Error": {"Code": "ValidationException", "Message": message}, "Status": 400}

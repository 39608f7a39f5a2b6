"""Published versions, in both doors, answered as AWS answers them. The expected answers are AWS's recorded ones:
LocalStack's AWS-validated snapshots, tests/aws/services/lambda_/test_lambda_api.snapshot.json (TestLambdaVersions,
TestLambdaFunction::test_ops_on_nonexisting_version, test_delete_on_nonexisting_version,
test_function_name_and_qualifier_validation), named per test."""

from __future__ import annotations

import base64
import json

import pytest
from botocore.exceptions import ClientError

from tests.emulator.functions.test_functions import create_function, updated, zip_of

ARN = "arn:aws:lambda:us-east-1:123456789012:function"
SOURCE = "import os\ndef handler(event, context):\n    return {'says': %r, 'version': context.function_version, " \
         "'arn': context.invoked_function_arn, 'env': os.environ['AWS_LAMBDA_FUNCTION_VERSION']}\n"
#: what changes by itself or is the same everywhere: compared apart
VOLATILE = ("RevisionId", "LastModified", "CodeSha256", "CodeSize", "Role", "Runtime", "Handler", "Timeout",
            "MemorySize", "PackageType", "Architectures", "LoggingConfig", "ResponseMetadata", "EphemeralStorage",
            "TracingConfig", "SnapStart", "RuntimeVersionConfig")  # the last four: test_function_configurations.py


def shown(configuration: dict) -> dict:
    return {key: value for key, value in configuration.items() if key not in VOLATILE}


def refused(call, **params) -> dict:
    with pytest.raises(ClientError) as error:
        call(**params)
    return {"Error": error.value.response["Error"], "Status": error.value.response["ResponseMetadata"]["HTTPStatusCode"]}


def payload(lam, name: str, **options) -> tuple[str, dict]:
    response = lam.invoke(FunctionName=name, **options)
    return response["ExecutedVersion"], json.loads(response["Payload"].read())


def test_version_lifecycle(door):
    """test_version_lifecycle: a version keeps the configuration it was published with; publishing again with nothing
    changed answers the last version (third_publish_response, Description unchanged); the listing leaves out
    State and LastUpdateStatus; a deleted version's number is never given again."""
    lam = door.client("lambda")
    create_function(lam, "versioned", SOURCE % "one", Description="No version :(")
    assert [shown(v) for v in lam.list_versions_by_function(FunctionName="versioned")["Versions"]] == [
        {"FunctionName": "versioned", "FunctionArn": f"{ARN}:versioned:$LATEST", "Description": "No version :(",
         "Version": "$LATEST"}]
    lam.update_function_configuration(FunctionName="versioned", Description="First version :)")
    updated(lam, "versioned")
    first = lam.publish_version(FunctionName="versioned", Description="First version description :)")
    assert first["ResponseMetadata"]["HTTPStatusCode"] == 201
    assert shown(first) == {"FunctionName": "versioned", "FunctionArn": f"{ARN}:versioned:1", "Version": "1",
                            "Description": "First version description :)", "State": "Active",
                            "LastUpdateStatus": "Successful"}
    assert lam.get_function(FunctionName="versioned", Qualifier="1")["Configuration"] == {
        key: value for key, value in first.items() if key != "ResponseMetadata"}
    lam.update_function_configuration(FunctionName="versioned", Description="Second version :))", Timeout=9)
    updated(lam, "versioned")
    again = lam.get_function_configuration(FunctionName="versioned", Qualifier="1")
    assert (again["Description"], again["Timeout"], again["RevisionId"]) == (
        "First version description :)", 3, first["RevisionId"])
    second = lam.publish_version(FunctionName="versioned")
    assert (second["Version"], second["Description"], second["Timeout"]) == ("2", "Second version :))", 9)
    third = lam.publish_version(FunctionName="versioned", Description="Third version description :)))")
    assert {k: v for k, v in third.items() if k != "ResponseMetadata"} == {
        k: v for k, v in second.items() if k != "ResponseMetadata"}
    latest = lam.get_function(FunctionName="versioned")["Configuration"]
    assert (latest["FunctionArn"], latest["Version"], latest["Timeout"]) == (f"{ARN}:versioned", "$LATEST", 9)
    listed = lam.list_versions_by_function(FunctionName="versioned")["Versions"]
    assert [(v["Version"], v["FunctionArn"], v["Description"]) for v in listed] == [
        ("$LATEST", f"{ARN}:versioned:$LATEST", "Second version :))"),
        ("1", f"{ARN}:versioned:1", "First version description :)"),
        ("2", f"{ARN}:versioned:2", "Second version :))")]
    assert not any({"State", "LastUpdateStatus"} & set(v) for v in listed)
    assert lam.delete_function(FunctionName="versioned", Qualifier="1")["ResponseMetadata"]["HTTPStatusCode"] == 204
    assert [v["Version"] for v in lam.list_versions_by_function(FunctionName="versioned")["Versions"]] == [
        "$LATEST", "2"]
    lam.update_function_configuration(FunctionName="versioned", Timeout=10)
    updated(lam, "versioned")
    assert lam.publish_version(FunctionName="versioned")["Version"] == "3"


def test_a_version_runs_its_own_code_and_latest_runs_the_new_code(door):
    """The version is frozen: UpdateFunctionCode changes $LATEST only. Invoke answers ExecutedVersion, and the
    handler sees its version and the ARN it was invoked by (context and AWS_LAMBDA_FUNCTION_VERSION)."""
    lam = door.client("lambda")
    create_function(lam, "frozen", SOURCE % "one", Publish=True)
    lam.update_function_code(FunctionName="frozen", ZipFile=zip_of({"app.py": SOURCE % "two"}))
    updated(lam, "frozen")  # $LATEST runs its previous code until the update completes
    assert payload(lam, "frozen", Qualifier="1") == (
        "1", {"says": "one", "version": "1", "arn": f"{ARN}:frozen:1", "env": "1"})
    assert payload(lam, f"{ARN}:frozen:1") == (
        "1", {"says": "one", "version": "1", "arn": f"{ARN}:frozen:1", "env": "1"})
    assert payload(lam, "frozen") == (
        "$LATEST", {"says": "two", "version": "$LATEST", "arn": f"{ARN}:frozen", "env": "$LATEST"})
    assert payload(lam, "frozen:$LATEST") == (
        "$LATEST", {"says": "two", "version": "$LATEST", "arn": f"{ARN}:frozen:$LATEST", "env": "$LATEST"})
    assert payload(lam, "123456789012:function:frozen:1")[0] == "1"  # a partial ARN
    tail = lam.invoke(FunctionName="frozen", Qualifier="1", LogType="Tail")
    log = base64.b64decode(tail["LogResult"]).decode()
    assert log.startswith(f"START RequestId: {tail['ResponseMetadata']['RequestId']} Version: 1\n")
    logs = door.client("logs")
    streams = [s["logStreamName"] for s in logs.describe_log_streams(logGroupName="/aws/lambda/frozen")["logStreams"]]
    assert sorted(name.split("]")[0].split("[")[1] for name in streams) == ["$LATEST", "1"]


def test_publish_on_create_and_on_update_code(door):
    """test_publish_version_on_create: CreateFunction(Publish=True) answers Version "1" under the function's ARN, being
    created; a PublishVersion after it answers version 1 again. test_publish_with_update: UpdateFunctionCode(
    Publish=True) answers the new version's configuration, being created; $LATEST has the new code."""
    lam = door.client("lambda")
    created = create_function(lam, "published", SOURCE % "one", Publish=True)
    assert shown(created) == {"FunctionName": "published", "FunctionArn": f"{ARN}:published", "Version": "1",
                              "Description": "", "State": "Pending", "StateReason": "The function is being created.",
                              "StateReasonCode": "Creating"}
    assert lam.publish_version(FunctionName="published")["Version"] == "1"
    updated = lam.update_function_code(FunctionName="published", ZipFile=zip_of({"app.py": SOURCE % "two"}),
                                       Publish=True)
    assert shown(updated) == {"FunctionName": "published", "FunctionArn": f"{ARN}:published:2", "Version": "2",
                              "Description": "", "State": "Pending", "StateReason": "The function is being created.",
                              "StateReasonCode": "Creating"}
    latest = lam.get_function(FunctionName="published", Qualifier="$LATEST")["Configuration"]
    assert (latest["FunctionArn"], latest["CodeSha256"]) == (f"{ARN}:published:$LATEST", updated["CodeSha256"])
    assert lam.get_function_configuration(FunctionName="published:1")["CodeSha256"] == created["CodeSha256"]


def test_publish_refusals(door):
    """test_publish_with_wrong_sha256 and test_publish_with_wrong_revisionid: AWS's words; nothing published."""
    lam = door.client("lambda")
    created = create_function(lam, "checked", SOURCE % "one")
    sha = created["CodeSha256"]
    assert refused(lam.publish_version, FunctionName="checked", CodeSha256="somenonexistentsha256") == {
        "Error": {"Code": "InvalidParameterValueException", "Message": (
            f"CodeSHA256 (somenonexistentsha256) is different from current CodeSHA256 in $LATEST ({sha}). Please try "
            "again with the CodeSHA256 in $LATEST.")}, "Status": 400}
    assert refused(lam.publish_version, FunctionName="checked", RevisionId="doesntexist") == {
        "Error": {"Code": "PreconditionFailedException", "Message": (
            "The Revision Id provided does not match the latest Revision Id. Call the GetFunction/GetAlias API to "
            "retrieve the latest Revision Id")}, "Status": 412}
    assert len(lam.list_versions_by_function(FunctionName="checked")["Versions"]) == 1
    revision = lam.get_function(FunctionName="checked")["Configuration"]["RevisionId"]
    assert lam.publish_version(FunctionName="checked", CodeSha256=sha, RevisionId=revision)["Version"] == "1"


def test_missing_versions_and_qualifiers_are_refused_in_aws_words(door):
    """test_ops_on_nonexisting_version, test_delete_on_nonexisting_version (a missing version deleted: 204) and
    test_function_name_and_qualifier_validation (latest_version_with_additional_qualifier,
    function_name_and_qualifier_too_long-delete_function, lowercase_latest_qualifier); $LATEST cannot be deleted alone (LocalStack's provider, delete_function)."""
    lam = door.client("lambda")
    create_function(lam, "qualified", SOURCE % "one")
    missing = {"Error": {"Code": "ResourceNotFoundException", "Message": f"Function not found: {ARN}:qualified:1221"},
               "Status": 404}
    assert refused(lam.get_function, FunctionName="qualified", Qualifier="1221") == missing
    assert refused(lam.get_function_configuration, FunctionName="qualified", Qualifier="1221") == missing
    assert refused(lam.invoke, FunctionName="qualified", Qualifier="1221") == missing
    for _ in range(2):  # nothing to delete, answered 204 (test_delete_on_nonexisting_version)
        assert lam.delete_function(FunctionName="qualified", Qualifier="1233")["ResponseMetadata"][
            "HTTPStatusCode"] == 204
    assert refused(lam.get_function, FunctionName="nothing", Qualifier="$latest") == {
        "Error": {"Code": "ResourceNotFoundException", "Message": f"Function not found: {ARN}:nothing:$latest"},
        "Status": 404}
    assert refused(lam.delete_function, FunctionName="nothing", Qualifier="1") == {
        "Error": {"Code": "ResourceNotFoundException", "Message": f"Function not found: {ARN}:nothing"},
        "Status": 404}
    assert refused(lam.get_function, FunctionName=f"{ARN}:qualified:$LATEST", Qualifier="1") == {
        "Error": {"Code": "InvalidParameterValueException",
                  "Message": "The derived qualifier from the function name does not match the specified qualifier."},
        "Status": 400}
    assert refused(lam.delete_function, FunctionName="qualified", Qualifier="live") == {
        "Error": {"Code": "InvalidParameterValueException",
                  "Message": "Deletion of aliases is not currently supported."}, "Status": 400}
    assert refused(lam.delete_function, FunctionName="qualified", Qualifier="$LATEST") == {
        "Error": {"Code": "InvalidParameterValueException",
                  "Message": "$LATEST version cannot be deleted without deleting the function."}, "Status": 400}
    assert lam.get_function(FunctionName="qualified")["Configuration"]["Version"] == "$LATEST"
    lam.delete_function(FunctionName="qualified")
    gone = {"Error": {"Code": "ResourceNotFoundException", "Message": f"Function not found: {ARN}:qualified"},
            "Status": 404}  # "delete_function_response_non_existent" and "..._with_qualifier"
    assert refused(lam.delete_function, FunctionName="qualified") == gone
    assert refused(lam.delete_function, FunctionName="qualified", Qualifier="1233") == gone


def test_deleting_the_function_deletes_its_versions(door):
    lam = door.client("lambda")
    create_function(lam, "gone", SOURCE % "one", Publish=True)
    lam.delete_function(FunctionName="gone")
    assert refused(lam.get_function, FunctionName="gone", Qualifier="1") == {
        "Error": {"Code": "ResourceNotFoundException", "Message": f"Function not found: {ARN}:gone:1"}, "Status": 404}
    create_function(lam, "gone", SOURCE % "two")
    assert [v["Version"] for v in lam.list_versions_by_function(FunctionName="gone")["Versions"]] == ["$LATEST"]
    assert lam.publish_version(FunctionName="gone")["Version"] == "1"


def test_versions_are_listed_a_page_at_a_time(door):
    lam = door.client("lambda")
    create_function(lam, "paged", SOURCE % "one")
    for timeout in range(4, 8):
        lam.update_function_configuration(FunctionName="paged", Timeout=timeout)
        updated(lam, "paged")
        lam.publish_version(FunctionName="paged")
    first = lam.list_versions_by_function(FunctionName="paged", MaxItems=2)
    second = lam.list_versions_by_function(FunctionName="paged", MaxItems=2, Marker=first["NextMarker"])
    third = lam.list_versions_by_function(FunctionName="paged", MaxItems=2, Marker=second["NextMarker"])
    assert [[v["Version"] for v in page["Versions"]] for page in (first, second, third)] == [
        ["$LATEST", "1"], ["2", "3"], ["4"]]
    assert "NextMarker" not in third
    paginated = lam.get_paginator("list_versions_by_function").paginate(FunctionName="paged",
                                                                       PaginationConfig={"PageSize": 3})
    assert [v["Version"] for page in paginated for v in page["Versions"]] == ["$LATEST", "1", "2", "3", "4"]


def test_list_functions_lists_every_version_with_function_version_all(door):
    """TestLambdaFunction::test_list_functions: FunctionVersion=ALL lists each function's $LATEST and versions under
    qualified ARNs, the default only $LATEST under the function's ARN, neither with State; another value is refused."""
    lam = door.client("lambda", validate=False)
    create_function(lam, "list-fn-1", SOURCE % "one", Publish=True)
    create_function(lam, "list-fn-2", SOURCE % "two")
    every = lam.get_paginator("list_functions").paginate(FunctionVersion="ALL", PaginationConfig={"PageSize": 1})
    listed = [f for page in every for f in page["Functions"]]
    assert [(f["FunctionArn"], f["Version"]) for f in listed] == [
        (f"{ARN}:list-fn-1:$LATEST", "$LATEST"), (f"{ARN}:list-fn-1:1", "1"), (f"{ARN}:list-fn-2:$LATEST", "$LATEST")]
    default = lam.list_functions()["Functions"]
    assert [(f["FunctionArn"], f["Version"]) for f in default] == [
        (f"{ARN}:list-fn-1", "$LATEST"), (f"{ARN}:list-fn-2", "$LATEST")]
    assert not any({"State", "LastUpdateStatus"} & set(f) for f in listed + default)
    assert refused(lam.list_functions, FunctionVersion="invalid") == {"Error": {"Code": "ValidationException", "Message": (
        "1 validation error detected: Value 'invalid' at 'functionVersion' failed to satisfy constraint: Member must "
        "satisfy enum value set: [ALL]")}, "Status": 400}

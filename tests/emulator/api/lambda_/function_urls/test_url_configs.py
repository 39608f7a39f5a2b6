"""Function URL configurations through the Lambda API, in both doors, answered as AWS answers them. The expected
answers are AWS's recorded ones: LocalStack's AWS-validated snapshots, tests/aws/services/lambda_/
test_lambda_api.snapshot.json (TestLambdaUrl: test_url_config_exceptions, test_url_config_lifecycle,
test_url_config_list_paging, test_url_config_deletion_without_qualifier) and test_lambda.snapshot.json
(TestLambdaURL: test_lambda_update_function_url_config, test_lambda_url_invalid_invoke_mode), named per step."""

from __future__ import annotations

import re

import boto3

from eddy import emulate
from tests.conftest import QUIET
from tests.emulator.api.lambda_.function_urls.helpers import FUNCTION_ARN, ECHO, answer, create_function, refused

PATTERN = "((?!^\\d+$)^[0-9a-zA-Z-_]+$)"


def not_an_alias(value: str) -> dict:
    return {"Error": {"Code": "ValidationException", "Message": f"1 validation error detected: Value '{value}' at "
                      f"'qualifier' failed to satisfy constraint: Member must satisfy regular expression pattern: "
                      f"{PATTERN}"}, "Status": 400}


def missing(message: str) -> dict:
    return {"Error": {"Code": "ResourceNotFoundException", "Message": message}, "Status": 404}


FUNCTION_MISSING = missing("Function does not exist")
RESOURCE_MISSING = missing("The resource you requested does not exist.")
DOES_NOT_MATCH = {"Error": {"Code": "InvalidParameterValueException", "Message":
                            "The derived qualifier from the function name does not match the specified qualifier."},
                  "Status": 400}


def test_url_config_exceptions(door):
    """Every refusal of test_url_config_exceptions, for each operation, in the recording's order (the one AWS answers
    InternalFailure, delete with a qualifier that does not match the name's, is answered as get's)."""
    lam = door.client("lambda")
    create_function(lam, "urls", ECHO)
    lam.publish_version(FunctionName="urls")
    lam.create_alias(FunctionName="urls", Name="urlalias", FunctionVersion="1")
    arn = f"{FUNCTION_ARN}:urls"
    cases = [
        ({"FunctionName": "doesnotexist"}, "name_doesnotexist"),
        ({"FunctionName": arn.replace("urls", "doesnotexist")}, "arn_doesnotexist"),
        ({"FunctionName": "doesnotexist", "Qualifier": "1"}, not_an_alias("1")),
        ({"FunctionName": "urls", "Qualifier": "1"}, not_an_alias("1")),
        ({"FunctionName": "urls", "Qualifier": "2"}, not_an_alias("2")),
        ({"FunctionName": "urls", "Qualifier": "v1"}, "alias_doesnotexist"),
        ({"FunctionName": "urls:urlalias-doesnotmatch", "Qualifier": "urlalias"}, DOES_NOT_MATCH),
        ({"FunctionName": "urls", "Qualifier": "$LATEST"}, not_an_alias("$LATEST")),
    ]
    operations = ((lam.create_function_url_config, {"AuthType": "NONE"}, FUNCTION_MISSING),
                  (lam.get_function_url_config, {}, RESOURCE_MISSING),
                  (lam.delete_function_url_config, {}, RESOURCE_MISSING),
                  (lam.update_function_url_config, {"AuthType": "AWS_IAM"}, FUNCTION_MISSING))
    for call, extra, not_there in operations:
        for params, expected in cases:
            wanted = not_there if isinstance(expected, str) else expected
            assert (call.__name__, refused(call, **params, **extra)) == (call.__name__, wanted)
        if call.__name__ != "create_function_url_config":  # config_doesnotexist
            assert refused(call, FunctionName="urls", **extra) == RESOURCE_MISSING


def test_url_config_lifecycle(door):
    """Create (201, no InvokeMode unless given), a second create refused, get (InvokeMode BUFFERED,
    LastModifiedTime), update (the AuthType given; InvokeMode still left out), delete, get refused."""
    lam = door.client("lambda")
    create_function(lam, "lifecycle", ECHO)
    created = lam.create_function_url_config(FunctionName="lifecycle", AuthType="NONE")
    assert created["ResponseMetadata"]["HTTPStatusCode"] == 201
    url = created["FunctionUrl"]
    assert re.fullmatch(r"http://127\.0\.0\.1:\d+/lambda-url/[0-9a-f]{32}/", url)
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z", created["CreationTime"])
    stamp = created["CreationTime"]
    assert answer(created) == {"AuthType": "NONE", "CreationTime": stamp,
                               "FunctionArn": f"{FUNCTION_ARN}:lifecycle", "FunctionUrl": url}
    assert refused(lam.create_function_url_config, FunctionName="lifecycle", AuthType="NONE") == {"Error": {
        "Code": "ResourceConflictException",
        "Message": f"Failed to create function url config for [functionArn = {FUNCTION_ARN}:lifecycle]. Error "
                   "message:  FunctionUrlConfig exists for this Lambda function"}, "Status": 409}
    assert answer(lam.get_function_url_config(FunctionName="lifecycle")) == {
        "AuthType": "NONE", "CreationTime": stamp, "FunctionArn": f"{FUNCTION_ARN}:lifecycle", "FunctionUrl": url,
        "InvokeMode": "BUFFERED", "LastModifiedTime": stamp}
    updated = lam.update_function_url_config(FunctionName="lifecycle", AuthType="AWS_IAM")
    assert answer(updated) == {"AuthType": "AWS_IAM", "CreationTime": stamp, "FunctionArn": f"{FUNCTION_ARN}:lifecycle",
                               "FunctionUrl": url, "LastModifiedTime": updated["LastModifiedTime"]}
    deleted = lam.delete_function_url_config(FunctionName="lifecycle")
    assert deleted["ResponseMetadata"]["HTTPStatusCode"] == 204
    assert refused(lam.get_function_url_config, FunctionName="lifecycle") == RESOURCE_MISSING


def test_update_keeps_what_it_is_not_given(door):
    """test_lambda_update_function_url_config: InvokeMode given at creation is answered; an update without it keeps
    it; Cors set by an update is answered by get."""
    lam = door.client("lambda")
    create_function(lam, "modes", ECHO)
    created = lam.create_function_url_config(FunctionName="modes", AuthType="NONE", InvokeMode="BUFFERED")
    assert created["InvokeMode"] == "BUFFERED"
    assert lam.update_function_url_config(FunctionName="modes", InvokeMode="RESPONSE_STREAM")["InvokeMode"] == (
        "RESPONSE_STREAM")
    assert lam.update_function_url_config(FunctionName="modes")["InvokeMode"] == "RESPONSE_STREAM"
    cors = {"AllowOrigins": ["https://example.com"], "AllowMethods": ["GET"], "MaxAge": 60}
    lam.update_function_url_config(FunctionName="modes", Cors=cors)
    got = lam.get_function_url_config(FunctionName="modes")
    assert (got["AuthType"], got["InvokeMode"], got["Cors"]) == ("NONE", "RESPONSE_STREAM", cors)


def test_an_invoke_mode_that_is_none_is_refused(door):
    """test_lambda_url_invalid_invoke_mode (the client's own validation off, as the recording's)."""
    create_function(door.client("lambda"), "badmode", ECHO)
    lam = door.client("lambda", validate=False)
    assert refused(lam.create_function_url_config, FunctionName="badmode", AuthType="NONE", InvokeMode="UNKNOWN") == {
        "Error": {"Code": "ValidationException", "Message": "1 validation error detected: Value 'UNKNOWN' at "
                  "'invokeMode' failed to satisfy constraint: Member must satisfy enum value set: "
                  "[RESPONSE_STREAM, BUFFERED]"}, "Status": 400}


def test_url_config_list_paging_and_deletion_without_qualifier(door):
    """test_url_config_list_paging (an empty list, the function's and the alias's, one page at a time) and
    test_url_config_deletion_without_qualifier (deleting the function's own URL leaves the alias's); deleting the
    alias deletes its URL (test_lambda_url_persists_after_alias_delete)."""
    lam = door.client("lambda")
    create_function(lam, "paged", ECHO)
    lam.publish_version(FunctionName="paged")
    lam.create_alias(FunctionName="paged", Name="urlalias", FunctionVersion="1")
    assert refused(lam.list_function_url_configs, FunctionName="doesnotexist") == FUNCTION_MISSING
    assert answer(lam.list_function_url_configs(FunctionName="paged")) == {"FunctionUrlConfigs": []}
    own = lam.create_function_url_config(FunctionName="paged", AuthType="NONE")
    aliased = lam.create_function_url_config(FunctionName="paged:urlalias", Qualifier="urlalias", AuthType="NONE")
    assert aliased["FunctionArn"] == f"{FUNCTION_ARN}:paged:urlalias" and aliased["FunctionUrl"] != own["FunctionUrl"]
    listed = lam.list_function_url_configs(FunctionName="paged")["FunctionUrlConfigs"]
    assert [(c["FunctionArn"], c["FunctionUrl"], c["InvokeMode"]) for c in listed] == [
        (f"{FUNCTION_ARN}:paged", own["FunctionUrl"], "BUFFERED"),
        (f"{FUNCTION_ARN}:paged:urlalias", aliased["FunctionUrl"], "BUFFERED")]
    first = lam.list_function_url_configs(FunctionName="paged", MaxItems=1)
    second = lam.list_function_url_configs(FunctionName="paged", MaxItems=1, Marker=first["NextMarker"])
    assert [c["FunctionUrl"] for c in first["FunctionUrlConfigs"] + second["FunctionUrlConfigs"]] == [
        own["FunctionUrl"], aliased["FunctionUrl"]] and "NextMarker" not in second
    lam.delete_function_url_config(FunctionName="paged")
    assert refused(lam.get_function_url_config, FunctionName="paged") == RESOURCE_MISSING
    assert lam.get_function_url_config(FunctionName="paged", Qualifier="urlalias")["FunctionUrl"] == (
        aliased["FunctionUrl"])
    lam.delete_alias(FunctionName="paged", Name="urlalias")
    assert answer(lam.list_function_url_configs(FunctionName="paged")) == {"FunctionUrlConfigs": []}


def test_only_a_configuration_answered_starts_the_loopback_server_that_serves_it():
    # In-process, the URLs are served by a loopback server emulate() starts on demand: a Get or Delete of a
    # configuration that is not there, or a List of none, answers without starting it (they did start it)
    with emulate(**QUIET) as emu:
        lam = boto3.client("lambda", region_name="us-east-1")
        create_function(lam, "quiet", ECHO)
        assert refused(lam.get_function_url_config, FunctionName="quiet") == RESOURCE_MISSING
        assert refused(lam.delete_function_url_config, FunctionName="quiet") == RESOURCE_MISSING
        assert refused(lam.update_function_url_config, FunctionName="quiet", AuthType="NONE") == RESOURCE_MISSING
        assert answer(lam.list_function_url_configs(FunctionName="quiet")) == {"FunctionUrlConfigs": []}
        assert "AWS_ENDPOINT_URL" not in emu.invoker.worker_environment  # no server: nothing listens for the URLs
        url = lam.create_function_url_config(FunctionName="quiet", AuthType="NONE")["FunctionUrl"]
        served = emu.invoker.worker_environment["AWS_ENDPOINT_URL"]
        assert url.startswith(served + "/lambda-url/")

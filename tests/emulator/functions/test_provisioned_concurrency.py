"""Provisioned concurrency of versions and aliases, in both doors, answered as AWS answers it. The expected answers are
AWS's recorded ones: LocalStack's AWS-validated snapshots, tests/aws/services/lambda_/test_lambda_api.snapshot.json
(TestLambdaProvisionedConcurrency: test_provisioned_concurrency_exceptions, test_lambda_provisioned_lifecycle,
test_provisioned_concurrency_limits), named per step."""

from __future__ import annotations

import json
import threading
import time

import pytest
from botocore.exceptions import ClientError

from tests.emulator.functions.test_aliases import answer
from tests.emulator.functions.test_function_logs import assert_log, init_start
from tests.emulator.functions.test_functions import ROLE, create_function, updated, zip_of
from tests.emulator.functions.test_versions import ARN, SOURCE, refused
from tests.lambda_functions import created_function

NOT_FOUND = {"Code": "ProvisionedConcurrencyConfigNotFoundException",
             "Message": "No Provisioned Concurrency Config found for this function"}
NOT_PUBLISHED = {"Code": "InvalidParameterValueException",
                 "Message": "The function resource provided must be an alias or a published version."}


def test_provisioned_concurrency_exceptions(door):
    """Every refusal of test_provisioned_concurrency_exceptions, in its order, with its HTTP status."""
    lam = door.client("lambda")
    create_function(lam, "provisioned", SOURCE % "one", Publish=True)
    get, delete, put = (lam.get_provisioned_concurrency_config, lam.delete_provisioned_concurrency_config,
                        lam.put_provisioned_concurrency_config)
    fn = f"{ARN}:provisioned"
    # get_provisioned_config_doesnotexist, _functionname_doesnotexist, _qualifier_doesnotexist, _version_doesnotexist,
    # _latest
    assert refused(get, FunctionName="provisioned", Qualifier="1") == {"Error": NOT_FOUND, "Status": 404}
    assert refused(get, FunctionName="doesnotexist", Qualifier="noalias") == {"Error": {
        "Code": "ResourceNotFoundException", "Message": f"Cannot find alias arn: {ARN}:doesnotexist:noalias"},
        "Status": 404}
    assert refused(get, FunctionName="provisioned", Qualifier="noalias") == {"Error": {
        "Code": "ResourceNotFoundException", "Message": f"Cannot find alias arn: {fn}:noalias"}, "Status": 404}
    assert refused(get, FunctionName="provisioned", Qualifier="10") == {"Error": {
        "Code": "ResourceNotFoundException", "Message": f"Function not found: {fn}:10"}, "Status": 404}
    assert refused(get, FunctionName="provisioned", Qualifier="$LATEST") == {"Error": NOT_PUBLISHED, "Status": 400}
    # list_provisioned_noconfigs, list_provisioned_functionname_doesnotexist
    assert answer(lam.list_provisioned_concurrency_configs(FunctionName="provisioned")) == {
        "ProvisionedConcurrencyConfigs": []}
    assert refused(lam.list_provisioned_concurrency_configs, FunctionName="doesnotexist") == {"Error": {
        "Code": "ResourceNotFoundException", "Message": f"Function not found: {ARN}:doesnotexist"}, "Status": 404}
    # delete_provisioned_functionname_doesnotexist, _qualifier_doesnotexist, _version_doesnotexist, _latest,
    # _config_doesnotexist (204)
    assert refused(delete, FunctionName="doesnotexist", Qualifier="1") == {"Error": {
        "Code": "ResourceNotFoundException", "Message": f"Function not found: {ARN}:doesnotexist:1"}, "Status": 404}
    assert refused(delete, FunctionName="provisioned", Qualifier="noalias") == {"Error": {
        "Code": "ResourceNotFoundException", "Message": f"Cannot find alias arn: {fn}:noalias"}, "Status": 404}
    assert refused(delete, FunctionName="provisioned", Qualifier="10") == {"Error": {
        "Code": "ResourceNotFoundException", "Message": f"Function not found: {fn}:10"}, "Status": 404}
    assert refused(delete, FunctionName="provisioned", Qualifier="$LATEST") == {"Error": NOT_PUBLISHED, "Status": 400}
    assert delete(FunctionName="provisioned", Qualifier="1")["ResponseMetadata"]["HTTPStatusCode"] == 204
    # put_provisioned_invalid_param_0 (the client's own validation off, as the recording's)
    unvalidated = door.client("lambda", validate=False)
    assert refused(unvalidated.put_provisioned_concurrency_config, FunctionName="provisioned", Qualifier="1",
                   ProvisionedConcurrentExecutions=0) == {"Error": {
        "Code": "ValidationException", "Message": "1 validation error detected: Value '0' at "
        "'provisionedConcurrentExecutions' failed to satisfy constraint: Member must have value greater than or "
        "equal to 1"}, "Status": 400}
    # put_provisioned_functionname_doesnotexist_alias, _version; _qualifier_doesnotexist; _version_doesnotexist;
    # put_provisioned_latest
    assert refused(put, FunctionName="doesnotexist", Qualifier="noalias", ProvisionedConcurrentExecutions=1)[
        "Error"] == {"Code": "ResourceNotFoundException",
                     "Message": f"Cannot find alias arn: {ARN}:doesnotexist:noalias"}
    assert refused(put, FunctionName="doesnotexist", Qualifier="1", ProvisionedConcurrentExecutions=1)["Error"] == {
        "Code": "ResourceNotFoundException", "Message": f"Function not found: {ARN}:doesnotexist:1"}
    assert refused(put, FunctionName="provisioned", Qualifier="doesnotexist", ProvisionedConcurrentExecutions=1)[
        "Error"] == {"Code": "ResourceNotFoundException", "Message": f"Cannot find alias arn: {fn}:doesnotexist"}
    assert refused(put, FunctionName="provisioned", Qualifier="10", ProvisionedConcurrentExecutions=1)["Error"] == {
        "Code": "ResourceNotFoundException", "Message": f"Function not found: {fn}:10"}
    assert refused(put, FunctionName="provisioned", Qualifier="$LATEST", ProvisionedConcurrentExecutions=1) == {
        "Error": {"Code": "InvalidParameterValueException",
                  "Message": "Provisioned Concurrency Configs cannot be applied to unpublished function versions."},
        "Status": 400}
    assert answer(lam.list_provisioned_concurrency_configs(FunctionName="provisioned")) == {
        "ProvisionedConcurrencyConfigs": []}  # nothing refused was kept


def test_provisioned_concurrency_limits(door):
    """More than the account's unreserved concurrency, or so much that less than its minimum stays unreserved: refused
    (test_provisioned_concurrency_limits; Eddy's account has Lambda's default 1,000, 100 kept unreserved)."""
    lam = door.client("lambda")
    create_function(lam, "limited", SOURCE % "one", Publish=True)
    assert refused(lam.put_provisioned_concurrency_config, FunctionName="limited", Qualifier="1",
                   ProvisionedConcurrentExecutions=1001) == {"Error": {
        "Code": "InvalidParameterValueException", "Message": "Specified ConcurrentExecutions for function is greater "
        "than account's unreserved concurrency [1000]."}, "Status": 400}
    assert refused(lam.put_provisioned_concurrency_config, FunctionName="limited", Qualifier="1",
                   ProvisionedConcurrentExecutions=1000)["Error"] == {
        "Code": "InvalidParameterValueException", "Message": "Specified ConcurrentExecutions for function decreases "
        "account's UnreservedConcurrentExecution below its minimum value of [100]."}
    lam.put_function_concurrency(FunctionName="limited", ReservedConcurrentExecutions=500)
    # the function's own reservation holds its provisioned concurrency (test_lambda.snapshot.json,
    # TestLambdaConcurrency::test_reserved_provisioned_overlap, "reserved_equals_provisioned_increase_provisioned_exc")
    assert refused(lam.put_provisioned_concurrency_config, FunctionName="limited", Qualifier="1",
                   ProvisionedConcurrentExecutions=501)["Error"]["Message"] == (
        "Requested Provisioned Concurrency should not be greater than the reservedConcurrentExecution for function")
    assert lam.put_provisioned_concurrency_config(FunctionName="limited", Qualifier="1",
                                                  ProvisionedConcurrentExecutions=400)["Status"] == "IN_PROGRESS"


def test_lambda_provisioned_lifecycle(door):
    """test_lambda_provisioned_lifecycle: IN_PROGRESS with nothing allocated when put (202), READY with all of it once
    the emulator's clock has moved on; an alias and the version it points to cannot both be provisioned (either way
    round); deleting the configuration, or the alias, removes it; ListProvisionedConcurrencyConfigs lists each with its
    qualified ARN."""
    lam = door.client("lambda")
    create_function(lam, "provisioned", SOURCE % "one", Publish=True)
    lam.create_alias(FunctionName="provisioned", Name="live", FunctionVersion="1")
    on_version = lam.put_provisioned_concurrency_config(FunctionName="provisioned", Qualifier="1",
                                                        ProvisionedConcurrentExecutions=1)
    assert on_version["ResponseMetadata"]["HTTPStatusCode"] == 202
    put_answer = {"RequestedProvisionedConcurrentExecutions": 1, "AllocatedProvisionedConcurrentExecutions": 0,
                  "AvailableProvisionedConcurrentExecutions": 0, "Status": "IN_PROGRESS",
                  "LastModified": on_version["LastModified"]}
    assert answer(on_version) == put_answer
    got_now = answer(lam.get_provisioned_concurrency_config(FunctionName="provisioned", Qualifier="1"))
    assert got_now == put_answer  # (Eddy allocates it 10 s later on its clock)
    assert refused(lam.put_provisioned_concurrency_config, FunctionName="provisioned", Qualifier="live",
                   ProvisionedConcurrentExecutions=1) == {"Error": {
        "Code": "ResourceConflictException",
        "Message": "Alias can't be used for Provisioned Concurrency configuration on an already Provisioned version"},
        "Status": 409}
    door.advance(10)
    ready = dict(put_answer, Status="READY", AllocatedProvisionedConcurrentExecutions=1,
                 AvailableProvisionedConcurrentExecutions=1)
    assert answer(lam.get_provisioned_concurrency_config(FunctionName="provisioned", Qualifier="1")) == ready
    assert answer(lam.list_provisioned_concurrency_configs(FunctionName="provisioned")) == {
        "ProvisionedConcurrencyConfigs": [dict(ready, FunctionArn=f"{ARN}:provisioned:1")]}
    deleted = lam.delete_provisioned_concurrency_config(FunctionName="provisioned", Qualifier="1")
    assert deleted["ResponseMetadata"]["HTTPStatusCode"] == 204
    assert refused(lam.get_provisioned_concurrency_config, FunctionName="provisioned", Qualifier="1")["Error"] == (
        NOT_FOUND)

    on_alias = lam.put_provisioned_concurrency_config(FunctionName=f"{ARN}:provisioned", Qualifier="live",
                                                      ProvisionedConcurrentExecutions=1)
    assert answer(on_alias) == dict(put_answer, LastModified=on_alias["LastModified"])
    assert refused(lam.put_provisioned_concurrency_config, FunctionName="provisioned", Qualifier="1",
                   ProvisionedConcurrentExecutions=1) == {"Error": {
        "Code": "ResourceConflictException", "Message": "Version is pointed by a Provisioned Concurrency alias"},
        "Status": 409}
    assert [c["FunctionArn"] for c in lam.list_provisioned_concurrency_configs(FunctionName="provisioned")[
        "ProvisionedConcurrencyConfigs"]] == [f"{ARN}:provisioned:live"]
    assert lam.delete_alias(FunctionName="provisioned", Name="live")["ResponseMetadata"]["HTTPStatusCode"] == 204
    assert refused(lam.get_provisioned_concurrency_config, FunctionName="provisioned", Qualifier="live")["Error"] == {
        "Code": "ResourceNotFoundException", "Message": f"Cannot find alias arn: {ARN}:provisioned:live"}
    assert answer(lam.list_provisioned_concurrency_configs(FunctionName="provisioned")) == {
        "ProvisionedConcurrencyConfigs": []}


def test_a_provisioned_version_deleted_takes_its_configuration_and_invocations_run_as_before(door):
    """Deleting a version deletes its configuration; a provisioned version or alias is invoked as any other."""
    lam = door.client("lambda")
    create_function(lam, "warm", SOURCE % "one", Publish=True)
    lam.update_function_configuration(FunctionName="warm", Timeout=5)
    updated(lam, "warm")
    lam.publish_version(FunctionName="warm")
    lam.create_alias(FunctionName="warm", Name="live", FunctionVersion="2")
    lam.put_provisioned_concurrency_config(FunctionName="warm", Qualifier="1", ProvisionedConcurrentExecutions=2)
    lam.put_provisioned_concurrency_config(FunctionName="warm:live", Qualifier="live",
                                           ProvisionedConcurrentExecutions=3)
    assert lam.invoke(FunctionName="warm", Qualifier="live")["ExecutedVersion"] == "2"
    lam.delete_function(FunctionName="warm", Qualifier="1")
    listed = lam.list_provisioned_concurrency_configs(FunctionName="warm", MaxItems=1)
    assert [c["FunctionArn"] for c in listed["ProvisionedConcurrencyConfigs"]] == [f"{ARN}:warm:live"]
    assert "NextMarker" not in listed
    assert refused(door.client("lambda").get_provisioned_concurrency_config, FunctionName="warm", Qualifier="1")[
        "Error"] == {"Code": "ResourceNotFoundException", "Message": f"Function not found: {ARN}:warm:1"}




INITIALIZATION_TYPE = """
import os, pathlib, time
def handler(event, context):
    if "started" in event:  # tell the test it runs, then run until the test lets it end
        pathlib.Path(event["started"]).touch()
        deadline = time.monotonic() + 60
        while not pathlib.Path(event["release"]).exists() and time.monotonic() < deadline:
            time.sleep(0.01)
    return os.environ["AWS_LAMBDA_INITIALIZATION_TYPE"]
"""


def initialization_type(lam, **params) -> str:
    return json.loads(lam.invoke(**params)["Payload"].read())


def test_a_ready_configurations_environments_serve_its_invocations(door, tmp_path):
    """LocalStack's test_lambda.py, TestLambdaConcurrency (recorded against AWS): test_provisioned_concurrency (the
    version's invocation provisioned-concurrency, $LATEST's on-demand), test_lambda_provisioned_concurrency_scheduling
    (the one provisioned environment busy: the next invocation on demand) and test_lambda_concurrency_block (reserved
    concurrency all provisioned: $LATEST throttled, the version still served)."""
    lam = door.client("lambda")
    create_function(lam, "kinds", INITIALIZATION_TYPE, Timeout=60)
    version = lam.publish_version(FunctionName="kinds")["Version"]
    lam.put_provisioned_concurrency_config(FunctionName="kinds", Qualifier=version, ProvisionedConcurrentExecutions=1)
    assert initialization_type(lam, FunctionName="kinds", Qualifier=version) == "on-demand"  # not READY yet
    door.advance(10)
    assert lam.get_provisioned_concurrency_config(FunctionName="kinds", Qualifier=version)["Status"] == "READY"
    assert initialization_type(lam, FunctionName="kinds", Qualifier=version) == "provisioned-concurrency"
    assert initialization_type(lam, FunctionName="kinds") == "on-demand"
    started, release = tmp_path / "started", tmp_path / "release"
    first: list[str] = []
    event = json.dumps({"started": str(started), "release": str(release)}).encode()
    thread = threading.Thread(target=lambda: first.append(
        initialization_type(lam, FunctionName="kinds", Qualifier=version, Payload=event)))
    thread.start()
    deadline = time.monotonic() + 60
    while not started.exists() and time.monotonic() < deadline:  # the provisioned environment is busy
        time.sleep(0.01)
    assert initialization_type(lam, FunctionName="kinds", Qualifier=version) == "on-demand"
    release.touch()
    thread.join(60)
    assert first == ["provisioned-concurrency"]
    lam.put_function_concurrency(FunctionName="kinds", ReservedConcurrentExecutions=1)
    with pytest.raises(ClientError) as throttled:
        lam.invoke(FunctionName="kinds", Qualifier="$LATEST")
    assert (throttled.value.response["Error"]["Code"], throttled.value.response["Reason"]) == (
        "TooManyRequestsException", "ReservedFunctionConcurrentInvocationLimitExceeded")
    assert initialization_type(lam, FunctionName="kinds", Qualifier=version) == "provisioned-concurrency"


def test_an_aliass_environments_serve_its_version(door):
    """LocalStack's test_lambda.py, TestLambdaConcurrency::test_provisioned_concurrency_on_alias (recorded against AWS):
    provisioned on the alias, the version serves from them by the alias and by its number; $LATEST on demand."""
    lam = door.client("lambda")
    create_function(lam, "aliased", INITIALIZATION_TYPE, Timeout=60)
    version = lam.publish_version(FunctionName="aliased")["Version"]
    lam.create_alias(FunctionName="aliased", Name="live", FunctionVersion=version)
    lam.put_provisioned_concurrency_config(FunctionName="aliased", Qualifier="live", ProvisionedConcurrentExecutions=5)
    door.advance(10)
    assert lam.get_provisioned_concurrency_config(FunctionName="aliased", Qualifier="live")["Status"] == "READY"
    assert [initialization_type(lam, FunctionName="aliased", Qualifier=qualifier)
            for qualifier in ("live", version, "$LATEST")] == ["provisioned-concurrency", "provisioned-concurrency",
                                                               "on-demand"]


def test_reserved_and_provisioned_concurrency_overlap(door):
    """test_lambda.snapshot.json, TestLambdaConcurrency::test_reserved_provisioned_overlap (recorded against AWS):
    "reserved_lower_than_provisioned_exc" (no Type), "reserved_equals_provisioned_latest_invoke_exc",
    "reserved_equals_provisioned_another_provisioned_exc" and "_increase_provisioned_exc", whole."""
    lam = door.client("lambda")
    create_function(lam, "overlap", INITIALIZATION_TYPE, Timeout=60)
    v1 = lam.publish_version(FunctionName="overlap")["Version"]
    lam.put_provisioned_concurrency_config(FunctionName="overlap", Qualifier=v1, ProvisionedConcurrentExecutions=2)
    door.advance(10)
    message = " ReservedConcurrentExecutions  1 should not be lower than function's total provisioned concurrency [2]."
    assert refused(lam.put_function_concurrency, FunctionName="overlap", ReservedConcurrentExecutions=1) == {
        "Error": {"Code": "InvalidParameterValueException", "Message": message}, "Status": 400}
    lam.put_function_concurrency(FunctionName="overlap", ReservedConcurrentExecutions=2)
    with pytest.raises(ClientError) as throttled:
        lam.invoke(FunctionName="overlap")
    assert {key: throttled.value.response[key] for key in ("Error", "Reason", "Type", "message")} == {
        "Error": {"Code": "TooManyRequestsException", "Message": "Rate Exceeded."},
        "Reason": "ReservedFunctionConcurrentInvocationLimitExceeded", "Type": "User", "message": "Rate Exceeded."}
    assert initialization_type(lam, FunctionName="overlap", Qualifier=v1) == "provisioned-concurrency"
    lam.update_function_configuration(FunctionName="overlap", Timeout=15)
    updated(lam, "overlap")
    v2 = lam.publish_version(FunctionName="overlap")["Version"]
    over = {"Code": "InvalidParameterValueException", "Message": "Requested Provisioned Concurrency should not be "
            "greater than the reservedConcurrentExecution for function"}
    for qualifier, count in ((v2, 1), (v1, 3)):
        assert refused(lam.put_provisioned_concurrency_config, FunctionName="overlap", Qualifier=qualifier,
                       ProvisionedConcurrentExecutions=count) == {"Error": over, "Status": 400}


#: LocalStack's functions/lambda_invocation_type_failure.py, the function of the AWS-validated
#: TestLambdaConcurrency::test_provisioned_concurrency_init_failure: its Init fails in a provisioned environment only
INIT_FAILS_WHEN_PROVISIONED = '''
import os
import time

init_type = os.environ["AWS_LAMBDA_INITIALIZATION_TYPE"]

if init_type == "provisioned-concurrency":
    raise Exception("Intentional failure upon provisioned concurrency initialization")


def handler(event, context):
    if event.get("wait"):
        time.sleep(event["wait"])
    print(f"{init_type=}")
    return init_type
'''


def test_a_configuration_whose_init_fails_is_failed_and_its_version_runs_on_demand(door):
    """test_lambda.snapshot.json, TestLambdaConcurrency::test_provisioned_concurrency_init_failure (recorded against AWS
    2026-02-17): put_provisioned (202) and get_provisioned_prewait IN_PROGRESS with nothing allocated, the version's
    invocations on demand meanwhile; get_provisioned_postwait FAILED, StatusReason FUNCTION_ERROR_INIT_FAILURE, nothing
    allocated, and its invocations still on demand; the Init's error in the function's log ("[ERROR] Exception:
    Intentional failure upon provisioned concurrency initialization"). The Init runs when the configuration is put, as
    Lambda runs it ("Configuring provisioned concurrency"), in an environment whose log stream holds that Init alone."""
    lam, logs = door.client("lambda"), door.client("logs")
    created = created_function(lam, FunctionName="initfails", Runtime="python3.12", Role=ROLE, Handler="app.handler",
                                  Code={"ZipFile": zip_of({"app.py": INIT_FAILS_WHEN_PROVISIONED})}, Publish=True)
    version = created["Version"]
    put = lam.put_provisioned_concurrency_config(FunctionName="initfails", Qualifier=version,
                                                 ProvisionedConcurrentExecutions=1)
    in_progress = {"AllocatedProvisionedConcurrentExecutions": 0, "AvailableProvisionedConcurrentExecutions": 0,
                   "LastModified": put["LastModified"], "RequestedProvisionedConcurrentExecutions": 1,
                   "Status": "IN_PROGRESS"}
    assert (answer(put), put["ResponseMetadata"]["HTTPStatusCode"]) == (in_progress, 202)
    assert answer(lam.get_provisioned_concurrency_config(FunctionName="initfails", Qualifier=version)) == in_progress
    assert initialization_type(lam, FunctionName="initfails", Qualifier=version) == "on-demand"
    deadline = time.monotonic() + 60
    while not (provisioned := [event for event in logs.filter_log_events(logGroupName="/aws/lambda/initfails")["events"]
                               if event["message"].startswith("INIT_REPORT ")]):
        assert time.monotonic() < deadline, "the provisioned environment's Init was never logged"
        door.wait_idle(1)  # the emulator's own wait, between looks at the log
    door.advance(10)
    assert answer(lam.get_provisioned_concurrency_config(FunctionName="initfails", Qualifier=version)) == {
        **in_progress, "Status": "FAILED", "StatusReason": "FUNCTION_ERROR_INIT_FAILURE"}
    assert initialization_type(lam, FunctionName="initfails", Qualifier=version) == "on-demand"
    [stream] = {event["logStreamName"] for event in provisioned}
    messages = [event["message"] for event in logs.get_log_events(logGroupName="/aws/lambda/initfails",
                                                                  logStreamName=stream, startFromHead=True)["events"]]
    expected = [
        init_start("python:3.12"),
        # the runtime's error line, as an on-demand environment's failed Init logs it (test_init_reports.py)
        r"\[ERROR\] Exception: Intentional failure upon provisioned concurrency initialization\r"
        r"Traceback \(most recent call last\):\r(.|\r)*app\.py\", line 8, in <module>\r"
        r"    raise Exception\(\"Intentional failure upon provisioned concurrency initialization\"\)\n",
        r"INIT_REPORT Init Duration: \d+\.\d\d ms\tPhase: init\tStatus: error\tError Type: Exception\n",
    ]
    assert_log(messages, expected)
    streams = logs.describe_log_streams(logGroupName="/aws/lambda/initfails")["logStreams"]
    assert len(streams) == 2  # the provisioned environment's, and the one on demand that ran both invocations

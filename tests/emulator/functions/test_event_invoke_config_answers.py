"""Event invoke configs and what they do, answered as AWS answers, whole, in both doors: the refusals of
LocalStack's AWS-validated TestLambdaEventInvokeConfig::test_lambda_eventinvokeconfig_exceptions
(test_lambda_api.snapshot.json), and MaximumEventAgeInSeconds as TestLambdaDestinationSqs::test_maxeventage recorded
it (test_lambda_destinations.snapshot.json: the invocation record's whole shape)."""

from __future__ import annotations

import json
import re

import pytest
from botocore.exceptions import ClientError

from tests.emulator.functions.test_async_invocations import invoke_event, setup
from tests.emulator.functions.test_functions import create_function
from tests.emulator.notifications.test_s3_notifications import wait_for_messages

ARN = "arn:aws:lambda:us-east-1:123456789012:function"


def refused(call, **params) -> dict:
    with pytest.raises(ClientError) as error:
        call(**params)
    return error.value.response["Error"]


def invalid(message: str) -> dict:
    return {"Code": "InvalidParameterValueException", "Message": message}


def not_found(message: str) -> dict:
    return {"Code": "ResourceNotFoundException", "Message": message}


def test_the_refusals_of_the_event_invoke_config_api(door):
    env = setup(door)
    lam, unchecked = env["lambda"], door.client("lambda", validate=False)
    put, update = lam.put_function_event_invoke_config, lam.update_function_event_invoke_config
    assert refused(put, FunctionName="doesnotexist", MaximumRetryAttempts=1) == not_found("The function doesn't exist.")
    assert refused(put, FunctionName=f"{ARN}:doesnotexist", MaximumRetryAttempts=1) == not_found(
        "The function doesn't exist.")
    assert refused(unchecked.put_function_event_invoke_config, FunctionName="doesnotexist") == invalid(
        "You must specify at least one of error handling or destination setting.")
    assert refused(put, FunctionName="worker", DestinationConfig={"OnSuccess": {"Destination": f"{ARN}:doesnotexist"}}
                   ) == invalid(f"The destination ARN {ARN}:doesnotexist is invalid.")
    assert refused(put, FunctionName="worker", DestinationConfig={"OnSuccess": {"Destination": f"{ARN}:worker"}}
                   ) == invalid("You can't specify the function as a destination for itself.")
    iam = f"arn:aws:iam:us-east-1:123456789012:function:worker"
    assert refused(put, FunctionName="worker", DestinationConfig={"OnSuccess": {"Destination": iam}}) == invalid(
        f"The provided destination config DestinationConfig(onSuccess=OnSuccess(destination={iam}), onFailure=null) "
        "is invalid.")
    assert refused(put, FunctionName="worker", Qualifier="1", MaximumRetryAttempts=1) == not_found(
        "The function doesn't exist.")
    assert refused(put, FunctionName="worker:1", Qualifier="$LATEST", MaximumRetryAttempts=1) == invalid(
        "The derived qualifier from the function name does not match the specified qualifier.")
    assert refused(update, FunctionName="worker", MaximumRetryAttempts=0) == not_found(
        f"The function {ARN}:worker:$LATEST doesn't have an EventInvokeConfig")
    assert refused(update, FunctionName="doesnotexist", MaximumRetryAttempts=0) == not_found(
        "The function doesn't exist.")
    assert refused(lam.get_function_event_invoke_config, FunctionName="doesnotexist") == not_found(
        f"The function {ARN}:doesnotexist:$LATEST doesn't have an EventInvokeConfig")
    assert refused(lam.get_function_event_invoke_config, FunctionName="worker", Qualifier="doesnotexist") == not_found(
        f"The function {ARN}:worker:doesnotexist doesn't have an EventInvokeConfig")
    assert refused(lam.delete_function_event_invoke_config, FunctionName="doesnotexist") == not_found(
        f"The function {ARN}:doesnotexist:$LATEST doesn't have an EventInvokeConfig")
    assert refused(lam.list_function_event_invoke_configs, FunctionName="doesnotexist") == not_found(
        "The function doesn't exist.")
    assert refused(unchecked.put_function_event_invoke_config, FunctionName="worker", MaximumRetryAttempts=3) == {
        "Code": "ValidationException", "Message": "1 validation error detected: Value '3' at 'maximumRetryAttempts' "
        "failed to satisfy constraint: Member must have value less than or equal to 2"}
    assert lam.list_function_event_invoke_configs(FunctionName="worker")["FunctionEventInvokeConfigs"] == []

    answer = put(FunctionName="worker", DestinationConfig={"OnSuccess": {}})
    answer.pop("ResponseMetadata")
    assert answer == {"DestinationConfig": {"OnFailure": {}, "OnSuccess": {}}, "FunctionArn": f"{ARN}:worker:$LATEST",
                      "LastModified": answer["LastModified"]}
    answer = put(FunctionName="worker:$LATEST", Qualifier="$LATEST", MaximumRetryAttempts=2,
                 MaximumEventAgeInSeconds=21600)
    assert (answer["MaximumRetryAttempts"], answer["MaximumEventAgeInSeconds"]) == (2, 21600)


def test_an_event_whose_retry_would_come_past_its_maximum_age_is_given_up_on_at_once(door):
    """test_maxeventage: MaximumRetryAttempts 2 and MaximumEventAgeInSeconds 60 (the first retry would come a minute
    later: past it): one attempt, its EventAgeExceeded record at once, without the clock moving."""
    env = setup(door)
    lam, sqs = env["lambda"], env["sqs"]
    lam.put_function_event_invoke_config(FunctionName="worker", MaximumRetryAttempts=2, MaximumEventAgeInSeconds=60,
                                         DestinationConfig={"OnFailure": {"Destination": env["outcomes_arn"]}})
    request_id = invoke_event(lam, {"message": "m1", "fail": True})["ResponseMetadata"]["RequestId"]
    [record] = wait_for_messages(sqs, env["outcomes"], 1)
    [frame] = record["responsePayload"].pop("stackTrace")
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", record.pop("timestamp"))
    assert record == {
        "version": "1.0",
        "requestContext": {"requestId": request_id, "functionArn": f"{ARN}:worker:$LATEST",
                           "condition": "EventAgeExceeded", "approximateInvokeCount": 1},
        "requestPayload": {"message": "m1", "fail": True},
        "responseContext": {"statusCode": 200, "executedVersion": "$LATEST", "functionError": "Unhandled"},
        "responsePayload": {"errorMessage": "failing as asked", "errorType": "RuntimeError", "requestId": request_id}}
    assert frame.endswith('raise RuntimeError("failing as asked")\n')
    assert wait_for_messages(sqs, env["attempts"], 1) == [{"message": "m1", "fail": True}]
    report = door.wait_idle(60)
    assert ([failure["Condition"] for failure in report["Failures"]], report["Pending"]) == (["EventAgeExceeded"], [])


def test_the_event_invoke_configs_are_listed_a_page_at_a_time(door):
    """test_lambda_eventinvokeconfig_lifecycle: "list_single_invokeconfig" whole (LastModified aside), then $LATEST's
    and version 1's listed by MaxItems=1 pages that a NextMarker joins."""
    lam = door.client("lambda")
    create_function(lam, "configured", "def handler(event, context):\n    return event\n")
    lam.put_function_event_invoke_config(FunctionName="configured", MaximumRetryAttempts=0)
    lam.put_function_event_invoke_config(FunctionName="configured", MaximumEventAgeInSeconds=60)
    lam.update_function_event_invoke_config(FunctionName="configured", MaximumRetryAttempts=1)
    listed = lam.list_function_event_invoke_configs(FunctionName="configured")
    for config in listed["FunctionEventInvokeConfigs"]:
        assert config.pop("LastModified").year > 2000
    assert {key: value for key, value in listed.items() if key != "ResponseMetadata"} == {
        "FunctionEventInvokeConfigs": [{"DestinationConfig": {"OnFailure": {}, "OnSuccess": {}},
                                        "FunctionArn": f"{ARN}:configured:$LATEST", "MaximumEventAgeInSeconds": 60,
                                        "MaximumRetryAttempts": 1}]}
    version = lam.publish_version(FunctionName="configured")["Version"]
    lam.put_function_event_invoke_config(FunctionName="configured", Qualifier=version, MaximumEventAgeInSeconds=120)
    first = lam.list_function_event_invoke_configs(FunctionName="configured", MaxItems=1)
    rest = lam.list_function_event_invoke_configs(FunctionName="configured", Marker=first["NextMarker"], MaxItems=1)
    assert "NextMarker" not in rest
    assert [config["FunctionArn"] for config in first["FunctionEventInvokeConfigs"] +
            rest["FunctionEventInvokeConfigs"]] == [f"{ARN}:configured:$LATEST", f"{ARN}:configured:{version}"]

"""Asynchronous invocation (InvocationType Event) through both doors, Python and Node.js: retries on the emulator's
clock, PutFunctionEventInvokeConfig, OnSuccess / OnFailure destination records, EventAgeExceeded, the
DeadLetterConfig queue, and the event invoke config API's answers and validation."""

from __future__ import annotations

import json
import time

import pytest
from botocore.exceptions import ClientError

from tests.emulator.functions.test_function_logs import assert_log, init_start
from tests.emulator.functions.test_functions import ROLE, zip_of
from tests.emulator.notifications.test_s3_notifications import wait_for_messages
from tests.emulator.trigger_helpers import create_zip_function
from tests.emulator.triggers.sqs_helpers import queue
from tests.lambda_functions import created_function

ATTEMPTS = '''
import json, os, boto3
sqs = boto3.client("sqs")
def handler(event, context):
    sqs.send_message(QueueUrl=os.environ["QUEUE_URL"], MessageBody=json.dumps(event))
    if event.get("fail"):
        raise RuntimeError("failing as asked")
    return {"done": event.get("n")}
'''

NODE_ATTEMPTS = """
const { SQSClient, SendMessageCommand } = require('@aws-sdk/client-sqs');
const sqs = new SQSClient({ useQueueUrlAsEndpoint: false });
exports.handler = async (event) => {
  await sqs.send(new SendMessageCommand({ QueueUrl: process.env.QUEUE_URL, MessageBody: JSON.stringify(event) }));
  if (event.fail) throw new Error('failing as asked');
  return { done: event.n };
};
"""


def setup(door, runtime: str = "python", **function_options) -> dict:
    sqs, lam = door.client("sqs"), door.client("lambda")
    attempts, _ = queue(sqs, "attempts")
    outcomes, outcomes_arn = queue(sqs, "outcomes")
    create_zip_function(lam, "worker", runtime, ATTEMPTS if runtime == "python" else NODE_ATTEMPTS,
                        Environment={"Variables": {"QUEUE_URL": attempts}}, **function_options)
    return {"sqs": sqs, "lambda": lam, "attempts": attempts, "outcomes": outcomes, "outcomes_arn": outcomes_arn}


def invoke_event(lam, payload: dict) -> dict:
    answer = lam.invoke(FunctionName="worker", InvocationType="Event", Payload=json.dumps(payload).encode())
    assert answer["StatusCode"] == 202 and answer["Payload"].read() == b""
    return answer


@pytest.mark.parametrize("runtime", ["python", "node"])
def test_a_failing_event_is_retried_on_the_clock_then_its_record_goes_to_on_failure(door, runtime):
    env = setup(door, runtime)
    sqs, lam = env["sqs"], env["lambda"]
    lam.put_function_event_invoke_config(FunctionName="worker", MaximumRetryAttempts=1,
                                         DestinationConfig={"OnFailure": {"Destination": env["outcomes_arn"]}})
    answer = invoke_event(lam, {"fail": True, "n": 1})
    assert wait_for_messages(sqs, env["attempts"], 1) == [{"fail": True, "n": 1}]
    door.advance(30)  # Lambda's first retry comes a minute after the first attempt
    assert sqs.receive_message(QueueUrl=env["outcomes"]).get("Messages") is None
    door.advance(31)
    assert wait_for_messages(sqs, env["attempts"], 1) == [{"fail": True, "n": 1}]
    [record] = wait_for_messages(sqs, env["outcomes"], 1)
    assert set(record) == {"version", "timestamp", "requestContext", "requestPayload", "responseContext", "responsePayload"}
    assert record["version"] == "1.0" and record["requestPayload"] == {"fail": True, "n": 1}
    assert record["requestContext"] == {
        "requestId": answer["ResponseMetadata"]["RequestId"], "condition": "RetriesExhausted", "approximateInvokeCount": 2,
        "functionArn": "arn:aws:lambda:us-east-1:123456789012:function:worker:$LATEST"}
    assert record["responseContext"] == {"statusCode": 200, "executedVersion": "$LATEST", "functionError": "Unhandled"}
    assert record["responsePayload"]["errorMessage"] == "failing as asked"


@pytest.mark.parametrize("runtime", ["python", "node"])
def test_a_successful_event_sends_its_record_to_on_success(door, runtime):
    env = setup(door, runtime)
    env["lambda"].put_function_event_invoke_config(FunctionName="worker",
                                                   DestinationConfig={"OnSuccess": {"Destination": env["outcomes_arn"]}})
    invoke_event(env["lambda"], {"n": 7})
    [record] = wait_for_messages(env["sqs"], env["outcomes"], 1)
    assert (record["requestContext"]["condition"], record["requestContext"]["approximateInvokeCount"]) == ("Success", 1)
    assert record["responseContext"] == {"statusCode": 200, "executedVersion": "$LATEST"}
    assert record["responsePayload"] == {"done": 7}


@pytest.mark.parametrize("runtime", ["python", "node"])
def test_an_event_too_old_to_retry_and_the_dead_letter_queue(door, runtime):
    sqs = door.client("sqs")
    dlq, dlq_arn = queue(sqs, "worker-dlq")
    env = setup(door, runtime, DeadLetterConfig={"TargetArn": dlq_arn})
    lam = env["lambda"]
    assert lam.get_function_configuration(FunctionName="worker")["DeadLetterConfig"] == {"TargetArn": dlq_arn}
    lam.put_function_event_invoke_config(FunctionName="worker", MaximumEventAgeInSeconds=100,
                                         DestinationConfig={"OnFailure": {"Destination": env["outcomes_arn"]}})
    answer = invoke_event(lam, {"fail": True, "n": 2})
    wait_for_messages(sqs, env["attempts"], 1)
    door.advance(61)  # the retry a minute later; the next would come two minutes after it: past 100 s of age, so
    # Lambda gives up on the event then, without waiting for it to be 100 s old (LocalStack's AWS-validated
    # TestLambdaDestinationSqs::test_maxeventage: "lambda doesn't even wait for the full 60s")
    assert wait_for_messages(sqs, env["attempts"], 1) == [{"fail": True, "n": 2}]
    [record] = wait_for_messages(sqs, env["outcomes"], 1)
    assert (record["requestContext"]["condition"], record["requestContext"]["approximateInvokeCount"]) == ("EventAgeExceeded", 2)
    [dead] = sqs.receive_message(QueueUrl=dlq, MessageAttributeNames=["All"], WaitTimeSeconds=5)["Messages"]
    assert json.loads(dead["Body"]) == {"fail": True, "n": 2}
    assert dead["MessageAttributes"] == {
        "RequestID": {"DataType": "String", "StringValue": answer["ResponseMetadata"]["RequestId"]},
        "ErrorCode": {"DataType": "Number", "StringValue": "200"},
        "ErrorMessage": {"DataType": "String", "StringValue": "failing as asked"}}


def test_the_event_invoke_config_api(door):
    env = setup(door)
    lam = env["lambda"]
    with pytest.raises(ClientError) as missing:
        lam.get_function_event_invoke_config(FunctionName="worker")
    assert missing.value.response["Error"] == {
        "Code": "ResourceNotFoundException",
        "Message": "The function arn:aws:lambda:us-east-1:123456789012:function:worker:$LATEST doesn't have an EventInvokeConfig"}
    put = lam.put_function_event_invoke_config(FunctionName="worker", MaximumRetryAttempts=0)
    assert (put["FunctionArn"], put["MaximumRetryAttempts"], put["DestinationConfig"]) == (
        "arn:aws:lambda:us-east-1:123456789012:function:worker:$LATEST", 0, {"OnSuccess": {}, "OnFailure": {}})
    updated = lam.update_function_event_invoke_config(FunctionName="worker", MaximumEventAgeInSeconds=120)
    assert (updated["MaximumRetryAttempts"], updated["MaximumEventAgeInSeconds"]) == (0, 120)
    [listed] = lam.list_function_event_invoke_configs(FunctionName="worker")["FunctionEventInvokeConfigs"]
    assert listed["MaximumEventAgeInSeconds"] == 120
    unchecked = door.client("lambda", validate=False)
    with pytest.raises(ClientError) as too_many:
        unchecked.put_function_event_invoke_config(FunctionName="worker", MaximumRetryAttempts=3)
    assert too_many.value.response["Error"]["Code"] == "ValidationException"
    lam.delete_function_event_invoke_config(FunctionName="worker")
    assert lam.list_function_event_invoke_configs(FunctionName="worker")["FunctionEventInvokeConfigs"] == []


#: LocalStack's functions/lambda_context.py, the function of the AWS-validated TestRequestIdHandling tests
CONTEXT_REQUEST_ID = '''
def handler(event, context):
    print(event)
    print(context.aws_request_id)

    if event.get("fail"):
        raise Exception("Intentional failure")

    return context.aws_request_id
'''


def test_each_attempt_of_a_retried_event_is_logged_under_the_invocations_request_id(door):
    """LocalStack's AWS-validated TestRequestIdHandling::test_request_id_async_invoke_with_retry (its snapshot's
    invoke_result: 202, an empty payload; end_messages: two "END RequestId: <request-id>", the request id Invoke
    answered with): an event retried once is run twice, each attempt's START, END and REPORT naming the request id of
    the Invoke that queued it, as does the context each attempt's handler gets (it prints it)."""
    lam, logs = door.client("lambda"), door.client("logs")
    created_function(lam, FunctionName="reqid", Runtime="python3.12", Role=ROLE, Handler="app.handler",
                        Code={"ZipFile": zip_of({"app.py": CONTEXT_REQUEST_ID})})
    lam.put_function_event_invoke_config(FunctionName="reqid", MaximumRetryAttempts=1)
    result = lam.invoke(FunctionName="reqid", InvocationType="Event", Payload=json.dumps({"fail": 1}))
    request_id = result["ResponseMetadata"]["RequestId"]
    assert result["ResponseMetadata"]["HTTPHeaders"]["x-amzn-requestid"] == request_id
    assert {key: value for key, value in result.items() if key != "ResponseMetadata"} == {
        "StatusCode": 202, "Payload": result["Payload"]}
    assert result["Payload"].read() == b""
    report = door.wait_idle(30)
    while any(entry.get("State") in ("Queued", "Running") for entry in report["Pending"]):
        report = door.wait_idle(30)  # the first attempt is still running
    assert [(entry["RequestId"], entry["Attempts"]) for entry in report["Pending"]] == [(request_id, 1)]
    door.advance(61)  # Lambda's retry, a minute after the first attempt
    report = door.wait_idle(30)
    while not report["Idle"]:
        report = door.wait_idle(30)  # the retry is running
    assert [(failure["RequestId"], failure["Condition"]) for failure in report["Failures"]] == [
        (request_id, "RetriesExhausted")]
    messages = [event["message"] for event in logs.filter_log_events(logGroupName="/aws/lambda/reqid")["events"]]
    assert [message.rstrip() for message in messages if "END" in message] == [f"END RequestId: {request_id}"] * 2
    error = (r"\[ERROR\] Exception: Intentional failure\nTraceback \(most recent call last\):\n"
             r"\u00a0\u00a0File \".*app\.py\", line 7, in handler\n\u00a0\u00a0\u00a0\u00a0"
             r"raise Exception\(\"Intentional failure\"\)\n")
    attempt = [rf"START RequestId: {request_id} Version: \$LATEST\n", r"\{'fail': 1\}\n", rf"{request_id}\n", error,
               rf"END RequestId: {request_id}\n"]
    report_line = (rf"REPORT RequestId: {request_id}\tDuration: \d+\.\d\d ms\tBilled Duration: \d+ ms\t"
                   r"Memory Size: 128 MB\tMax Memory Used: \d+ MB\t")
    expected = [init_start("python:3.12"), *attempt, report_line + r"Init Duration: \d+\.\d\d ms\t\n",
                *attempt, report_line + r"\n"]  # the second attempt in the same execution environment: warm
    assert_log(messages, expected)


#: LocalStack's functions/lambda_s3_integration_function_version.py (the function of the AWS-validated
#: TestLambdaVersions::test_async_invoke_queue_upon_function_update), its 22-second sleep made a hold the test ends
#: (the event's "hold": a folder where it says it started and waits for "release")
S3_VARIANT = '''
import json
import time
import os
import pathlib
import time

import boto3

s3 = boto3.client("s3", endpoint_url=os.environ.get("AWS_ENDPOINT_URL"))
S3_BUCKET_NAME = os.environ.get("S3_BUCKET_NAME")
# Configurable identifier to test function updates
FUNCTION_VARIANT = os.environ.get("FUNCTION_VARIANT")


def handler(event, context):
    if "hold" in event:
        pathlib.Path(event["hold"], "started").touch()
        while not pathlib.Path(event["hold"], "release").exists():
            time.sleep(0.01)

    request_prefix = event.get("request_prefix")
    response = {
        "function_version": context.function_version,
        "request_id": context.aws_request_id,
        "request_prefix": request_prefix,
        "function_variant": FUNCTION_VARIANT,
    }

    # The side effect is required to test async invokes
    if S3_BUCKET_NAME:
        s3_key = f"{request_prefix}--{FUNCTION_VARIANT}"
        response["s3_key"] = s3_key
        s3.put_object(Bucket=S3_BUCKET_NAME, Key=s3_key, Body=json.dumps(response))

    return response
'''


def test_events_queued_behind_a_busy_execution_run_as_it_frees_and_with_the_updated_configuration(door, tmp_path):
    """test_lambda.snapshot.json, TestLambdaVersions::test_async_invoke_queue_upon_function_update (recorded against
    AWS 2025-11-24): a function with one execution (ReservedConcurrentExecutions 1) runs a long event; 9 events are
    queued behind it, its configuration is updated (FUNCTION_VARIANT variant-2), 5 more are queued; every one runs
    (async_invoke_history_sorted, whole: the long one as variant-1, all 14 others as variant-2). They are throttled
    while the execution is busy and run as it frees, without waiting out their back-off: the emulator's clock is
    never moved here, so not even the first second of it passes."""
    s3, lam = door.client("s3"), door.client("lambda")
    s3.create_bucket(Bucket="lambda-target-bucket")
    variables = {"S3_BUCKET_NAME": "lambda-target-bucket", "FUNCTION_VARIANT": "variant-1"}
    create_zip_function(lam, "variants", "python", S3_VARIANT, Timeout=60, Environment={"Variables": variables})
    lam.put_function_concurrency(FunctionName="variants", ReservedConcurrentExecutions=1)

    def invoke_event(payload: dict) -> None:
        assert lam.invoke(FunctionName="variants", InvocationType="Event",
                          Payload=json.dumps(payload))["StatusCode"] == 202

    invoke_event({"request_prefix": "01-sleep", "hold": str(tmp_path)})
    deadline = time.monotonic() + 60
    while not (tmp_path / "started").exists():  # the long event holds the one execution (a file it makes)
        assert time.monotonic() < deadline, "the long event never started"
        door.wait_idle(0.1)  # the emulator's own wait, between looks
    for index in range(9):
        invoke_event({"request_prefix": f"{index + 2:02}-before"})
    report = door.wait_idle(0.2)  # not idle while the long event runs: a look at the queue
    while len([entry for entry in report["Pending"] if entry.get("State") == "Throttled"]) < 9:
        assert time.monotonic() < deadline, report
        report = door.wait_idle(0.2)  # each event's first try, throttled
    lam.update_function_configuration(FunctionName="variants",
                                      Environment={"Variables": {**variables, "FUNCTION_VARIANT": "variant-2"}})
    lam.get_waiter("function_updated_v2").wait(FunctionName="variants")  # as the recorded test waits
    for index in range(5):
        invoke_event({"request_prefix": f"{index + 11:02}-after"})
    (tmp_path / "release").touch()
    deadline = time.monotonic() + 120
    while not (report := door.wait_idle(5))["Idle"]:
        assert time.monotonic() < deadline, report
    assert report["Failures"] == []
    keys = sorted(item["Key"] for item in s3.list_objects_v2(Bucket="lambda-target-bucket")["Contents"])
    assert keys == ["01-sleep--variant-1", *(f"{n:02}-before--variant-2" for n in range(2, 11)),
                    *(f"{n:02}-after--variant-2" for n in range(11, 16))]

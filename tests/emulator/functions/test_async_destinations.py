"""Asynchronous invocation's records at their other destinations (both doors, Python and Node.js functions): an SNS
topic, a Lambda function and an EventBridge bus get Lambda's invocation record as AWS documents it (Lambda Developer
Guide, "Capturing records of Lambda asynchronous invocations": version 1.0, timestamp, requestContext with
requestId, functionArn, condition and approximateInvokeCount, requestPayload, responseContext, responsePayload) on
success and on failure; a DeadLetterConfig naming an SNS topic gets the event with the message attributes
RequestID, ErrorCode and ErrorMessage."""

from __future__ import annotations

import json
import re

import pytest

from tests.emulator.functions.test_async_invocations import invoke_event, setup
from tests.emulator.notifications.test_s3_notifications import wait_for_messages
from tests.emulator.trigger_helpers import create_zip_function
from tests.emulator.triggers.sqs_helpers import queue

ACCOUNT = "123456789012"
WORKER_ARN = f"arn:aws:lambda:us-east-1:{ACCOUNT}:function:worker"

RECORDER = '''
import json, os, boto3
sqs = boto3.client("sqs")
def handler(event, context):
    sqs.send_message(QueueUrl=os.environ["QUEUE_URL"], MessageBody=json.dumps(event))
'''


def destination(door, kind: str) -> tuple[str, str]:
    """A destination of `kind` that ends in a queue "records": (the destination's ARN, the queue's URL)."""
    sqs = door.client("sqs")
    url, queue_arn = queue(sqs, "records")
    if kind == "sns":
        sns = door.client("sns")
        topic = sns.create_topic(Name="records")["TopicArn"]
        sns.subscribe(TopicArn=topic, Protocol="sqs", Endpoint=queue_arn)
        return topic, url
    if kind == "lambda":
        created = create_zip_function(door.client("lambda"), "recorder", "python", RECORDER, Timeout=10,
                                      Environment={"Variables": {"QUEUE_URL": url}})
        return created["FunctionArn"], url
    events = door.client("events")
    bus = events.create_event_bus(Name="outcomes")["EventBusArn"]
    events.put_rule(Name="records", EventBusName="outcomes", EventPattern=json.dumps({"source": ["lambda"]}))
    events.put_targets(Rule="records", EventBusName="outcomes", Targets=[{"Id": "records", "Arn": queue_arn}])
    return bus, url


def record_of(kind: str, received: dict) -> dict:
    """The invocation record in what the queue received through the destination."""
    if kind == "sns":
        assert received["Type"] == "Notification" and received["TopicArn"].endswith(":records")
        return json.loads(received["Message"])
    if kind == "events":
        assert received["source"] == "lambda" and received["account"] == ACCOUNT
        # the bus and the function's version (LocalStack's AWS-validated TestLambdaDestinationEventbridge::
        # test_invoke_lambda_eventbridge)
        assert received["resources"] == [f"arn:aws:events:us-east-1:{ACCOUNT}:event-bus/outcomes", f"{WORKER_ARN}:$LATEST"]
        condition = received["detail"]["requestContext"]["condition"]
        assert received["detail-type"] == ("Lambda Function Invocation Result - "
                                           + ("Success" if condition == "Success" else "Failure"))
        return received["detail"]
    return received


def assert_record(record: dict, request_id: str, condition: str, payload: dict, count: int = 1) -> None:
    assert list(record) == ["version", "timestamp", "requestContext", "requestPayload", "responseContext",
                            "responsePayload"]
    assert record["version"] == "1.0"
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", record["timestamp"]), record["timestamp"]
    assert record["requestContext"] == {"requestId": request_id, "functionArn": f"{WORKER_ARN}:$LATEST",
                                        "condition": condition, "approximateInvokeCount": count}
    assert record["requestPayload"] == payload


@pytest.mark.parametrize("runtime", ["python", "node"])
@pytest.mark.parametrize("kind", ["sns", "lambda", "events"])
def test_records_go_to_an_sns_topic_a_function_and_an_event_bus(door, kind, runtime):
    env = setup(door, runtime, Timeout=10)
    sqs, lam = env["sqs"], env["lambda"]
    arn, records = destination(door, kind)
    lam.put_function_event_invoke_config(FunctionName="worker", MaximumRetryAttempts=0, DestinationConfig={
        "OnSuccess": {"Destination": arn}, "OnFailure": {"Destination": arn}})
    succeeded = invoke_event(lam, {"n": 1})["ResponseMetadata"]["RequestId"]
    [success] = [record_of(kind, body) for body in wait_for_messages(sqs, records, 1)]
    assert_record(success, succeeded, "Success", {"n": 1})
    assert success["responseContext"] == {"statusCode": 200, "executedVersion": "$LATEST"}
    assert success["responsePayload"] == {"done": 1}

    failed = invoke_event(lam, {"n": 2, "fail": True})["ResponseMetadata"]["RequestId"]
    [failure] = [record_of(kind, body) for body in wait_for_messages(sqs, records, 1)]
    assert_record(failure, failed, "RetriesExhausted", {"n": 2, "fail": True})
    assert failure["responseContext"] == {"statusCode": 200, "executedVersion": "$LATEST", "functionError": "Unhandled"}
    assert failure["responsePayload"]["errorMessage"] == "failing as asked"
    report = door.wait_idle(60)
    assert [entry["Condition"] for entry in report["Failures"]] == ["RetriesExhausted"]
    assert wait_for_messages(sqs, env["attempts"], 2) == [{"n": 1}, {"n": 2, "fail": True}]  # each tried once


@pytest.mark.parametrize("runtime", ["python", "node"])
def test_a_dead_letter_topic_gets_the_event_with_its_request_id_and_error(door, runtime):
    sns, sqs = door.client("sns"), door.client("sqs")
    topic = sns.create_topic(Name="worker-dlq")["TopicArn"]
    dead, dead_arn = queue(sqs, "dead-letters")
    sns.subscribe(TopicArn=topic, Protocol="sqs", Endpoint=dead_arn)
    env = setup(door, runtime, Timeout=10, DeadLetterConfig={"TargetArn": topic})
    env["lambda"].put_function_event_invoke_config(FunctionName="worker", MaximumRetryAttempts=0)
    request_id = invoke_event(env["lambda"], {"n": 3, "fail": True})["ResponseMetadata"]["RequestId"]
    [notification] = wait_for_messages(sqs, dead, 1)
    assert notification["TopicArn"] == topic
    assert json.loads(notification["Message"]) == {"n": 3, "fail": True}
    assert notification["MessageAttributes"] == {
        "RequestID": {"Type": "String", "Value": request_id},
        "ErrorCode": {"Type": "Number", "Value": "200"},
        "ErrorMessage": {"Type": "String", "Value": "failing as asked"}}
    [failure] = door.wait_idle(60)["Failures"]
    assert (failure["RequestId"], failure["DeadLetterTarget"]) == (request_id, topic)

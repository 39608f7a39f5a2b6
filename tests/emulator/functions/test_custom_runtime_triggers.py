"""Custom-runtime functions (a shell bootstrap using curl and a compiled C one: custom_runtimes.py) run by what runs
Python and Node.js functions, in both doors: asynchronous invocation with OnSuccess / OnFailure destinations and its
retry on the emulator's clock, a DeadLetterConfig queue, a DynamoDB stream mapping with ReportBatchItemFailures,
and a SAM template's function deployed from a folder.

The records are Lambda's (Lambda Developer Guide, "Capturing records of Lambda asynchronous invocations"; the
failure's responsePayload is the document the runtime posted to /invocation/<id>/error); the partial batch failure
is retried from the reported record onwards (Lambda Developer Guide, "Configuring partial batch response with
DynamoDB and Lambda": the checkpoint is the lowest failed sequence number)."""

from __future__ import annotations

import json

import boto3
import pytest

from eddy import emulate
from tests.emulator.functions.custom_runtimes import FAILURE, NEEDS_CURL, ROLE, SHELL, create_custom, zip_of
from tests.emulator.functions.test_async_invocations import invoke_event
from tests.emulator.helpers import create_table
from tests.emulator.notifications.test_s3_notifications import wait_for_messages
from tests.emulator.trigger_helpers import put, wait_idle
from tests.emulator.triggers.sqs_helpers import queue
from tests.lambda_functions import created_function

pytestmark = NEEDS_CURL
BOOTSTRAPS = pytest.mark.parametrize("kind", ["shell", "c"])
WORKER_ARN = "arn:aws:lambda:us-east-1:123456789012:function:worker:$LATEST"


@BOOTSTRAPS
def test_asynchronous_invocations_send_their_records_to_on_success_and_on_failure(door, kind, tmp_path):
    sqs, lam = door.client("sqs"), door.client("lambda")
    successes, successes_arn = queue(sqs, "successes")
    failures, failures_arn = queue(sqs, "failures")
    dead, dead_arn = queue(sqs, "dead-letters")
    create_custom(lam, "worker", kind, tmp_path, DeadLetterConfig={"TargetArn": dead_arn})
    lam.put_function_event_invoke_config(FunctionName="worker", MaximumRetryAttempts=1, DestinationConfig={
        "OnSuccess": {"Destination": successes_arn}, "OnFailure": {"Destination": failures_arn}})
    succeeded = invoke_event(lam, {"n": 7})["ResponseMetadata"]["RequestId"]
    [success] = wait_for_messages(sqs, successes, 1)
    response = success.pop("responsePayload")
    assert (response["event"], response["requestId"], response["invokedArn"]) == ({"n": 7}, succeeded, WORKER_ARN[:-8])
    assert success.pop("timestamp")
    assert success == {"version": "1.0", "requestContext": {
        "requestId": succeeded, "functionArn": WORKER_ARN, "condition": "Success", "approximateInvokeCount": 1},
        "requestPayload": {"n": 7}, "responseContext": {"statusCode": 200, "executedVersion": "$LATEST"}}

    failed = invoke_event(lam, {"fail": True})["ResponseMetadata"]["RequestId"]
    assert wait_idle(door)["Pending"]  # its retry waits a minute on the emulator's clock
    door.advance(61)
    [failure] = wait_for_messages(sqs, failures, 1)
    assert failure.pop("timestamp")
    assert failure == {"version": "1.0", "requestContext": {
        "requestId": failed, "functionArn": WORKER_ARN, "condition": "RetriesExhausted", "approximateInvokeCount": 2},
        "requestPayload": {"fail": True},
        "responseContext": {"statusCode": 200, "executedVersion": "$LATEST", "functionError": "Unhandled"},
        "responsePayload": FAILURE}
    [letter] = sqs.receive_message(QueueUrl=dead, MessageAttributeNames=["All"], WaitTimeSeconds=5)["Messages"]
    assert json.loads(letter["Body"]) == {"fail": True}
    assert letter["MessageAttributes"] == {
        "RequestID": {"DataType": "String", "StringValue": failed},
        "ErrorCode": {"DataType": "Number", "StringValue": "200"},
        "ErrorMessage": {"DataType": "String", "StringValue": "failing as asked"}}


@BOOTSTRAPS
def test_a_stream_mapping_retries_from_the_record_the_runtime_reports_failed(door, kind, tmp_path):
    dynamodb, lam = door.client("dynamodb"), door.client("lambda")
    stream_arn = create_table(dynamodb, "orders", "KEYS_ONLY")["LatestStreamArn"]
    create_custom(lam, "partial", kind, tmp_path)
    for key in ("a", "flaky-b", "c"):
        put(dynamodb, key)
    lam.create_event_source_mapping(EventSourceArn=stream_arn, FunctionName="partial", StartingPosition="TRIM_HORIZON",
                                    BatchSize=10, FunctionResponseTypes=["ReportBatchItemFailures"])
    assert wait_idle(door)["Idle"]
    batches = (tmp_path / "batches").read_text().splitlines()
    assert batches == ["a flaky-b c ", "flaky-b c "]  # the whole batch, then again from the reported record


TEMPLATE = """
AWSTemplateFormatVersion: '2010-09-09'
Transform: AWS::Serverless-2016-10-31
Resources:
  Custom:
    Type: AWS::Serverless::Function
    Properties:
      FunctionName: custom
      Runtime: provided.al2023
      Handler: bootstrap
      Timeout: 30
      CodeUri: function/
"""


def test_a_sam_template_deploys_a_folder_with_its_bootstrap(door, tmp_path):
    """`eddy up` (infra.apply_stack) zips the CodeUri folder keeping the bootstrap's executable bit, as `sam deploy`
    does (Handler `bootstrap` is what SAM's Go and Rust templates name)."""
    from eddy.infra import apply_stack

    (tmp_path / "function").mkdir()
    (tmp_path / "function" / "bootstrap").write_text(SHELL)
    (tmp_path / "function" / "bootstrap").chmod(0o755)
    (tmp_path / "template.yaml").write_text(TEMPLATE)
    apply_stack(tmp_path / "template.yaml", endpoint_url=getattr(door, "url", None), region="us-east-1")
    answer = door.client("lambda").invoke(FunctionName="custom", Payload=b'{"from": "sam"}')
    body = json.loads(answer["Payload"].read())
    assert (answer.get("FunctionError"), body["event"], body["handler"]) == (None, {"from": "sam"}, "bootstrap")


def test_a_custom_runtime_function_and_its_layers_bootstrap_survive_a_restart(tmp_path):
    """The package and the layer are unpacked again from what the state directory kept, executable bits with them."""
    state = tmp_path / "state"
    with emulate(state_dir=state, housekeeping_interval=None):
        lam = boto3.client("lambda", region_name="us-east-1")
        layer = lam.publish_layer_version(LayerName="runtime", Content={"ZipFile": zip_of({"bootstrap": SHELL})})
        created_function(lam, FunctionName="kept", Runtime="provided.al2023", Handler="kept.handler", Role=ROLE,
                            Timeout=30, Layers=[layer["LayerVersionArn"]], Code={"ZipFile": zip_of({"data.txt": "x"})})
    with emulate(state_dir=state, housekeeping_interval=None):
        lam = boto3.client("lambda", region_name="us-east-1")
        body = json.loads(lam.invoke(FunctionName="kept", Payload=b'{"after": "restart"}')["Payload"].read())
        assert (body["event"], body["handler"]) == ({"after": "restart"}, "kept.handler")

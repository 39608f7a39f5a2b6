"""Invoke answers as AWS answers them, whole, in both doors. The expected answers are AWS's recorded ones, from
LocalStack's AWS-validated snapshots (tests/aws/services/lambda_/test_lambda.snapshot.json and
test_lambda_api.snapshot.json, named per test), or AWS's documented limits and the error words SDKs reported."""

from __future__ import annotations

import base64
import json
import re

import pytest
from botocore.exceptions import ClientError

from tests.emulator.functions.test_functions import ROLE, create_function, zip_of
from tests.emulator.functions.test_async_invocations import setup
from tests.emulator.notifications.test_s3_notifications import wait_for_messages
from tests.lambda_functions import created_function

ARN = "arn:aws:lambda:us-east-1:123456789012:function"


def invoked(lam, name: str, **options) -> tuple[dict, str, dict]:
    """(the answer's metadata and headers, its request id, its payload as JSON)."""
    response = lam.invoke(FunctionName=name, **options)
    payload = json.loads(response.pop("Payload").read())
    return response, response["ResponseMetadata"]["RequestId"], payload


def fields(response: dict) -> dict:
    return {key: value for key, value in response.items() if key not in ("ResponseMetadata", "LogResult")}


def refused(call, **params) -> dict:
    with pytest.raises(ClientError) as error:
        call(**params)
    response = error.value.response
    return {"Error": response["Error"], "Status": response["ResponseMetadata"]["HTTPStatusCode"]}


def test_a_handler_or_module_that_exits_is_runtime_exit_error(door):
    """TestLambdaErrors::test_lambda_handler_exit and test_lambda_runtime_exit: sys.exit(0) in the handler or at
    import; a status or Node.js's process.exit(3) as Lambda's init words it ("exit status 3")."""
    lam = door.client("lambda")
    create_function(lam, "handler-exit", "import sys\ndef handler(event, context):\n    sys.exit(0)\n")
    create_function(lam, "runtime-exit", "import sys\nsys.exit(0)\n")
    create_function(lam, "status-exit", "import sys\ndef handler(event, context):\n    sys.exit(2)\n")
    created_function(lam, FunctionName="node-exit", Runtime="nodejs20.x", Role=ROLE, Handler="index.handler",
                        Code={"ZipFile": zip_of({"index.js": "exports.handler = async () => { process.exit(3); };"})})
    for name, reason in (("handler-exit", "Runtime exited without providing a reason"),
                         ("runtime-exit", "Runtime exited without providing a reason"),
                         ("status-exit", "Runtime exited with error: exit status 2"),
                         ("node-exit", "Runtime exited with error: exit status 3")):
        response, request_id, payload = invoked(lam, name)
        assert fields(response) == {"ExecutedVersion": "$LATEST", "FunctionError": "Unhandled", "StatusCode": 200}
        assert list(payload.items()) == [("errorType", "Runtime.ExitError"),
                                         ("errorMessage", f"RequestId: {request_id} Error: {reason}")]
    log = base64.b64decode(lam.invoke(FunctionName="status-exit", LogType="Tail")["LogResult"]).decode()
    assert re.search(r"\nRequestId: \S+ Error: Runtime exited with error: exit status 2\nRuntime.ExitError\nEND ", log)


def test_a_registered_callable_that_calls_sys_exit(emu):
    import boto3

    def handler(event, context):
        raise SystemExit(4)

    emu.register_function("exits", handler)
    response, request_id, payload = invoked(boto3.client("lambda", region_name="us-east-1"), "exits")
    assert payload == {"errorType": "Runtime.ExitError",
                       "errorMessage": f"RequestId: {request_id} Error: Runtime exited with error: exit status 4"}


def test_an_unhandled_exception_and_a_timeout_answer_the_runtimes_documents(door):
    """TestLambdaErrors::test_lambda_handler_error (its key order too) and TestLambdaBehavior::
    test_lambda_invoke_with_timeout."""
    lam = door.client("lambda")
    create_function(lam, "fails", 'def handler(event, context):\n    raise Exception("Handler fails")\n')
    create_function(lam, "slow", "import time\ndef handler(event, context):\n    time.sleep(30)\n", Timeout=1)
    response, request_id, payload = invoked(lam, "fails")
    assert fields(response) == {"ExecutedVersion": "$LATEST", "FunctionError": "Unhandled", "StatusCode": 200}
    [frame] = payload.pop("stackTrace")
    assert list(payload.items()) == [("errorMessage", "Handler fails"), ("errorType", "Exception"),
                                     ("requestId", request_id)]
    assert frame.endswith('/app.py", line 2, in handler\n    raise Exception("Handler fails")\n')
    response, request_id, payload = invoked(lam, "slow")
    assert fields(response) == {"ExecutedVersion": "$LATEST", "FunctionError": "Unhandled", "StatusCode": 200}
    assert list(payload.items()) == [("errorType", "Sandbox.Timedout"), (
        "errorMessage", f"RequestId: {request_id} Error: Task timed out after 1.00 seconds")]


BYTES = "def handler(event, context):\n    return 'a' * event['bytenum']\n"


def test_a_response_over_6_mb_is_function_response_size_too_large(door):
    """TestLambdaBaseFeatures::test_lambda_too_large_response (twice: the function still works) and
    test_lambda_large_response (6 MB itself is returned)."""
    lam = door.client("lambda")
    create_function(lam, "sized", BYTES, Timeout=30, MemorySize=512)
    for _ in range(2):
        response, _, payload = invoked(lam, "sized", Payload=json.dumps({"bytenum": 7 * 1024 * 1024}))
        assert fields(response) == {"ExecutedVersion": "$LATEST", "FunctionError": "Unhandled", "StatusCode": 200}
        assert list(payload.items()) == [
            ("errorMessage", "Response payload size exceeded maximum allowed payload size (6291556 bytes)."),
            ("errorType", "Function.ResponseSizeTooLarge")]
    response, _, payload = invoked(lam, "sized", Payload=json.dumps({"bytenum": 6 * 1024 * 1024}))
    assert "FunctionError" not in response and payload == "a" * 6 * 1024 * 1024


def test_a_request_over_its_limit_is_refused_before_it_runs(door):
    """Lambda API Reference, Invoke: 6 MB synchronous, 1 MB asynchronous; AWS's code and words as SDKs reported
    them (413 RequestEntityTooLargeException: aws-athena-query-federation issue 793, ASFHyP3/hyp3 issue 2241)."""
    lam = door.client("lambda")
    create_function(lam, "echo", "def handler(event, context):\n    return event\n")
    big = json.dumps({"v": "x" * (6 * 1024 * 1024)}).encode()
    assert refused(lam.invoke, FunctionName="echo", Payload=big) == {"Status": 413, "Error": {
        "Code": "RequestEntityTooLargeException",
        "Message": "Request must be smaller than 6291456 bytes for the InvokeFunction operation"}}
    event = json.dumps({"v": "x" * (1024 * 1024)}).encode()
    assert refused(lam.invoke, FunctionName="echo", Payload=event, InvocationType="Event") == {
        "Status": 413, "Error": {"Code": "RequestEntityTooLargeException", "Message":
                                 f"{len(event)} byte payload is too large for the Event invocation type "
                                 f"(limit 1048576 bytes)"}}
    assert door.wait_idle(30)["Pending"] == []  # nothing was queued


@pytest.mark.parametrize(("payload", "reason"), [
    (b"n\x87r\x9e\xe9\xb5\xd7I\xee\x9bmt", "Invalid UTF-8 start byte 0x87\n at [Source: REDACTED "
     "(`StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION` disabled); line: 1, column: 3]"),
    (b"\x99\xeb,j\x07\xa1zYh", "Unexpected character ((CTRL-CHAR, code 153)): expected a valid value (JSON String, "
     "Number, Array, Object or token 'null', 'true' or 'false')\n at [Source: REDACTED "
     "(`StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION` disabled); line: 1, column: 1]"),
])
def test_a_payload_that_is_not_json_is_invalid_request_content(door, payload, reason):
    """TestLambdaErrors::test_lambda_invoke_payload_encoding_error (both recorded payloads, the AWS CLI v2's base64
    mistake)."""
    lam = door.client("lambda")
    create_function(lam, "echo", "def handler(event, context):\n    return event\n")
    assert refused(lam.invoke, FunctionName="echo", Payload=payload) == {"Status": 400, "Error": {
        "Code": "InvalidRequestContentException",
        "Message": f"Could not parse request body into json: Could not parse payload into json: {reason}"}}


def test_qualifiers_latest_unknown_mismatched_and_invalid(door):
    """TestLambdaFeatures::test_invoke_exceptions (":$LATEST" for a missing function), TestLambdaFunction::
    test_ops_on_nonexisting_version and test_function_name_and_qualifier_validation (invoke)."""
    lam = door.client("lambda")
    create_function(lam, "echo", "def handler(event, context):\n    return event\n")
    for options in ({"Qualifier": "$LATEST"}, {"FunctionName": "echo:$LATEST"},
                    {"FunctionName": f"{ARN}:echo"}, {"FunctionName": "123456789012:function:echo"}):
        named = {"FunctionName": "echo", "Payload": b'{"a": 1}', **options}
        response, _, payload = invoked(lam, named.pop("FunctionName"), **named)
        assert (fields(response), payload) == ({"ExecutedVersion": "$LATEST", "StatusCode": 200}, {"a": 1})
    assert refused(lam.invoke, FunctionName="echo", Qualifier="1221") == {"Status": 404, "Error": {
        "Code": "ResourceNotFoundException", "Message": f"Function not found: {ARN}:echo:1221"}}
    assert refused(lam.invoke, FunctionName="doesnotexist") == {"Status": 404, "Error": {
        "Code": "ResourceNotFoundException", "Message": f"Function not found: {ARN}:doesnotexist:$LATEST"}}
    assert refused(lam.invoke, FunctionName=f"{ARN}:echo:$LATEST", Qualifier="1") == {"Status": 400, "Error": {
        "Code": "InvalidParameterValueException",
        "Message": "The derived qualifier from the function name does not match the specified qualifier."}}
    assert refused(lam.invoke, FunctionName="echo", Qualifier="$latest")["Error"]["Message"] == (
        f"Function not found: {ARN}:echo:$latest")
    assert refused(lam.invoke, FunctionName="echo", Qualifier="invalid!") == {"Status": 400, "Error": {
        "Code": "ValidationException", "Message": "1 validation error detected: Value 'invalid!' at 'qualifier' failed "
        "to satisfy constraint: Member must satisfy regular expression pattern: \\$(LATEST(\\.PUBLISHED)?)|[a-zA-Z0-9-_$]+"}}


def test_dry_run_and_the_tail_of_the_log(door):
    """TestLambdaFeatures::test_invocation_type_dry_run (204, no payload) and test_invocation_with_logs (START, the
    output, END, REPORT with its Billed Duration, Memory Size, Max Memory Used and, on a cold start, Init Duration;
    test_invocation_type_event_error's second REPORT has none)."""
    lam = door.client("lambda")
    create_function(lam, "echo", "def handler(event, context):\n    print(event)\n    return {}\n")
    dry = lam.invoke(FunctionName="echo", InvocationType="DryRun", Payload=b"{}")
    assert (dry["StatusCode"], dry["Payload"].read(), "ExecutedVersion" in dry) == (204, b"", False)
    response = lam.invoke(FunctionName="echo", LogType="Tail", Payload=b"{}")
    request_id = response["ResponseMetadata"]["RequestId"]
    assert json.loads(response["Payload"].read()) == {}
    lines = base64.b64decode(response["LogResult"]).decode().splitlines(keepends=True)
    assert lines[:3] == [f"START RequestId: {request_id} Version: $LATEST\n", "{}\n", f"END RequestId: {request_id}\n"]
    report = (rf"REPORT RequestId: {request_id}\tDuration: \d+\.\d\d ms\tBilled Duration: \d+ ms\t"
              r"Memory Size: 128 MB\tMax Memory Used: \d+ MB\t")
    assert re.fullmatch(report + r"Init Duration: \d+\.\d\d ms\t\n", lines[3])  # a new environment: a cold start
    assert len(lines) == 4
    warm = lam.invoke(FunctionName="echo", LogType="Tail", Payload=b"{}")  # the same environment: no Init Duration
    request_id = warm["ResponseMetadata"]["RequestId"]
    lines = base64.b64decode(warm["LogResult"]).decode().splitlines(keepends=True)
    assert re.fullmatch(rf"REPORT RequestId: {request_id}\tDuration: \d+\.\d\d ms\tBilled Duration: \d+ ms\t"
                        r"Memory Size: 128 MB\tMax Memory Used: \d+ MB\t\n", lines[3])


STATE_KEYS = ("State", "StateReason", "StateReasonCode", "LastUpdateStatus", "LastUpdateStatusReason",
              "LastUpdateStatusReasonCode")


def states(configuration: dict) -> dict:
    return {key: configuration[key] for key in STATE_KEYS if key in configuration}


def test_a_function_is_pending_when_created_and_in_progress_when_updated(door):
    """TestLambdaBaseFeatures::test_function_state (Pending, then Active), and test_lambda_api.snapshot.json's
    update_func_conf_response and update-function-response (InProgress, "The function is being created.")."""
    lam = door.client("lambda")
    created = create_function(lam, "echo", "def handler(event, context):\n    return event\n")
    assert states(created) == {"State": "Pending", "StateReason": "The function is being created.",
                               "StateReasonCode": "Creating"}
    lam.get_waiter("function_active_v2").wait(FunctionName="echo")
    active = {"State": "Active", "LastUpdateStatus": "Successful"}
    assert states(lam.get_function(FunctionName="echo")["Configuration"]) == active
    in_progress = {"State": "Active", "LastUpdateStatus": "InProgress",
                   "LastUpdateStatusReason": "The function is being created.", "LastUpdateStatusReasonCode": "Creating"}
    assert states(lam.update_function_configuration(FunctionName="echo", Description="x")) == in_progress
    lam.get_waiter("function_updated_v2").wait(FunctionName="echo")
    assert states(lam.update_function_code(FunctionName="echo", ZipFile=zip_of(
        {"app.py": "def handler(event, context):\n    return 2\n"}))) == in_progress
    lam.get_waiter("function_updated_v2").wait(FunctionName="echo")
    assert states(lam.get_function_configuration(FunctionName="echo")) == active


def test_invoke_async_queues_the_event(door):
    """InvokeAsync (deprecated, still served): 202, the event run as an asynchronous invocation; its 256 KB limit
    (Lambda API Reference, InvokeAsync)."""
    env = setup(door)
    lam = env["lambda"]
    answer = lam.invoke_async(FunctionName="worker", InvokeArgs=json.dumps({"n": 5}).encode())
    assert (answer["Status"], answer["ResponseMetadata"]["HTTPStatusCode"]) == (202, 202)
    assert wait_for_messages(env["sqs"], env["attempts"], 1) == [{"n": 5}]
    big = json.dumps({"v": "x" * (256 * 1024)}).encode()
    assert refused(lam.invoke_async, FunctionName="worker", InvokeArgs=big) == {"Status": 413, "Error": {
        "Code": "RequestEntityTooLargeException",
        "Message": f"{len(big)} byte payload is too large for the Event invocation type (limit 262144 bytes)"}}
    assert refused(lam.invoke_async, FunctionName="nothere", InvokeArgs=b"{}")["Error"] == {
        "Code": "ResourceNotFoundException", "Message": f"Function not found: {ARN}:nothere:$LATEST"}


CONTEXT = """
def handler(event, context):
    return {"event": event, "context": {
        "invoked_function_arn": context.invoked_function_arn, "function_version": context.function_version,
        "function_name": context.function_name, "memory_limit_in_mb": context.memory_limit_in_mb,
        "aws_request_id": context.aws_request_id, "log_group_name": context.log_group_name,
        "log_stream_name": context.log_stream_name, "client_context": context.client_context}}
"""


def test_the_python_context_as_aws_recorded_it(door):
    """TestLambdaDestinationSqs::test_assess_lambda_destination_invocation's responsePayload (lambda_integration.py's
    context fields): memory_limit_in_mb is a string, client_context null."""
    lam = door.client("lambda")
    create_function(lam, "context", CONTEXT)
    response, request_id, payload = invoked(lam, "context", Payload=b'{"foo": "bar"}')
    stream = payload["context"].pop("log_stream_name")
    assert re.fullmatch(r"\d{4}/\d\d/\d\d/\[\$LATEST\][0-9a-f]{32}", stream)
    assert payload == {"event": {"foo": "bar"}, "context": {
        "invoked_function_arn": f"{ARN}:context", "function_version": "$LATEST", "function_name": "context",
        "memory_limit_in_mb": "128", "aws_request_id": request_id, "log_group_name": "/aws/lambda/context",
        "client_context": None}}


def test_a_dead_letter_config_without_a_target_changes_nothing(door):
    """TestLambdaDLQ::test_dead_letter_queue: UpdateFunctionConfiguration(DeadLetterConfig={}) answered with the
    target still set; TargetArn "" removes it (Lambda API Reference, DeadLetterConfig)."""
    lam, sqs = door.client("lambda"), door.client("sqs")
    url = sqs.create_queue(QueueName="dlq")["QueueUrl"]
    target = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    create_function(lam, "echo", "def handler(event, context):\n    return event\n", DeadLetterConfig={"TargetArn": target})
    kept = lam.update_function_configuration(FunctionName="echo", DeadLetterConfig={})
    assert kept["DeadLetterConfig"] == {"TargetArn": target}
    lam.get_waiter("function_updated_v2").wait(FunctionName="echo")
    removed = lam.update_function_configuration(FunctionName="echo", DeadLetterConfig={"TargetArn": ""})
    assert "DeadLetterConfig" not in removed


NODE_CONTEXT = "exports.handler = function(event, context, callback) { callback(null, {context}); };"
PYTHON_CLIENT = """
def handler(event, context):
    sent = context.client_context
    return {"custom": sent.custom, "env": sent.env, "app_title": sent.client.app_title,
            "installation_id": sent.client.installation_id}
"""


def test_a_client_context_reaches_the_handler(door):
    """TestLambdaFeatures::test_lambda_with_context (Node.js: the whole context as JSON.stringify shows it, its
    clientContext as sent); Python's client_context as awslambdaric makes it (custom, env, client objects); a header
    that is not base64 of a JSON object refused in AWS's words (as aws-sdk-lambda users reported them)."""
    lam = door.client("lambda")
    created_function(lam, FunctionName="node-context", Runtime="nodejs20.x", Role=ROLE, Handler="index.handler",
                        Code={"ZipFile": zip_of({"index.js": NODE_CONTEXT})})
    create_function(lam, "py-context", PYTHON_CLIENT)
    sent = {"custom": {"foo": "bar"}, "client": {"snap": ["crackle", "pop"], "app_title": "shop"},
            "env": {"fizz": "buzz"}}
    header = base64.b64encode(json.dumps(sent).encode()).decode()
    response = lam.invoke(FunctionName="node-context", Payload=b"{}", ClientContext=header)
    request_id = response["ResponseMetadata"]["RequestId"]
    context = json.loads(response["Payload"].read())["context"]
    stream = context.pop("logStreamName")
    assert stream.startswith(tuple("0123456789")) and "[$LATEST]" in stream
    assert list(context.items()) == [
        ("callbackWaitsForEmptyEventLoop", True), ("functionVersion", "$LATEST"), ("functionName", "node-context"),
        ("memoryLimitInMB", "128"), ("logGroupName", "/aws/lambda/node-context"), ("clientContext", sent),
        ("invokedFunctionArn", f"{ARN}:node-context"), ("awsRequestId", request_id)]
    _, _, payload = invoked(lam, "py-context", Payload=b"{}", ClientContext=header)
    assert payload == {"custom": {"foo": "bar"}, "env": {"fizz": "buzz"}, "app_title": "shop", "installation_id": None}
    for bad in ("not base64!", base64.b64encode(b"[1]").decode(), base64.b64encode(b"{nope").decode()):
        assert refused(lam.invoke, FunctionName="py-context", ClientContext=bad) == {"Status": 400, "Error": {
            "Code": "InvalidRequestContentException",
            "Message": "Client context must be a valid Base64-encoded JSON object."}}


def test_a_registered_callable_gets_the_client_context(emu):
    import boto3

    emu.register_function("ctx", lambda event, context: {"custom": context.client_context.custom,
                                                          "client": context.client_context.client})
    header = base64.b64encode(json.dumps({"custom": {"a": 1}}).encode()).decode()
    _, _, payload = invoked(boto3.client("lambda", region_name="us-east-1"), "ctx", ClientContext=header)
    assert payload == {"custom": {"a": 1}, "client": None}


def test_a_result_json_cannot_carry_is_runtime_marshal_error(door):
    """The Python runtime's answer for a result its encoder refuses (awslambdaric lambda_runtime_marshaller.py:
    "Unable to marshal response: <error>", Runtime.MarshalError, an empty stack trace); a Decimal it writes as a
    number."""
    lam = door.client("lambda")
    create_function(lam, "sets", "def handler(event, context):\n    return {1, 2}\n")
    create_function(lam, "decimals", "from decimal import Decimal\ndef handler(event, context):\n"
                                     "    return {'n': Decimal('7'), 'price': Decimal('1.5')}\n")
    assert invoked(lam, "decimals")[2] == {"n": 7, "price": 1.5}  # a DynamoDB item's numbers come back as numbers
    response, request_id, payload = invoked(lam, "sets")
    assert fields(response) == {"ExecutedVersion": "$LATEST", "FunctionError": "Unhandled", "StatusCode": 200}
    assert payload == {"errorMessage": "Unable to marshal response: Object of type set is not JSON serializable",
                       "errorType": "Runtime.MarshalError", "requestId": request_id, "stackTrace": []}


def test_a_registered_callables_decimal_is_a_number(emu):
    import boto3
    from decimal import Decimal

    emu.register_function("decimals", lambda event, context: {"n": Decimal("7"), "price": Decimal("1.5")})
    assert invoked(boto3.client("lambda", region_name="us-east-1"), "decimals")[2] == {"n": 7, "price": 1.5}

"""provided.al2023 / provided.al2 functions run by their `bootstrap` against Lambda's Runtime API (both doors, a shell
bootstrap using curl and a compiled C one: tests/emulator/functions/custom_runtimes.py).

What AWS answers, and where it is written: the Runtime API's paths and headers (AWS Lambda Developer Guide, "Using the
Lambda runtime API for custom runtimes"); an error the runtime posts is Invoke's payload with FunctionError
"Unhandled"; a runtime that exits is Runtime.ExitError "RequestId: <id> Error: Runtime exited with error: exit
status 3" (platform_errors.py's sources); a function without a bootstrap is Runtime.InvalidEntrypoint "RequestId:
<id> Error: Couldn't find valid bootstrap(s): [/var/task/bootstrap /opt/bootstrap]" (as AWS answered users:
aws/aws-lambda-dotnet#1671, bakdata/aws-lambda-r-runtime#62); the log's INIT_START names provided:al2023.vN
(cdklabs/cdk-ecr-deployment#651: "INIT_START Runtime Version: provided:al2023.v16")."""

from __future__ import annotations

import base64
import json
import os
import re
import select
import sys
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from tests.emulator.functions.custom_runtimes import FAILURE, NEEDS_CURL, ROLE, SHELL, create_custom, zip_of
from tests.lambda_functions import created_function

pytestmark = NEEDS_CURL
BOOTSTRAPS = pytest.mark.parametrize("kind", ["shell", "c"])
ARN = "arn:aws:lambda:us-east-1:123456789012:function:"


def invoke(lam, name: str, payload: dict, **options) -> tuple[dict, object]:
    answer = lam.invoke(FunctionName=name, Payload=json.dumps(payload).encode(), **options)
    return answer, json.loads(answer["Payload"].read())


@BOOTSTRAPS
def test_each_invocation_is_served_to_the_bootstrap_which_is_reused(door, kind, tmp_path):
    lam = door.client("lambda")
    create_custom(lam, "custom", kind, tmp_path, Timeout=30)
    before = int(time.time() * 1000)
    answer, body = invoke(lam, "custom", {"n": 1, "text": "héllo"})
    request_id = answer["ResponseMetadata"]["HTTPHeaders"]["x-amzn-requestid"]
    assert (answer["StatusCode"], answer.get("FunctionError"), answer["ExecutedVersion"]) == (200, None, "$LATEST")
    deadline, trace, pid = body.pop("deadlineMs"), body.pop("traceId"), body.pop("pid")
    body.pop("environment", None), body.pop("clientContext", None)  # the shell's extras: the next test's
    assert body == {"event": {"n": 1, "text": "héllo"}, "requestId": request_id, "invokedArn": ARN + "custom",
                    "handler": "function.handler"}
    assert before + 29_000 <= deadline <= int(time.time() * 1000) + 30_000  # the function's 30 s from the invocation
    assert re.fullmatch(r"Root=1-[0-9a-f]{8}-[0-9a-f]{24};Parent=[0-9a-f]{16};Sampled=0", trace), trace
    _, again = invoke(lam, "custom", {"n": 2})
    assert again["event"] == {"n": 2} and again["pid"] == pid  # the same runtime process: no new Init phase


def test_the_runtime_gets_lambdas_variables_the_client_context_and_a_qualified_arn(door, tmp_path):
    lam = door.client("lambda")
    create_custom(lam, "custom", "shell", tmp_path, variables={"OWN": "mine"}, MemorySize=256, Publish=True)
    context = {"custom": {"tenant": "a"}, "env": {"locale": "fr"}}
    answer, body = invoke(lam, "custom:1", {}, ClientContext=base64.b64encode(json.dumps(context).encode()).decode())
    assert answer["ExecutedVersion"] == "1"
    root = body["environment"].pop("root")
    assert root.endswith("/code") and body["environment"].pop("cwd") == root
    assert body["environment"] == {"name": "custom", "memory": "256", "version": "1", "region": "us-east-1",
                                   "group": "/aws/lambda/custom", "own": "mine", "initialization": "on-demand",
                                   "execution": "unset"}  # "not defined for OS-only runtimes (the provided family)"
    assert (body["invokedArn"], body["clientContext"]) == (ARN + "custom:1", context)


@BOOTSTRAPS
def test_a_posted_error_is_unhandled_and_an_exit_is_runtime_exit_error(door, kind, tmp_path):
    lam = door.client("lambda")
    create_custom(lam, "custom", kind, tmp_path)
    _, first = invoke(lam, "custom", {"n": 1})
    failed, error = invoke(lam, "custom", {"fail": True})
    assert (failed["FunctionError"], error) == ("Unhandled", FAILURE)  # the document the runtime posted, as it was
    _, after = invoke(lam, "custom", {"n": 2})
    assert after["pid"] == first["pid"]  # a posted error leaves the runtime running
    exited, exit_error = invoke(lam, "custom", {"exit": True})
    request_id = exited["ResponseMetadata"]["HTTPHeaders"]["x-amzn-requestid"]
    assert (exited["FunctionError"], exit_error) == ("Unhandled", {
        "errorType": "Runtime.ExitError", "errorMessage": f"RequestId: {request_id} Error: Runtime exited with error: "
                                                          "exit status 3"})
    _, restarted = invoke(lam, "custom", {"n": 3})
    assert restarted["event"] == {"n": 3} and restarted["pid"] != first["pid"]  # a new execution environment


def test_the_log_group_has_the_init_phase_the_runtimes_output_and_the_report(door, tmp_path):
    lam, logs = door.client("lambda"), door.client("logs")
    create_custom(lam, "custom", "shell", tmp_path)
    answer, _ = invoke(lam, "custom", {"n": 1})
    request_id = answer["ResponseMetadata"]["HTTPHeaders"]["x-amzn-requestid"]
    [stream] = logs.describe_log_streams(logGroupName="/aws/lambda/custom")["logStreams"]
    messages = [e["message"] for e in logs.get_log_events(logGroupName="/aws/lambda/custom",
                                                          logStreamName=stream["logStreamName"])["events"]]
    assert re.fullmatch(r"INIT_START Runtime Version: provided:al2023\.v1\tRuntime Version ARN: "
                        r"arn:aws:lambda:us-east-1::runtime:[0-9a-f]{64}\n", messages[0]), messages[0]
    assert messages[1:5] == ["runtime starting function.handler\n", f"START RequestId: {request_id} Version: $LATEST\n",
                             'event {"n": 1}\n', f"END RequestId: {request_id}\n"]
    assert re.fullmatch(rf"REPORT RequestId: {request_id}\tDuration: [\d.]+ ms\tBilled Duration: \d+ ms\t"
                        r"Memory Size: 128 MB\tMax Memory Used: \d+ MB\tInit Duration: [\d.]+ ms\t\n", messages[5])
    assert len(messages) == 6


INIT_FAILS = r'''#!/bin/sh
echo "cannot start"
curl -sS -o /dev/null -H 'Lambda-Runtime-Function-Error-Type: Runtime.NoConfig' \
  "http://$AWS_LAMBDA_RUNTIME_API/2018-06-01/runtime/init/error" \
  -d '{"errorMessage": "CONFIG is not set", "errorType": "Runtime.NoConfig"}'
exit 1
'''


def test_an_init_error_answers_the_invocation_and_the_runtime_starts_again_for_the_next(door):
    lam = door.client("lambda")
    created_function(lam, FunctionName="broken", Runtime="provided.al2", Handler="x", Role=ROLE, Timeout=30,
                        Code={"ZipFile": zip_of({"bootstrap": INIT_FAILS})})
    for _ in range(2):  # each invocation starts the runtime again (Lambda's init in the invoke phase)
        answer = lam.invoke(FunctionName="broken", Payload=b"{}", LogType="Tail")
        assert answer["FunctionError"] == "Unhandled"
        assert json.loads(answer["Payload"].read()) == {"errorMessage": "CONFIG is not set",
                                                        "errorType": "Runtime.NoConfig"}
        assert "cannot start\n" in base64.b64decode(answer["LogResult"]).decode()


def test_without_a_bootstrap_the_entrypoint_is_invalid_and_a_layers_bootstrap_is_used(door):
    lam = door.client("lambda")
    created_function(lam, FunctionName="empty", Runtime="provided.al2023", Handler="x", Role=ROLE, Timeout=30,
                        Code={"ZipFile": zip_of({"README": "no bootstrap here"})})
    answer, error = invoke(lam, "empty", {})
    request_id = answer["ResponseMetadata"]["HTTPHeaders"]["x-amzn-requestid"]
    assert (answer["FunctionError"], error) == ("Unhandled", {
        "errorType": "Runtime.InvalidEntrypoint",
        "errorMessage": f"RequestId: {request_id} Error: Couldn't find valid bootstrap(s): [/var/task/bootstrap /opt/bootstrap]"})
    layer = lam.publish_layer_version(LayerName="runtime", Content={"ZipFile": zip_of({"bootstrap": SHELL})},
                                      CompatibleRuntimes=["provided.al2023"])["LayerVersionArn"]
    lam.update_function_configuration(FunctionName="empty", Layers=[layer])
    lam.get_waiter("function_updated_v2").wait(FunctionName="empty")
    _, body = invoke(lam, "empty", {"from": "layer"})
    assert (body["event"], body["handler"]) == ({"from": "layer"}, "x")


def test_a_bootstrap_that_is_not_executable_is_an_invalid_entrypoint(door):
    lam = door.client("lambda")
    created_function(lam, FunctionName="plain", Runtime="provided.al2023", Handler="x", Role=ROLE,
                        Code={"ZipFile": zip_of({"bootstrap": SHELL}, executable=())})
    answer, error = invoke(lam, "plain", {})
    request_id = answer["ResponseMetadata"]["HTTPHeaders"]["x-amzn-requestid"]
    assert error == {"errorType": "Runtime.InvalidEntrypoint",
                     "errorMessage": f"RequestId: {request_id} Error: fork/exec /var/task/bootstrap: permission denied"}


SLOW = r'''#!/bin/sh
API="http://$AWS_LAMBDA_RUNTIME_API/2018-06-01/runtime"
while true; do
  ID="$(curl -sS -D - -o /dev/null "$API/invocation/next" | grep -i '^Lambda-Runtime-Aws-Request-Id:' | cut -d' ' -f2 | tr -d '\r')"
  [ -e "$LAMBDA_TASK_ROOT/../slow" ] || { touch "$LAMBDA_TASK_ROOT/../slow"; exec sleep 60; }
  curl -sS -o /dev/null "$API/invocation/$ID/response" -d '"quick"'
done
'''


def test_a_runtime_that_overruns_its_timeout_is_stopped_and_the_next_invocation_starts_another(door):
    lam = door.client("lambda")
    created_function(lam, FunctionName="slow", Runtime="provided.al2023", Handler="x", Role=ROLE, Timeout=3,
                        Code={"ZipFile": zip_of({"bootstrap": SLOW})})
    answer, error = invoke(lam, "slow", {})
    request_id = answer["ResponseMetadata"]["HTTPHeaders"]["x-amzn-requestid"]
    assert error == {"errorType": "Sandbox.Timedout",
                     "errorMessage": f"RequestId: {request_id} Error: Task timed out after 3.00 seconds"}
    assert invoke(lam, "slow", {})[1] == "quick"


SAYS = r'''#!/bin/sh
API="http://$AWS_LAMBDA_RUNTIME_API/2018-06-01/runtime"
while true; do
  EVENT="$(curl -sS -D "$LAMBDA_TASK_ROOT/../headers" "$API/invocation/next")"
  ID="$(grep -i '^Lambda-Runtime-Aws-Request-Id:' "$LAMBDA_TASK_ROOT/../headers" | cut -d' ' -f2 | tr -d '\r')"
  case "$EVENT" in
    '"big"') { printf '"'; head -c 6300000 /dev/zero | tr '\0' 'a'; printf '"'; } > "$LAMBDA_TASK_ROOT/../big"
             curl -sS -w ' %{http_code}' "$API/invocation/$ID/response" --data-binary "@$LAMBDA_TASK_ROOT/../big" \
               > "$LAMBDA_TASK_ROOT/../answered" ;;
    '"answered"') curl -sS -o /dev/null "$API/invocation/$ID/response" --data-binary "@$LAMBDA_TASK_ROOT/../answered" ;;
    '"nothing"') curl -sS -o /dev/null -X POST "$API/invocation/$ID/response" ;;
    *) curl -sS -o /dev/null "$API/invocation/$ID/response" --data-binary 'plain text, not JSON' ;;
  esac
done
'''


def test_a_response_is_returned_as_posted_and_one_over_6_mb_is_refused(door):
    """Invoke returns what the runtime posted, JSON or not, and nothing for an empty response (the Runtime API's
    invocation response: "Request body – The function's response payload"; Invoke's Payload is a blob, not a
    JSON member); a response past 6 MB is Lambda's Function.ResponseSizeTooLarge (platform_errors.py's AWS-recorded
    document), and the runtime's post is answered 413 in the words of Lambda's runtime API (the runtime interface
    emulator's lambda/rapi/handler/invocationresponse_test.go, TestResponseTooLarge)."""
    lam = door.client("lambda")
    created_function(lam, FunctionName="says", Runtime="provided.al2023", Handler="x", Role=ROLE, Timeout=30,
                        Code={"ZipFile": zip_of({"bootstrap": SAYS})})
    text = lam.invoke(FunctionName="says", Payload=b'"text"')
    assert (text.get("FunctionError"), text["Payload"].read()) == (None, b"plain text, not JSON")
    nothing = lam.invoke(FunctionName="says", Payload=b'"nothing"')
    assert (nothing.get("FunctionError"), nothing["Payload"].read()) == (None, b"")
    big = lam.invoke(FunctionName="says", Payload=b'"big"')
    assert (big["FunctionError"], json.loads(big["Payload"].read())) == ("Unhandled", {
        "errorMessage": "Response payload size exceeded maximum allowed payload size (6291556 bytes).",
        "errorType": "Function.ResponseSizeTooLarge"})
    answered = lam.invoke(FunctionName="says", Payload=b'"answered"')["Payload"].read()  # what the runtime was told
    assert answered == (b'{"errorMessage": "Exceeded maximum allowed payload size (6291556 bytes).", '
                        b'"errorType": "RequestEntityTooLarge"} 413')


TOGETHER = r'''#!/bin/sh
API="http://$AWS_LAMBDA_RUNTIME_API/2018-06-01/runtime"
HEADERS="$(mktemp)"
while true; do
  EVENT="$(curl -sS -D "$HEADERS" "$API/invocation/next")"
  ID="$(grep -i '^Lambda-Runtime-Aws-Request-Id:' "$HEADERS" | cut -d' ' -f2 | tr -d '\r')"
  touch "$ARRIVED/$$"
  # answers only once another invocation has arrived in another runtime: run one at a time, both would time out
  while [ "$(ls "$ARRIVED" | wc -l)" -lt 2 ]; do sleep 0.05; done
  curl -sS -o /dev/null "$API/invocation/$ID/response" -d "{\"pid\": $$, \"code\": \"$CODE\"}"
done
'''


def test_invocations_at_once_run_in_runtimes_of_their_own_and_new_code_in_a_new_one(door, tmp_path):
    lam = door.client("lambda")
    (tmp_path / "arrived").mkdir()
    created_function(lam, FunctionName="together", Runtime="provided.al2023", Handler="x", Role=ROLE, Timeout=60,
                        Environment={"Variables": {"ARRIVED": str(tmp_path / "arrived"), "CODE": "one"}},
                        Code={"ZipFile": zip_of({"bootstrap": TOGETHER})})
    with ThreadPoolExecutor(2) as pool:
        answers = list(pool.map(lambda _: invoke(lam, "together", {})[1], range(2)))
    assert [answer["code"] for answer in answers] == ["one", "one"]
    assert answers[0]["pid"] != answers[1]["pid"]  # two execution environments, each with its runtime
    lam.update_function_configuration(FunctionName="together", Environment={"Variables": {
        "ARRIVED": str(tmp_path / "arrived"), "CODE": "two"}})
    lam.get_waiter("function_updated_v2").wait(FunctionName="together")
    _, after = invoke(lam, "together", {})
    assert after["code"] == "two" and after["pid"] not in {answer["pid"] for answer in answers}


KEEP_ALIVE = '''#!{python}
import http.client, json, os
connection = http.client.HTTPConnection(os.environ["AWS_LAMBDA_RUNTIME_API"])  # one connection for every call
while True:
    connection.request("GET", "/2018-06-01/runtime/invocation/next")
    answer = connection.getresponse()
    event, request_id = json.loads(answer.read()), answer.getheader("Lambda-Runtime-Aws-Request-Id")
    kind = "error" if "fail" in event else "response"
    body = json.dumps({{"errorMessage": "no", "errorType": "Kept.Failure"}} if kind == "error" else {{"n": event["n"] + 1}})
    connection.request("POST", f"/2018-06-01/runtime/invocation/{{request_id}}/{{kind}}", body)
    posted = connection.getresponse()
    print(posted.status, posted.read().decode(), flush=True)
'''


def test_a_runtime_keeping_its_connection_open_is_served_on_it(door):
    """aws-lambda-go's and the Rust runtime's clients keep one HTTP/1.1 connection for every call; a response or
    error posted answers 202 {"status": "OK"} (the runtime API's 2018-06-01 OpenAPI specification)."""
    lam = door.client("lambda")
    created_function(lam, FunctionName="kept", Runtime="provided.al2", Handler="x", Role=ROLE, Timeout=30,
                        Code={"ZipFile": zip_of({"bootstrap": KEEP_ALIVE.format(python=sys.executable)})})
    answers = [lam.invoke(FunctionName="kept", Payload=json.dumps(event).encode(), LogType="Tail")
               for event in ({"n": 1}, {"n": 2}, {"fail": 1})]
    assert [json.loads(answer["Payload"].read()) for answer in answers] == [
        {"n": 2}, {"n": 3}, {"errorMessage": "no", "errorType": "Kept.Failure"}]
    assert ['202 {"status": "OK"}'] == [line for line in base64.b64decode(answers[1]["LogResult"]).decode().splitlines()
                                       if line.startswith("202")]


@pytest.mark.parametrize("ending, reason", [
    ("exit 2", "Runtime exited with error: exit status 2"),
    ("kill -SEGV $$", "Runtime exited with error: signal: segmentation fault"),
    ("exit 0", "Runtime exited without providing a reason"),
])
def test_a_runtime_that_ends_while_it_starts_is_runtime_exit_error(door, ending, reason):
    """Lambda's words for a runtime process that ended (platform_errors.py: Go's os.ProcessState words, as users'
    logs show them), its output in the invocation's log."""
    lam = door.client("lambda")
    created_function(lam, FunctionName="ends", Runtime="provided.al2023", Handler="x", Role=ROLE,
                        Code={"ZipFile": zip_of({"bootstrap": f"#!/bin/sh\necho 'starting, then not'\n{ending}\n"})})
    answer = lam.invoke(FunctionName="ends", Payload=b"{}", LogType="Tail")
    request_id = answer["ResponseMetadata"]["HTTPHeaders"]["x-amzn-requestid"]
    assert (answer["FunctionError"], json.loads(answer["Payload"].read())) == ("Unhandled", {
        "errorType": "Runtime.ExitError", "errorMessage": f"RequestId: {request_id} Error: {reason}"})
    assert "starting, then not\n" in base64.b64decode(answer["LogResult"]).decode()


LINGERS = r'''#!/bin/sh
sleep 300 &
echo $! > "$CHILD"
curl -sS -o /dev/null "http://$AWS_LAMBDA_RUNTIME_API/2018-06-01/runtime/invocation/next"
wait
'''


def test_a_timed_out_runtime_ends_with_the_programs_it_started(door, tmp_path):
    """Past its Timeout the execution environment ends whole, as Lambda's does: the bootstrap and its children."""
    lam = door.client("lambda")
    created_function(lam, FunctionName="lingers", Runtime="provided.al2023", Handler="x", Role=ROLE, Timeout=1,
                        Environment={"Variables": {"CHILD": str(tmp_path / "child")}},
                        Code={"ZipFile": zip_of({"bootstrap": LINGERS})})
    _, error = invoke(lam, "lingers", {})
    assert error["errorType"] == "Sandbox.Timedout"
    child = int((tmp_path / "child").read_text())
    # SIGKILL was sent before Invoke answered; the kernel ends the child soon after
    assert _ended_within(child, 60)


def _ended_within(pid: int, seconds: float) -> bool:
    """Whether process `pid` has ended (a zombie, ended but not yet reaped, has) within `seconds`: its pidfd becomes
    readable when it ends."""
    try:
        descriptor = os.pidfd_open(pid)
    except ProcessLookupError:
        return True  # ended and reaped already
    try:
        return bool(select.select([descriptor], [], [], seconds)[0])
    finally:
        os.close(descriptor)

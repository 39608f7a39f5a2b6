"""Invocations while an update is in progress run the function as it was before the update, as the Lambda Developer
Guide says ("Lambda function states", Function states while updating: "InProgress – An update is happening on an
existing function. While a function update is in progress, invocations go to the function's previous code and
configuration."; github.com/awsdocs/aws-lambda-developer-guide doc_source/functions-states.md), in both doors: Invoke
of each InvocationType, an asynchronous event and a stream mapping's batch; once the update completes (its state read,
as boto3's function_updated_v2 waiter reads it, or its Settings.function_update_seconds past on the emulator's clock)
the new code and configuration run, and the previous code folder is removed. The first read's InProgress and the next
Successful are AWS's recorded answers (test_function_states.py)."""

from __future__ import annotations

import base64
import json
import os
import re
from typing import Iterator

import boto3
import pytest

from eddy import emulate
from tests.conftest import QUIET, Door, InProcessDoor, ServerDoor, eddy_server, http_json
from tests.emulator.functions.test_function_configurations import IN_PROGRESS
from tests.emulator.functions.test_functions import ROLE, zip_of
from tests.lambda_functions import created_function

#: the code before the update: it answers, and prints, which code it is and what its configuration gives it
BEFORE = {"index.py": "import os\n"
                      "def handler(event, context):\n"
                      "    print('before', os.environ.get('STAGE'), context.memory_limit_in_mb)\n"
                      "    return {'code': 'before', 'stage': os.environ.get('STAGE'),\n"
                      "            'memory': context.memory_limit_in_mb, 'got': event}\n"}  # fmt: skip
#: the code the update brings: it fails
AFTER = {"index.py": "def handler(event, context):\n"
                     "    print('after')\n"
                     "    raise ValueError('the new code fails')\n"}  # fmt: skip


def function(lam, name: str) -> None:
    created_function(lam, FunctionName=name, Runtime="python3.12", Role=ROLE, Handler="index.handler",
                     Code={"ZipFile": zip_of(BEFORE)}, Environment={"Variables": {"STAGE": "one"}})


def answer(response: dict) -> dict:
    """Invoke's whole answer, its payload parsed and its log tail's lines with the request id and durations put in
    a fixed form."""
    answered = {key: value for key, value in response.items() if key not in ("ResponseMetadata", "Payload")}
    answered["Payload"] = json.loads(response["Payload"].read())
    if "LogResult" in answered:
        log = base64.b64decode(answered["LogResult"]).decode()
        log = log.replace(response["ResponseMetadata"]["RequestId"], "<request-id>")
        answered["LogResult"] = [re.sub(r"\t(Duration|Billed Duration|Max Memory Used|Init Duration): [^\t]*", r"\t\1",
                                        line) for line in log.splitlines()]
    return answered


def before(event: dict, stage: str = "one", memory: str = "128") -> dict:
    """Invoke's answer of the code before the update, in its configuration before it."""
    return {"StatusCode": 200, "ExecutedVersion": "$LATEST",
            "Payload": {"code": "before", "stage": stage, "memory": memory, "got": event}}


#: Invoke's answer of the code the update brings
AFTER_ANSWER = {"StatusCode": 200, "ExecutedVersion": "$LATEST", "FunctionError": "Unhandled",
                "Payload": {"errorMessage": "the new code fails", "errorType": "ValueError", "requestId": "<request-id>",
                            "stackTrace": ['  File "/var/task/index.py", line 3, in handler\n'
                                           "    raise ValueError('the new code fails')\n"]}}


def after(response: dict) -> dict:
    answered = answer(response)
    answered["Payload"]["requestId"] = answered["Payload"]["requestId"] and "<request-id>"
    return answered


def printed(logs, name: str) -> list[str]:
    """What the function's invocations printed, in its log group (CloudWatch Logs)."""
    events = logs.filter_log_events(logGroupName=f"/aws/lambda/{name}")["events"]
    return [e["message"] for e in events if e["message"].startswith(("before", "after"))]


#: an update's time on the clock in the tests whose invocations run in the background while it is in progress (an
#: asynchronous event, a mapping's batch): long enough for a busy machine, so only a read or the test completes it
LONG_UPDATES = {"function_update_seconds": 600}


@pytest.fixture(scope="module")
def long_updates_server() -> Iterator[str]:
    """One `eddy serve` with LONG_UPDATES for the module's tests that use it (a start is about a second of CPU)."""
    with eddy_server("--housekeeping-interval", "0", "--in-memory", "--function-update-seconds",
                     str(LONG_UPDATES["function_update_seconds"])) as (url, _):
        yield url


@pytest.fixture(params=["inprocess", "server"])
def long_updates(request: pytest.FixtureRequest) -> Iterator[Door]:
    """A door whose updates take LONG_UPDATES: in-process a new emulate(); on the server the module's, reset as the
    `door` fixture resets its own."""
    if request.param == "inprocess":
        with emulate(**QUIET, **LONG_UPDATES) as emu:
            yield InProcessDoor(emu)
        return
    url = request.getfixturevalue("long_updates_server")
    http_json(url + "/moto-api/reset", {})
    yield ServerDoor(url)


def test_invocations_during_a_code_update_run_the_previous_code_until_it_is_read(long_updates):
    """UpdateFunctionCode, then before any read: Invoke (LogType Tail) answers the previous code's whole answer and
    log, an asynchronous event (InvocationType Event) and InvokeAsync run it too; the first read answers InProgress
    and completes the update, and Invoke then runs the new code."""
    code_update(long_updates)


def code_update(door) -> None:
    lam, logs = door.client("lambda"), door.client("logs")
    function(lam, "changing")
    assert answer(lam.invoke(FunctionName="changing", Payload=b'{"n": 1}')) == before({"n": 1})  # a warm worker
    assert lam.update_function_code(FunctionName="changing", ZipFile=zip_of(AFTER))["LastUpdateStatus"] == "InProgress"
    tail = answer(lam.invoke(FunctionName="changing", Payload=b'{"n": 2}', LogType="Tail"))
    assert tail == before({"n": 2}) | {"LogResult": [
        "START RequestId: <request-id> Version: $LATEST", "before one 128", "END RequestId: <request-id>",
        "REPORT RequestId: <request-id>\tDuration\tBilled Duration\tMemory Size: 128 MB\tMax Memory Used\t"]}
    assert lam.invoke(FunctionName="changing", InvocationType="Event", Payload=b'{"n": 3}')["StatusCode"] == 202
    assert lam.invoke_async(FunctionName="changing", InvokeArgs=b'{"n": 4}')["Status"] == 202
    assert door.wait_idle(60)["Idle"]
    assert printed(logs, "changing") == ["before one 128\n"] * 4
    configuration = lam.get_function_configuration(FunctionName="changing")
    assert {key: configuration.get(key) for key in IN_PROGRESS} == IN_PROGRESS
    assert after(lam.invoke(FunctionName="changing", Payload=b'{"n": 5}')) == AFTER_ANSWER
    assert lam.get_function_configuration(FunctionName="changing")["LastUpdateStatus"] == "Successful"


def test_invocations_during_a_configuration_update_run_the_previous_configuration(door):
    """UpdateFunctionConfiguration (an environment variable and the memory): until boto3's function_updated_v2 waiter
    saw it complete, invocations see the previous variable and memory; then the new ones."""
    lam = door.client("lambda")
    function(lam, "configured")
    update = lam.update_function_configuration(FunctionName="configured", MemorySize=256,
                                               Environment={"Variables": {"STAGE": "two"}})
    assert (update["Environment"], update["MemorySize"]) == ({"Variables": {"STAGE": "two"}}, 256)
    assert answer(lam.invoke(FunctionName="configured", Payload=b"{}")) == before({})
    lam.get_waiter("function_updated_v2").wait(FunctionName="configured")
    assert answer(lam.invoke(FunctionName="configured", Payload=b"{}")) == before({}, stage="two", memory="256")


def test_the_emulators_clock_completes_an_update_nobody_reads(long_updates):
    """An update nobody reads completes once Settings.function_update_seconds (5 by default; 600 here) passed on the
    emulator's clock, as Lambda's completes within seconds: Invoke then runs the new code, the first read answers
    Successful, and a second update is taken without a read."""
    clock_completes(long_updates)


def clock_completes(door) -> None:
    lam = door.client("lambda")
    function(lam, "unread")
    lam.update_function_code(FunctionName="unread", ZipFile=zip_of(AFTER))
    assert answer(lam.invoke(FunctionName="unread", Payload=b"{}")) == before({})
    door.advance(LONG_UPDATES["function_update_seconds"] / 2)  # half its time: still in progress
    assert answer(lam.invoke(FunctionName="unread", Payload=b"{}")) == before({})
    door.advance(LONG_UPDATES["function_update_seconds"] / 2)
    assert after(lam.invoke(FunctionName="unread", Payload=b"{}")) == AFTER_ANSWER
    assert lam.get_function_configuration(FunctionName="unread")["LastUpdateStatus"] == "Successful"
    assert lam.update_function_code(FunctionName="unread", ZipFile=zip_of(BEFORE))["LastUpdateStatus"] == "InProgress"


def test_the_version_an_update_published_read_active_completes_the_update(door):
    """UpdateFunctionCode with Publish: $LATEST runs the previous code while the update is in progress, also after
    the new version's first read (Pending, as test_publish_with_update recorded $LATEST InProgress after it); once the
    version is read Active (boto3's function_updated_v2 waiter on the version alone), $LATEST runs the new code, as AWS
    recorded (test_lambda.snapshot.json, TestLambdaVersions::test_lambda_versions_with_code_changes,
    "invocation_result_latest_end")."""
    lam = door.client("lambda")
    function(lam, "publishing")
    assert lam.update_function_code(FunctionName="publishing", ZipFile=zip_of(AFTER), Publish=True)["Version"] == "1"
    assert answer(lam.invoke(FunctionName="publishing", Payload=b"{}")) == before({})
    assert lam.get_function_configuration(FunctionName="publishing", Qualifier="1")["State"] == "Pending"
    assert answer(lam.invoke(FunctionName="publishing", Payload=b"{}")) == before({})
    lam.get_waiter("function_updated_v2").wait(FunctionName="publishing", Qualifier="1")
    assert after(lam.invoke(FunctionName="publishing", Payload=b"{}")) == AFTER_ANSWER
    assert after(lam.invoke(FunctionName="publishing", Qualifier="1", Payload=b"{}")) == AFTER_ANSWER | {
        "ExecutedVersion": "1"}
    assert lam.get_function_configuration(FunctionName="publishing")["LastUpdateStatus"] == "Successful"


def test_a_stream_mappings_batch_during_an_update_runs_the_previous_code(long_updates):
    """A DynamoDB stream mapping's batch delivered while an update is in progress runs the previous code (Lambda's
    own services invoke as Invoke does); one delivered after the update completed runs the new code, which fails
    (the mapping tries it once: MaximumRetryAttempts 0)."""
    mapping_batches(long_updates)


def mapping_batches(door) -> None:
    lam, ddb, logs = door.client("lambda"), door.client("dynamodb"), door.client("logs")
    function(lam, "mapped")
    stream = ddb.create_table(TableName="orders", KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
                              AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}],
                              BillingMode="PAY_PER_REQUEST",
                              StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_IMAGE"}
                              )["TableDescription"]["LatestStreamArn"]
    lam.create_event_source_mapping(EventSourceArn=stream, FunctionName="mapped", StartingPosition="TRIM_HORIZON",
                                    MaximumRetryAttempts=0)
    lam.update_function_code(FunctionName="mapped", ZipFile=zip_of(AFTER))
    ddb.put_item(TableName="orders", Item={"id": {"S": "1"}})
    door.assert_delivered(60)
    assert printed(logs, "mapped") == ["before one 128\n"]
    lam.get_waiter("function_updated_v2").wait(FunctionName="mapped")
    ddb.put_item(TableName="orders", Item={"id": {"S": "2"}})
    assert door.wait_idle(60)["Idle"]
    assert printed(logs, "mapped") == ["before one 128\n", "after\n"]


def stage_and_time(event, context):
    """A registered callable: the variable it sees and whether it was given more than 3 seconds."""
    return [os.environ.get("STAGE"), context.get_remaining_time_in_millis() > 3000]


def test_a_registered_callables_configuration_update_runs_its_previous_configuration():
    """A registered in-process callable's code cannot be updated (it is registered again), but its configuration can:
    until the update completes it runs with its previous environment and timeout."""
    with emulate(**QUIET) as emu:
        emu.register_function("registered", stage_and_time, environment={"STAGE": "one"})
        lam = boto3.client("lambda", region_name="us-east-1")
        lam.update_function_configuration(FunctionName="registered", Timeout=10,
                                          Environment={"Variables": {"STAGE": "two"}})
        assert json.loads(lam.invoke(FunctionName="registered")["Payload"].read()) == ["one", False]
        lam.get_waiter("function_updated_v2").wait(FunctionName="registered")
        assert json.loads(lam.invoke(FunctionName="registered")["Payload"].read()) == ["two", True]


def test_the_previous_code_folder_is_removed_once_the_update_completes(tmp_path):
    """The previous code's folder lives while the update is in progress (its invocations run it) and is removed once
    the update completes; the new one stays."""
    with emulate(state_dir=tmp_path, **QUIET) as emu:
        lam = boto3.client("lambda", region_name="us-east-1")
        function(lam, "foldered")
        home = emu.functions.directory / "123456789012" / "us-east-1" / "foldered"
        assert sorted(p.name for p in home.iterdir()) == ["code", "code.zip"]
        lam.update_function_code(FunctionName="foldered", ZipFile=zip_of(AFTER))
        [new] = [p.name for p in home.iterdir() if p.name not in ("code", "code.zip")]
        assert sorted(p.name for p in (home / new).iterdir()) == ["code", "code.zip"]
        lam.get_waiter("function_updated_v2").wait(FunctionName="foldered")
        assert [p.name for p in home.iterdir()] == [new]
        assert after(lam.invoke(FunctionName="foldered", Payload=b"{}")) == AFTER_ANSWER  # the new code, from there

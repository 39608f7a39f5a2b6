"""Function logs in CloudWatch Logs, as Lambda writes them, and LoggingConfig as the Lambda API answers it.

Expected shapes: the Lambda Developer Guide ("Sending Lambda function logs to CloudWatch Logs", "Configuring JSON
and plain text log formats", "Log-level filtering"), the Python runtime's own formats
(aws-lambda-python-runtime-interface-client bootstrap.py) and, for LoggingConfig, AWS's answers recorded in
LocalStack's AWS-validated TestLoggingConfig snapshots.
"""

from __future__ import annotations

import base64
import json
import math
import re
import shutil

import pytest
from botocore.exceptions import ClientError

from tests.emulator.functions.custom_runtimes import zip_of as zip_with_bootstrap
from tests.emulator.functions.test_functions import ROLE, create_function
from tests.lambda_functions import created_function

ACCOUNT = "123456789012"  # moto's default account, which fake credentials map to

UUID = r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
STREAM = re.compile(r"^\d{4}/\d{2}/\d{2}/\[\$LATEST\][0-9a-f]{32}$")
#: a new execution environment's first invocation adds Init Duration, as AWS recorded (LocalStack's AWS-validated
#: test_lambda.snapshot.json, test_invocation_with_logs and test_invocation_type_event_error's second REPORT without)
#: a cold start's first line, as Lambda writes it (the AWS Lambda Developer Guide's Python logging page: "INIT_START
#: Runtime Version: python:3.12.v16\tRuntime Version ARN: arn:aws:lambda:us-west-2::runtime:<64 hex>"); Eddy's
#: runtime is one release of each version (v1) with one ARN per version
INIT_START = re.compile(r"^INIT_START Runtime Version: python:3\.11\.v1\tRuntime Version ARN: "
                        r"arn:aws:lambda:us-east-1::runtime:[0-9a-f]{64}\n$")
REPORT = re.compile(rf"^REPORT RequestId: ({UUID})\tDuration: \d+\.\d\d ms\tBilled Duration: \d+ ms\t"
                    r"Memory Size: 256 MB\tMax Memory Used: \d+ MB\tInit Duration: \d+\.\d\d ms\t\n$")

TALKS = '''
import json, logging
def handler(event, context):
    print("hello", event["n"])
    print(json.dumps({"level": "debug", "msg": "details"}))
    logging.getLogger().info("an info record")
    logging.getLogger().warning("a warning record")
    if event.get("fail"):
        raise ValueError("boom")
    return {"request": context.aws_request_id, "group": context.log_group_name, "stream": context.log_stream_name}
'''


#: a custom runtime that prints "starting wait" for its invocation and answers 30 seconds later, after "done waiting"
SLEEPING_BOOTSTRAP = r'''#!/bin/sh
API="http://$AWS_LAMBDA_RUNTIME_API/2018-06-01/runtime"
while true; do
  ID="$(curl -sS -D - -o /dev/null "$API/invocation/next" | grep -i '^Lambda-Runtime-Aws-Request-Id:' | cut -d' ' -f2 | tr -d '\r')"
  echo "starting wait"
  sleep 30
  echo "done waiting"
  curl -sS -o /dev/null "$API/invocation/$ID/response" -d 'null'
done
'''


def init_start(version: str) -> str:
    """The pattern of a cold start's INIT_START line for a runtime version ("python:3.12")."""
    return (rf"INIT_START Runtime Version: {re.escape(version)}\.v1\tRuntime Version ARN: "
            r"arn:aws:lambda:us-east-1::runtime:[0-9a-f]{64}\n")


def assert_log(messages: list[str], expected: list[str]) -> None:
    """A log's events are, one for one, the patterns expected."""
    assert len(messages) == len(expected), messages
    for pattern, message in zip(expected, messages):
        assert re.fullmatch(pattern, message), (pattern, message)


def events(logs, group: str) -> list[dict]:
    return logs.filter_log_events(logGroupName=group)["events"]


def test_every_invocation_is_logged_as_lambda_writes_text_logs(door):
    lam, logs = door.client("lambda"), door.client("logs")
    create_function(lam, "talks", TALKS, MemorySize=256)
    answer = json.loads(lam.invoke(FunctionName="talks", Payload=b'{"n": 1}')["Payload"].read())
    assert answer["group"] == "/aws/lambda/talks" and STREAM.match(answer["stream"])
    request = answer["request"]
    logged = events(logs, "/aws/lambda/talks")
    assert {event["logStreamName"] for event in logged} == {answer["stream"]}
    messages = [event["message"] for event in logged]
    assert INIT_START.match(messages[0])  # a new execution environment: a cold start
    assert messages[1:4] == [f"START RequestId: {request} Version: $LATEST\n", "hello 1\n",
                             '{"level": "debug", "msg": "details"}\n']
    assert re.match(rf"^\[WARNING\]\t\d{{4}}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{{3}}Z\t{request}\ta warning record\n$",
                    messages[4])  # Text format leaves the root logger at WARNING, as on Lambda
    assert messages[5] == f"END RequestId: {request}\n"
    assert REPORT.match(messages[6]).group(1) == request and len(messages) == 7
    streams = logs.describe_log_streams(logGroupName="/aws/lambda/talks")["logStreams"]
    assert [stream["logStreamName"] for stream in streams] == [answer["stream"]]


LOADS = '''
import logging
print("loading the model")
logging.getLogger().warning("a warning while loading")
def handler(event, context):
    print("handling", event["n"])
    return {"request": context.aws_request_id, "stream": context.log_stream_name}
'''


def test_a_cold_start_logs_init_start_and_the_init_phases_output_first_a_warm_start_neither(door):
    """On Lambda a new execution environment's log stream starts with INIT_START, then what the handler's module
    wrote while it was imported (a logging record of the Init phase has no request id: "[INFO]\\t<time>\\t\\t<message>",
    as CloudWatch shows a module-level record), then the first invocation's START; its REPORT has Init Duration.
    The next invocation in that environment has neither."""
    lam, logs = door.client("lambda"), door.client("logs")
    create_function(lam, "loads", LOADS)
    first, second = (json.loads(lam.invoke(FunctionName="loads", Payload=json.dumps({"n": n}))["Payload"].read())
                     for n in (1, 2))
    assert first["stream"] == second["stream"]
    messages = [e["message"] for e in logs.get_log_events(logGroupName="/aws/lambda/loads",
                                                           logStreamName=first["stream"], startFromHead=True)["events"]]
    assert INIT_START.match(messages[0]) and messages[1] == "loading the model\n"
    assert re.fullmatch(r"\[WARNING\]\t\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z\t\ta warning while loading\n", messages[2])
    assert messages[3:6] == [f"START RequestId: {first['request']} Version: $LATEST\n", "handling 1\n",
                             f"END RequestId: {first['request']}\n"]
    assert "\tInit Duration: " in messages[6]
    assert messages[7:10] == [f"START RequestId: {second['request']} Version: $LATEST\n", "handling 2\n",
                              f"END RequestId: {second['request']}\n"]
    assert messages[10].startswith(f"REPORT RequestId: {second['request']}\t") and "Init Duration" not in messages[10]
    assert len(messages) == 11
    lam.update_function_configuration(FunctionName="loads", Environment={"Variables": {"COLOUR": "blue"}})
    lam.get_waiter("function_updated_v2").wait(FunctionName="loads")
    third = json.loads(lam.invoke(FunctionName="loads", Payload=b'{"n": 3}')["Payload"].read())
    assert third["stream"] != first["stream"]  # a new execution environment: a cold start again, the same runtime
    again = [e["message"] for e in logs.get_log_events(logGroupName="/aws/lambda/loads",
                                                        logStreamName=third["stream"], startFromHead=True)["events"]]
    assert again[:2] == [messages[0], "loading the model\n"] and again[3].startswith("START RequestId: ")


def test_an_unhandled_error_is_logged_as_the_python_runtime_logs_it(door):
    lam, logs = door.client("lambda"), door.client("logs")
    create_function(lam, "talks", TALKS, MemorySize=256)
    response = lam.invoke(FunctionName="talks", Payload=b'{"n": 2, "fail": true}')
    assert response["FunctionError"] == "Unhandled"
    messages = [event["message"] for event in events(logs, "/aws/lambda/talks")]
    error = next(message for message in messages if message.startswith("[ERROR]"))
    lines = error.split("\n")
    assert lines[:2] == ["[ERROR] ValueError: boom", "Traceback (most recent call last):"]
    assert any(re.match(r'^\u00a0\u00a0File ".*app\.py", line 9, in handler$', line) for line in lines)
    assert messages.index(error) == len(messages) - 3  # before END and REPORT


#: a function of each kind of runtime that prints "starting wait", then outlasts its 1-second timeout before it would
#: print "done waiting" (LocalStack's functions/lambda_timeout.py, in each runtime's words); what the printed line is in
#: the log (a regular expression of the request id)
SLEEPERS = {
    "python3.11": ("app.handler", {"app.py": "import time\ndef handler(event, context):\n    print('starting wait')\n"
                                             "    time.sleep(30)\n    print('done waiting')\n"},
                   lambda request: "starting wait\n"),
    "nodejs20.x": ("index.handler",
                   {"index.js": "exports.handler = async () => { console.log('starting wait');\n"
                                "  await new Promise((resolve) => setTimeout(resolve, 30000));\n"
                                "  console.log('done waiting'); };\n"},
                   lambda request: rf"\d{{4}}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{{3}}Z\t{request}\tINFO\tstarting wait\n"),
    "provided.al2023": ("function.handler", {"bootstrap": SLEEPING_BOOTSTRAP}, lambda request: "starting wait\n"),
}


@pytest.mark.parametrize("runtime", list(SLEEPERS))
def test_a_timeout_keeps_what_was_printed_and_is_reported_as_lambda_reports_it(door, runtime):
    """What the handler printed before its timeout stopped it is in its log, what it would have printed after is not
    (LocalStack's AWS-validated TestLambdaBehavior::test_lambda_invoke_with_timeout: "starting wait" there, "done
    waiting" not), whatever its runtime. Invoke answers the error AWS recorded for it (test_lambda.snapshot.json,
    test_lambda_invoke_with_timeout "invoke-result": Sandbox.Timedout, "RequestId: <id> Error: Task timed out after
    1.00 seconds"); the log's REPORT says the timeout as its Duration, bills the cold start's Init with it and ends
    `Status: timeout` (Lambda's REPORT of a timeout since 2024: "Duration: 3000.00 ms\tBilled Duration: 3000 ms\t...\t
    Max Memory Used: 64 MB\tStatus: timeout",
    A. Stuyvenberg, "Avoiding the Lambda Doom Loop", and users' logs of python3.12 functions), and the timeout's line
    follows it."""
    if runtime == "provided.al2023" and shutil.which("curl") is None:
        pytest.skip("the shell bootstrap needs curl on PATH")
    lam, logs = door.client("lambda"), door.client("logs")
    handler, files, printed = SLEEPERS[runtime]
    created_function(lam, FunctionName="sleeps", Runtime=runtime, Role=ROLE, Handler=handler, Timeout=1,
                        Code={"ZipFile": zip_with_bootstrap(files)})
    response = lam.invoke(FunctionName="sleeps", Payload=b"{}")
    request = response["ResponseMetadata"]["RequestId"]
    assert {key: value for key, value in response.items() if key != "ResponseMetadata"} == {
        "StatusCode": 200, "FunctionError": "Unhandled", "ExecutedVersion": "$LATEST", "Payload": response["Payload"]}
    assert json.loads(response["Payload"].read()) == {
        "errorType": "Sandbox.Timedout", "errorMessage": f"RequestId: {request} Error: Task timed out after 1.00 seconds"}
    messages = [event["message"] for event in events(logs, "/aws/lambda/sleeps")]
    version = {"python3.11": "python:3.11", "nodejs20.x": "nodejs:20", "provided.al2023": "provided:al2023"}[runtime]
    expected = [
        init_start(version),
        rf"START RequestId: {request} Version: \$LATEST\n",
        printed(request),
        rf"END RequestId: {request}\n",
        rf"REPORT RequestId: {request}\tDuration: 1000\.00 ms\tBilled Duration: (?P<billed>\d+) ms\tMemory Size: 128 MB\t"
        r"Max Memory Used: \d+ MB\tInit Duration: (?P<init>\d+\.\d\d) ms\tStatus: timeout\n",
        rf"\d{{4}}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{{3}}Z {request} Task timed out after 1\.00 seconds\n",
    ]
    assert_log(messages, expected)
    # the cold start's Init billed with it, as Lambda bills it since August 2025 (logs/reports.py's sources)
    report = re.fullmatch(expected[4], messages[4])
    init = float(report["init"])  # rounded to 2 places: the Init billed may be up to 0.005 ms more
    assert math.ceil(1000 + init) <= int(report["billed"]) <= math.ceil(1000 + init + 0.005)


def test_logging_config_as_the_lambda_api_answers_it(door):
    """TestLoggingConfig: JSON brings INFO levels, a partial update keeps the rest, Text drops the levels."""
    lam = door.client("lambda")
    created = create_function(lam, "talks", TALKS, LoggingConfig={"LogFormat": "JSON"})
    assert created["LoggingConfig"] == {"ApplicationLogLevel": "INFO", "LogFormat": "JSON",
                                        "LogGroup": "/aws/lambda/talks", "SystemLogLevel": "INFO"}
    updated = lam.update_function_configuration(FunctionName="talks", LoggingConfig={"ApplicationLogLevel": "DEBUG"})
    assert updated["LoggingConfig"] == {"ApplicationLogLevel": "DEBUG", "LogFormat": "JSON",
                                        "LogGroup": "/aws/lambda/talks", "SystemLogLevel": "INFO"}
    lam.get_waiter("function_updated_v2").wait(FunctionName="talks")
    lam.update_function_configuration(FunctionName="talks", LoggingConfig={"LogFormat": "Text", "LogGroup": "cool"})
    assert lam.get_function_configuration(FunctionName="talks")["LoggingConfig"] == {"LogFormat": "Text",
                                                                                     "LogGroup": "cool"}
    create_function(lam, "plain", TALKS)
    assert lam.get_function(FunctionName="plain")["Configuration"]["LoggingConfig"] == {
        "LogFormat": "Text", "LogGroup": "/aws/lambda/plain"}
    unvalidated = door.client("lambda", validate=False)
    with pytest.raises(ClientError) as refused:
        unvalidated.update_function_configuration(FunctionName="talks", LoggingConfig={"LogFormat": "XML"})
    assert (refused.value.response["Error"]["Code"], refused.value.response["Error"]["Message"]) == (
        "ValidationException", "1 validation error detected: Value 'XML' at 'loggingConfig.logFormat' failed to "
        "satisfy constraint: Member must satisfy enum value set: [JSON, Text]")
    assert lam.get_function_configuration(FunctionName="talks")["LoggingConfig"]["LogFormat"] == "Text"


def test_json_logs_in_a_custom_group_filtered_by_level(door):
    lam, logs = door.client("lambda"), door.client("logs")
    create_function(lam, "talks", TALKS, MemorySize=256, LoggingConfig={
        "LogFormat": "JSON", "LogGroup": "orders-logs", "ApplicationLogLevel": "DEBUG"})
    answer = json.loads(lam.invoke(FunctionName="talks", Payload=b'{"n": 3}')["Payload"].read())
    assert answer["group"] == "orders-logs"
    messages = [event["message"] for event in events(logs, "orders-logs")]
    init, start, report = json.loads(messages[0]), json.loads(messages[1]), json.loads(messages[-1])
    # the record as Lambda's JSON system logs carry it (the Telemetry API's PlatformInitStart, AWS Lambda Developer
    # Guide "Telemetry API Event schema reference"; a record Lambda sent, in DataDog/datadog-lambda-extension's
    # telemetry listener test: initializationType, phase, runtimeVersion, runtimeVersionArn, functionName,
    # functionVersion)
    assert init == {"time": init["time"], "type": "platform.initStart", "record": {
        "initializationType": "on-demand", "phase": "init", "runtimeVersion": "python:3.11.v1",
        "runtimeVersionArn": init["record"]["runtimeVersionArn"], "functionName": "talks", "functionVersion": "$LATEST"}}
    assert re.fullmatch(r"arn:aws:lambda:us-east-1::runtime:[0-9a-f]{64}", init["record"]["runtimeVersionArn"])
    # platform.start as Lambda writes it in a JSON-format log group: requestId, the unqualified functionArn, version
    # (a nodejs22.x function's log recorded on AWS in 2026-10, {"requestId", "functionArn":
    # "arn:aws:lambda:eu-central-1:825765399535:function:tenner-notifier", "version": "$LATEST"}; the Telemetry API's
    # PlatformStart lists requestId and version?)
    assert start == {"time": start["time"], "type": "platform.start", "record": {
        "requestId": answer["request"], "functionArn": f"arn:aws:lambda:us-east-1:{ACCOUNT}:function:talks",
        "version": "$LATEST"}}
    metrics = report["record"]["metrics"]
    assert report == {"time": report["time"], "type": "platform.report", "record": {
        "requestId": answer["request"], "status": "success", "metrics": {
            "durationMs": metrics["durationMs"], "billedDurationMs": metrics["billedDurationMs"],
            "memorySizeMB": 256, "maxMemoryUsedMB": metrics["maxMemoryUsedMB"],
            "initDurationMs": metrics["initDurationMs"]}}}  # its first invocation: a cold start
    assert metrics["initDurationMs"] > 0
    assert messages[2:4] == ["hello 3\n", '{"level": "debug", "msg": "details"}\n']
    records = [json.loads(message) for message in messages[4:6]]
    assert [(r["level"], r["message"], r["logger"], r["requestId"]) for r in records] == [
        ("INFO", "an info record", "root", answer["request"]), ("WARN", "a warning record", "root", answer["request"])]
    lam.update_function_configuration(FunctionName="talks", LoggingConfig={
        "ApplicationLogLevel": "WARN", "SystemLogLevel": "WARN"})
    lam.get_waiter("function_updated_v2").wait(FunctionName="talks")
    lam.invoke(FunctionName="talks", Payload=b'{"n": 4, "fail": true}')
    later = [event["message"] for event in events(logs, "orders-logs")][len(messages):]
    assert [json.loads(line)["level"] for line in later] == ["WARN", "ERROR"]  # no platform records, no INFO/DEBUG
    assert json.loads(later[1])["errorType"] == "ValueError" and json.loads(later[1])["errorMessage"] == "boom"


def test_a_registered_callable_is_logged_too_on_the_emulators_clock(emu):
    import boto3

    def fails(event, context):
        raise RuntimeError(f"no {event['what']}")

    emu.register_function("fails", fails)
    emu.clock.advance(30 * 86400)  # a month on: CloudWatch Logs keeps the events at the emulator's time
    lam, logs = boto3.client("lambda", region_name="us-east-1"), boto3.client("logs", region_name="us-east-1")
    lam.invoke(FunctionName="fails", Payload=b'{"what": "luck"}')
    logged = events(logs, "/aws/lambda/fails")
    messages = [event["message"] for event in logged]
    assert messages[0].startswith("START RequestId: ") and messages[1].startswith("[ERROR] RuntimeError: no luck\n")
    assert messages[2].startswith("END RequestId: ") and messages[3].startswith("REPORT RequestId: ")
    assert all(abs(event["timestamp"] / 1000 - emu.clock.now()) < 60 for event in logged)
    assert STREAM.match(logged[0]["logStreamName"])


def test_a_registered_callables_prints_and_records_are_in_its_log_group_as_a_zip_functions_are(emu):
    """What a registered callable prints and logs while it runs is its invocation's log, in the lines Lambda's Python
    runtime writes (as a zip function's, above); two invocations running at once each keep their own lines; the
    process's stdout and root logger are its own again once no callable runs."""
    import logging
    import sys
    import threading

    import boto3

    both_running = threading.Barrier(2, timeout=60)

    def talks(event, context):
        print("hello", event["n"])
        logging.getLogger("orders").warning("low stock %s", event["n"])
        if event.get("together"):
            both_running.wait()  # the other invocation is running too: each line still goes to its own
        try:
            int("x")
        except ValueError:
            logging.getLogger().exception("failed on record %s", event["n"])
        return event["n"]

    stdout, handlers = sys.stdout, list(logging.getLogger().handlers)
    emu.register_function("talks", talks)
    lam, logs = boto3.client("lambda", region_name="us-east-1"), boto3.client("logs", region_name="us-east-1")
    response = lam.invoke(FunctionName="talks", Payload=b'{"n": 1}', LogType="Tail")
    request = response["ResponseMetadata"]["RequestId"]
    messages = [event["message"] for event in events(logs, "/aws/lambda/talks")]
    when = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z"
    assert messages[:2] == [f"START RequestId: {request} Version: $LATEST\n", "hello 1\n"]
    assert re.fullmatch(rf"\[WARNING\]\t{when}\t{request}\tlow stock 1\n", messages[2])
    assert re.fullmatch(rf"\[ERROR\]\t{when}\t{request}\tfailed on record 1\nTraceback \(most recent call last\):\n"
                        rf'  File ".*test_function_logs\.py", line \d+, in talks\n    int\("x"\)\n'
                        r"ValueError: invalid literal for int\(\) with base 10: 'x'\n", messages[3]), messages[3]
    assert messages[4] == f"END RequestId: {request}\n" and messages[5].startswith(f"REPORT RequestId: {request}\t")
    assert len(messages) == 6  # a registered callable has no Init phase: no INIT_START
    assert "\nhello 1\n" in base64.b64decode(response["LogResult"]).decode()
    assert sys.stdout is stdout and logging.getLogger().handlers == handlers

    answers = {}
    threads = [threading.Thread(target=lambda n=n: answers.update({n: lam.invoke(
        FunctionName="talks", Payload=json.dumps({"n": n, "together": True}).encode(), LogType="Tail")}))
        for n in (2, 3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    for n, mine, other in ((2, 2, 3), (3, 3, 2)):
        tail = base64.b64decode(answers[n]["LogResult"]).decode()
        assert f"\nhello {mine}\n" in tail and f"low stock {mine}\n" in tail and f"failed on record {mine}\r" in tail
        assert f"hello {other}" not in tail and f"stock {other}" not in tail and f"record {other}" not in tail
    assert sys.stdout is stdout and logging.getLogger().handlers == handlers

    lam.update_function_configuration(FunctionName="talks", LoggingConfig={"LogFormat": "JSON"})
    lam.get_waiter("function_updated_v2").wait(FunctionName="talks")
    response = lam.invoke(FunctionName="talks", Payload=b'{"n": 4}')
    request = response["ResponseMetadata"]["RequestId"]
    messages = [event["message"] for event in events(logs, "/aws/lambda/talks")][-5:]
    assert messages[1] == "hello 4\n"
    warning, error = json.loads(messages[2]), json.loads(messages[3])
    assert warning == {"timestamp": warning["timestamp"], "level": "WARN", "message": "low stock 4", "logger": "orders",
                       "requestId": request}
    assert (error["level"], error["message"], error["errorType"], error["logger"]) == (
        "ERROR", "failed on record 4", "ValueError", "root")


def test_a_registered_callables_standard_error_and_uncaught_error_are_in_its_log_group_as_a_zip_functions_are(emu):
    """Lambda's runtime sends both of a function's streams to its log: what a registered callable writes to
    sys.stderr (a print, a traceback it prints) is an invocation's line as its prints are, and an error it does not
    catch is the runtime's `[ERROR]` event with the traceback's frames (as for a zip function, above)."""
    import sys
    import traceback

    import boto3

    def complains(event, context):
        print("to stdout")
        print("to stderr", event["n"], file=sys.stderr)
        try:
            {}["missing"]
        except KeyError:
            traceback.print_exc()
        if event.get("fail"):
            raise RuntimeError(f"no {event['n']}")
        return event["n"]

    stdout, stderr = sys.stdout, sys.stderr
    emu.register_function("complains", complains)
    lam, logs = boto3.client("lambda", region_name="us-east-1"), boto3.client("logs", region_name="us-east-1")
    request = lam.invoke(FunctionName="complains", Payload=b'{"n": 1}')["ResponseMetadata"]["RequestId"]
    messages = [event["message"] for event in events(logs, "/aws/lambda/complains")]
    assert messages[:3] == [f"START RequestId: {request} Version: $LATEST\n", "to stdout\n", "to stderr 1\n"]
    # each line of a printed traceback is an event of its own, as every line a function writes is
    ending = messages.index("KeyError: 'missing'\n")
    assert messages[3] == "Traceback (most recent call last):\n" and ending in (6, 7)
    assert re.fullmatch(r'  File ".*test_function_logs\.py", line \d+, in complains\n', messages[4])
    assert messages[5] == '    {}["missing"]\n'  # (then Python 3.11's carets line)
    assert messages[ending + 1] == f"END RequestId: {request}\n"
    assert messages[ending + 2].startswith(f"REPORT RequestId: {request}\t") and len(messages) == ending + 3
    assert sys.stdout is stdout and sys.stderr is stderr

    failed = lam.invoke(FunctionName="complains", Payload=b'{"n": 2, "fail": true}')
    assert failed["FunctionError"] == "Unhandled"
    request = failed["ResponseMetadata"]["RequestId"]
    messages = [event["message"] for event in events(logs, "/aws/lambda/complains")][ending + 3:]
    assert messages[1:3] == ["to stdout\n", "to stderr 2\n"] and messages[3].startswith("Traceback ")
    messages = messages[:3] + messages[ending + 1:]  # the printed traceback's lines, as above
    lines = messages[3].split("\n")
    assert lines[:2] == ["[ERROR] RuntimeError: no 2", "Traceback (most recent call last):"], messages[4]
    assert any(re.fullmatch(r'\u00a0\u00a0File ".*test_function_logs\.py", line \d+, in complains', line)
               for line in lines), lines
    assert messages[4] == f"END RequestId: {request}\n" and len(messages) == 6
    assert sys.stdout is stdout and sys.stderr is stderr


def test_function_logs_can_be_turned_off():
    import boto3

    from eddy import emulate
    with emulate(housekeeping_interval=None, function_logs=False) as emulator:
        emulator.register_function("quiet", lambda event, context: None)
        boto3.client("lambda", region_name="us-east-1").invoke(FunctionName="quiet", Payload=b"{}")
        groups = boto3.client("logs", region_name="us-east-1").describe_log_groups()["logGroups"]
        assert groups == [] and emulator.invoker.recent.of(emulator.functions.get(
            "quiet", "123456789012", "us-east-1").arn)[0]["Outcome"] == "Succeeded"


def test_a_functions_logging_config_survives_a_restart(tmp_path):
    import boto3

    from eddy import emulate
    config = {"LogFormat": "JSON", "ApplicationLogLevel": "WARN", "SystemLogLevel": "DEBUG", "LogGroup": "kept"}
    with emulate(state_dir=tmp_path, housekeeping_interval=None):
        create_function(boto3.client("lambda", region_name="us-east-1"), "talks", TALKS, LoggingConfig=config)
    with emulate(state_dir=tmp_path, housekeeping_interval=None):
        lam = boto3.client("lambda", region_name="us-east-1")
        assert lam.get_function_configuration(FunctionName="talks")["LoggingConfig"] == config
        answer = json.loads(lam.invoke(FunctionName="talks", Payload=b'{"n": 5}')["Payload"].read())
        assert answer["group"] == "kept"
        logged = boto3.client("logs", region_name="us-east-1").filter_log_events(logGroupName="kept")["events"]
        assert [json.loads(event["message"]).get("type") for event in logged] == [
            "platform.initStart", "platform.start", None, "platform.report"]  # the warning record: INFO ones filtered


def test_a_nodejs_functions_lines_and_error_are_its_runtimes_once(door):
    from tests.emulator.trigger_helpers import create_zip_function

    lam, logs = door.client("lambda"), door.client("logs")
    create_zip_function(lam, "node", "node", "exports.handler = async (event) => {\n"
                        "  console.log('hi', event.n);\n  if (event.fail) throw new Error('bad');\n  return 1;\n};\n")
    assert lam.invoke(FunctionName="node", Payload=b'{"n": 1, "fail": true}')["FunctionError"] == "Unhandled"
    init, *messages = [event["message"] for event in events(logs, "/aws/lambda/node")]
    assert re.fullmatch(r"INIT_START Runtime Version: nodejs:20\.v1\tRuntime Version ARN: "
                        r"arn:aws:lambda:us-east-1::runtime:[0-9a-f]{64}\n", init), init  # nodejs20.x's
    request = messages[0].split()[2]
    assert messages[0] == f"START RequestId: {request} Version: $LATEST\n"
    assert re.match(rf"^\S+Z\t{request}\tINFO\thi 1\n$", messages[1])
    assert re.match(rf'^\S+Z\t{request}\tERROR\tInvoke Error \t\{{"errorType":"Error","errorMessage":"bad"', messages[2])
    assert messages[3] == f"END RequestId: {request}\n" and messages[4].startswith(f"REPORT RequestId: {request}\t")
    assert len(messages) == 5


LOGS_AN_EXCEPTION = '''
import logging
logger = logging.getLogger()
def handler(event, context):
    for record in event["records"]:
        try:
            int(record)
        except ValueError:
            logger.exception("failed on record %s", record)
    return "done"
'''


def test_logger_exception_logs_the_traceback_with_the_message_as_the_python_runtime_does(door):
    """aws-lambda-python-runtime-interface-client's bootstrap.py: LambdaLoggerHandler.emit writes
    `self.format(record)` whole (logging.Formatter with "[%(levelname)s]\\t%(asctime)s.%(msecs)03dZ\\t
    %(aws_request_id)s\\t%(message)s\\n", which appends the exception's traceback after the message) as one entry,
    one telemetry frame: one CloudWatch event. In the tail log (LogType=Tail) the entry's lines are joined by
    carriage returns, as the runtime's StandardLogSink joins a multi-line entry (ERROR_LOG_LINE_TERMINATE)."""
    lam, logs = door.client("lambda"), door.client("logs")
    create_function(lam, "parser", LOGS_AN_EXCEPTION)
    response = lam.invoke(FunctionName="parser", Payload=b'{"records": ["7", "x"]}', LogType="Tail")
    assert response["Payload"].read() == b'"done"'
    init, *messages = [event["message"] for event in events(logs, "/aws/lambda/parser")]
    assert INIT_START.match(init)
    request = messages[0].split()[2]
    [record] = [message for message in messages if message.startswith("[ERROR]")]
    pattern = (rf"\[ERROR\]\t\d{{4}}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{{3}}Z\t{request}\tfailed on record x\n"
               r"Traceback \(most recent call last\):\n"
               r'  File ".*app\.py", line 7, in handler\n'
               r"    int\(record\)\n"
               r"ValueError: invalid literal for int\(\) with base 10: 'x'\n")
    assert re.fullmatch(pattern, record), record
    assert len(messages) == 4  # START, the record, END, REPORT
    tail = base64.b64decode(response["LogResult"]).decode()
    assert re.search(pattern.replace(r"\n", r"\r")[:-2] + r"\n", tail), tail

"""A function whose Init phase fails: INIT_REPORT in its log as Lambda writes it, Lambda's retry of the Init in the
invocation, and the invocation's answer; Python and a custom runtime (a shell bootstrap), in both doors.

Sources: the AWS Lambda Developer Guide, "Understanding the Lambda execution environment lifecycle", "Failures
during the Init phase" (a failed Init writes `INIT_REPORT Init Duration: ... ms\tPhase: init\tStatus: error\tError
Type: ...`, none for one that succeeded; the Init is retried with the first invocation); Lambda logs users quoted
from AWS: a python3.11 function's `[ERROR] Runtime.ImportModuleError: Unable to import module ...` then `INIT_REPORT
... Phase: invoke Status: error Error Type: Runtime.ImportModuleError`, START, END and `REPORT ... Max Memory Used:
46 MB\tStatus: error\tError Type: Runtime.ImportModuleError` (no Init Duration); a provided.al2023 function's
INIT_START, `INIT_REPORT ... Phase: init ...` and `INIT_REPORT ... Phase: invoke ...` before START; the Lambda
console's log output (the LogType Tail) of a failed Init beginning with the invoke phase's INIT_REPORT.
"""

from __future__ import annotations

import base64
import json
import re

from tests.emulator.functions.custom_runtimes import NEEDS_CURL, ROLE, zip_of
from tests.lambda_functions import created_function

RUNTIME_ARN = r"arn:aws:lambda:us-east-1::runtime:[0-9a-f]{64}"
MS = r"\d+\.\d\d ms"


def log_group(door, name: str) -> str:
    logs = door.client("logs")
    [stream] = logs.describe_log_streams(logGroupName=f"/aws/lambda/{name}")["logStreams"]
    events = logs.get_log_events(logGroupName=f"/aws/lambda/{name}", logStreamName=stream["logStreamName"])["events"]
    return "".join(event["message"] for event in events)


def report(request_id: str, error_type: str) -> str:
    return (rf"START RequestId: {request_id} Version: \$LATEST\n"
            rf"END RequestId: {request_id}\n"
            rf"REPORT RequestId: {request_id}\tDuration: {MS}\tBilled Duration: \d+ ms\tMemory Size: 128 MB\t"
            rf"Max Memory Used: \d+ MB\tStatus: error\tError Type: {re.escape(error_type)}\t\n")


def test_a_python_module_that_cannot_be_imported_reports_its_init_twice_and_answers_the_error(door):
    lam = door.client("lambda")
    created_function(lam, FunctionName="noimport", Runtime="python3.12", Role=ROLE, Handler="app.handler",
                        Code={"ZipFile": zip_of({"app.py": "import nosuchmodule\n"}, executable=())})
    answer = lam.invoke(FunctionName="noimport", Payload=b"{}", LogType="Tail")
    payload = json.loads(answer["Payload"].read())
    request_id = answer["ResponseMetadata"]["HTTPHeaders"]["x-amzn-requestid"]
    assert (answer["FunctionError"], payload) == ("Unhandled", {
        "errorMessage": "Unable to import module 'app': No module named 'nosuchmodule'",
        "errorType": "Runtime.ImportModuleError", "requestId": "", "stackTrace": []})  # the Init's: no request
    # (AWS-recorded: LocalStack's test_lambda.snapshot.json, TestLambdaErrors::test_lambda_runtime_error)
    error_line = r"\[ERROR\] Runtime\.ImportModuleError: Unable to import module 'app': No module named 'nosuchmodule'\n"
    invoke_phase = (error_line + rf"INIT_REPORT Init Duration: {MS}\tPhase: invoke\tStatus: error\t"
                    r"Error Type: Runtime\.ImportModuleError\n")
    tail = base64.b64decode(answer["LogResult"]).decode()
    assert re.fullmatch(invoke_phase + report(request_id, "Runtime.ImportModuleError"), tail), tail
    group = log_group(door, "noimport")
    assert re.fullmatch(
        rf"INIT_START Runtime Version: python:3\.12\.v1\tRuntime Version ARN: {RUNTIME_ARN}\n" + error_line
        + rf"INIT_REPORT Init Duration: {MS}\tPhase: init\tStatus: error\tError Type: Runtime\.ImportModuleError\n"
        + invoke_phase + report(request_id, "Runtime.ImportModuleError"), group), group


INIT_FAILS = r'''#!/bin/sh
echo "reading the configuration"
curl -s -X POST -H 'Lambda-Runtime-Function-Error-Type: Runtime.ConfigError' \
  -d '{"errorMessage":"no configuration","errorType":"ConfigError"}' \
  "http://$AWS_LAMBDA_RUNTIME_API/2018-06-01/runtime/init/error" > /dev/null
exit 1
'''


@NEEDS_CURL
def test_a_custom_runtime_whose_init_posts_an_error_reports_it_and_answers_its_document(door):
    lam = door.client("lambda")
    created_function(lam, FunctionName="noconfig", Runtime="provided.al2023", Role=ROLE, Handler="function.handler",
                        Timeout=30, Code={"ZipFile": zip_of({"bootstrap": INIT_FAILS})})
    answer = lam.invoke(FunctionName="noconfig", Payload=b"{}", LogType="Tail")
    request_id = answer["ResponseMetadata"]["HTTPHeaders"]["x-amzn-requestid"]
    assert (answer["FunctionError"], json.loads(answer["Payload"].read())) == (
        "Unhandled", {"errorMessage": "no configuration", "errorType": "ConfigError"})
    invoke_phase = ("reading the configuration\n"
                    rf"INIT_REPORT Init Duration: {MS}\tPhase: invoke\tStatus: error\tError Type: ConfigError\n")
    tail = base64.b64decode(answer["LogResult"]).decode()
    assert re.fullmatch(invoke_phase + report(request_id, "ConfigError"), tail), tail
    group = log_group(door, "noconfig")
    assert re.fullmatch(
        rf"INIT_START Runtime Version: provided:al2023\.v1\tRuntime Version ARN: {RUNTIME_ARN}\n"
        rf"reading the configuration\nINIT_REPORT Init Duration: {MS}\tPhase: init\tStatus: error\tError Type: "
        r"ConfigError\n" + invoke_phase + report(request_id, "ConfigError"), group), group


def test_in_json_format_a_failed_init_is_a_platform_init_report_record(door):
    """The Telemetry API's platform.initReport (record: initializationType, phase, status, errorType,
    metrics.durationMs), one for the Init phase and one for the Init retried with the invocation."""
    lam = door.client("lambda")
    created_function(lam, FunctionName="noimport", Runtime="python3.12", Role=ROLE, Handler="app.handler",
                        LoggingConfig={"LogFormat": "JSON"},
                        Code={"ZipFile": zip_of({"app.py": "import nosuchmodule\n"}, executable=())})
    lam.invoke(FunctionName="noimport", Payload=b"{}")
    logs = door.client("logs")
    [stream] = logs.describe_log_streams(logGroupName="/aws/lambda/noimport")["logStreams"]
    records = [json.loads(event["message"]) for event in logs.get_log_events(
        logGroupName="/aws/lambda/noimport", logStreamName=stream["logStreamName"])["events"]]
    reports = [record for record in records if record.get("type") == "platform.initReport"]
    for report_record in reports:
        assert report_record["record"]["metrics"]["durationMs"] >= 0
        report_record["record"]["metrics"]["durationMs"] = "ms"
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", report_record.pop("time"))
    assert reports == [
        {"type": "platform.initReport", "record": {
            "initializationType": "on-demand", "phase": phase, "status": "error",
            "errorType": "Runtime.ImportModuleError", "metrics": {"durationMs": "ms"}}}
        for phase in ("init", "invoke")]
    assert [record.get("type", record.get("level")) for record in records] == [
        "platform.initStart", "ERROR", "platform.initReport", "ERROR", "platform.initReport", "platform.start",
        "platform.report"]
    error = {"level": "ERROR", "errorMessage": "Unable to import module 'app': No module named 'nosuchmodule'",
             "errorType": "Runtime.ImportModuleError", "requestId": "", "stackTrace": []}
    assert [{k: v for k, v in record.items() if k != "timestamp"} for record in records if "level" in record] == [
        error, error]
    final = records[-1]["record"]
    assert (final["status"], final["errorType"], sorted(final["metrics"])) == (
        "error", "Runtime.ImportModuleError", ["billedDurationMs", "durationMs", "maxMemoryUsedMB", "memorySizeMB"])


def test_a_retried_init_starts_a_fresh_runtime(door):
    # Lambda retries a failed Init in a reset execution environment (the Developer Guide, "Failures during the Init
    # phase"): the modules the failed import loaded are loaded again, from the start. The retry ran in the same
    # Python process, so `state` stayed imported and counted 2, then 3.
    lam = door.client("lambda")
    app = ("import os, state\nstate.loads += 1\nos.environ['SEEN'] = os.environ.get('SEEN', '') + 'x'\n"
           "print(f\"state loaded {state.loads} time(s), SEEN={os.environ['SEEN']}\")\n"
           "raise RuntimeError('no configuration')\n")
    created_function(lam, FunctionName="retried", Runtime="python3.12", Role=ROLE, Handler="app.handler",
                        Code={"ZipFile": zip_of({"app.py": app, "state.py": "loads = 0\n"}, executable=())})
    tails = []
    for _ in range(2):
        answer = lam.invoke(FunctionName="retried", Payload=b"{}", LogType="Tail")
        assert (answer["FunctionError"], json.loads(answer["Payload"].read())["errorType"]) == (
            "Unhandled", "RuntimeError")
        tails.append(base64.b64decode(answer["LogResult"]).decode())
    for tail in tails:
        assert tail.startswith("state loaded 1 time(s), SEEN=x\n"), tail
        assert re.search(rf"INIT_REPORT Init Duration: {MS}\tPhase: invoke\tStatus: error\tError Type: RuntimeError\n",
                         tail), tail
    assert re.findall(r"state loaded \d+ time\(s\), SEEN=x+", log_group(door, "retried")) == [
        "state loaded 1 time(s), SEEN=x"] * 3  # the Init phase's, then each invocation's


NODE_INIT_FAILS = ("const state = require('./state');\nstate.loads += 1;\nconsole.log(`state loaded ${state.loads} time(s)`);\n"
                   "require('nosuchmodule');\nexports.handler = async () => 'unreached';\n")


def test_a_node_module_that_cannot_be_loaded_reports_its_init_and_each_retry_in_a_fresh_runtime(door):
    # Lambda's Node.js runtime logs the load error (`Uncaught Exception \t{...}`), posts it to /runtime/init/error and
    # exits (aws-lambda-nodejs-runtime-interface-client src/index.mjs: process.exit(129)); Lambda reports the Init's
    # INIT_REPORT with Error Type Runtime.ExitError and starts the runtime again with each invocation (AWS logs of
    # Node.js functions: `Uncaught Exception ...` then `INIT_REPORT ... Phase: invoke Status: error Error Type:
    # Runtime.ExitError`; another's `INIT_REPORT ... Phase: init Status: error Error Type: Runtime.ExitError`).
    # Node.js wrote no INIT_REPORT and never retried the load (the first error was answered again).
    lam = door.client("lambda")
    created_function(lam, FunctionName="nodeinit", Runtime="nodejs20.x", Role=ROLE, Handler="index.handler",
                        Code={"ZipFile": zip_of({"index.js": NODE_INIT_FAILS, "state.js": "exports.loads = 0;\n"},
                                                executable=())})
    stamp = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z\tundefined\t"
    output = (stamp + r"INFO\tstate loaded 1 time\(s\)\n" + stamp + r"ERROR\tUncaught Exception \t"
              r"\{\"errorType\":\"Runtime\.ImportModuleError\",\"errorMessage\":\"Error: Cannot find module 'nosuchmodule'"
              r"\\nRequire stack:[^\n]*\]\}\n")
    invoke_phase = output + rf"INIT_REPORT Init Duration: {MS}\tPhase: invoke\tStatus: error\tError Type: Runtime\.ExitError\n"
    request_ids = []
    for _ in range(2):
        answer = lam.invoke(FunctionName="nodeinit", Payload=b"{}", LogType="Tail")
        request_ids.append(answer["ResponseMetadata"]["HTTPHeaders"]["x-amzn-requestid"])
        payload = json.loads(answer["Payload"].read())
        assert (answer["FunctionError"], payload["errorType"]) == ("Unhandled", "Runtime.ImportModuleError")
        assert payload["errorMessage"].startswith("Error: Cannot find module 'nosuchmodule'\nRequire stack:\n")
        tail = base64.b64decode(answer["LogResult"]).decode()
        assert re.fullmatch(invoke_phase + report(request_ids[-1], "Runtime.ExitError"), tail), tail
    group = log_group(door, "nodeinit")
    assert re.fullmatch(
        rf"INIT_START Runtime Version: nodejs:20\.v1\tRuntime Version ARN: {RUNTIME_ARN}\n" + output
        + rf"INIT_REPORT Init Duration: {MS}\tPhase: init\tStatus: error\tError Type: Runtime\.ExitError\n"
        + "".join(invoke_phase + report(request_id, "Runtime.ExitError") for request_id in request_ids), group), group


def test_a_node_functions_failed_init_answers_the_error_its_runtime_posted(door):
    # What Lambda answers an invocation whose Node.js Init fails: the error document the runtime posted to
    # /runtime/init/error, FunctionError Unhandled. aws-lambda-nodejs-runtime-interface-client: an uncaught exception
    # while the handler loads -> RAPIDClient.postInitError(error) posts Errors.toRapidResponse(error), {errorType,
    # errorMessage, trace}, then exits 129; a module the code cannot find is Runtime.ImportModuleError, its Require
    # stack ending with the runtime's own module (users' `aws lambda invoke` output: "Error: Cannot find module
    # 'x'\nRequire stack:\n- /var/task/index.js\n- /var/runtime/index.mjs"; its trace the message's lines). Eddy's code
    # folder stands where Lambda's /var/task is (normalised below); the require stack named the code's file twice.
    lam = door.client("lambda")
    sources = {"missing": "require('nosuchmodule');\nexports.handler = async () => 'unreached';\n",
               "throws": "class ConfigError extends Error { constructor(m) { super(m); this.name = 'ConfigError'; } }\n"
                         "throw new ConfigError('TABLE_NAME is not set');\n"}
    for name, source in sources.items():
        created_function(lam, FunctionName=name, Runtime="nodejs20.x", Role=ROLE, Handler="index.handler",
                            Code={"ZipFile": zip_of({"index.js": source}, executable=())})
    for _ in range(2):  # the first invocation and the next, each retrying the Init in a fresh runtime
        response = lam.invoke(FunctionName="missing", Payload=b"{}")
        payload = re.sub(r"- /\S+?/code/index\.js", "- /var/task/index.js", response["Payload"].read().decode())
        assert (response["StatusCode"], response["FunctionError"], json.loads(payload)) == (200, "Unhandled", {
            "errorType": "Runtime.ImportModuleError",
            "errorMessage": "Error: Cannot find module 'nosuchmodule'\nRequire stack:\n- /var/task/index.js\n"
                            "- /var/runtime/index.mjs",
            "trace": ["Runtime.ImportModuleError: Error: Cannot find module 'nosuchmodule'", "Require stack:",
                      "- /var/task/index.js", "- /var/runtime/index.mjs"]})
    response = lam.invoke(FunctionName="throws", Payload=b"{}")
    payload = json.loads(response["Payload"].read())
    code_line = re.fullmatch(r"    at Object\.<anonymous> \(/\S+/code/index\.js:2:7\)", payload["trace"][1])
    assert (response["FunctionError"], payload["errorType"], payload["errorMessage"], payload["trace"][0],
            bool(code_line)) == ("Unhandled", "ConfigError", "TABLE_NAME is not set",
                                 "ConfigError: TABLE_NAME is not set", True), payload

"""Function errors in Lambda's words, whole answers, both doors: Python (awslambdaric's bootstrap.py) and Node.js
(aws-lambda-nodejs-runtime-interface-client's Errors.js and UserFunction.js). Stack traces show the user's frames
only, never Eddy's worker; a module that cannot be imported is Runtime.ImportModuleError, a missing handler
Runtime.HandlerNotFound; a mapping on such a function reports the error where users look."""

from __future__ import annotations

import base64
import json
import re

import pytest

from tests.emulator.functions.test_functions import ROLE, create_function, zip_of
from tests.emulator.helpers import create_table
from tests.emulator.trigger_helpers import put, retrying
from tests.lambda_functions import created_function

UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")


def invoke(lam, name: str) -> dict:
    response = lam.invoke(FunctionName=name)
    assert response["FunctionError"] == "Unhandled"
    return json.loads(response["Payload"].read())


def tail_log(lam, name: str) -> str:
    return base64.b64decode(lam.invoke(FunctionName=name, LogType="Tail")["LogResult"]).decode()


def python_error(lam, name: str, init: bool = False) -> dict:
    """The error document, its requestId checked apart: the invocation's, or "" for a failed Init's (AWS-recorded:
    LocalStack's test_lambda.snapshot.json, TestLambdaErrors::test_lambda_runtime_error)."""
    error = invoke(lam, name)
    request_id = error.pop("requestId")
    assert request_id == "" if init else UUID.match(request_id)
    return error


def test_python_import_failures_and_a_missing_handler(door):
    lam = door.client("lambda")
    create_function(lam, "noimport", "import nosuchmodule\ndef handler(event, context):\n    pass\n")
    create_function(lam, "nohandler", "def other(event, context):\n    pass\n")
    assert python_error(lam, "noimport", init=True) == {
        "errorMessage": "Unable to import module 'app': No module named 'nosuchmodule'",
        "errorType": "Runtime.ImportModuleError", "stackTrace": []}
    assert python_error(lam, "nohandler", init=True) == {"errorMessage": "Handler 'handler' missing on module 'app'",
                                              "errorType": "Runtime.HandlerNotFound", "stackTrace": []}
    assert tail_log(lam, "noimport").startswith(  # the runtime's log line, in every invocation's log: its Init runs
        "[ERROR] Runtime.ImportModuleError: Unable to import module 'app': No module named 'nosuchmodule'\n"
        "INIT_REPORT Init Duration: ")  # again each time (test_init_reports.py has the whole log)


def test_python_tracebacks_show_the_users_frames_only(door):
    lam = door.client("lambda")
    create_function(lam, "raises", "def helper():\n    raise ValueError('bad')\n\n\n"
                                   "def handler(event, context):\n    helper()\n")
    create_function(lam, "initraise", "raise RuntimeError('at init')\n")
    error = python_error(lam, "raises")
    [first, second] = error.pop("stackTrace")
    assert error == {"errorMessage": "bad", "errorType": "ValueError"}
    code = re.match(r'  File "(.*)/app\.py"', first).group(1)
    assert code == "/var/task"  # as Lambda names the code's files (test_lambda_destinations.snapshot.json)
    assert (first, second) == (f'  File "{code}/app.py", line 6, in handler\n    helper()\n',
                               f'  File "{code}/app.py", line 2, in helper\n    raise ValueError(\'bad\')\n')
    error = python_error(lam, "initraise", init=True)
    assert error == {"errorMessage": "at init", "errorType": "RuntimeError", "stackTrace": [
        f'  File "{code.replace("/raises/", "/initraise/")}/app.py", line 1, in <module>\n'
        "    raise RuntimeError('at init')\n"]}


def test_a_registered_callables_traceback_shows_its_frames_only(emu):
    import boto3

    def handler(event, context):
        return {}["missing"]

    emu.register_function("lookup", handler)
    error = python_error(boto3.client("lambda", region_name="us-east-1"), "lookup")
    [frame] = error.pop("stackTrace")
    assert error == {"errorMessage": "'missing'", "errorType": "KeyError"}
    assert re.match(rf'  File "{re.escape(__file__)}", line \d+, in handler\n    return {{}}\["missing"\]\n', frame)


def node(lam, name: str, source: str, handler: str = "index.handler") -> None:
    created_function(lam, FunctionName=name, Runtime="nodejs20.x", Role=ROLE, Handler=handler,
                        Code={"ZipFile": zip_of({"index.js": source})})


def test_node_errors_in_lambdas_words(door):
    lam = door.client("lambda")
    node(lam, "nomodule", "exports.handler = async () => 1;", handler="nope.handler")
    node(lam, "nohandler", "exports.other = async () => 1;")
    node(lam, "notafunction", "exports.handler = 5;")
    node(lam, "string", "exports.handler = async () => { throw 'just a string'; };")
    node(lam, "object", "exports.handler = async () => { throw { code: 7 }; };")
    node(lam, "throws", "exports.handler = async () => { throw new Error('boom'); };")
    assert invoke(lam, "nomodule") == {
        "errorType": "Runtime.ImportModuleError",
        "errorMessage": "Error: Cannot find module 'nope'\nRequire stack:\n- /var/runtime/index.mjs",
        "trace": ["Runtime.ImportModuleError: Error: Cannot find module 'nope'", "Require stack:",
                  "- /var/runtime/index.mjs"]}
    error = invoke(lam, "nohandler")
    assert (error["errorType"], error["errorMessage"], error["trace"][0]) == (
        "Runtime.HandlerNotFound", "index.handler is undefined or not exported",
        "Runtime.HandlerNotFound: index.handler is undefined or not exported")
    assert invoke(lam, "notafunction")["errorMessage"] == "index.handler is not a function"
    assert invoke(lam, "string") == {"errorType": "string", "errorMessage": "just a string", "trace": []}
    assert invoke(lam, "object") == {"errorType": "object", "errorMessage": "[object Object]", "trace": []}
    error = invoke(lam, "throws")
    assert (error["errorType"], error["errorMessage"], error["trace"][0]) == ("Error", "boom", "Error: boom")
    assert "/index.js:1:" in error["trace"][1]
    for name in ("nomodule", "nohandler", "throws"):
        assert not any("node_worker" in line for line in invoke(lam, name)["trace"])
    log = tail_log(lam, "nomodule")
    assert "\tERROR\tUncaught Exception \t{\"errorType\":\"Runtime.ImportModuleError\"" in log


@pytest.mark.parametrize("runtime", ["python", "node"])
def test_a_mapping_on_a_function_that_cannot_be_imported_reports_it(door, runtime):
    lam, dynamodb = door.client("lambda"), door.client("dynamodb")
    arn = create_table(dynamodb, "orders")["LatestStreamArn"]
    if runtime == "python":
        create_function(lam, "broken", "import nosuchmodule\n")
        expected = "Runtime.ImportModuleError: Unable to import module 'app': No module named 'nosuchmodule'"
    else:
        node(lam, "broken", "exports.handler = async () => 1;", handler="app.handler")
        expected = ("Runtime.ImportModuleError: Error: Cannot find module 'app'\nRequire stack:\n"
                    "- /var/runtime/index.mjs")
    lam.create_event_source_mapping(EventSourceArn=arn, FunctionName="broken", StartingPosition="TRIM_HORIZON")
    put(dynamodb, "a")
    assert retrying(door, attempts=1)["LastError"] == expected

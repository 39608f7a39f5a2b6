"""python3.14 and nodejs24.x, the newest runtimes botocore's Lambda model lists (its Runtime enum, botocore 1.44),
accepted by CreateFunction and UpdateFunctionConfiguration and run as the other Python and Node.js versions are: on
Eddy's own interpreter and the machine's one `node` (both doors)."""

from __future__ import annotations

import json
import sys

import pytest

from tests.emulator.functions.test_functions import ROLE, zip_of
from tests.lambda_functions import created_function

PYTHON = "import os, sys\ndef handler(event, context):\n    return [os.environ['AWS_EXECUTION_ENV'], list(sys.version_info[:2])]\n"
NODE = "exports.handler = async () => [process.env.AWS_EXECUTION_ENV, process.version.startsWith('v')];\n"


@pytest.mark.parametrize("runtime, files, older, expected", [
    ("python3.14", {"app.py": PYTHON}, "python3.12", ["AWS_Lambda_python3.14", list(sys.version_info[:2])]),
    ("nodejs24.x", {"app.js": NODE}, "nodejs20.x", ["AWS_Lambda_nodejs24.x", True]),
])
def test_the_newest_runtimes_are_created_updated_to_and_run(door, runtime, files, older, expected):
    lam = door.client("lambda")
    created = created_function(lam, FunctionName="newest", Runtime=runtime, Role=ROLE, Handler="app.handler",
                                  Code={"ZipFile": zip_of(files)})
    assert created["Runtime"] == runtime
    assert json.loads(lam.invoke(FunctionName="newest")["Payload"].read()) == expected
    created_function(lam, FunctionName="older", Runtime=older, Role=ROLE, Handler="app.handler",
                        Code={"ZipFile": zip_of(files)})
    assert lam.update_function_configuration(FunctionName="older", Runtime=runtime)["Runtime"] == runtime
    lam.get_waiter("function_updated_v2").wait(FunctionName="older")
    assert json.loads(lam.invoke(FunctionName="older")["Payload"].read()) == expected
    [stream] = door.client("logs").describe_log_streams(logGroupName="/aws/lambda/newest")["logStreams"]
    first = door.client("logs").get_log_events(logGroupName="/aws/lambda/newest",
                                               logStreamName=stream["logStreamName"])["events"][0]["message"]
    version = runtime.removesuffix(".x").replace("python", "python:").replace("nodejs", "nodejs:")
    assert first.startswith(f"INIT_START Runtime Version: {version}.v1\t")

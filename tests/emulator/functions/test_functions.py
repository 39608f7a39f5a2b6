"""Functions: registered callables and zip packages, the Lambda API, Invoke, timeouts, crashes, context."""

from __future__ import annotations

import base64
import io
import json
import zipfile

import boto3
import pytest
from botocore.exceptions import ClientError
from tests.lambda_functions import created_function

ROLE = "arn:aws:iam::123456789012:role/lambda-role"


def zip_of(files: dict[str, str]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, source in files.items():
            archive.writestr(name, source)
    return buffer.getvalue()


def create_function(lam, name: str, source: str, handler: str = "app.handler", **options) -> dict:
    return created_function(lam, FunctionName=name, Runtime="python3.11", Role=ROLE, Handler=handler,
                               Code={"ZipFile": zip_of({"app.py": source})}, **options)


def updated(lam, name: str) -> None:
    """Wait for a function's update to complete, as an AWS user must before the next update or PublishVersion: boto3's
    function_updated_v2 waiter polls GetFunctionConfiguration until LastUpdateStatus is Successful."""
    lam.get_waiter("function_updated_v2").wait(FunctionName=name)


CONTEXT_AND_ENV = '''
import os
def handler(event, context):
    return {"event": event, "name": context.function_name, "arn": context.invoked_function_arn,
            "version": context.function_version, "memory": context.memory_limit_in_mb,
            "request": context.aws_request_id, "group": context.log_group_name, "stream": context.log_stream_name,
            "remaining": context.get_remaining_time_in_millis(), "colour": os.environ.get("COLOUR"),
            "region": os.environ.get("AWS_REGION"), "client": context.client_context,
            "identity": context.identity.cognito_identity_id}
'''


def test_a_zip_function_runs_with_its_environment_and_context(door):
    lam = door.client("lambda")
    created = create_function(lam, "echo", CONTEXT_AND_ENV, Timeout=7, MemorySize=256,
                              Environment={"Variables": {"COLOUR": "teal"}})
    assert created["FunctionArn"] == "arn:aws:lambda:us-east-1:123456789012:function:echo"
    assert (created["Runtime"], created["Handler"], created["Timeout"], created["MemorySize"]) == ("python3.11", "app.handler", 7, 256)
    response = lam.invoke(FunctionName="echo", Payload=json.dumps({"hello": "world"}).encode())
    assert response["StatusCode"] == 200 and "FunctionError" not in response
    answer = json.loads(response["Payload"].read())
    assert answer["event"] == {"hello": "world"}
    assert (answer["name"], answer["arn"], answer["version"], answer["memory"], answer["client"]) == (
        "echo", created["FunctionArn"], "$LATEST", "256", None)  # a string and None, as AWS recorded (see test_invoke_answers)
    assert answer["group"] == "/aws/lambda/echo" and "[$LATEST]" in answer["stream"] and answer["request"]
    assert 0 < answer["remaining"] <= 7000
    assert (answer["colour"], answer["region"]) == ("teal", "us-east-1")


def test_function_errors_timeouts_and_crashes_are_failed_invocations(door):
    lam = door.client("lambda")
    create_function(lam, "raises", "def handler(event, context):\n    raise KeyError('missing')\n")
    create_function(lam, "slow", "import time\ndef handler(event, context):\n    time.sleep(30)\n", Timeout=1)
    create_function(lam, "dies", "import os\ndef handler(event, context):\n    os._exit(3)\n")
    raised = lam.invoke(FunctionName="raises", Payload=b"{}")
    assert raised["FunctionError"] == "Unhandled"
    error = json.loads(raised["Payload"].read())
    assert error["errorType"] == "KeyError" and "missing" in error["errorMessage"] and error["stackTrace"]
    slow = lam.invoke(FunctionName="slow", Payload=b"{}")
    assert json.loads(slow["Payload"].read()) == {"errorType": "Sandbox.Timedout", "errorMessage": (
        f"RequestId: {slow['ResponseMetadata']['RequestId']} Error: Task timed out after 1.00 seconds")}
    died = lam.invoke(FunctionName="dies", Payload=b"{}")
    assert died["FunctionError"] == "Unhandled"
    assert json.loads(died["Payload"].read()) == {"errorType": "Runtime.ExitError", "errorMessage": (
        f"RequestId: {died['ResponseMetadata']['RequestId']} Error: Runtime exited with error: exit status 3")}
    assert json.loads(lam.invoke(FunctionName="raises", Payload=b"{}")["Payload"].read())["errorType"] == "KeyError"


def test_get_list_update_delete(door):
    lam = door.client("lambda")
    create_function(lam, "one", "def handler(e, c):\n    return 1\n")
    create_function(lam, "two", "def handler(e, c):\n    return 2\n")
    assert [f["FunctionName"] for f in lam.list_functions()["Functions"]] == ["one", "two"]
    assert lam.get_function(FunctionName="one")["Configuration"]["CodeSha256"]
    lam.update_function_code(FunctionName="one", ZipFile=zip_of({"app.py": "def handler(e, c):\n    return 11\n"}))
    updated(lam, "one")  # invocations run the previous code until the update completes
    assert lam.invoke(FunctionName="one")["Payload"].read() == b"11"
    lam.update_function_configuration(FunctionName="one", Environment={"Variables": {"AB": "b"}}, Timeout=9)
    assert lam.get_function_configuration(FunctionName="one")["Environment"] == {"Variables": {"AB": "b"}}
    lam.delete_function(FunctionName="two")
    with pytest.raises(ClientError) as missing:
        lam.get_function(FunctionName="two")
    assert missing.value.response["Error"]["Code"] == "ResourceNotFoundException"
    assert missing.value.response["ResponseMetadata"]["HTTPStatusCode"] == 404
    with pytest.raises(ClientError) as twice:
        create_function(lam, "one", "def handler(e, c):\n    pass\n")
    assert twice.value.response["Error"]["Code"] == "ResourceConflictException"


@pytest.mark.parametrize("files, handler", [
    ({"../escape.py": "x = 1"}, "app.handler"),
    ({"/abs.py": "x = 1"}, "app.handler"),
])
def test_unsafe_packages_are_refused(door, files, handler):
    lam = door.client("lambda")
    with pytest.raises(ClientError) as refused:
        created_function(lam, FunctionName="bad", Runtime="python3.11", Role=ROLE, Handler=handler,
                            Code={"ZipFile": zip_of(files)})
    assert refused.value.response["Error"]["Code"] == "InvalidParameterValueException"


def test_create_function_validation(door):
    lam = door.client("lambda")
    for options, code in [
        (dict(Runtime="nodejs14.x"), "InvalidParameterValueException"),
        (dict(Runtime="java21"), "InvalidParameterValueException"),
        (dict(Handler="nohandler"), "InvalidParameterValueException"),
        (dict(Role="not-a-role"), "ValidationException"),
        (dict(Code={"ZipFile": b"not a zip"}), "InvalidParameterValueException"),
    ]:
        params = dict(FunctionName="f", Runtime="python3.11", Role=ROLE, Handler="app.handler",
                      Code={"ZipFile": zip_of({"app.py": "def handler(e, c): pass"})})
        params.update(options)
        with pytest.raises(ClientError) as invalid:
            created_function(lam, **params)
        assert invalid.value.response["Error"]["Code"] == code, options


def test_invocation_types(door):
    lam = door.client("lambda")
    create_function(lam, "f", "def handler(e, c):\n    return e\n")
    assert lam.invoke(FunctionName="f", InvocationType="DryRun")["StatusCode"] == 204
    assert lam.invoke(FunctionName="f", InvocationType="Event", Payload=b"{}")["StatusCode"] == 202
    tail = lam.invoke(FunctionName="f", LogType="Tail", Payload=b"[1]")
    assert b"REPORT RequestId" in base64.b64decode(tail["LogResult"]) and tail["Payload"].read() == b"[1]"


def test_registered_functions(emu):
    lam = boto3.client("lambda", region_name="us-east-1")
    seen = []
    arn = emu.register_function("registered", lambda event, context: seen.append((event, context.function_name)) or "ok",
                                timeout=5, environment={"MODE": "test"})
    assert arn == "arn:aws:lambda:us-east-1:123456789012:function:registered"

    @emu.function("decorated", timeout=30)
    def decorated(event, context):
        import os
        return {"mode": os.environ.get("MODE"), "remaining": context.get_remaining_time_in_millis()}

    assert callable(decorated)
    configuration = lam.get_function(FunctionName="registered")["Configuration"]
    assert (configuration["Timeout"], configuration["Environment"]) == (5, {"Variables": {"MODE": "test"}})
    assert sorted(f["FunctionName"] for f in lam.list_functions()["Functions"]) == ["decorated", "registered"]
    assert lam.invoke(FunctionName="registered", Payload=b'{"x": 1}')["Payload"].read() == b'"ok"'
    assert seen == [({"x": 1}, "registered")]
    answer = json.loads(lam.invoke(FunctionName="decorated")["Payload"].read())
    assert answer["mode"] is None and 0 < answer["remaining"] <= 30_000


def test_a_registered_function_that_overruns_times_out(emu):
    import threading

    release = threading.Event()
    emu.register_function("stuck", lambda e, c: release.wait(10), timeout=1)
    lam = boto3.client("lambda", region_name="us-east-1")
    answer = json.loads(lam.invoke(FunctionName="stuck")["Payload"].read())
    release.set()
    assert answer["errorType"] == "Sandbox.Timedout"


def test_get_functions_code_location_downloads_the_versions_package(door):
    # AWS answers Code.Location as "A presigned URL that you can use to download the deployment package" (botocore's
    # FunctionCodeLocation); Eddy's was a file:// path. Each version's URL gives the package it was published with.
    import urllib.request

    lam = door.client("lambda")
    first = zip_of({"app.py": "def handler(event, context):\n    return 1\n"})
    second = zip_of({"app.py": "def handler(event, context):\n    return 2\n"})
    lam.create_function(FunctionName="packaged", Runtime="python3.12", Role=ROLE, Handler="app.handler",
                        Code={"ZipFile": first}, Publish=True)
    lam.get_waiter("function_active_v2").wait(FunctionName="packaged")
    lam.update_function_code(FunctionName="packaged", ZipFile=second)
    lam.get_waiter("function_updated_v2").wait(FunctionName="packaged")
    downloads = {}
    for qualifier in ("1", "$LATEST"):
        code = lam.get_function(FunctionName="packaged", Qualifier=qualifier)["Code"]
        assert code["RepositoryType"] == "S3" and code["Location"].startswith("http"), code
        with urllib.request.urlopen(code["Location"], timeout=60) as answer:
            downloads[qualifier] = (answer.status, answer.headers["Content-Type"], answer.read())
    assert downloads == {"1": (200, "application/zip", first), "$LATEST": (200, "application/zip", second)}

"""Python workers forked from the template that has imported boto3 (runtimes/python_template.py, worker_template.py)
answer as workers started by exec answer, in both doors; a function that brings its own boto3 or sets an interpreter
start-up variable is started by exec; a template killed between invocations is replaced.

Which way a worker started is what its handler sees: its parent's command line (the template's script, or the
emulator), and whether boto3 was imported before its module imported it."""

from __future__ import annotations

import base64
import gzip
import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import boto3
import botocore

from eddy.emulator.functions.runtimes import python_template
from tests.emulator.functions.test_custom_runtimes import _ended_within
from tests.emulator.functions.test_functions import ROLE, create_function, updated, zip_of
from tests.emulator.functions.test_layers import publish
from tests.lambda_functions import created_function

#: a variable the interpreter reads as it starts and that changes nothing on Linux (it matters on Windows and macOS
#: only): a worker whose function sets it starts by exec, and sees what a forked one sees
NO_EFFECT = {"PYTHONCASEOK": "1"}
#: botocore's own models (its package data)
BOTOCORE_DATA = Path(botocore.__file__).parent / "data"

STARTED = '''
import os, sys
PRELOADED = "boto3" in sys.modules  # before this module imports it: the template had

def started():
    with open(f"/proc/{os.getppid()}/cmdline", "rb") as cmdline:
        return {"template": b"worker_template.py" in cmdline.read(), "preloaded": PRELOADED}
'''

VIEW = STARTED + '''
import time
import boto3
print("imported at", "init")

def handler(event, context):
    print("invoked with", event)
    streams = [[stream.encoding, stream.errors, stream.line_buffering, stream.write_through,
                type(stream.buffer).__name__, getattr(stream.buffer, "raw", stream.buffer).name]
               for stream in (sys.stdin, sys.__stdout__, sys.stderr)]
    varying = ("AWS_LAMBDA_LOG_STREAM_NAME", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN",
               "PYTHONCASEOK")
    return {**started(), "tables": boto3.client("dynamodb").list_tables()["TableNames"], "path": sys.path,
            "cwd": os.getcwd(), "argv": sys.argv, "orig_argv": sys.orig_argv,
            "fds": sorted(os.listdir("/proc/self/fd")), "streams": streams,
            "session": os.getsid(0) == os.getpid(), "group": os.getpgid(0) == os.getpid(),
            "environ": {name: value for name, value in os.environ.items() if name not in varying},
            "zone": [time.tzname, time.timezone], "flags": list(sys.flags),
            "remaining": context.get_remaining_time_in_millis() > 0}
'''


def _invoke(lam, name: str, event: object = None) -> tuple[dict, str]:
    response = lam.invoke(FunctionName=name, Payload=json.dumps(event).encode(), LogType="Tail")
    return json.loads(response["Payload"].read()), base64.b64decode(response["LogResult"]).decode()


def _shape(log: str) -> str:
    """A log with its request ids, times and sizes as placeholders: what two cold starts have in common."""
    log = re.sub(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", "<id>", log)
    return re.sub(r"\d+(\.\d+)?", "<n>", log)


def test_a_forked_worker_answers_and_logs_as_one_started_by_exec(door):
    lam = door.client("lambda")
    door.client("dynamodb").create_table(TableName="seen", BillingMode="PAY_PER_REQUEST",
                                         AttributeDefinitions=[{"AttributeName": "k", "AttributeType": "S"}],
                                         KeySchema=[{"AttributeName": "k", "KeyType": "HASH"}])
    create_function(lam, "view", VIEW, Timeout=30)
    forked, forked_log = _invoke(lam, "view", {"n": 1})
    lam.update_function_configuration(FunctionName="view", Environment={"Variables": NO_EFFECT})
    updated(lam, "view")
    execed, execed_log = _invoke(lam, "view", {"n": 1})
    assert {key: forked.pop(key) for key in ("template", "preloaded")} == {"template": True, "preloaded": True}
    assert {key: execed.pop(key) for key in ("template", "preloaded")} == {"template": False, "preloaded": False}
    assert forked == execed
    assert forked["tables"] == ["seen"]
    assert forked["fds"] == ["0", "1", "2", "3", "4"]  # worker.py's copy of stdout for its protocol, the listing
    assert _shape(forked_log) == _shape(execed_log)
    assert re.fullmatch(r"START RequestId: <id> Version: \$LATEST\ninvoked with \{'n': <n>\}\n"
                        r"END RequestId: <id>\nREPORT RequestId: <id>\tDuration: <n> ms\tBilled Duration: <n> ms\t"
                        r"Memory Size: <n> MB\tMax Memory Used: <n> MB\tInit Duration: <n> ms\t\n", _shape(forked_log))


EXITS = STARTED + '''
def handler(event, context):
    import signal, sys
    if event == "started":
        return started()
    if event == "sys.exit":
        sys.exit(3)
    if event == "os._exit":
        os._exit(4)
    os.kill(os.getpid(), signal.SIGSEGV)
'''


def test_a_forked_workers_exit_status_is_its_runtime_exit_error(door):
    """The template reaps its children and says how they ended: an exit status, or the signal that ended it, in
    Lambda's words for a runtime that exited (platform_errors.exited), as for a worker started by exec."""
    lam = door.client("lambda")
    create_function(lam, "exits", EXITS)
    answers = {}
    for started_by, variables in (("template", {}), ("exec", NO_EFFECT)):
        if variables:
            lam.update_function_configuration(FunctionName="exits", Environment={"Variables": variables})
            updated(lam, "exits")
        answers[started_by] = [_invoke(lam, "exits", "started")[0]]
        for how in ("sys.exit", "os._exit", "signal"):
            response = lam.invoke(FunctionName="exits", Payload=json.dumps(how).encode())
            request_id = response["ResponseMetadata"]["RequestId"]
            payload = response["Payload"].read().decode().replace(request_id, "<id>")
            answers[started_by].append([response["FunctionError"], json.loads(payload)])
    assert answers == {
        started_by: [{"template": started_by == "template", "preloaded": started_by == "template"}] + [
            ["Unhandled", {"errorType": "Runtime.ExitError",
                           "errorMessage": f"RequestId: <id> Error: Runtime exited with error: {reason}"}]
            for reason in ("exit status 3", "exit status 4", "signal: segmentation fault")]
        for started_by in ("template", "exec")
    }


LINGERS = STARTED + '''
import subprocess, time
def handler(event, context):
    child = subprocess.Popen(["sleep", "300"])
    print(json.dumps({**started(), "child": child.pid}))
    time.sleep(60)
import json
'''


def test_a_forked_worker_past_its_timeout_ends_with_the_programs_it_started(door):
    """Past its Timeout the execution environment ends whole (its process group, killed by its template)."""
    lam = door.client("lambda")
    create_function(lam, "lingers", LINGERS, Timeout=1)
    answer, log = _invoke(lam, "lingers")
    assert answer["errorType"] == "Sandbox.Timedout"
    said = json.loads(next(line for line in log.splitlines() if line.startswith("{")))
    assert {key: said[key] for key in ("template", "preloaded")} == {"template": True, "preloaded": True}
    assert _ended_within(said["child"], 60)


def test_a_function_that_bundles_its_own_boto3_gets_its_own(door):
    """Lambda finds the function's code first: "If you include a version of a runtime-included library in your
    deployment package, this version will take precedence over the version that's included in the runtime" (Lambda
    Developer Guide, "Working with .zip file archives for Python Lambda functions", Dependency search path and
    runtime-included libraries). A function whose code holds a module the template has imported starts by exec."""
    lam = door.client("lambda")
    source = STARTED + "import boto3\ndef handler(event, context):\n    return {**started(), 'boto3': boto3.MARKER}\n"
    created_function(lam, FunctionName="own-sdk", Runtime="python3.12", Role=ROLE, Handler="app.handler",
                     Code={"ZipFile": zip_of({"app.py": source, "boto3/__init__.py": "MARKER = 'bundled'\n"})})
    assert _invoke(lam, "own-sdk")[0] == {"template": False, "preloaded": False, "boto3": "bundled"}
    layer = publish(lam, "sdk-layer", {"python/boto3/__init__.py": "MARKER = 'from a layer'\n"})
    created_function(lam, FunctionName="layer-sdk", Runtime="python3.12", Role=ROLE, Handler="app.handler",
                     Layers=[layer], Code={"ZipFile": zip_of({"app.py": source})})
    assert _invoke(lam, "layer-sdk")[0] == {"template": False, "preloaded": False, "boto3": "from a layer"}


def test_an_interpreter_start_up_variable_starts_the_worker_by_exec(door):
    """PYTHONOPTIMIZE (and every PYTHON* variable the interpreter reads as it starts) takes effect as on Lambda: the
    worker is a fresh interpreter started with it."""
    lam = door.client("lambda")
    source = STARTED + ("def handler(event, context):\n"
                        "    return {**started(), 'optimize': sys.flags.optimize, 'debug': __debug__}\n")
    create_function(lam, "optimized", source, Environment={"Variables": {"PYTHONOPTIMIZE": "1"}})
    assert _invoke(lam, "optimized")[0] == {"template": False, "preloaded": False, "optimize": 1, "debug": False}


def test_a_template_killed_between_invocations_is_replaced_by_the_next_worker(door):
    """Its workers end with it (their death signal); the next invocation starts a worker from a new template."""
    lam = door.client("lambda")
    source = STARTED + ("def handler(event, context):\n"
                        "    return {**started(), 'template_pid': os.getppid(), 'pid': os.getpid()}\n")
    create_function(lam, "survives", source)
    first = _invoke(lam, "survives")[0]
    with open(f"/proc/{first['template_pid']}/cmdline", "rb") as cmdline:
        assert b"worker_template.py" in cmdline.read()
    os.kill(first["template_pid"], signal.SIGKILL)
    assert _ended_within(first["template_pid"], 60)
    second = _invoke(lam, "survives")[0]
    assert {key: second[key] for key in ("template", "preloaded")} == {"template": True, "preloaded": True}
    assert second["template_pid"] != first["template_pid"] and second["pid"] != first["pid"]
    assert _ended_within(first["pid"], 60)  # the first worker ended with its template


def test_while_no_template_starts_workers_start_by_exec_and_the_next_tries_again(tmp_path, monkeypatch):
    """A template that cannot be started (here its script is missing: the interpreter exits at once) is not waited
    for: the worker starts as before, and the next worker tries a template again. In-process: the test swaps the
    script."""
    from eddy import emulate

    templates = python_template._Templates()  # this process's template registry, none started yet
    monkeypatch.setattr(python_template, "_templates", templates)
    script = python_template.SCRIPT
    monkeypatch.setattr(python_template, "SCRIPT", tmp_path / "missing.py")
    source = STARTED + "def handler(event, context):\n    return started()\n"
    with emulate():
        lam = boto3.client("lambda", region_name="us-east-1")
        create_function(lam, "first", source)
        create_function(lam, "second", source)
        assert _invoke(lam, "first")[0] == {"template": False, "preloaded": False}
        monkeypatch.setattr(python_template, "SCRIPT", script)
        assert _invoke(lam, "second")[0] == {"template": True, "preloaded": True}
    templates.current().stop()


MODELS = STARTED + '''
import boto3
def handler(event, context):
    clients = {service: boto3.client(service).meta.service_model.metadata["serviceFullName"]
               for service in ("sqs", "dynamodb", "sns")}
    return {**started(), "clients": clients, "tables": boto3.client("dynamodb").list_tables()["TableNames"]}
'''


def test_a_forked_workers_clients_read_the_models_its_aws_data_path_names(door):
    """The template has read botocore's data (worker_template.read_sdk_data) for the Loaders a forked worker makes;
    a function whose AWS_DATA_PATH names models of its own (botocore: the first folder on that path holding a file
    wins) gets its own, and every client of a forked worker answers as an exec'd one's."""
    lam = door.client("lambda")
    model = json.loads(gzip.decompress((BOTOCORE_DATA / "sqs" / "2012-11-05" / "service-2.json.gz").read_bytes()))
    model["metadata"]["serviceFullName"] = "The Function's Own Queue Service"
    files = {"app.py": MODELS, "models/sqs/2012-11-05/service-2.json": json.dumps(model)}
    created_function(lam, FunctionName="own-models", Runtime="python3.12", Role=ROLE, Handler="app.handler",
                     Code={"ZipFile": zip_of(files)},
                     Environment={"Variables": {"AWS_DATA_PATH": "${LAMBDA_TASK_ROOT}/models"}})
    create_function(lam, "sdk-models", MODELS)
    create_function(lam, "sdk-models-by-exec", MODELS, Environment={"Variables": NO_EFFECT})
    sdk = {"sqs": "Amazon Simple Queue Service", "dynamodb": "Amazon DynamoDB",
           "sns": "Amazon Simple Notification Service"}
    assert [_invoke(lam, name)[0] for name in ("own-models", "sdk-models", "sdk-models-by-exec")] == [
        {"template": True, "preloaded": True, "clients": {**sdk, "sqs": "The Function's Own Queue Service"},
         "tables": []},
        {"template": True, "preloaded": True, "clients": sdk, "tables": []},
        {"template": False, "preloaded": False, "clients": sdk, "tables": []}]


def test_the_template_hands_its_workers_loaders_what_botocore_reads_and_no_more(tmp_path):
    """In a process of its own (the template changes botocore's Loader): after preload, a Loader that searches
    botocore's data only starts holding the files a client of the READ_SERVICES reads, equal to what a Loader reads
    from them; a Loader with another folder on its path (AWS_DATA_PATH) starts empty and reads for itself."""
    script = f'''
import json, sys
sys.path.insert(0, {str(python_template.SCRIPT.parent)!r})
import worker_template
worker_template.preload()
from botocore import loaders
read = loaders.Loader()._cache
fresh = loaders.Loader()
fresh._cache.clear()
print(json.dumps({{
    "read": sorted({{key[1] for key in read if key[0] == "load_data_with_path"}}),
    "same": all(fresh.load_data_with_path(key[1]) == read[key] for key in read if key[0] == "load_data_with_path"),
    "elsewhere": len(loaders.create_loader({str(tmp_path)!r})._cache),
}}))
'''
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "HOME": str(tmp_path)})
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {
        "read": ["dynamodb/2012-08-10/endpoint-rule-set-1", "dynamodb/2012-08-10/service-2", "endpoints", "partitions",
                 "sdk-default-configuration", "sqs/2012-11-05/endpoint-rule-set-1", "sqs/2012-11-05/service-2"],
        "same": True, "elsewhere": 0}

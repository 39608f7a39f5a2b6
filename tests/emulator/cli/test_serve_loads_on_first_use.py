"""`eddy serve` loads what a request first needs (issue 39): a server that has answered only ListTables (the port's
early answer, then the engine's) has loaded
moto's DynamoDB and none of moto's other services, nor Spark, the dashboard, the function runtimes, the pollers,
Pipes, CloudFormation or moto's own server application, and runs no thread but its door's and the housekeeper's
(no poller, no replicator, no delivery thread); the objects its imports made are set apart from the garbage
collector (gc.freeze). Structural, not timed: the modules and threads the server process
has after its one answer (docs/performance.md has the times)."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import textwrap

#: the server in the main thread (as `eddy serve` runs); a thread asks ListTables until it answers, then prints
#: the answer and the modules loaded, and ends the process
PROBE = textwrap.dedent("""
    import gc, json, os, sys, threading, time, urllib.request
    from eddy.emulator.cli import main

    port, state_dir = sys.argv[1], sys.argv[2]

    def list_tables(body: bytes):
        return urllib.request.Request(f"http://127.0.0.1:{port}/", data=body, headers={
            "X-Amz-Target": "DynamoDB_20120810.ListTables", "Content-Type": "application/x-amz-json-1.0",
            "Authorization": "AWS4-HMAC-SHA256 Credential=eddy/20260101/us-east-1/dynamodb/aws4_request, "
                             "SignedHeaders=host, Signature=0"})

    def ask() -> None:
        deadline = time.monotonic() + 300
        while True:  # until the server listens (connection refused before)
            try:
                urllib.request.urlopen(list_tables(b"{}"), timeout=60).read()  # answered before the engine is ready
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)
        # with a member: the engine's door answers it, once the engine is ready
        answer = json.loads(urllib.request.urlopen(list_tables(b'{"Limit": 100}'), timeout=300).read())
        threads = sorted(thread.name for thread in threading.enumerate() if thread.name.startswith("eddy-"))
        print(json.dumps({"answer": answer, "modules": sorted(sys.modules), "threads": threads,
                          "collecting": gc.isenabled(), "set apart": gc.get_freeze_count()}), flush=True)
        os._exit(0)

    threading.Thread(target=ask, daemon=True).start()
    main(["serve", "--port", port, "--state-dir", state_dir])
""")

NOT_LOADED = ("moto.awslambda", "moto.sqs", "moto.sns", "moto.s3", "moto.events", "moto.cloudformation",
              "moto.kms", "moto.logs", "moto.moto_server", "flask", "pyspark", "pyarrow", "eddy.spark_batch",
              "eddy.infra", "eddy.emulator.dashboard", "eddy.emulator.api.dashboard_api",
              "eddy.emulator.functions.runtimes", "eddy.emulator.triggers.pollers",
              "eddy.emulator.pipes", "eddy.emulator.cloudformation", "eddy.emulator.api.cloudformation",
              "eddy.emulator.api.lambda_.door", "eddy.emulator.moto_seam.notifications.object_events",
              "eddy.emulator.moto_seam.eventbridge.rules")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_a_server_that_answered_only_list_tables_has_loaded_only_dynamodb(tmp_path):
    done = subprocess.run([sys.executable, "-c", PROBE, str(_free_port()), str(tmp_path / "state")],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["answer"] == {"TableNames": []}
    modules = seen["modules"]
    assert {"moto.dynamodb.models", "eddy.emulator.api.dynamodb.door"} <= set(modules)
    assert seen["threads"] == ["eddy-housekeeper", "eddy-server"]
    # the objects the start's imports made are set apart from the collector's full collections, which run again
    assert seen["collecting"] is True and seen["set apart"] > 50_000
    assert [name for name in modules if name in NOT_LOADED or name.startswith(tuple(p + "." for p in NOT_LOADED))] == []

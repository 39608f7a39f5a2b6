"""EventBridge rules' deliveries survive a kill -9 in the middle of them: every event PutEvents accepted reaches the
rule's SQS target and its Lambda targets (Python and Node.js) after the restart, none lost, each delivered once more
at most (at least once). Both doors: the server killed right after its last PutEvents answered, and a process
running emulate() ending as a kill -9 would (os._exit) right after its last PutEvents (and once after a snapshot
taken with deliveries on their way). The write-ahead log (and snapshot) at the kill is read to make sure deliveries were still on their way then (else the test would prove nothing)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
from collections import Counter
from pathlib import Path

import pytest

from eddy import emulate
from eddy.emulator.storage.snapshots import read_snapshot
from eddy.emulator.storage.wal import read_entries
from tests.conftest import QUIET, InProcessDoor, ServerDoor, eddy_server
from tests.durability.service_listings import drain, running
from tests.emulator.trigger_helpers import SETTLE_SECONDS, create_zip_function
from tests.emulator.triggers.sqs_helpers import queue

EVENTS = 20  # each a cold start of two functions after the restart: few enough for a busy machine

# each notes the event it is handed, a line in the file SEEN names (outside the state directory): a function that
# imported an SDK to tell a queue spent most of the test's CPU importing it, at each of its cold starts
SEEN = {"python": '''
import json, os
def handler(event, context):
    with open(os.environ["SEEN"], "a") as out:
        out.write(json.dumps({"n": event["detail"]["n"], "request": context.aws_request_id}) + "\\n")
''', "node": """
const fs = require('fs');
exports.handler = async (event, context) => {
  fs.appendFileSync(process.env.SEEN, JSON.stringify({ n: event.detail.n, request: context.awsRequestId }) + "\\n");
};
"""}

PUT_AND_DIE = textwrap.dedent('''
    import json, os, sys, boto3
    from eddy import emulate
    with emulate(state_dir=sys.argv[1], housekeeping_interval=None) as emu:
        events = boto3.client("events", region_name="us-east-1")
        for start in range(0, int(sys.argv[2]), 10):
            answer = events.put_events(Entries=[{"Source": "shop", "DetailType": "order placed",
                                                 "Detail": json.dumps({"n": n})} for n in range(start, start + 10)])
            assert answer["FailedEntryCount"] == 0, answer
        if sys.argv[3] == "snapshot":  # a snapshot while deliveries are on their way keeps them
            with emu.lock:
                emu.persistence.snapshot()
        os._exit(0)  # as kill -9 would, PutEvents answered: no final snapshot, deliveries still on their way
''')


def build(door, notes: Path) -> None:
    """A queue target "copies" and two function targets ("python", "node") noting each event in notes/seen-<runtime>."""
    sqs, lam, events = door.client("sqs"), door.client("lambda"), door.client("events")
    _, copies = queue(sqs, "copies")
    targets = [{"Id": "queue", "Arn": copies}]
    for runtime in SEEN:
        # a generous timeout: after the restart every event's first attempt starts at once, on a busy machine
        function = create_zip_function(lam, f"seen-{runtime}", runtime, SEEN[runtime], Timeout=300,
                                       Environment={"Variables": {"SEEN": str(notes / f"seen-{runtime}")}})
        targets.append({"Id": runtime, "Arn": function["FunctionArn"]})
    events.put_rule(Name="orders", EventPattern=json.dumps({"source": ["shop"]}))
    events.put_targets(Rule="orders", Targets=targets)


def put_events(door) -> None:
    events = door.client("events")
    for start in range(0, EVENTS, 10):
        answer = events.put_events(Entries=[{"Source": "shop", "DetailType": "order placed",
                                             "Detail": json.dumps({"n": n})} for n in range(start, start + 10)])
        assert answer["FailedEntryCount"] == 0


def deliveries_not_done(state: Path) -> int:
    """How many rule deliveries the newest snapshot and the write-ahead log after it hold as written down and not
    done (read as the kill left them)."""
    saved, done = set(), set()
    snapshots = sorted((state / "snapshots").glob("*.snapshot"), key=lambda path: int(path.stem))
    generation = int(snapshots[-1].stem) if snapshots else 0
    if snapshots:
        saved |= {entry["state"]["id"] for entry in read_snapshot(snapshots[-1]) if entry["kind"] == "rule_delivery"}
    for path in sorted((state / "wal").glob("*.log"), key=lambda path: int(path.stem)):
        if int(path.stem) < generation:
            continue
        for entry in read_entries(path, repair=False):
            if entry["op"] == "rule_delivery":
                saved.add(entry["state"]["id"])
            elif entry["op"] == "rule_delivery_done":
                done.add(entry["id"])
    return len(saved - done)


@pytest.mark.parametrize("kind, snapshot", [("server", "no"), ("inprocess", "no"), ("inprocess", "snapshot")])
def test_every_accepted_event_reaches_its_rules_targets_after_a_kill_in_the_middle_of_deliveries(kind, snapshot,
                                                                                                 tmp_path):
    state = tmp_path / "state"
    if kind == "server":
        with eddy_server("--state-dir", str(state), "--housekeeping-interval", "0") as (url, server):
            door = ServerDoor(url)
            build(door, tmp_path)
            put_events(door)
            os.kill(server.pid, signal.SIGKILL)
            server.wait(timeout=30)
    else:
        with emulate(state_dir=str(state), **QUIET) as emu:
            build(InProcessDoor(emu), tmp_path)
        subprocess.run([sys.executable, "-c", PUT_AND_DIE, str(state), str(EVENTS), snapshot], check=True, timeout=300,
                       cwd=Path(__file__).resolve().parents[2])
    assert deliveries_not_done(state) > 0  # the kill came in the middle of the deliveries

    with running(kind, str(state)) as door:
        report = door.wait_idle(SETTLE_SECONDS)
        assert report["Idle"] and report["Failures"] == [], json.dumps(report)[:3000]
        sqs = door.client("sqs")
        copies = Counter(json.loads(body)["detail"]["n"] for body in drain(sqs, "copies"))
        assert set(copies) == set(range(EVENTS))  # none lost
        assert max(copies.values()) <= 2  # once more at most: a delivery sent at the kill, not yet written down done
        for runtime in SEEN:
            seen = [json.loads(line) for line in (tmp_path / f"seen-{runtime}").read_text().splitlines()]
            assert {entry["n"] for entry in seen} == set(range(EVENTS)), runtime
            # each event was queued for the function once, or twice if its delivery was sent again (a request id
            # seen twice is the function's own queue trying an attempt that was running at the kill again)
            requests = Counter(entry["n"] for entry in {(e["n"], e["request"]): e for e in seen}.values())
            assert max(requests.values()) <= 2, runtime
    assert deliveries_not_done(state) == 0

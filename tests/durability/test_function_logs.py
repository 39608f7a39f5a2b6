"""Function logs survive kill -9: every invocation answered before the kill has its log events in CloudWatch Logs
after the restart, exactly as before (GetLogEvents and FilterLogEvents compared), in both doors (the server
killed under a client, and a process running emulate() killing itself after its invocations)."""

from __future__ import annotations

import json
import textwrap

import pytest

from tests.durability.killed_workloads import acknowledged_then_killed
from tests.durability.service_listings import running

GROUP = "/aws/lambda/talks"
WORKLOAD = textwrap.dedent('''
    import io, json, zipfile

    def workload(lam, logs):
        package = io.BytesIO()
        with zipfile.ZipFile(package, "w") as archive:
            archive.writestr("app.py", "def handler(event, context):\\n    print('invocation', event['n'])\\n"
                                       "    if event['n'] % 3 == 0:\\n        raise ValueError('boom %d' % event['n'])\\n"
                                       "    return event\\n")
        lam.create_function(FunctionName="talks", Runtime="python3.11", Handler="app.handler",
                            Role="arn:aws:iam::123456789012:role/lambda-role", Code={"ZipFile": package.getvalue()})
        lam.get_waiter("function_active").wait(FunctionName="talks")  # Active before it is used
        for n in range(12):
            lam.invoke(FunctionName="talks", Payload=json.dumps({"n": n}).encode())
        seen = logs.filter_log_events(logGroupName="/aws/lambda/talks")["events"]
        print("ACKED " + json.dumps([[e["logStreamName"], e["timestamp"], e["message"]] for e in seen]), flush=True)

    from tests.durability.killed_workloads import run_workload
    run_workload(lambda client: workload(client("lambda"), client("logs")), attempts=1)
''')


@pytest.mark.parametrize("kind", ["server", "inprocess"])
def test_function_logs_survive_kill_9(kind, tmp_path):
    state = str(tmp_path / "state")
    before = json.loads(acknowledged_then_killed(kind, state, WORKLOAD))
    assert sum(message.startswith("START RequestId") for _, _, message in before) == 12
    assert sum("boom 9" in message for _, _, message in before) == 1
    for restart in ("from the log", "from the snapshot a clean stop wrote"):
        with running(kind, state) as door:
            logs = door.client("logs")
            after = [[e["logStreamName"], e["timestamp"], e["message"]]
                     for e in logs.filter_log_events(logGroupName=GROUP)["events"]]
            assert after == before, restart
            for stream in {name for name, _, _ in before}:
                read = logs.get_log_events(logGroupName=GROUP, logStreamName=stream, startFromHead=True)["events"]
                assert [[stream, e["timestamp"], e["message"]] for e in read] == [e for e in before if e[0] == stream]

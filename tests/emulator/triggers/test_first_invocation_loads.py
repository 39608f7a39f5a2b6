"""What a function's first invocation loads (moto's CloudWatch Logs, for its log; the runtimes' Lambda variables) is
loaded when a mapping's runner starts, before any write is made: the first write after CreateEventSourceMapping
does not wait for an import between its commit and its handler (issue 39's write -> handler p99; before, the second
write's handler waited 0.25-0.46 s for moto's CloudWatch Logs to load). Structural, not timed: which modules a fresh
process has loaded once the mapping exists and nothing was invoked, then the invocation's log in CloudWatch Logs."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

PROBE = textwrap.dedent("""
    import json, sys
    import boto3
    from eddy import emulate

    with emulate(housekeeping_interval=None) as emu:
        dynamodb = boto3.client("dynamodb", region_name="us-east-1")
        arn = dynamodb.create_table(
            TableName="orders", KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
            AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}], BillingMode="PAY_PER_REQUEST",
            StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_IMAGE"},
        )["TableDescription"]["LatestStreamArn"]
        seen = []
        emu.register_function("on_order", lambda event, context: seen.append(len(event["Records"])))
        wanted = ("moto.logs.models", "eddy.emulator.functions.runtimes.base")
        before = [name for name in wanted if name in sys.modules]
        boto3.client("lambda", region_name="us-east-1").create_event_source_mapping(
            EventSourceArn=arn, FunctionName="on_order", StartingPosition="LATEST")
        after = [name for name in wanted if name in sys.modules]
        dynamodb.put_item(TableName="orders", Item={"pk": {"S": "o1"}})
        emu.wait_idle(300)
        logs = boto3.client("logs", region_name="us-east-1")
        group = "/aws/lambda/on_order"
        stream = logs.describe_log_streams(logGroupName=group)["logStreams"][0]["logStreamName"]
        events = [e["message"].split(" ")[0] for e in logs.get_log_events(
            logGroupName=group, logStreamName=stream)["events"]]
        print(json.dumps({"before": before, "after": after, "seen": seen, "events": events}))
""")


def test_a_mappings_runner_loads_what_the_first_invocation_needs_before_any_write():
    done = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.strip().splitlines()[-1]) == {
        "before": [],
        "after": ["moto.logs.models", "eddy.emulator.functions.runtimes.base"],
        "seen": [1],
        "events": ["START", "END", "REPORT"],
    }

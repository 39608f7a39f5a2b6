"""EventBridge Pipes and rules, in-process: the record rate a pipe from a DynamoDB stream delivers to a no-op Lambda
target (BatchSize 100, one shard), beside an event source mapping draining the same kind of stream in the same run
(the pollers are the same: the difference is the pipe's delivery), and the events per second a rule delivers to a
no-op Lambda target (PutEvents 10 entries at a time, until all are delivered).

    .venv/bin/python bench/pipes.py [--records 40000] [--events 5000]
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import time

import boto3

from common import create_table, drain_rate, fill_table

os.environ.setdefault("AWS_ACCESS_KEY_ID", "bench")
os.environ.setdefault("AWS_SECRET_ACCESS_KEY", "bench")

FUNCTION_ARN = "arn:aws:lambda:us-east-1:123456789012:function:noop"


def pipe_rate(records: int) -> tuple[float, float]:
    """(records/s through a pipe, records/s through an event source mapping), each from its own stream."""
    from eddy import emulate

    received = [0]

    def handler(event, context):
        received[0] += len(event)

    with emulate(housekeeping_interval=None, split_records_per_second=None) as emu:
        dynamodb = boto3.client("dynamodb", region_name="us-east-1")
        arn = create_table(dynamodb, "orders", "NEW_AND_OLD_IMAGES")["LatestStreamArn"]
        fill_table(dynamodb, records)
        emu.register_function("noop-pipe", handler)
        gc.collect()
        started = time.perf_counter()
        boto3.client("pipes", region_name="us-east-1").create_pipe(
            Name="bench", Source=arn, Target=FUNCTION_ARN + "-pipe", RoleArn="arn:aws:iam::123456789012:role/pipes",
            SourceParameters={"DynamoDBStreamParameters": {"StartingPosition": "TRIM_HORIZON", "BatchSize": 100}})
        report = emu.wait_idle(600)
        elapsed = time.perf_counter() - started
        assert report["Idle"] and received[0] == records, (report, received[0])
        piped = records / elapsed
    with emulate(housekeeping_interval=None, split_records_per_second=None) as emu:
        dynamodb = boto3.client("dynamodb", region_name="us-east-1")
        arn = create_table(dynamodb, "orders", "NEW_AND_OLD_IMAGES")["LatestStreamArn"]
        fill_table(dynamodb, records)
        gc.collect()
        return piped, drain_rate(emu, arn, records)


def rule_rate(count: int) -> float:
    from eddy import emulate

    received = [0]

    def handler(event, context):
        received[0] += 1

    with emulate(housekeeping_interval=None) as emu:
        events = boto3.client("events", region_name="us-east-1")
        emu.register_function("noop", handler)
        events.put_rule(Name="all", EventPattern=json.dumps({"source": ["bench"]}))
        events.put_targets(Rule="all", Targets=[{"Id": "noop", "Arn": FUNCTION_ARN}])
        entry = {"Source": "bench", "DetailType": "tick", "Detail": "{}"}
        started = time.perf_counter()
        for _ in range(0, count, 10):
            events.put_events(Entries=[entry] * 10)
        report = emu.wait_idle(600)
        elapsed = time.perf_counter() - started
        assert report["Idle"] and received[0] == count // 10 * 10, (report, received[0])
        return received[0] / elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--records", type=int, default=40000)
    parser.add_argument("--events", type=int, default=5000)
    args = parser.parse_args()
    piped, mapped = pipe_rate(args.records)
    print(f"pipe, DynamoDB stream -> no-op Lambda target, BatchSize 100, one shard, {args.records} records: "
          f"{piped:,.0f} records/s (an event source mapping in the same run: {mapped:,.0f} records/s)")
    print(f"rule, PutEvents (10 a call) -> no-op Lambda target, {args.events} events: "
          f"{rule_rate(args.events):,.0f} events/s delivered")


if __name__ == "__main__":
    main()

"""Triggers, in-process: latency from PutItem returning to the handler starting, and the record rate a
no-op handler receives at BatchSize 100. Targets (issue 3): p50 <= 10 ms, p99 <= 50 ms; >= 20,000 records/s; issue 39's
p99 <= 2 ms, >= 100,000 records/s.
For scale: AWS polls each shard about 4 times a second (up to ~250 ms), LocalStack once a second.

    .venv/bin/python bench/triggers.py [--writes 300] [--records 40000]
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import threading
import time

import boto3

from common import create_table, drain_rate, fill_table, item

os.environ.setdefault("AWS_ACCESS_KEY_ID", "bench")
os.environ.setdefault("AWS_SECRET_ACCESS_KEY", "bench")


def latency(writes: int) -> list[float]:
    from eddy import emulate

    started_at: dict[str, float] = {}
    arrived = threading.Event()

    def handler(event, context):
        now = time.perf_counter()
        for record in event["Records"]:
            started_at.setdefault(record["dynamodb"]["Keys"]["pk"]["S"], now)
        arrived.set()

    samples = []
    with emulate(housekeeping_interval=None, split_records_per_second=None) as emu:
        dynamodb = boto3.client("dynamodb", region_name="us-east-1")
        arn = create_table(dynamodb, "orders", "NEW_AND_OLD_IMAGES")["LatestStreamArn"]
        emu.register_function("probe", handler)
        boto3.client("lambda", region_name="us-east-1").create_event_source_mapping(
            EventSourceArn=arn, FunctionName="probe", StartingPosition="LATEST", BatchSize=100)
        for i in range(writes):
            key = f"user#{i}"
            arrived.clear()
            dynamodb.put_item(TableName="orders", Item=dict(item(i), pk={"S": key}))
            returned = time.perf_counter()
            arrived.wait(5)
            samples.append((started_at[key] - returned) * 1000)
    return samples


def throughput(records: int, collect_first: bool) -> tuple[float, float]:
    """`collect_first`: a full garbage collection between filling the table and draining it, so that one the
    fill's allocations have made due (~0.4 s on a heap of ~900,000 objects) is not timed as the drain's.
    Records per second of wall time and per CPU second of the process (other work on the machine weighs less)."""
    from eddy import emulate

    with emulate(housekeeping_interval=None, split_records_per_second=None) as emu:
        dynamodb = boto3.client("dynamodb", region_name="us-east-1")
        arn = create_table(dynamodb, "orders", "NEW_AND_OLD_IMAGES")["LatestStreamArn"]
        fill_table(dynamodb, records)
        if collect_first:
            gc.collect()
        started = time.process_time()
        rate = drain_rate(emu, arn, records)
        return rate, records / (time.process_time() - started)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--writes", type=int, default=300)
    parser.add_argument("--records", type=int, default=40000)
    args = parser.parse_args()
    samples = sorted(latency(args.writes))
    p50 = statistics.median(samples)
    p99 = samples[min(len(samples) - 1, int(len(samples) * 0.99))]
    print(f"PutItem -> handler start, in-process, {args.writes} writes: p50 {p50:.2f} ms, p99 {p99:.2f} ms "
          f"(targets: p50 <= 10 ms, p99 <= 50 ms; AWS polls every ~250 ms, LocalStack every 1000 ms)")
    for collect_first in (False, True):
        rate, cpu_rate = throughput(args.records, collect_first)
        print(f"no-op handler, BatchSize 100, one shard, {args.records} records"
              f"{', garbage collected before the drain' if collect_first else ''}: {rate:,.0f} records/s,"
              f" {cpu_rate:,.0f} records/CPU-s (target >= 100,000)")


if __name__ == "__main__":
    main()

"""Durable state: PutItem throughput with a state directory vs in-memory, and restart time with 1 million
retained stream records. Targets (issue 6): durable >= 0.8x in-memory; restart < 10 s.

    .venv/bin/python bench/durability.py [--items 3000] [--records 1000000]

The million records are written through moto's table and Eddy's capture in-process (the DynamoDB write path
without botocore and HTTP, which would take a quarter of an hour); the restart is timed in a fresh process.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

import boto3

from common import create_table, item, median_rate

os.environ.setdefault("AWS_ACCESS_KEY_ID", "bench")
os.environ.setdefault("AWS_SECRET_ACCESS_KEY", "bench")


def put_rate(count: int, state_dir: str | None) -> float:
    """PutItem per second over `count` puts, in a fresh emulator (durable when `state_dir` is given)."""
    from eddy import emulate

    with emulate(state_dir=state_dir, housekeeping_interval=None) as emu:
        dynamodb = boto3.client("dynamodb", region_name="us-east-1")
        create_table(dynamodb, "orders", "NEW_AND_OLD_IMAGES")

        def work() -> int:
            for i in range(count):
                dynamodb.put_item(TableName="orders", Item=item(i))
            return count

        return median_rate(work, 1)


def put_rates(count: int, rounds: int) -> tuple[float, float]:
    """Medians of in-memory and durable rates, measured in alternation so that drift on the machine hits both."""
    memory, durable = [], []
    for _ in range(rounds):
        memory.append(put_rate(count, None))
        with tempfile.TemporaryDirectory() as state_dir:
            durable.append(put_rate(count, state_dir))
    return statistics.median(memory), statistics.median(durable)


def fill(state_dir: str, records: int) -> None:
    from eddy import emulate
    from eddy.emulator.moto_seam import bridge as moto_bridge

    with emulate(state_dir=state_dir, housekeeping_interval=None, split_records_per_second=None) as emu:
        dynamodb = boto3.client("dynamodb", region_name="us-east-1")
        create_table(dynamodb, "orders", "NEW_AND_OLD_IMAGES")
        table = moto_bridge.find_table("123456789012", "us-east-1", "orders")
        started = time.perf_counter()
        for i in range(records):
            with emu.lock:  # as the DynamoDB front door does around every operation
                emu.capture.begin()
                try:
                    table.put_item(dict(item(i), pk={"S": f"user#{i % 20000}"}))
                finally:
                    emu.capture.end()
        print(f"  wrote {records:,} records in {time.perf_counter() - started:.0f} s", flush=True)


RESTART = '''
import sys, time
started = time.perf_counter()
from moto import mock_aws
from eddy import Emulator
with mock_aws():
    emu = Emulator(state_dir=sys.argv[1], housekeeping_interval=None)
    emu.recover()
    elapsed = time.perf_counter() - started
    count = sum(len(shard.records) for stream in emu.streams.streams.values() for shard in stream.shards.values())
    print(f"{elapsed:.2f} {count}")
    emu.close(keep_state=True)
'''


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--items", type=int, default=3000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--records", type=int, default=1_000_000)
    args = parser.parse_args()
    put_rate(200, None)  # warm up
    memory, durable = put_rates(args.items, args.rounds)
    print(f"PutItem, in-process, {args.items} items x {args.rounds} rounds in alternation (median), NEW_AND_OLD_IMAGES stream")
    print(f"  in-memory: {memory:8.0f} puts/s")
    print(f"  durable:   {durable:8.0f} puts/s")
    print(f"  ratio durable / in-memory: {durable / memory:.2f}x (target >= 0.8x)")
    with tempfile.TemporaryDirectory() as state_dir:
        fill(state_dir, args.records)
        result = subprocess.run([sys.executable, "-c", RESTART, state_dir], capture_output=True, text=True, check=True)
        elapsed, count = result.stdout.split()
        print(f"restart with {int(count):,} retained records: {float(elapsed):.2f} s, from a fresh process (target < 10 s)")


if __name__ == "__main__":
    main()

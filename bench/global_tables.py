"""Global tables, in-process: replicated writes per second between two regions (issue 30's figure).

A table in us-east-1 with a replica in eu-west-1 (replication delay 0). Writes are made while eu-west-1 is paused
(a region outage), then the region is resumed and the time until every write has been applied there is measured:
the replicator's own rate. Beside it, in the same run, the same writes made to the same table in us-east-1 (each
PutItem through boto3): how fast the writes come in, for scale.

    .venv/bin/python bench/global_tables.py [--writes 20000]
"""

from __future__ import annotations

import argparse
import gc
import os
import time

import boto3

from common import item

os.environ.setdefault("AWS_ACCESS_KEY_ID", "bench")
os.environ.setdefault("AWS_SECRET_ACCESS_KEY", "bench")

KEYS = dict(KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
            AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}], BillingMode="PAY_PER_REQUEST")


def run(writes: int) -> tuple[float, float]:
    from eddy import emulate

    with emulate(housekeeping_interval=None, split_records_per_second=None, replication_delay_seconds=0) as emu:
        east = boto3.client("dynamodb", region_name="us-east-1")
        west = boto3.client("dynamodb", region_name="eu-west-1")
        east.create_table(TableName="scores", **KEYS)
        east.update_table(TableName="scores", ReplicaUpdates=[{"Create": {"RegionName": "eu-west-1"}}])
        emu.replication.pause("eu-west-1")
        gc.collect()
        started = time.perf_counter()
        for i in range(writes):
            east.put_item(TableName="scores", Item=dict(item(i), pk={"S": f"user#{i}"}))
        written = time.perf_counter() - started
        gc.collect()
        started = time.perf_counter()
        emu.replication.resume("eu-west-1")
        assert emu.replication.wait_replicated(timeout=600)["Converged"]
        replicated = time.perf_counter() - started
        assert west.describe_table(TableName="scores")["Table"]["ItemCount"] == writes
        return writes / written, writes / replicated


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--writes", type=int, default=20000)
    args = parser.parse_args()
    put_rate, replicated_rate = run(args.writes)
    print(f"global tables, {args.writes} writes us-east-1 -> eu-west-1 (in-process):")
    print(f"  PutItem in us-east-1:               {put_rate:>9,.0f} writes/s")
    print(f"  replicated into eu-west-1:          {replicated_rate:>9,.0f} writes/s "
          f"({replicated_rate / put_rate:.2f}x the rate they were written)")


if __name__ == "__main__":
    main()

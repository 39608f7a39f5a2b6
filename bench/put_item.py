"""PutItem through boto3, in-process: Eddy on a table with a NEW_AND_OLD_IMAGES stream vs moto on a table
without one, measured in the same run. Target (issue 11): Eddy >= 1.4x moto (issue 2 asked 0.9x).

    .venv/bin/python bench/put_item.py [--items 3000] [--rounds 5]
"""

from __future__ import annotations

import argparse
import os
import time

import boto3
from moto import mock_aws

from common import alternating_rounds, create_table, item, median_rate

os.environ.setdefault("AWS_ACCESS_KEY_ID", "bench")
os.environ.setdefault("AWS_SECRET_ACCESS_KEY", "bench")


def put_many(dynamodb, table: str, count: int, offset: list[int]) -> int:
    start = offset[0]
    for i in range(start, start + count):
        dynamodb.put_item(TableName=table, Item=item(i))
    offset[0] += count
    return count


def measure(system: str, count: int) -> dict[str, float]:
    """One round on a fresh `system`: moto's mock with a table without a stream, or emulate() with one.
    PutItems per second of wall time, and CPU microseconds of the process a put (other work on the machine
    weighs less on CPU time)."""
    if system == "moto":
        context, view_type = mock_aws(), None
    else:
        from eddy import emulate

        context, view_type = emulate(housekeeping_interval=None), "NEW_AND_OLD_IMAGES"
    with context:
        dynamodb = boto3.client("dynamodb", region_name="us-east-1")
        create_table(dynamodb, "bench", view_type=view_type)
        started = time.process_time()
        rate = median_rate(lambda: put_many(dynamodb, "bench", count, [0]), 1)
        return {"PutItem": rate, "CPU": (time.process_time() - started) / count * 1e6}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--items", type=int, default=3000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    measure("moto", 200)  # warm both up
    measure("eddy", 200)
    figures = alternating_rounds(lambda system: measure(system, args.items), args.rounds)
    moto_rate, eddy_rate = figures["moto"]["PutItem"], figures["eddy"]["PutItem"]
    print(f"PutItem, in-process, {args.items} items x {args.rounds} rounds (median; moto and Eddy rounds alternate)")
    print(f"  moto, table without a stream:          {moto_rate:8.0f} puts/s  {figures['moto']['CPU']:6.0f} µs CPU a put")
    print(f"  Eddy, table with NEW_AND_OLD_IMAGES:   {eddy_rate:8.0f} puts/s  {figures['eddy']['CPU']:6.0f} µs CPU a put")
    print(f"  ratio Eddy / moto: {eddy_rate / moto_rate:.2f}x (target >= 1.40x)")


if __name__ == "__main__":
    main()

"""PutItem through boto3, in-process: Eddy on a table with a NEW_AND_OLD_IMAGES stream vs moto on a table
without one, measured in the same run. Target (issue 11): Eddy >= 1.4x moto (issue 2 asked 0.9x).

    .venv/bin/python bench/put_item.py [--items 3000] [--rounds 5]
"""

from __future__ import annotations

import argparse
import os

import boto3
from moto import mock_aws

from common import moto_first, create_table, item, median_rate

os.environ.setdefault("AWS_ACCESS_KEY_ID", "bench")
os.environ.setdefault("AWS_SECRET_ACCESS_KEY", "bench")


def put_many(dynamodb, table: str, count: int, offset: list[int]) -> int:
    start = offset[0]
    for i in range(start, start + count):
        dynamodb.put_item(TableName=table, Item=item(i))
    offset[0] += count
    return count


def measure_moto(count: int, rounds: int) -> float:
    with mock_aws():
        dynamodb = boto3.client("dynamodb", region_name="us-east-1")
        create_table(dynamodb, "plain", view_type=None)
        offset = [0]
        return median_rate(lambda: put_many(dynamodb, "plain", count, offset), rounds)


def measure_eddy(count: int, rounds: int) -> float:
    from emulator import emulate

    with emulate(housekeeping_interval=None):
        dynamodb = boto3.client("dynamodb", region_name="us-east-1")
        create_table(dynamodb, "streamed", view_type="NEW_AND_OLD_IMAGES")
        offset = [0]
        return median_rate(lambda: put_many(dynamodb, "streamed", count, offset), rounds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--items", type=int, default=3000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    moto_first()
    measure_moto(200, 1)  # warm up
    moto_rate = measure_moto(args.items, args.rounds)
    measure_eddy(200, 1)
    eddy_rate = measure_eddy(args.items, args.rounds)
    print(f"PutItem, in-process, {args.items} items x {args.rounds} rounds (median)")
    print(f"  moto, table without a stream:          {moto_rate:8.0f} puts/s")
    print(f"  Eddy, table with NEW_AND_OLD_IMAGES:   {eddy_rate:8.0f} puts/s")
    print(f"  ratio Eddy / moto: {eddy_rate / moto_rate:.2f}x (target >= 1.40x)")


if __name__ == "__main__":
    main()

"""GetRecords of 1000 NEW_AND_OLD_IMAGES records through boto3, in-process: Eddy vs moto's own GetRecords,
measured in the same run. Target (issue 2): Eddy >= 5x moto.

moto 5.2 does not route botocore's current Streams endpoint (https://<account>.streams-ddb.<region>...), so
moto's client is pointed at the endpoint moto does route (https://streams.dynamodb.<region>.amazonaws.com).

    .venv/bin/python bench/get_records.py [--calls 30] [--rounds 5]
"""

from __future__ import annotations

import argparse
import os

import boto3
from moto import mock_aws

from common import create_table, item, median_rate

os.environ.setdefault("AWS_ACCESS_KEY_ID", "bench")
os.environ.setdefault("AWS_SECRET_ACCESS_KEY", "bench")
RECORDS = 1000


def fill(dynamodb) -> str:
    arn = create_table(dynamodb, "orders", "NEW_AND_OLD_IMAGES")["LatestStreamArn"]
    for i in range(RECORDS):
        dynamodb.put_item(TableName="orders", Item=item(i))
    return arn


def reader(streams, arn: str, calls: int):
    shard_id = streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"][0]["ShardId"]

    def read() -> int:
        count = 0
        for _ in range(calls):
            iterator = streams.get_shard_iterator(StreamArn=arn, ShardId=shard_id,
                                                  ShardIteratorType="TRIM_HORIZON")["ShardIterator"]
            records = streams.get_records(ShardIterator=iterator, Limit=RECORDS)["Records"]
            assert len(records) == RECORDS, len(records)
            count += len(records)
        return count

    return read


def measure_moto(calls: int, rounds: int) -> float:
    with mock_aws():
        arn = fill(boto3.client("dynamodb", region_name="us-east-1"))
        streams = boto3.client("dynamodbstreams", region_name="us-east-1",
                               endpoint_url="https://streams.dynamodb.us-east-1.amazonaws.com")
        return median_rate(reader(streams, arn, calls), rounds)


def measure_eddy(calls: int, rounds: int) -> float:
    from eddy import emulate

    # one shard for the whole run: no load splits while filling
    with emulate(housekeeping_interval=None, split_records_per_second=None):
        arn = fill(boto3.client("dynamodb", region_name="us-east-1"))
        streams = boto3.client("dynamodbstreams", region_name="us-east-1")
        return median_rate(reader(streams, arn, calls), rounds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--calls", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    moto_rate = measure_moto(args.calls, args.rounds)
    eddy_rate = measure_eddy(args.calls, args.rounds)
    print(f"GetRecords of {RECORDS} NEW_AND_OLD_IMAGES records, in-process, {args.calls} calls x {args.rounds} rounds (median)")
    print(f"  moto: {moto_rate:9.0f} records/s")
    print(f"  Eddy: {eddy_rate:9.0f} records/s")
    print(f"  ratio Eddy / moto: {eddy_rate / moto_rate:.1f}x (target >= 5x)")


if __name__ == "__main__":
    main()

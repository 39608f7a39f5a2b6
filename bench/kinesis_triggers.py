"""Kinesis triggers, in-process: the record rate a no-op handler receives through an event source mapping on a
Kinesis data stream (BatchSize 100, one shard), against its peer measured in the same run: the same number of
records through a mapping on a DynamoDB stream. Rounds alternate; the best of each is reported.

    .venv/bin/python bench/kinesis_triggers.py [--records 20000] [--rounds 2]
"""

from __future__ import annotations

import argparse
import json
import os

import boto3

from common import create_table, drain_rate, fill_table, item

os.environ.setdefault("AWS_ACCESS_KEY_ID", "bench")
os.environ.setdefault("AWS_SECRET_ACCESS_KEY", "bench")


def kinesis_rate(records: int) -> float:
    from eddy import emulate

    with emulate(housekeeping_interval=None) as emu:
        kinesis = boto3.client("kinesis", region_name="us-east-1")
        kinesis.create_stream(StreamName="events", ShardCount=1)
        arn = kinesis.describe_stream_summary(StreamName="events")["StreamDescriptionSummary"]["StreamARN"]
        for start in range(0, records, 500):
            kinesis.put_records(StreamName="events", Records=[
                {"PartitionKey": f"user#{i}", "Data": json.dumps(item(i), default=str).encode()}
                for i in range(start, min(start + 500, records))])
        return drain_rate(emu, arn, records)


def dynamodb_rate(records: int) -> float:
    from eddy import emulate

    with emulate(housekeeping_interval=None, split_records_per_second=None) as emu:
        dynamodb = boto3.client("dynamodb", region_name="us-east-1")
        arn = create_table(dynamodb, "orders", "NEW_AND_OLD_IMAGES")["LatestStreamArn"]
        fill_table(dynamodb, records)
        return drain_rate(emu, arn, records)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--records", type=int, default=20000)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    kinesis, dynamodb = [], []
    for _ in range(args.rounds):
        kinesis.append(kinesis_rate(args.records))
        dynamodb.append(dynamodb_rate(args.records))
    best_k, best_d = max(kinesis), max(dynamodb)
    print(f"no-op handler, BatchSize 100, one shard, {args.records} records")
    print(f"  Kinesis stream mapping:  {best_k:,.0f} records/s")
    print(f"  DynamoDB stream mapping: {best_d:,.0f} records/s (peer)")
    print(f"  ratio: {best_k / best_d:.2f}x")


if __name__ == "__main__":
    main()

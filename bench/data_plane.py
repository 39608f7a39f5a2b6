"""The DynamoDB data plane through boto3, in-process: Eddy against moto, measured in the same run.

PutItem (Eddy's table has a NEW_AND_OLD_IMAGES stream, moto's has none), GetItem, Query (one partition of
10 items) and BatchWriteItem (25 puts, each changing an item the PutItem round wrote). Target (issue 11): Eddy
>= 1.4x moto on each. "BatchWriteItem (no stream)" is the same batches on a table without a stream in both (the
PutItem round that fills it not timed): like for like, without change capture.

Each timed phase starts after a full garbage collection, in both systems alike. Without it a phase is charged for
a collection the phases before it made due: BatchWriteItem's short round (60 requests, about 0.2 s) would hold or
not hold a full collection (0.1-0.15 s in either system) depending on how much the PutItem, GetItem and Query
phases before it allocated, not on BatchWriteItem. Collections a phase's own work causes are still timed.

    .venv/bin/python bench/data_plane.py [--requests 1500] [--rounds 3] [--only PutItem,GetItem]
"""

from __future__ import annotations

import argparse
import gc
import os
from typing import Callable

import boto3
from moto import mock_aws

from common import alternating_rounds, item, median_rate

os.environ.setdefault("AWS_ACCESS_KEY_ID", "bench")
os.environ.setdefault("AWS_SECRET_ACCESS_KEY", "bench")

TARGET = 1.4
UNSTREAMED = "BatchWriteItem (no stream)"  # Eddy's table without a stream too


def create(dynamodb, name: str, streamed: bool) -> None:
    params = dict(TableName=name, BillingMode="PAY_PER_REQUEST",
                  KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
                  AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"},
                                        {"AttributeName": "sk", "AttributeType": "N"}])
    if streamed:
        params["StreamSpecification"] = {"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"}
    dynamodb.create_table(**params)


def row(i: int) -> dict:
    return dict(item(i), pk={"S": f"user#{i // 10 % 500}"}, sk={"N": str(i % 10)})


def workloads(dynamodb, table: str, count: int) -> dict[str, Callable[[], int]]:
    offset = [0]

    def put() -> int:
        start = offset[0]
        for i in range(start, start + count):
            dynamodb.put_item(TableName=table, Item=row(i))
        offset[0] += count
        return count

    def get() -> int:
        for i in range(count):
            dynamodb.get_item(TableName=table, Key={"pk": {"S": f"user#{i % 500}"}, "sk": {"N": str(i % 10)}})
        return count

    def query() -> int:
        for i in range(count):
            dynamodb.query(TableName=table, KeyConditionExpression="pk = :p",
                           ExpressionAttributeValues={":p": {"S": f"user#{i % 500}"}})
        return count

    generation = [0]

    def batch_write() -> int:  # every put changes an item PutItem wrote: for Eddy, a MODIFY record with both images
        batches = max(1, count // 25)
        generation[0] += 1
        for b in range(batches):
            dynamodb.batch_write_item(RequestItems={table: [
                {"PutRequest": {"Item": dict(row(b * 25 + i), name={"S": f"batch {generation[0]} {b * 25 + i}"})}}
                for i in range(25)]})
        return batches

    return {"PutItem": put, "GetItem": get, "Query": query, "BatchWriteItem": batch_write}


def unstreamed_batch_write(dynamodb, count: int) -> Callable[[], int]:
    """BatchWriteItem like for like: a table without a stream in both systems, its items written first (untimed)."""
    create(dynamodb, "plain", streamed=False)
    work = workloads(dynamodb, "plain", count)
    work["PutItem"]()
    return work["BatchWriteItem"]


def settled_rate(work: Callable[[], int]) -> float:
    """One timed run of `work` (operations/s), started after a full garbage collection (see the module's words)."""
    gc.collect()
    return median_rate(work, 1)


def measure(system: str, count: int, only: list[str]) -> dict[str, float]:
    """One round on a fresh `system` ("moto": moto's mock, no stream; "eddy": emulate(), a stream)."""
    if system == "moto":
        context = mock_aws()
    else:
        from eddy import emulate

        context = emulate(housekeeping_interval=None)
    with context:
        dynamodb = boto3.client("dynamodb", region_name="us-east-1")
        create(dynamodb, "bench", streamed=system == "eddy")
        work = workloads(dynamodb, "bench", count)
        rates = {"PutItem": settled_rate(work["PutItem"])}  # first: every key present before the reads
        rates.update({name: settled_rate(work[name]) for name in only if name in work and name != "PutItem"})
        if UNSTREAMED in only:
            rates[UNSTREAMED] = settled_rate(unstreamed_batch_write(dynamodb, count))
        return rates


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--requests", type=int, default=1500)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--only", default=f"PutItem,GetItem,Query,BatchWriteItem,{UNSTREAMED}")
    args = parser.parse_args()
    only = args.only.split(",")
    measure("moto", 100, only)  # warm both up
    measure("eddy", 100, only)
    figures = alternating_rounds(lambda system: measure(system, args.requests, only), args.rounds)
    moto, eddy = figures["moto"], figures["eddy"]
    print(f"DynamoDB data plane, in-process boto3, {args.requests} requests x {args.rounds} rounds (median requests/s; moto and Eddy rounds alternate)")
    print(f"  {'operation':26} {'moto':>8} {'Eddy':>8}  ratio (target >= {TARGET}x)")
    for name in only:
        print(f"  {name:26} {moto[name]:8.0f} {eddy[name]:8.0f}  {eddy[name] / moto[name]:.2f}x")
    print("  (Eddy's table has a NEW_AND_OLD_IMAGES stream, moto's none, except in the last row; BatchWriteItem counts"
          " requests of 25 puts, each changing an item)")


if __name__ == "__main__":
    main()

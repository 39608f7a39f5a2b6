"""Helpers the benchmarks share: timing loops and a table with a stream."""

from __future__ import annotations

import statistics
import time
from typing import Callable


def alternating_rounds(measure: Callable[[str], dict[str, float]], rounds: int) -> dict[str, dict[str, float]]:
    """{"moto": ..., "eddy": ...}: each a dict of medians over `rounds` rounds of `measure(system)`, the two
    systems in alternation, so that a busy spell of the machine falls on both rather than on one."""
    samples: dict[str, list[dict[str, float]]] = {"moto": [], "eddy": []}
    for _ in range(rounds):
        for system in samples:
            samples[system].append(measure(system))
    return {system: {name: statistics.median(run[name] for run in runs) for name in runs[0]}
            for system, runs in samples.items()}


def median_rate(work: Callable[[], int], rounds: int = 5) -> float:
    """Operations per second, the median of `rounds` runs of `work` (which returns how many it did)."""
    rates = []
    for _ in range(rounds):
        started = time.perf_counter()
        count = work()
        rates.append(count / (time.perf_counter() - started))
    return statistics.median(rates)


def create_table(dynamodb, name: str, view_type: str | None) -> dict:
    params = dict(TableName=name, KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                  AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}], BillingMode="PAY_PER_REQUEST")
    if view_type:
        params["StreamSpecification"] = {"StreamEnabled": True, "StreamViewType": view_type}
    return dynamodb.create_table(**params)["TableDescription"]


def item(i: int) -> dict:
    return {"pk": {"S": f"user#{i % 5000}"}, "name": {"S": f"name {i}"}, "count": {"N": str(i)},
            "tags": {"SS": ["a", "b"]}, "profile": {"M": {"city": {"S": "Lisbon"}, "age": {"N": "42"}}}}


def fill_table(dynamodb, records: int, name: str = "orders") -> None:
    """`records` items with distinct keys, written 25 at a time."""
    for start in range(0, records, 25):
        dynamodb.batch_write_item(RequestItems={name: [
            {"PutRequest": {"Item": dict(item(i), pk={"S": f"user#{i}"})}} for i in range(start, min(start + 25, records))]})


def drain_rate(emu, arn: str, records: int) -> float:
    """Records/s a no-op handler receives through a new TRIM_HORIZON mapping (BatchSize 100) on `arn`."""
    import boto3

    received = [0]

    def handler(event, context):
        received[0] += len(event["Records"])

    emu.register_function("noop", handler)
    started = time.perf_counter()
    boto3.client("lambda", region_name="us-east-1").create_event_source_mapping(
        EventSourceArn=arn, FunctionName="noop", StartingPosition="TRIM_HORIZON", BatchSize=100)
    report = emu.wait_idle(600)
    elapsed = time.perf_counter() - started
    assert report["Idle"] and received[0] == records, (report, received[0])
    return records / elapsed

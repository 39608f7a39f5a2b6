"""Helpers the benchmarks share: timing loops and a table with a stream."""

from __future__ import annotations

import statistics
import time
from typing import Callable


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

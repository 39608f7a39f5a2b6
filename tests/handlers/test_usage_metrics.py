"""eddy.handlers.usage_metrics: change counts per table, event type and time bucket, added atomically."""

from __future__ import annotations

from typing import Any

import pytest

from eddy.handlers import usage_metrics

from ..emulator.helpers import create_table
from .events import stream_records

T0 = 1_699_999_980  # a minute's start: 2023-11-14T22:13:00Z


@pytest.fixture
def metrics(dynamodb: Any, monkeypatch: pytest.MonkeyPatch) -> dict:
    create_table(dynamodb, "metrics", view_type=None)
    monkeypatch.setenv("METRICS_TABLE", "metrics")

    def read() -> dict:
        return {item["pk"]["S"]: {name: value.get("N", value.get("S")) for name, value in item.items() if name != "pk"}
                for item in dynamodb.scan(TableName="metrics")["Items"]}
    return read


def orders_records(dynamodb: Any, streams: Any, offsets: list[int]) -> list[dict]:
    """INSERT, MODIFY, REMOVE, INSERT, ... on table "orders", stamped T0 + each offset."""
    arn = create_table(dynamodb, "orders")["LatestStreamArn"]
    for n in range(len(offsets)):
        if n % 3 == 2:
            dynamodb.delete_item(TableName="orders", Key={"pk": {"S": "a"}})
        else:
            dynamodb.put_item(TableName="orders", Item={"pk": {"S": "a"}, "n": {"N": str(n)}})
    records = stream_records(streams, arn)
    for record, offset in zip(records, offsets, strict=True):
        record["dynamodb"]["ApproximateCreationDateTime"] = T0 + offset
    return records


def test_counts_per_bucket_and_event_type(dynamodb: Any, streams: Any, metrics: Any) -> None:
    records = orders_records(dynamodb, streams, [0, 10, 59, 60, 61, 125, 130])
    usage_metrics.handler({"Records": records[:4]}, None)
    usage_metrics.handler({"Records": records[4:]}, None)  # adds to the bucket the first batch began
    assert metrics() == {
        "orders#2023-11-14T22:13:00Z": {"table": "orders", "bucket_start": str(T0), "INSERT": "1", "MODIFY": "1",
                                        "REMOVE": "1"},
        "orders#2023-11-14T22:14:00Z": {"table": "orders", "bucket_start": str(T0 + 60), "INSERT": "1",
                                        "MODIFY": "1"},
        "orders#2023-11-14T22:15:00Z": {"table": "orders", "bucket_start": str(T0 + 120), "REMOVE": "1",
                                        "INSERT": "1"},
    }


def test_bucket_width_is_configurable(dynamodb: Any, streams: Any, metrics: Any,
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BUCKET_SECONDS", "3600")
    usage_metrics.handler({"Records": orders_records(dynamodb, streams, [0, 500, 1000, 2000])}, None)
    assert metrics() == {"orders#2023-11-14T22:00:00Z": {"table": "orders", "bucket_start": str(T0 - 780),
                                                         "INSERT": "2", "MODIFY": "1", "REMOVE": "1"}}


def test_redelivery_counts_again_as_documented(dynamodb: Any, streams: Any, metrics: Any) -> None:
    event = {"Records": orders_records(dynamodb, streams, [0, 1])}
    usage_metrics.handler(event, None)
    usage_metrics.handler(event, None)
    assert metrics()["orders#2023-11-14T22:13:00Z"]["INSERT"] == "2"


def test_real_creation_times_land_in_their_minute(dynamodb: Any, streams: Any, metrics: Any, emu: Any) -> None:
    arn = create_table(dynamodb, "orders")["LatestStreamArn"]
    dynamodb.put_item(TableName="orders", Item={"pk": {"S": "a"}})
    emu.clock.advance(120)
    dynamodb.put_item(TableName="orders", Item={"pk": {"S": "b"}})
    records = stream_records(streams, arn)
    usage_metrics.handler({"Records": records}, None)
    starts = {r["dynamodb"]["ApproximateCreationDateTime"] // 60 * 60 for r in records}
    assert {f"orders#{usage_metrics.bucket_label(s)}" for s in starts} == set(metrics())
    assert len(starts) == 2

"""Eddy in-process against the floors it cannot go under: boto3's own client cost, moto's mock_aws cycle.

The client floor is a boto3 client whose transport answers `{}` at once (botocore's before-send event returning
a canned AWSResponse): it serialises, signs and parses like any client and reaches no emulator. Rates are per
CPU second of this process (time.process_time), so other work on the machine weighs little.
"""

from __future__ import annotations

import gc
import statistics
import time
import tracemalloc
from typing import Any, Callable

import boto3
from botocore.awsrequest import AWSResponse
from moto import mock_aws

from peer_servers import item


class _CannedBody:
    def __init__(self) -> None:
        self._content = b"{}"

    def stream(self, **_):
        yield self._content

    def read(self, *_):
        content, self._content = self._content, b""
        return content


def _answer_empty(request, **_) -> AWSResponse:
    return AWSResponse(request.url, 200, {"x-amzn-RequestId": "floor"}, _CannedBody())


def floor_client():
    dynamodb = boto3.client("dynamodb", region_name="us-east-1", aws_access_key_id="bench",
                            aws_secret_access_key="bench")
    dynamodb.meta.events.register_first("before-send.dynamodb", _answer_empty)
    return dynamodb


def create_streamed(dynamodb, name: str = "bench", stream: bool = True) -> None:
    params = dict(TableName=name, KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                  AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}], BillingMode="PAY_PER_REQUEST")
    if stream:
        params["StreamSpecification"] = {"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"}
    dynamodb.create_table(**params)


def cpu_rate(work: Callable[[int], None], count: int) -> float:
    """Calls per CPU second of `work(i)` over `count` calls, after a full collection."""
    gc.collect()
    started = time.process_time()
    for i in range(count):
        work(i)
    return count / (time.process_time() - started)


def put_and_get(dynamodb, count: int, offset: int) -> dict[str, float]:
    put = cpu_rate(lambda i: dynamodb.put_item(TableName="bench", Item=dict(item(i), pk={"S": f"k{offset + i}"})), count)
    get = cpu_rate(lambda i: dynamodb.get_item(TableName="bench", Key={"pk": {"S": f"k{offset + i}"}}), count)
    return {"PutItem": put, "GetItem": get}


def against_floor(count: int, rounds: int) -> dict[str, dict[str, float]]:
    """{"floor": {...}, "eddy": {...}}: PutItem (a NEW_AND_OLD_IMAGES stream) and GetItem per CPU second, medians
    of `rounds` rounds, the two in alternation; the floor's rounds with no emulator active (emulate() adds its
    botocore handlers to every client), each of Eddy's in a fresh emulate() after a warm-up."""
    from eddy import emulate

    samples: dict[str, list[dict[str, float]]] = {"floor": [], "eddy": []}
    floor = floor_client()
    put_and_get(floor, 200, -1000)  # warm up
    for number in range(rounds):
        samples["floor"].append(put_and_get(floor, count, number * count))
        with emulate(housekeeping_interval=None, split_records_per_second=None):
            eddy = boto3.client("dynamodb", region_name="us-east-1")
            create_streamed(eddy)
            put_and_get(eddy, 200, -1000)
            samples["eddy"].append(put_and_get(eddy, count, number * count))
    return {who: {name: statistics.median(run[name] for run in runs) for name in runs[0]}
            for who, runs in samples.items()}


def _cycle(context_factory) -> float:
    started = time.perf_counter()
    with context_factory():
        dynamodb = boto3.client("dynamodb", region_name="us-east-1")
        create_streamed(dynamodb, "orders")
        for i in range(5):
            dynamodb.put_item(TableName="orders", Item=item(i))
        dynamodb.get_item(TableName="orders", Key={"pk": {"S": "user#3"}})
    return time.perf_counter() - started


def test_cycle(rounds: int) -> dict[str, float]:
    """Seconds (median) of a test's cycle: the context entered, a table with a stream, 5 PutItems, a GetItem, the
    context left; `emulate()` against moto's `mock_aws()`, in alternation, in one warm process."""
    from eddy import emulate

    factories = {"mock_aws": mock_aws, "eddy": lambda: emulate(housekeeping_interval=None)}
    for factory in factories.values():
        _cycle(factory)
    samples: dict[str, list[float]] = {name: [] for name in factories}
    for _ in range(rounds):
        for name, factory in factories.items():
            samples[name].append(_cycle(factory))
    return {name: statistics.median(values) for name, values in samples.items()}


def bytes_per_item(items: int) -> dict[str, float]:
    """Bytes held per stored item (tracemalloc, after a full collection): Eddy's table with a NEW_AND_OLD_IMAGES
    stream ("eddy"), Eddy's table without one ("eddy_no_stream": moto's item and the image Eddy keeps on it) and
    moto's table without one ("mock_aws"), `items` PutItems each."""
    from eddy import emulate

    def eddy() -> Any:
        return emulate(housekeeping_interval=None, split_records_per_second=None)

    figures = {}
    for name, factory, stream in (("eddy", eddy, True), ("eddy_no_stream", eddy, False), ("mock_aws", mock_aws, False)):
        with factory():
            dynamodb = boto3.client("dynamodb", region_name="us-east-1")
            create_streamed(dynamodb, stream=stream)
            for i in range(200):  # caches warm: what stays is the items'
                dynamodb.put_item(TableName="bench", Item=dict(item(i), pk={"S": f"warm{i}"}))
            gc.collect()
            tracemalloc.start()
            before = tracemalloc.get_traced_memory()[0]
            for i in range(items):
                dynamodb.put_item(TableName="bench", Item=item(i))
            gc.collect()
            figures[name] = (tracemalloc.get_traced_memory()[0] - before) / items
            tracemalloc.stop()
    return figures


ADD_ONE = dict(UpdateExpression="SET #c = #c + :one", ExpressionAttributeNames={"#c": "count"},
               ExpressionAttributeValues={":one": {"N": "1"}})


def bytes_per_update(updates: int) -> float:
    """Bytes held per UpdateItem of a stored item on a NEW_AND_OLD_IMAGES table (tracemalloc, after a full
    collection): what its MODIFY record adds (its old image is the text the item held: nothing more, when shared)
    and the item's new image's text. `updates` items put first, then each updated once (SET count = count + 1)."""
    from eddy import emulate

    with emulate(housekeeping_interval=None, split_records_per_second=None):
        dynamodb = boto3.client("dynamodb", region_name="us-east-1")
        create_streamed(dynamodb)
        for i in range(200):  # caches warm: what stays is the updates'
            dynamodb.put_item(TableName="bench", Item=dict(item(i), pk={"S": f"warm{i}"}))
            dynamodb.update_item(TableName="bench", Key={"pk": {"S": f"warm{i}"}}, **ADD_ONE)
        for i in range(updates):
            dynamodb.put_item(TableName="bench", Item=item(i))
        gc.collect()
        tracemalloc.start()
        before = tracemalloc.get_traced_memory()[0]
        for i in range(updates):
            dynamodb.update_item(TableName="bench", Key={"pk": {"S": f"user#{i}"}}, **ADD_ONE)
        gc.collect()
        held = (tracemalloc.get_traced_memory()[0] - before) / updates
        tracemalloc.stop()
    return held


if __name__ == "__main__":  # bytes per UpdateItem: .venv/bin/python bench/inprocess_floor.py [UPDATES]
    import os
    import sys

    count = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    print(f"bytes held per UpdateItem ({count} updates): {bytes_per_update(count):,.0f} B, "
          f"load average {os.getloadavg()[0]:.1f}")

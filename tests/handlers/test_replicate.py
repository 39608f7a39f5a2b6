"""eddy.handlers.replicate: a replica table that ends up identical to the source, whatever is redelivered."""

from __future__ import annotations

import random
import urllib.request
from typing import Any

import boto3
import pytest
from botocore.exceptions import ClientError

from eddy.handlers import replicate

from ..emulator.helpers import create_table
from .events import batches, stream_records


@pytest.fixture
def source(dynamodb: Any, monkeypatch: pytest.MonkeyPatch) -> str:
    """The source table's stream ARN; the replica table "replica" exists and the handler points at it."""
    create_table(dynamodb, "replica", view_type=None, range_key=True)
    monkeypatch.setenv("REPLICA_TABLE", "replica")
    return create_table(dynamodb, "source", range_key=True)["LatestStreamArn"]


def items(dynamodb: Any, table: str) -> dict[tuple[str, str], dict]:
    found = [item for page in dynamodb.get_paginator("scan").paginate(TableName=table) for item in page["Items"]]
    return {(item["pk"]["S"], item["sk"]["S"]): {k: v for k, v in item.items() if k != replicate.SEQUENCE}
            for item in found}


def deliver(events: list[dict]) -> None:
    for event in events:
        assert replicate.handler(event, None) is None


def random_workload(dynamodb: Any, rng: random.Random, operations: int = 200) -> None:
    keys = [{"pk": {"S": f"user-{n % 10}"}, "sk": {"S": f"item-{n // 10}"}} for n in range(30)]
    for _ in range(operations):
        key, roll = rng.choice(keys), rng.random()
        if roll < 0.4:
            item = {**key, "name": {"S": rng.choice(["ada", "bob", "cy"])},
                    "score": {"N": str(rng.randint(-50, 50))}}
            if rng.random() < 0.5:
                item["tags"] = {"SS": rng.sample(["a", "b", "c", "d"], rng.randint(1, 3))}
            dynamodb.put_item(TableName="source", Item=item)
        elif roll < 0.75:  # on a missing key this is an INSERT
            dynamodb.update_item(TableName="source", Key=key, UpdateExpression="ADD visits :one SET price = :p",
                                 ExpressionAttributeValues={":one": {"N": "1"}, ":p": {"N": f"{rng.random() * 100:.3f}"}})
        else:
            dynamodb.delete_item(TableName="source", Key=key)


def test_random_workload_replicates_exactly_under_redelivery(dynamodb: Any, streams: Any, source: str) -> None:
    rng = random.Random(20240521)
    random_workload(dynamodb, rng)
    records = stream_records(streams, source)
    assert {r["eventName"] for r in records} == {"INSERT", "MODIFY", "REMOVE"}
    events = batches(records, 25)
    expected = items(dynamodb, "source")
    assert expected

    deliver(events)
    assert items(dynamodb, "replica") == expected

    deliver(events)  # everything again, in order: a retried batch, a restarted mapping
    assert items(dynamodb, "replica") == expected

    old = events[:-1]
    deliver(rng.sample(old, len(old)))  # old batches again, out of order
    replica = items(dynamodb, "replica")
    # No live item went backwards. The only difference allowed is the documented tradeoff of deleting
    # without a tombstone: an item deleted at the source, brought back by an older record of its key.
    assert {key: replica[key] for key in expected} == expected
    removed = {(r["dynamodb"]["Keys"]["pk"]["S"], r["dynamodb"]["Keys"]["sk"]["S"])
               for r in records if r["eventName"] == "REMOVE"}
    assert set(replica) - set(expected) <= removed

    deliver(events)  # replaying the stream in order puts the deletions back in their place
    assert items(dynamodb, "replica") == expected


def test_an_older_record_redelivered_after_a_newer_one_changes_nothing(dynamodb: Any, streams: Any,
                                                                       source: str) -> None:
    key = {"pk": {"S": "u"}, "sk": {"S": "1"}}
    for version in ("1", "2", "3"):
        dynamodb.put_item(TableName="source", Item={**key, "version": {"N": version}})
    first, second, third = stream_records(streams, source)
    deliver([{"Records": [first, third]}, {"Records": [second]}, {"Records": [first]}])
    assert items(dynamodb, "replica") == {("u", "1"): {**key, "version": {"N": "3"}}}
    stored = dynamodb.get_item(TableName="replica", Key=key)["Item"][replicate.SEQUENCE]
    assert stored == {"N": third["dynamodb"]["SequenceNumber"]}


def test_sequence_numbers_compare_as_numbers_not_strings(dynamodb: Any, source: str) -> None:
    key = {"pk": {"S": "u"}, "sk": {"S": "1"}}
    record = {"eventName": "INSERT", "awsRegion": "us-east-1",
              "dynamodb": {"Keys": key, "NewImage": {**key, "v": {"S": "newer"}}, "SequenceNumber": "1000"}}
    older = {**record, "dynamodb": {**record["dynamodb"], "NewImage": {**key, "v": {"S": "older"}},
                                     "SequenceNumber": "999"}}  # "999" > "1000" as strings
    deliver([{"Records": [record]}, {"Records": [older]}])
    assert items(dynamodb, "replica")[("u", "1")]["v"] == {"S": "newer"}


def test_deleting_leaves_no_tombstone_so_an_older_insert_redelivered_comes_back(dynamodb: Any, streams: Any,
                                                                               source: str) -> None:
    key = {"pk": {"S": "u"}, "sk": {"S": "1"}}
    dynamodb.put_item(TableName="source", Item=key)
    dynamodb.delete_item(TableName="source", Key=key)
    insert, remove = stream_records(streams, source)
    deliver([{"Records": [insert, remove]}])
    assert items(dynamodb, "replica") == {}
    deliver([{"Records": [insert]}])  # out of order: the tradeoff the module docstring describes
    assert list(items(dynamodb, "replica")) == [("u", "1")]
    deliver([{"Records": [remove]}])
    assert items(dynamodb, "replica") == {}


def test_a_failing_record_raises_or_is_reported_with_all_after_it(dynamodb: Any, streams: Any, source: str,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    for n in range(4):
        dynamodb.put_item(TableName="source", Item={"pk": {"S": "u"}, "sk": {"S": str(n)}})
    records = stream_records(streams, source)
    del records[2]["dynamodb"]["NewImage"]["sk"]  # the replica refuses an item without its sort key
    with pytest.raises(ClientError):
        replicate.handler({"Records": records}, None)

    monkeypatch.setenv("REPORT_BATCH_ITEM_FAILURES", "true")
    answer = replicate.handler({"Records": records}, None)
    assert answer == {"batchItemFailures": [{"itemIdentifier": r["dynamodb"]["SequenceNumber"]} for r in records[2:]]}
    assert sorted(items(dynamodb, "replica")) == [("u", "0"), ("u", "1")]
    assert replicate.handler({"Records": records[:2]}, None) == {"batchItemFailures": []}


def test_a_stream_without_new_images_is_refused(dynamodb: Any, streams: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    arn = create_table(dynamodb, "keys_only", view_type="KEYS_ONLY")["LatestStreamArn"]
    monkeypatch.setenv("REPLICA_TABLE", "keys_only")
    dynamodb.put_item(TableName="keys_only", Item={"pk": {"S": "a"}})
    with pytest.raises(ValueError, match="KEYS_ONLY"):
        replicate.handler({"Records": stream_records(streams, arn)}, None)


def test_the_replica_can_live_in_another_region(dynamodb: Any, streams: Any, source: str,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    replica = boto3.client("dynamodb", region_name="eu-west-1")
    create_table(replica, "replica", view_type=None, range_key=True)
    monkeypatch.setenv("REPLICA_REGION", "eu-west-1")
    dynamodb.put_item(TableName="source", Item={"pk": {"S": "u"}, "sk": {"S": "1"}})
    deliver([{"Records": stream_records(streams, source)}])
    assert items(replica, "replica") == {("u", "1"): {"pk": {"S": "u"}, "sk": {"S": "1"}}}
    assert items(dynamodb, "replica") == {}


def test_the_replica_can_be_behind_an_endpoint(server_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Outside emulate(): the stream and the replica are both on a real `eddy serve`, reached by URL."""
    urllib.request.urlopen(urllib.request.Request(server_url + "/moto-api/reset", data=b"{}"), timeout=30).close()
    dynamodb, streams = (boto3.client(service, endpoint_url=server_url, region_name="us-east-1")
                         for service in ("dynamodb", "dynamodbstreams"))
    create_table(dynamodb, "replica", view_type=None, range_key=True)
    arn = create_table(dynamodb, "source", range_key=True)["LatestStreamArn"]
    dynamodb.put_item(TableName="source", Item={"pk": {"S": "u"}, "sk": {"S": "1"}, "n": {"N": "1"}})
    monkeypatch.setenv("REPLICA_TABLE", "replica")
    monkeypatch.setenv("REPLICA_ENDPOINT_URL", server_url)
    deliver([{"Records": stream_records(streams, arn)}])
    assert items(dynamodb, "replica") == items(dynamodb, "source")

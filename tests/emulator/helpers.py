"""Small helpers the functional tests share: create a table with a stream, read a whole stream."""

from __future__ import annotations

from typing import Any


def create_table(dynamodb: Any, name: str = "orders", view_type: str | None = "NEW_AND_OLD_IMAGES",
                 range_key: bool = False) -> dict:
    key_schema = [{"AttributeName": "pk", "KeyType": "HASH"}]
    attributes = [{"AttributeName": "pk", "AttributeType": "S"}]
    if range_key:
        key_schema.append({"AttributeName": "sk", "KeyType": "RANGE"})
        attributes.append({"AttributeName": "sk", "AttributeType": "S"})
    params: dict[str, Any] = dict(TableName=name, KeySchema=key_schema, AttributeDefinitions=attributes,
                                  BillingMode="PAY_PER_REQUEST")
    if view_type:
        params["StreamSpecification"] = {"StreamEnabled": True, "StreamViewType": view_type}
    return dynamodb.create_table(**params)["TableDescription"]


def shards(streams: Any, stream_arn: str) -> list[dict]:
    found, start = [], None
    while True:
        params = {"StreamArn": stream_arn}
        if start:
            params["ExclusiveStartShardId"] = start
        description = streams.describe_stream(**params)["StreamDescription"]
        found += description["Shards"]
        start = description.get("LastEvaluatedShardId")
        if not start:
            return found


def read_shard(streams: Any, stream_arn: str, shard_id: str, iterator_type: str = "TRIM_HORIZON") -> list[dict]:
    iterator = streams.get_shard_iterator(StreamArn=stream_arn, ShardId=shard_id,
                                          ShardIteratorType=iterator_type)["ShardIterator"]
    records = []
    while iterator:
        response = streams.get_records(ShardIterator=iterator)
        records += response["Records"]
        if not response["Records"] and "EndingSequenceNumber" not in _shard(streams, stream_arn, shard_id)["SequenceNumberRange"]:
            break  # an open shard read to its end
        iterator = response.get("NextShardIterator")
    return records


def _shard(streams: Any, stream_arn: str, shard_id: str) -> dict:
    return next(s for s in shards(streams, stream_arn) if s["ShardId"] == shard_id)


def read_stream(streams: Any, stream_arn: str) -> list[dict]:
    """Every retained record of a stream, parents before children (as a reader must)."""
    all_shards = shards(streams, stream_arn)
    known = {shard["ShardId"] for shard in all_shards}
    done: set[str] = set()
    records: list[dict] = []
    while len(done) < len(all_shards):
        for shard in all_shards:
            parent = shard.get("ParentShardId")
            if shard["ShardId"] in done or (parent in known and parent not in done):
                continue
            records += read_shard(streams, stream_arn, shard["ShardId"])
            done.add(shard["ShardId"])
    return records


def events(records: list[dict]) -> list[tuple[str, Any]]:
    """(eventName, the partition key value) of each record, in order."""
    return [(r["eventName"], r["dynamodb"]["Keys"]["pk"]["S"]) for r in records]


def S(text: str) -> dict:
    """A string AttributeValue."""
    return {"S": text}


def N(text: str) -> dict:
    """A number AttributeValue."""
    return {"N": text}

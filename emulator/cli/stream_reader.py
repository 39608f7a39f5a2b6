"""A table's stream read as any DynamoDB Streams client reads it, for `eddy tail TABLE` (cli/tail.py): every shard
DescribeStream lists, a parent read to its end before its children, new shards picked up as they appear, and an
iterator that expired replaced by one after the last sequence number seen (nothing skipped, nothing repeated).

    for record in follow(boto3.client("dynamodbstreams", endpoint_url=url), stream_arn, from_start=True):
        print(record["eventName"], record["dynamodb"]["Keys"])
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any

from botocore.exceptions import ClientError


def follow(
    streams: Any,
    stream_arn: str,
    *,
    from_start: bool,
    poll_seconds: float = 0.25,
    stop: Callable[[], bool] = lambda: False,
) -> Iterator[dict[str, Any]]:
    """Every record of the stream from now (or from the trim horizon), parents before children, until `stop()`.

    A shard's iterator that expired while nothing was read (15 minutes on the emulator's clock, e.g. after
    `POST /_eddy/clock {"advance": 1000}`) is replaced by one after the last sequence number this reader has seen
    in that shard, so nothing is skipped and nothing repeated. Beginning "from now" (LATEST) therefore reads the
    shard's retained records once without yielding them, as any Streams client can learn where it stands: the
    reader knows its position from the start (and a shard that was empty is resumed from its trim horizon).
    """
    shards = ShardPositions(streams, stream_arn)
    first_look = True
    while not stop():
        listed = list_shards(streams, stream_arn)
        known = {shard["ShardId"] for shard in listed}
        for shard in listed:
            shard_id, parent = shard["ShardId"], shard.get("ParentShardId")
            if shard_id in shards.finished or (parent in known and parent not in shards.finished):
                continue
            if shard_id not in shards.iterators:
                closed = "EndingSequenceNumber" in shard["SequenceNumberRange"]
                if first_look and not from_start and closed:
                    shards.finished.add(shard_id)
                    continue
                shards.begin(shard_id, from_now=first_look and not from_start)
            yield from shards.read(shard_id)
        first_look = False
        time.sleep(poll_seconds)  # a terminal client polls, as any Streams reader does


def list_shards(streams: Any, stream_arn: str) -> list[dict[str, Any]]:
    """Every shard DescribeStream lists, page after page."""
    shards: list[dict[str, Any]] = []
    start = None
    while True:
        params = {"StreamArn": stream_arn, **({"ExclusiveStartShardId": start} if start else {})}
        description = streams.describe_stream(**params)["StreamDescription"]
        shards += description["Shards"]
        start = description.get("LastEvaluatedShardId")
        if not start:
            return shards


class ShardPositions:
    """Where the reader is in each shard: its iterator and the last sequence number it has seen there."""

    def __init__(self, streams: Any, stream_arn: str) -> None:
        self.streams, self.stream_arn = streams, stream_arn
        self.iterators: dict[str, str | None] = {}
        self.last_sequence_number: dict[str, str] = {}
        self.finished: set[str] = set()

    def begin(self, shard_id: str, *, from_now: bool) -> None:
        """Start reading a shard at its trim horizon; `from_now`: skip (unprinted) what it holds already."""
        self.iterators[shard_id] = self._iterator(shard_id, "TRIM_HORIZON")
        if from_now:
            for _ in self.read(shard_id):
                pass

    def read(self, shard_id: str) -> Iterator[dict[str, Any]]:
        """The shard's records from where the reader is, until a page comes back empty (or the shard ends)."""
        iterator = self.iterators[shard_id]
        while iterator:
            try:
                page = self.streams.get_records(ShardIterator=iterator)
            except ClientError as error:
                if error.response["Error"]["Code"] != "ExpiredIteratorException":
                    raise
                iterator = self._resumed(shard_id)
                continue
            for record in page["Records"]:
                self.last_sequence_number[shard_id] = record["dynamodb"]["SequenceNumber"]
                yield record
            iterator = page.get("NextShardIterator")
            if not page["Records"]:
                break
        self.iterators[shard_id] = iterator
        if iterator is None:
            self.finished.add(shard_id)

    def _resumed(self, shard_id: str) -> str:
        last = self.last_sequence_number.get(shard_id)
        if last is None:  # nothing seen in it yet: every record it holds came after this reader began
            return self._iterator(shard_id, "TRIM_HORIZON")
        try:
            return self._iterator(shard_id, "AFTER_SEQUENCE_NUMBER", last)
        except ClientError as error:  # the records after it were trimmed meanwhile: the oldest still kept
            if error.response["Error"]["Code"] != "TrimmedDataAccessException":
                raise
            return self._iterator(shard_id, "TRIM_HORIZON")

    def _iterator(self, shard_id: str, kind: str, sequence_number: str | None = None) -> str:
        at = {"SequenceNumber": sequence_number} if sequence_number else {}
        return self.streams.get_shard_iterator(
            StreamArn=self.stream_arn, ShardId=shard_id, ShardIteratorType=kind, **at
        )["ShardIterator"]

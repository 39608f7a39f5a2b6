"""`eddy tail TABLE`: follow a table's stream in the terminal, across shard rollovers and splits.

    eddy tail orders [--endpoint-url http://127.0.0.1:4566] [--from-start] [--count N]

One line per record: time, event name, keys, and what changed (attributes added, changed or removed, as far
as the stream's view type shows them). It is an ordinary DynamoDB Streams client: it reads a parent shard to
its end before its children, and picks up new shards as they appear.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import time
from typing import Any, Callable, Iterator

import boto3
from botocore.exceptions import ClientError

from emulator.streams.record_lines import describe


def follow(streams: Any, stream_arn: str, *, from_start: bool, poll_seconds: float = 0.25,
           stop: Callable[[], bool] = lambda: False) -> Iterator[dict[str, Any]]:
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
        return self.streams.get_shard_iterator(StreamArn=self.stream_arn, ShardId=shard_id,
                                               ShardIteratorType=kind, **at)["ShardIterator"]


def main(args: argparse.Namespace) -> int:
    session = boto3.session.Session(aws_access_key_id=os.environ.get("AWS_ACCESS_KEY_ID", "test"),
                                    aws_secret_access_key=os.environ.get("AWS_SECRET_ACCESS_KEY", "test"),
                                    region_name=args.region)
    dynamodb = session.client("dynamodb", endpoint_url=args.endpoint_url)
    streams = session.client("dynamodbstreams", endpoint_url=args.endpoint_url)
    stream_arn = dynamodb.describe_table(TableName=args.table)["Table"].get("LatestStreamArn")
    if not stream_arn:
        print(f"eddy tail: table {args.table} has no stream", file=sys.stderr)
        return 1
    print(f"Following {stream_arn} (Ctrl-C to stop)", flush=True)
    seen = 0
    with contextlib.suppress(KeyboardInterrupt):  # Ctrl-C is how a tail ends
        for record in follow(streams, stream_arn, from_start=args.from_start, stop=lambda: bool(args.count and seen >= args.count)):
            print(describe(record), flush=True)
            seen += 1
            if args.count and seen >= args.count:
                break
    return 0


def register(commands: argparse._SubParsersAction) -> None:
    command = commands.add_parser("tail", help="follow a table's stream live")
    command.add_argument("table")
    command.add_argument("--endpoint-url", default=os.environ.get("EDDY_ENDPOINT_URL", "http://127.0.0.1:4566"))
    command.add_argument("--region", default=os.environ.get("AWS_DEFAULT_REGION", "us-east-1"))
    command.add_argument("--from-start", action="store_true", help="from the oldest retained record, not from now")
    command.add_argument("--count", type=int, default=0, help="stop after this many records")
    command.set_defaults(handler=main)

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
    """Every record of the stream from now (or from the trim horizon), parents before children, until `stop()`."""
    iterators: dict[str, str | None] = {}
    finished: set[str] = set()
    first_look = True
    while not stop():
        shards = []
        start = None
        while True:
            params = {"StreamArn": stream_arn, **({"ExclusiveStartShardId": start} if start else {})}
            description = streams.describe_stream(**params)["StreamDescription"]
            shards += description["Shards"]
            start = description.get("LastEvaluatedShardId")
            if not start:
                break
        known = {shard["ShardId"] for shard in shards}
        for shard in shards:
            shard_id, parent = shard["ShardId"], shard.get("ParentShardId")
            if shard_id in finished or (parent in known and parent not in finished):
                continue
            if shard_id not in iterators:
                closed = "EndingSequenceNumber" in shard["SequenceNumberRange"]
                kind = "TRIM_HORIZON" if from_start or not first_look else "LATEST"
                if first_look and not from_start and closed:
                    finished.add(shard_id)
                    continue
                iterators[shard_id] = streams.get_shard_iterator(StreamArn=stream_arn, ShardId=shard_id,
                                                                 ShardIteratorType=kind)["ShardIterator"]
            iterator = iterators[shard_id]
            while iterator:
                page = streams.get_records(ShardIterator=iterator)
                yield from page["Records"]
                iterator = page.get("NextShardIterator")
                if not page["Records"]:
                    break
            iterators[shard_id] = iterator
            if iterator is None:
                finished.add(shard_id)
        first_look = False
        time.sleep(poll_seconds)  # a terminal client polls, as any Streams reader does


def main(args: argparse.Namespace) -> int:
    session = boto3.session.Session(aws_access_key_id=os.environ.get("AWS_ACCESS_KEY_ID", "test"),
                                    aws_secret_access_key=os.environ.get("AWS_SECRET_ACCESS_KEY", "test"),
                                    region_name=args.region)
    dynamodb = session.client("dynamodb", endpoint_url=args.endpoint_url)
    streams = session.client("dynamodbstreams", endpoint_url=args.endpoint_url)
    try:
        stream_arn = dynamodb.describe_table(TableName=args.table)["Table"].get("LatestStreamArn")
    except ClientError as error:
        print(f"eddy tail: {error.response['Error']['Message']}", file=sys.stderr)
        return 1
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

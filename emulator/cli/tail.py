"""`eddy tail TABLE`: follow a table's stream in the terminal, across shard rollovers and splits;
`eddy tail --queue NAME`: follow what happens to a queue's messages; `eddy tail --function NAME`: its invocations;
`eddy tail --stack NAME`: a stack's events and its functions' invocations.

    eddy tail orders [--endpoint-url http://127.0.0.1:4566] [--from-start] [--count N]
    eddy tail --queue jobs [--endpoint-url ...] [--from-start] [--count N]
    eddy tail --function worker [--endpoint-url ...] [--from-start] [--count N]
    eddy tail --stack shop [--endpoint-url ...] [--from-start] [--count N]

A table: one line per record: time, event name, keys, and what changed (attributes added, changed or removed, as far
as the stream's view type shows them). It is an ordinary DynamoDB Streams client: it reads a parent shard to
its end before its children, and picks up new shards as they appear.

A queue: one line per message event: SENT, RECEIVED (by an event source mapping or a ReceiveMessage, with its receive
count), DELETED, RETURNED (visible again without a delete: a failed attempt), DEAD-LETTERED and ARRIVED (moved by
the RedrivePolicy). It reads Eddy's GET /_eddy/dashboard/queue, never ReceiveMessage, so it takes no message from a
mapping; --from-start shows the events the queue still keeps (its last 1,000).

A function: one line per invocation that ended: time, outcome, duration, its source (Invoke, a mapping, a pipe, a
rule, s3, sns) and request id, and its error: the outcomes of S3's, SNS's, rules' and pipes' triggers.

A stack: one line per stack event (time, status, logical id, type, reason: DescribeStackEvents, so it follows a stack
on any CloudFormation endpoint), and one per invocation of the stack's functions (its AWS::Lambda::Function resources
as they are when looked at, each line after the function's name), until the stack is deleted or --count is reached.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator
from typing import Any

import boto3
from botocore.exceptions import ClientError

from eddy.emulator.cli.stream_reader import follow
from eddy.emulator.dashboard.stacks import stack_event_line
from eddy.emulator.streams.record_lines import describe

#: how many invocations of each function the server keeps (functions/logs/recent_invocations.py)
RECENT_KEPT = 20


def follow_queue(
    endpoint_url: str,
    queue: str,
    *,
    from_start: bool,
    poll_seconds: float = 0.25,
    stop: Callable[[], bool] = lambda: False,
) -> Iterator[dict[str, Any]]:
    """First {"QueueArn"}, then the queue's message events from now (or all it keeps), oldest first, until `stop()`."""
    answer = _control_get(endpoint_url, "/_eddy/dashboard/queue", Queue=queue, After=0)
    yield {"QueueArn": answer["QueueArn"]}
    if from_start:
        yield from answer["Events"]
    after = answer["LastSequence"]
    while not stop():
        time.sleep(poll_seconds)  # a terminal client polls, as for a stream
        answer = _control_get(endpoint_url, "/_eddy/dashboard/queue", Queue=queue, After=after)
        yield from answer["Events"]
        after = answer["LastSequence"]


def follow_function(
    endpoint_url: str,
    function: str,
    *,
    from_start: bool,
    poll_seconds: float = 0.25,
    stop: Callable[[], bool] = lambda: False,
) -> Iterator[dict[str, Any]]:
    """First {"FunctionArn"}, then each invocation that ends from now (or the last 20), oldest first, until `stop()`.
    The server keeps a function's last 20 invocations: when more than that ended between two looks, a
    {"Line": ...} says so rather than pretend none were missed."""
    answer = _control_get(endpoint_url, "/_eddy/dashboard/invocations", FunctionName=function)
    yield {"FunctionArn": answer["FunctionArn"]}
    if from_start:
        yield from reversed(answer["RecentInvocations"])
    seen = {invocation["RequestId"] for invocation in answer["RecentInvocations"]}
    while not stop():
        time.sleep(poll_seconds)
        recent = _control_get(endpoint_url, "/_eddy/dashboard/invocations", FunctionName=function)["RecentInvocations"]
        new = [invocation for invocation in reversed(recent) if invocation["RequestId"] not in seen]
        if seen and len(new) == len(recent) == RECENT_KEPT:
            yield {
                "Line": f"(more than {RECENT_KEPT} invocations ended between two looks: the earlier ones are not shown)"
            }
        yield from new
        seen = {invocation["RequestId"] for invocation in recent}


def follow_stack(
    cloudformation: Any,
    endpoint_url: str,
    stack: str,
    *,
    from_start: bool,
    poll_seconds: float = 0.25,
    stop: Callable[[], bool] = lambda: False,
) -> Iterator[str]:
    """First the stack's id (once the tail knows where it stands), then its events (from now, or all it has) and
    its functions' invocations as lines, oldest first, until the stack is deleted or `stop()`."""
    try:
        stack_id = cloudformation.describe_stacks(StackName=stack)["Stacks"][0]["StackId"]
    except ClientError as error:
        raise TailError(error.response["Error"]["Message"]) from None
    seen_events: set[str] = set()
    seen_invocations: dict[str, set[str]] = {}

    def look(shown: bool) -> tuple[list[str], bool]:
        new_events = []
        for page in cloudformation.get_paginator("describe_stack_events").paginate(StackName=stack_id):
            fresh = [event for event in page["StackEvents"] if event["EventId"] not in seen_events]
            new_events += fresh
            if len(fresh) < len(page["StackEvents"]):
                break  # the rest was seen before
        seen_events.update(event["EventId"] for event in new_events)
        lines = [stack_event_line(event) for event in reversed(new_events)] if shown else []
        for function in _stack_functions(cloudformation, stack_id):
            lines += _new_invocations(endpoint_url, function, seen_invocations, shown)
        return lines, any(
            event["ResourceStatus"] == "DELETE_COMPLETE" and event["PhysicalResourceId"] == stack_id
            for event in new_events
        )

    lines, done = look(from_start)
    yield stack_id
    yield from lines
    while not done and not stop():
        time.sleep(poll_seconds)  # a terminal client polls, as for a stream
        lines, done = look(True)
        yield from lines


def _stack_functions(cloudformation: Any, stack_id: str) -> list[str]:
    """The physical ids of the stack's functions now (none once it is deleted)."""
    try:
        return [
            resource["PhysicalResourceId"]
            for page in cloudformation.get_paginator("list_stack_resources").paginate(StackName=stack_id)
            for resource in page["StackResourceSummaries"]
            if resource["ResourceType"] == "AWS::Lambda::Function"
            and resource.get("PhysicalResourceId")
            and not resource["ResourceStatus"].startswith("DELETE")
        ]
    except ClientError:
        return []


def _new_invocations(endpoint_url: str, function: str, seen: dict[str, set[str]], shown: bool) -> list[str]:
    """A function's invocations not yet seen, as lines after its name; the first look at a function found when
    the tail began only notes what it has done already (unless `shown`)."""
    try:
        recent = _control_get(endpoint_url, "/_eddy/dashboard/invocations", FunctionName=function)["RecentInvocations"]
    except TailError:
        return []  # deleted since the stack was looked at
    known = seen.get(function, set()) if function in seen or shown else None
    seen[function] = {invocation["RequestId"] for invocation in recent}
    return (
        []
        if known is None
        else [
            f"{function}  {invocation['Line']}"
            for invocation in reversed(recent)
            if invocation["RequestId"] not in known
        ]
    )


def _control_get(endpoint_url: str, path: str, **query: Any) -> dict[str, Any]:
    url = f"{endpoint_url.rstrip('/')}{path}?{urllib.parse.urlencode(query)}"
    try:
        with urllib.request.urlopen(url, timeout=30) as response:
            return json.loads(response.read())
    except urllib.error.HTTPError as error:
        try:
            message = json.loads(error.read())["message"]
        except (ValueError, KeyError):
            message = f"HTTP {error.code} from {endpoint_url}: is it Eddy?"
        raise TailError(message) from None
    except urllib.error.URLError as error:
        raise TailError(
            f"nothing answers at {endpoint_url} ({error.reason}): start Eddy there (eddy serve --port PORT) "
            "or pass the --endpoint-url it serves on"
        ) from None


class TailError(Exception):
    """An expected failure of `eddy tail`, said in one line."""


def main(args: argparse.Namespace) -> int:
    if [bool(args.table), bool(args.queue), bool(args.function), bool(args.stack)].count(True) != 1:
        print(
            "eddy tail: name one table (eddy tail TABLE), queue (--queue NAME), function (--function NAME) "
            "or stack (--stack NAME)",
            file=sys.stderr,
        )
        return 2
    try:
        return (
            _tail_queue(args)
            if args.queue
            else _tail_function(args)
            if args.function
            else _tail_stack(args)
            if args.stack
            else _tail_table(args)
        )
    except TailError as error:
        print(f"eddy tail: {error}", file=sys.stderr)
        return 1


def _session(args: argparse.Namespace) -> Any:
    return boto3.session.Session(
        aws_access_key_id=os.environ.get("AWS_ACCESS_KEY_ID", "test"),
        aws_secret_access_key=os.environ.get("AWS_SECRET_ACCESS_KEY", "test"),
        region_name=args.region,
    )


def _tail_table(args: argparse.Namespace) -> int:
    session = _session(args)
    dynamodb = session.client("dynamodb", endpoint_url=args.endpoint_url)
    streams = session.client("dynamodbstreams", endpoint_url=args.endpoint_url)
    stream_arn = dynamodb.describe_table(TableName=args.table)["Table"].get("LatestStreamArn")
    if not stream_arn:
        raise TailError(f"table {args.table} has no stream")
    print(f"Following {stream_arn} (Ctrl-C to stop)", flush=True)
    return _print_lines(
        args,
        (
            describe(record)
            for record in follow(streams, stream_arn, from_start=args.from_start, stop=lambda: _enough(args))
        ),
    )


def _tail_queue(args: argparse.Namespace) -> int:
    events = follow_queue(args.endpoint_url, args.queue, from_start=args.from_start, stop=lambda: _enough(args))
    print(f"Following {next(events)['QueueArn']} (Ctrl-C to stop)", flush=True)
    return _print_lines(args, (event["Line"] for event in events))


def _tail_function(args: argparse.Namespace) -> int:
    invocations = follow_function(
        args.endpoint_url, args.function, from_start=args.from_start, stop=lambda: _enough(args)
    )
    print(f"Following {next(invocations)['FunctionArn']} (Ctrl-C to stop)", flush=True)
    return _print_lines(args, (invocation["Line"] for invocation in invocations))


def _tail_stack(args: argparse.Namespace) -> int:
    cloudformation = _session(args).client("cloudformation", endpoint_url=args.endpoint_url)
    lines = follow_stack(
        cloudformation, args.endpoint_url, args.stack, from_start=args.from_start, stop=lambda: _enough(args)
    )
    print(f"Following {next(lines)} (Ctrl-C to stop)", flush=True)
    return _print_lines(args, lines)


def _enough(args: argparse.Namespace) -> bool:
    return bool(args.count and args.seen >= args.count)


def _print_lines(args: argparse.Namespace, lines: Iterator[str]) -> int:
    args.seen = 0
    with contextlib.suppress(KeyboardInterrupt):  # Ctrl-C is how a tail ends
        for line in lines:
            print(line, flush=True)
            args.seen += 1
            if _enough(args):
                break
    return 0


def register(commands: argparse._SubParsersAction) -> None:
    command = commands.add_parser(
        "tail", help="follow a table's stream, a queue's messages, a function's invocations or a stack's events"
    )
    command.add_argument("table", nargs="?", help="the table whose stream to follow")
    command.add_argument("--queue", help="follow this queue's messages instead (its name or ARN)")
    command.add_argument("--function", help="follow this function's invocations instead (its name or ARN)")
    command.add_argument(
        "--stack",
        help="follow this CloudFormation stack's events and its functions' invocations instead (its name or id)",
    )
    command.add_argument("--endpoint-url", default=os.environ.get("EDDY_ENDPOINT_URL", "http://127.0.0.1:4566"))
    command.add_argument("--region", default=os.environ.get("AWS_DEFAULT_REGION", "us-east-1"))
    command.add_argument(
        "--from-start", action="store_true", help="from the oldest retained record (or queue event), not from now"
    )
    command.add_argument("--count", type=int, default=0, help="stop after this many lines")
    command.set_defaults(handler=main, seen=0)

"""`eddy demo` (and `make demo`): a tour of Eddy from end to end, in one command.

It starts Eddy on a free loopback port (in memory), applies the example stack (infra/examples/stack.yaml),
writes a workload through boto3, then shows the replica converge, answers a search query, archives TTL
deletions, runs the Spark aggregation job over the change log, and ends with a summary.
"""

from __future__ import annotations

import argparse
import json
import logging
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from botocore.exceptions import ClientError

EXAMPLE = Path(__file__).resolve().parent / "examples" / "stack.yaml"
WORDS = ["red", "blue", "green", "fox", "owl", "lamp", "chair", "kettle", "river", "stone", "paper", "glass"]


def say(text: str) -> None:
    print(text, flush=True)


def run(args: argparse.Namespace) -> int:
    from eddy.spark_batch.extra import missing_hint, missing_modules

    if missing_modules():  # the tour ends with a Spark job: say so before anything starts
        print(missing_hint("demo"), file=sys.stderr)
        return 1
    from eddy.emulator.api.server import Server
    from eddy.emulator.engine import Emulator

    from .apply import Clients, summary, up
    from .load import load_stack

    logging.getLogger("werkzeug").setLevel(logging.WARNING)
    started = time.perf_counter()
    work = Path(tempfile.mkdtemp(prefix="eddy-demo-"))
    emulator = Emulator(in_memory=True, housekeeping_interval=None)
    emulator.recover()
    server = Server(emulator, "127.0.0.1", 0).start()
    try:
        say(f"1. Eddy is serving on {server.url}; deploying {EXAMPLE.relative_to(EXAMPLE.parents[2])}")
        stack = load_stack(EXAMPLE)
        index_path = work / "search.sqlite"
        stack.functions["search-index"].environment["SEARCH_INDEX_PATH"] = str(index_path)
        clients = Clients(server.loopback_url, "us-east-1")
        say(f"   {summary(up(stack, clients, echo=lambda line: None))}")
        dynamodb, s3, sqs = clients("dynamodb"), clients("s3"), clients("sqs")
        inbox = sqs.get_queue_url(QueueName="welcome-inbox")["QueueUrl"]
        inbox_arn = sqs.get_queue_attributes(QueueUrl=inbox, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
        clients("sns").subscribe(
            TopicArn=stack.functions["welcome"].environment["NOTIFY_TOPIC_ARN"], Protocol="sqs", Endpoint=inbox_arn
        )  # so the welcome messages can be read back
        figures = _workload(dynamodb, random.Random(args.seed), args.orders, int(emulator.clock.now()))
        say(
            f"2. Wrote {figures['writes']} changes through boto3: orders (puts, updates, deletes), "
            f"{figures['sessions']} sessions with a TTL, {figures['users']} new users"
        )

        _wait(emulator, "the handlers to catch up")
        source, replica = _scan(dynamodb, "orders"), _scan(dynamodb, "orders-replica")
        converged = source == replica
        say(
            f"3. Replica: {len(replica)} items, {'identical to' if converged else 'DIFFERENT FROM'} the {len(source)} orders"
            " apart from each replica item's _replica_sequence"
        )

        from eddy.handlers.search_index import search

        hits = search(str(index_path), "fox")
        say(f"4. Search for 'fox': {len(hits)} orders, e.g. {[h['pk']['S'] for h in hits[:3]]}")

        emulator.clock.advance(3600)
        deleted = emulator.sweep_ttl()
        _wait(emulator, "the TTL archive")
        archived = _archived_items(s3)
        say(f"5. An hour later TTL deleted {deleted} sessions; {archived} archived to s3://session-archive/")

        welcomes = sqs.get_queue_attributes(QueueUrl=inbox, AttributeNames=["ApproximateNumberOfMessages"])[
            "Attributes"
        ]
        rows = _aggregate(emulator.state_dir, work / "metrics", args)
        say(f"6. Spark aggregated the change log into {len(rows)} (table, window, event) rows:")
        for row in rows[:6]:
            say(f"     {row}")

        metrics = emulator.mapping_figures()["EventSourceMappings"]
        say("7. Summary")
        say(
            f"     writes {figures['writes']}, replica {'converged' if converged else 'diverged'}, "
            f"search hits {len(hits)}, TTL deletions {deleted} (archived {archived}), "
            f"welcome messages queued {welcomes.get('ApproximateNumberOfMessages', '?')}"
        )
        for mapping in metrics:
            name = mapping["FunctionArn"].rsplit(":", 1)[1]
            say(
                f"     {name:<14} invocations {mapping['Invocations']:>4}  records {mapping['RecordsDelivered']:>5}  "
                f"errors {mapping['Errors']}  filtered {mapping['RecordsFiltered']}"
            )
        say(f"   done in {time.perf_counter() - started:.1f} s")
        return 0 if converged and archived == deleted else 1
    finally:
        server.stop()


def _workload(dynamodb: Any, rng: random.Random, orders: int, now: int) -> dict[str, int]:
    writes = 0
    for step in range(orders):
        key = f"order-{rng.randrange(orders // 2 or 1)}"
        title = " ".join(rng.sample(WORDS, 3))
        roll = rng.random()
        if roll < 0.6:
            dynamodb.put_item(
                TableName="orders",
                Item={
                    "pk": {"S": key},
                    "status": {"S": rng.choice(["open", "paid", "shipped"])},
                    "title": {"S": title},
                    "description": {"S": f"{title} for {rng.choice(WORDS)}"},
                    "amount": {"N": str(rng.randrange(5, 500))},
                },
            )
        elif roll < 0.85:
            try:
                dynamodb.update_item(
                    TableName="orders",
                    Key={"pk": {"S": key}},
                    UpdateExpression="SET #s = :s",
                    ConditionExpression="attribute_exists(pk)",
                    ExpressionAttributeNames={"#s": "status"},
                    ExpressionAttributeValues={":s": {"S": "shipped"}},
                )
            except ClientError:
                continue
        else:
            dynamodb.delete_item(TableName="orders", Key={"pk": {"S": key}})
        writes += 1
    sessions = 12
    for number in range(sessions):
        dynamodb.put_item(
            TableName="sessions",
            Item={"pk": {"S": f"session-{number}"}, "expires": {"N": str(now + 60 * (number + 1))}},
        )
    users = ["ada", "grace", "edsger"]
    for name in users:
        dynamodb.put_item(TableName="users", Item={"pk": {"S": name}, "name": {"S": name.title()}})
    return {"writes": writes + sessions + len(users), "sessions": sessions, "users": len(users)}


def _wait(emulator: Any, what: str) -> None:
    report = emulator.wait_idle(120)
    if not report["Idle"]:
        raise SystemExit(f"eddy demo: waited two minutes for {what}: {json.dumps(report['Pending'])}")


def _scan(dynamodb: Any, table: str) -> dict[str, dict]:
    items = {}
    for page in dynamodb.get_paginator("scan").paginate(TableName=table):
        for item in page["Items"]:
            items[item["pk"]["S"]] = {k: v for k, v in item.items() if not k.startswith("_replica")}
    return items


def _archived_items(s3: Any) -> int:
    count = 0
    for page in s3.get_paginator("list_objects_v2").paginate(Bucket="session-archive"):
        for entry in page.get("Contents", []):
            count += len(s3.get_object(Bucket="session-archive", Key=entry["Key"])["Body"].read().splitlines())
    return count


def _aggregate(state_dir: Path, out: Path, args: argparse.Namespace) -> list[str]:
    """The Spark aggregation job's transform over the orders' change log: one line per (window, counts)."""
    from eddy.spark_batch.io import read_change_log
    from eddy.spark_batch.jobs.aggregate import transform
    from eddy.spark_batch.jobs import interrupt_as_a_command
    from eddy.spark_batch.session import spark_session

    # no progress bar: the tour's numbered lines are the output, and a bar would draw across them
    spark = spark_session(
        args.master,
        app_name="eddy-demo",
        config={"spark.ui.showConsoleProgress": "false"},
        on_interrupt=interrupt_as_a_command(verbose=getattr(args, "verbose", False)),
    )
    try:
        metrics = transform(read_change_log(spark, state_dir, tables=["orders"]), window_seconds=60, numbers=["amount"])
        rows = metrics.orderBy("table", "window_start").collect()
    finally:
        spark.stop()
    return [
        f"{row['table']} {row['window_start']:%H:%M} records {row['records']:>4}  INSERT {row['INSERT']:>4}  "
        f"MODIFY {row['MODIFY']:>4}  REMOVE {row['REMOVE']:>4}  amount sum {row['amount_sum']:.0f}"
        for row in rows
    ]


def register(commands: argparse._SubParsersAction) -> None:
    demo = commands.add_parser("demo", help="an end-to-end tour: workload, replica, search, TTL archive, Spark")
    demo.add_argument("--orders", type=int, default=300, help="how many order writes (default 300)")
    demo.add_argument("--seed", type=int, default=7)
    demo.add_argument("--master", default=None, help="Spark master (default: $SPARK_MASTER, else local[*])")
    demo.set_defaults(handler=run)

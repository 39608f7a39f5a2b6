"""A table stream consumed while a writer commits: rows/s consumed, rows lost, rows repeated.

    .venv/bin/python bench/table_stream_consume.py [--seconds 60] [--items 8] [--master local[2]]

One in-process emulator (durable state directory), one table whose stream has 4 open shards (the first
shard split, then both children). A writer thread commits `--items`-item TransactWriteItems (new items) as
fast as it can for `--seconds`; meanwhile a consumer loops `stream.consume(...)` (each round collects the
change set's keys), then consumes once more after the writer stops. Printed: rows written and the writer's
rows/s (the peer, measured in the same run), rows consumed and rows/s consumed (over the whole run, from
the first write to the last consume), their ratio, rounds and the median round time, rows lost and repeated.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import boto3  # noqa: E402

from eddy.emulator import emulate  # noqa: E402
from eddy.spark_batch.session import spark_session  # noqa: E402
from eddy.spark_batch.table_streams import TableStreams  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--items", type=int, default=8)
    parser.add_argument("--master", default="local[2]")
    args = parser.parse_args()
    spark = spark_session(args.master, app_name="eddy-bench-table-stream",
                          config={"spark.ui.enabled": "false", "spark.ui.showConsoleProgress": "false",
                                  "spark.sql.shuffle.partitions": "2"})
    spark.sparkContext.setLogLevel("ERROR")
    work = Path(tempfile.mkdtemp(prefix="eddy-bench-"))
    with emulate(state_dir=work / "state", housekeeping_interval=None) as emu:
        dynamodb = boto3.client("dynamodb", region_name="us-east-1")
        dynamodb.create_table(TableName="busy", KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                              AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                              BillingMode="PAY_PER_REQUEST",
                              StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"})
        arn = dynamodb.describe_table(TableName="busy")["Table"]["LatestStreamArn"]
        [root] = [shard.shard_id for shard in emu.streams.get(arn).open_shards]
        for child in emu.split_shard(arn, root):
            emu.split_shard(arn, child)
        streams = TableStreams(spark, emu.state_dir, work / "offsets", clock=emu.clock)
        stream = streams.create("busy_stream", "busy")
        written: list[str] = []
        consumed: list[str] = []
        stop = threading.Event()

        def writer() -> None:
            client = boto3.client("dynamodb", region_name="us-east-1")
            commit = 0
            while not stop.is_set():
                pks = [f"{commit}-{i}" for i in range(args.items)]
                client.transact_write_items(TransactItems=[{"Put": {"TableName": "busy", "Item": {"pk": {"S": pk}}}}
                                                           for pk in pks])
                written.extend(pks)
                commit += 1

        def take(rows, batch_id) -> None:
            consumed.extend(row["pk"] for row in rows.select("pk").collect())

        rounds: list[float] = []
        started = time.perf_counter()
        thread = threading.Thread(target=writer)
        thread.start()
        deadline = started + args.seconds
        while time.perf_counter() < deadline:
            begin = time.perf_counter()
            stream.consume(take)
            rounds.append(time.perf_counter() - begin)
        stop.set()
        thread.join()
        wrote_for = time.perf_counter() - started
        stream.consume(take)
        total = time.perf_counter() - started
    lost = len(set(written) - set(consumed))
    repeated = len(consumed) - len(set(consumed))
    write_rate, consume_rate = len(written) / wrote_for, len(consumed) / total
    print(f"written:  {len(written):,} rows in {wrote_for:.1f} s = {write_rate:,.0f} rows/s "
          f"({args.items}-item transactions, 4 shards)")
    print(f"consumed: {len(consumed):,} rows in {total:.1f} s = {consume_rate:,.0f} rows/s "
          f"({consume_rate / write_rate:.2f}x the write rate); {len(rounds)} rounds while writing, "
          f"median {statistics.median(rounds):.2f} s")
    print(f"lost: {lost}, repeated: {repeated}")


if __name__ == "__main__":
    main()

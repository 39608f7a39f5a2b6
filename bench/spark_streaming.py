"""The dynamodbstreams source reading a 200,000-record stream from `eddy serve`, against a plain boto3 GetRecords
loop over the same stream, in the same run. Target (issue 12): the source >= 0.5x the loop's records/s.

The stream is filled once (in-process, into a state directory `eddy serve` then recovers), with load splits on,
so the source follows lineage as it would in a real stream. Each round: the loop reads every shard from
TRIM_HORIZON (parents first); the source runs one availableNow query into Spark's no-op sink (a fresh checkpoint).

    .venv/bin/python bench/spark_streaming.py [--records 200000] [--rounds 3] [--master local[2]]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import boto3

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from common import create_table, fill_table  # noqa: E402
from tests.conftest import eddy_server  # noqa: E402

os.environ.setdefault("AWS_ACCESS_KEY_ID", "bench")
os.environ.setdefault("AWS_SECRET_ACCESS_KEY", "bench")
REGION = "us-east-1"


def fill(state_dir: Path, records: int) -> str:
    from eddy import emulate

    with emulate(state_dir=state_dir, housekeeping_interval=None):
        dynamodb = boto3.client("dynamodb", region_name=REGION)
        arn = create_table(dynamodb, "orders", "NEW_AND_OLD_IMAGES")["LatestStreamArn"]
        fill_table(dynamodb, records)
    return arn


def boto3_loop(url: str, arn: str) -> int:
    """Every record of the stream, shard by shard, parents first: what a consumer without Spark writes."""
    from eddy.spark_batch.streaming.positions import Shard, in_lineage_order

    streams = boto3.client("dynamodbstreams", endpoint_url=url, region_name=REGION)
    shards = [Shard.from_description(shard) for shard in
              streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"]]
    count = 0
    for shard in in_lineage_order(shards):
        iterator = streams.get_shard_iterator(StreamArn=arn, ShardId=shard.shard_id,
                                              ShardIteratorType="TRIM_HORIZON")["ShardIterator"]
        while iterator:
            page = streams.get_records(ShardIterator=iterator, Limit=1000)
            count += len(page["Records"])
            iterator = page.get("NextShardIterator") if page["Records"] else None
    return count


def source_query(spark, url: str, arn: str, checkpoint: Path) -> int:
    counted = spark.sparkContext.accumulator(0)

    def land(batch, batch_id: int) -> None:
        counted.add(batch.count())

    query = (spark.readStream.format("dynamodbstreams").option("streamArn", arn).option("endpointUrl", url)
             .option("region", REGION).load().writeStream.foreachBatch(land)
             .option("checkpointLocation", str(checkpoint)).trigger(availableNow=True).start())
    query.awaitTermination()
    return counted.value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--records", type=int, default=200_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--master", default="local[2]")
    args = parser.parse_args()
    from eddy.spark_batch.session import spark_session

    work = Path(tempfile.mkdtemp(prefix="eddy-streaming-bench-"))
    started = time.perf_counter()
    arn = fill(work / "state", args.records)
    print(f"filled {args.records:,} records in {time.perf_counter() - started:.1f} s", flush=True)
    spark = spark_session(args.master, app_name="eddy streaming bench",
                          config={"spark.ui.enabled": "false", "spark.ui.showConsoleProgress": "false"})
    spark.sparkContext.setLogLevel("ERROR")
    rates: dict[str, list[float]] = {"boto3 GetRecords loop": [], "dynamodbstreams source": []}
    with eddy_server("--state-dir", str(work / "state"), "--housekeeping-interval", "0") as (url, _):
        shards = len(boto3.client("dynamodbstreams", endpoint_url=url, region_name=REGION)
                     .describe_stream(StreamArn=arn)["StreamDescription"]["Shards"])
        print(f"eddy serve on {url}: {shards} shards", flush=True)
        source_query(spark, url, arn, work / "warm-up")          # untimed: Python workers and the JVM warm up
        for round_number in range(args.rounds):
            for name, read in (("boto3 GetRecords loop", lambda: boto3_loop(url, arn)),
                               ("dynamodbstreams source",
                                lambda: source_query(spark, url, arn, work / f"checkpoint-{round_number}"))):
                started = time.perf_counter()
                count = read()
                seconds = time.perf_counter() - started
                assert count == args.records, (name, count)
                rates[name].append(count / seconds)
                print(f"  round {round_number + 1} {name}: {count:,} records in {seconds:.1f} s", flush=True)
    loop, source = (statistics.median(rates[name]) for name in rates)
    print(f"boto3 GetRecords loop  {loop:>10,.0f} records/s")
    print(f"dynamodbstreams source {source:>10,.0f} records/s  ({source / loop:.2f}x the loop; target >= 0.5x)")


if __name__ == "__main__":
    main()

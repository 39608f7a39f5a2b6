"""The dynamodbstreams source against `eddy serve`: every record once, across splits, rollovers and restarts."""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

import boto3
import pytest
from pyspark.sql import DataFrame, SparkSession

from eddy.spark_batch.dynamodb_json import ItemType, with_item_columns
from tests.conftest import REGION, eddy_server, http_json

CREDENTIALS = {"accessKeyId": "testing", "secretAccessKey": "testing"}


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    # its own server: a test here moves the clock a day on, which would trim every other test's streams
    with eddy_server("--in-memory", "--housekeeping-interval", "0") as (server, _):
        yield server


def client(url: str, service: str):
    return boto3.client(service, endpoint_url=url, region_name=REGION, aws_access_key_id="testing",
                        aws_secret_access_key="testing")


def new_table(url: str, name: str) -> str:
    table = client(url, "dynamodb").create_table(
        TableName=name, KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}], BillingMode="PAY_PER_REQUEST",
        StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"})
    return table["TableDescription"]["LatestStreamArn"]


def write(url: str, table: str, keys: range, value: int = 0) -> None:
    dynamodb = client(url, "dynamodb")
    for number in keys:
        dynamodb.put_item(TableName=table, Item={"pk": {"S": f"k{number}"}, "n": {"N": str(number + value)}})


def every_record(url: str, stream_arn: str) -> list[dict]:
    """What a plain boto3 GetRecords loop over every shard reads."""
    streams = client(url, "dynamodbstreams")
    found = []
    for shard in streams.describe_stream(StreamArn=stream_arn)["StreamDescription"]["Shards"]:
        iterator = streams.get_shard_iterator(StreamArn=stream_arn, ShardId=shard["ShardId"],
                                              ShardIteratorType="TRIM_HORIZON")["ShardIterator"]
        while iterator:
            page = streams.get_records(ShardIterator=iterator)
            found += [dict(record, shard_id=shard["ShardId"]) for record in page["Records"]]
            iterator = page.get("NextShardIterator") if page["Records"] else None
    return found


def source(spark: SparkSession, url: str, stream_arn: str, streaming: bool = True, **options: str) -> DataFrame:
    reader = spark.readStream if streaming else spark.read
    return (reader.format("dynamodbstreams").option("streamArn", stream_arn).option("endpointUrl", url)
            .option("region", REGION).options(**CREDENTIALS, **options).load())


def run_available_now(spark: SparkSession, df: DataFrame, out: Path, checkpoint: Path) -> None:
    """One availableNow run; each micro-batch lands (idempotently) in out/batch=<id>."""
    def land(batch: DataFrame, batch_id: int) -> None:
        batch.write.mode("overwrite").parquet(str(out / f"batch={batch_id}"))

    query = (df.writeStream.foreachBatch(land).option("checkpointLocation", str(checkpoint))
             .trigger(availableNow=True).start())
    query.awaitTermination(120)
    assert query.exception() is None


def test_a_batch_read_is_what_get_records_returns(spark: SparkSession, url: str) -> None:
    arn = new_table(url, "source-batch")
    write(url, "source-batch", range(6))
    write(url, "source-batch", range(2), value=100)
    client(url, "dynamodb").delete_item(TableName="source-batch", Key={"pk": {"S": "k5"}})

    rows = source(spark, url, arn, streaming=False).orderBy("sequence_number").collect()

    expected = sorted(every_record(url, arn), key=lambda record: int(record["dynamodb"]["SequenceNumber"]))
    assert [row.sequence_number for row in rows] == [record["dynamodb"]["SequenceNumber"] for record in expected]
    assert [row.event_name for row in rows] == ["INSERT"] * 6 + ["MODIFY"] * 2 + ["REMOVE"]
    assert [row.event_id for row in rows] == [record["eventID"] for record in expected]
    modify = rows[6]
    assert (modify.keys, modify.old_image, modify.new_image) == (
        '{"pk":{"S":"k0"}}', '{"pk":{"S":"k0"},"n":{"N":"0"}}', '{"pk":{"S":"k0"},"n":{"N":"100"}}')
    assert rows[-1].new_image is None and rows[-1].old_image == '{"pk":{"S":"k5"},"n":{"N":"5"}}'
    assert {(row.stream_view_type, row.shard_id) for row in rows} == {
        ("NEW_AND_OLD_IMAGES", record["shard_id"]) for record in expected}
    assert [row.size_bytes for row in rows] == [record["dynamodb"]["SizeBytes"] for record in expected]
    assert rows[0].approximate_creation_date_time.timestamp() == pytest.approx(
        expected[0]["dynamodb"]["ApproximateCreationDateTime"].timestamp(), abs=1)

    typed = with_item_columns(source(spark, url, arn, streaming=False).where("event_name = 'INSERT'"), "new_image",
                              ItemType.of_item({"pk": {"S": "k"}, "n": {"N": "1"}}))
    assert sorted((row.pk, int(row.n)) for row in typed.select("pk", "n").collect()) == [
        (f"k{number}", number) for number in range(6)]


def test_a_query_reads_every_record_once_across_split_rollover_and_restart(spark: SparkSession, url: str,
                                                                          tmp_path: Path) -> None:
    arn = new_table(url, "source-lineage")
    out, checkpoint = tmp_path / "out", tmp_path / "checkpoint"
    write(url, "source-lineage", range(20))
    run_available_now(spark, source(spark, url, arn), out, checkpoint)

    (root,) = client(url, "dynamodbstreams").describe_stream(StreamArn=arn)["StreamDescription"]["Shards"]
    write(url, "source-lineage", range(20, 25))           # the parent's last records, read with its children
    children = http_json(url + "/_eddy/shards/split", {"StreamArn": arn, "ShardId": root["ShardId"]})["ChildShardIds"]
    write(url, "source-lineage", range(0, 40), value=1)
    run_available_now(spark, source(spark, url, arn), out, checkpoint)   # a restart from the checkpoint

    http_json(url + "/_eddy/shards/rollover", {"StreamArn": arn})
    write(url, "source-lineage", range(40, 50))
    run_available_now(spark, source(spark, url, arn), out, checkpoint)
    run_available_now(spark, source(spark, url, arn), out, checkpoint)   # nothing new: no batch, nothing repeated

    landed = spark.read.parquet(str(out))
    read = [(row.sequence_number, row.shard_id, row.batch) for row in landed.collect()]
    expected = every_record(url, arn)
    assert sorted(number for number, _, _ in read) == sorted(r["dynamodb"]["SequenceNumber"] for r in expected)
    assert len({number for number, _, _ in read}) == len(read) == 20 + 5 + 40 + 10
    assert {shard for _, shard, _ in read} > set(children) | {root["ShardId"]}
    batches: dict[str, set[int]] = {}
    for _, shard, batch in read:
        batches.setdefault(shard, set()).add(batch)
    assert batches.pop(root["ShardId"]) == {0, 1}
    assert [batches.pop(child) for child in children] == [{1}, {1}]
    assert set().union(*batches.values()) == {2}           # the rollover's shards; the fourth run read nothing


def test_latest_reads_only_what_is_written_after_the_query_starts(spark: SparkSession, url: str,
                                                                 tmp_path: Path) -> None:
    arn = new_table(url, "source-latest")
    write(url, "source-latest", range(5))
    query = (source(spark, url, arn, startingPosition="LATEST").writeStream.format("memory").queryName("latest")
             .option("checkpointLocation", str(tmp_path / "checkpoint")).trigger(processingTime="200 milliseconds")
             .start())
    try:
        query.processAllAvailable()          # the query has started: LATEST is fixed
        write(url, "source-latest", range(5, 12))
        query.processAllAvailable()
        rows = spark.table("latest").select("new_image").collect()
        assert sorted(row.new_image for row in rows) == sorted(
            f'{{"pk":{{"S":"k{number}"}},"n":{{"N":"{number}"}}}}' for number in range(5, 12))
    finally:
        query.stop()


def test_a_position_the_stream_trimmed_is_an_error_not_a_skip(spark: SparkSession, url: str, tmp_path: Path) -> None:
    arn = new_table(url, "source-trimmed")
    out, checkpoint = tmp_path / "out", tmp_path / "checkpoint"
    write(url, "source-trimmed", range(3))
    run_available_now(spark, source(spark, url, arn), out, checkpoint)
    write(url, "source-trimmed", range(3, 6))          # written, never read by the query, then trimmed
    http_json(url + "/_eddy/clock", {"advance": 25 * 3600})
    assert every_record(url, arn) == []                # the stream's retention trimmed every record

    query = (source(spark, url, arn).writeStream.foreachBatch(lambda batch, batch_id: None)
             .option("checkpointLocation", str(checkpoint)).trigger(availableNow=True).start())
    with pytest.raises(Exception) as raised:
        query.awaitTermination(120)
    assert "StreamPositionTrimmedError" in str(raised.value) and "records it had not read are gone" in str(raised.value)


def test_a_missing_stream_arn_says_what_to_set(spark: SparkSession) -> None:
    with pytest.raises(Exception, match='option\\("streamArn"'):
        spark.read.format("dynamodbstreams").load().count()


"""`dynamodbstreams`: a PySpark data source (streaming and batch) that reads a DynamoDB stream through the
DynamoDB Streams API, so the same query runs against `eddy serve` and, unchanged, against AWS.

    from eddy.spark_batch.streaming import register
    register(spark)                          # the sessions spark_batch.session makes have it already
    changes = (spark.readStream.format("dynamodbstreams")
               .option("streamArn", arn).option("endpointUrl", "http://127.0.0.1:4566").option("region", "us-east-1")
               .option("startingPosition", "TRIM_HORIZON")      # or LATEST
               .load())

Columns: event_id, event_name, shard_id, sequence_number, approximate_creation_date_time, keys, new_image,
old_image (DynamoDB JSON text), size_bytes, stream_view_type, user_identity_type. Typed image columns:
`eddy.spark_batch.dynamodb_json.with_item_columns(changes, "new_image", item_type)`, with an ItemType inferred once
from a batch read of the same stream (`infer_item_type(spark.read.format("dynamodbstreams")...load(), "new_image")`).

| module | what |
| --- | --- |
| source | the DataSource, its stream and batch readers, and the driver's offsets |
| positions | offsets: each shard's position, lineage order, the ranges a micro-batch reads (pure) |
| shard_reads | DescribeStream and GetRecords with boto3, the records as the service sent them |
| rows | a stream record as a row, in Arrow batches |
"""

from __future__ import annotations

from pyspark.sql import SparkSession

from .rows import SCHEMA
from .source import DynamoDBStreamsDataSource

__all__ = ["DynamoDBStreamsDataSource", "SCHEMA", "register"]


def register(spark: SparkSession) -> None:
    """Make `format("dynamodbstreams")` known to `spark` (spark_batch's own sessions call this themselves)."""
    spark.dataSource.register(DynamoDBStreamsDataSource)

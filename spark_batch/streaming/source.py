"""The `dynamodbstreams` data source: a DynamoDB stream as a Spark DataFrame, streaming or batch.

The driver learns where each micro-batch ends by reading every readable shard to its current end (parents
before children, new shards from splits and rollovers found on every trigger); executors then read the
shards' ranges in parallel, one partition per shard. Offsets are per shard (positions.py), so a query
restarted from its checkpoint reads exactly what it had not.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Iterator, Mapping

from pyspark.sql.datasource import DataSource, DataSourceReader, DataSourceStreamReader, InputPartition
from pyspark.sql.types import StructType

from ..errors import StreamPositionTrimmedError, StreamSourceError
from . import positions
from .positions import END, TRIM_HORIZON, Shard
from .rows import SCHEMA, record_batch
from .shard_reads import ShardPages, client_options, describe_shards, streams_client

LATEST = "LATEST"


class DynamoDBStreamsDataSource(DataSource):
    """`spark.readStream.format("dynamodbstreams").option("streamArn", arn).load()` (and `spark.read` alike).

    Options: streamArn (required); endpointUrl, region; startingPosition TRIM_HORIZON (default) or LATEST;
    accessKeyId, secretAccessKey, sessionToken or profile (default: boto3's credential chain).
    """

    @classmethod
    def name(cls) -> str:
        return "dynamodbstreams"

    def schema(self) -> StructType:
        return SCHEMA

    def reader(self, schema: StructType) -> "BatchReader":
        return BatchReader(SourceOptions.parse(self.options))

    def streamReader(self, schema: StructType) -> "StreamReader":
        return StreamReader(SourceOptions.parse(self.options))


@dataclass(frozen=True)
class SourceOptions:
    stream_arn: str
    starting_position: str
    client: tuple[tuple[str, str], ...]

    @classmethod
    def parse(cls, options: Mapping[str, str]) -> "SourceOptions":
        given = {name.lower(): value for name, value in options.items()}
        if not given.get("streamarn"):
            raise StreamSourceError('the dynamodbstreams source needs .option("streamArn", <a stream\'s ARN>)')
        starting = given.get("startingposition", TRIM_HORIZON).upper()
        if starting not in (TRIM_HORIZON, LATEST):
            raise StreamSourceError(f"startingPosition must be TRIM_HORIZON or LATEST, not {starting!r}")
        return cls(given["streamarn"], starting, client_options(given))


class ShardPartition(InputPartition):
    """One shard's range in one micro-batch, read on an executor."""

    def __init__(self, options: SourceOptions, shard_range: positions.ShardRange) -> None:
        super().__init__(shard_range.shard_id)
        self.options = options
        self.shard_range = shard_range


class Offsets:
    """The driver's side: where each shard stands, moved forward by reading what the stream holds now."""

    def __init__(self, options: SourceOptions) -> None:
        self.options = options

    @property
    def client(self) -> Any:
        # made where it is used (one per process): readers are pickled between Spark's processes, clients cannot be
        return streams_client(self.options.client)

    def initial(self) -> dict[str, Any]:
        shards, _ = describe_shards(self.client, self.options.stream_arn)
        start = {"streamArn": self.options.stream_arn, "shards": positions.initial_positions(shards, TRIM_HORIZON)}
        return self.advance(start) if self.options.starting_position == LATEST else start

    def advance(self, offset: Mapping[str, Any]) -> dict[str, Any]:
        """`offset` moved to the end of every shard that may be read now (a child once its parents are ended)."""
        arn = self.options.stream_arn
        described, _ = describe_shards(self.client, arn)
        self._check_nothing_lost(offset["shards"], [shard.shard_id for shard in described])
        shards = positions.with_new_shards(offset["shards"], described)
        for shard in positions.in_lineage_order(described):
            if positions.readable(shard.shard_id, shards):
                shards[shard.shard_id]["position"] = self._read_to_now(shard, shards[shard.shard_id]["position"])
        return {"streamArn": arn, "shards": shards}

    def _read_to_now(self, shard: Shard, position: str) -> str:
        last = None
        pages = ShardPages(self.client, self.options.stream_arn, shard.shard_id, shard.starting, position)
        for page in pages:
            last = page[-1]["dynamodb"]["SequenceNumber"]
        if pages.ended:
            return END
        return positions.after(last) if last is not None else position

    def _check_nothing_lost(self, shards: Mapping[str, Mapping[str, Any]], now_listed: Iterable[str]) -> None:
        lost = positions.vanished(shards, now_listed)
        if lost:
            raise StreamPositionTrimmedError(
                f"shards {', '.join(lost)} of {self.options.stream_arn} were trimmed before the query read them to "
                "their end: records it had not read are gone. Start the query again without its checkpoint to go on."
            )

    def partitions(self, start: Mapping[str, Any], end: Mapping[str, Any]) -> list[ShardPartition]:
        if start:
            self._check_nothing_lost(start["shards"], end["shards"])
        return [ShardPartition(self.options, shard_range) for shard_range in positions.ranges(start, end)]


class StreamReader(DataSourceStreamReader):
    def __init__(self, options: SourceOptions) -> None:
        self.offsets = Offsets(options)
        self.current: dict[str, Any] | None = None

    def initialOffset(self) -> dict[str, Any]:
        self.current = self.offsets.initial()
        return self.current

    def latestOffset(self) -> dict[str, Any]:
        # after a restart from a checkpoint this reader has not seen the start: every shard's end is found from
        # the trim horizon instead (the same ends, read once more on the driver)
        start = self.current or {"streamArn": self.offsets.options.stream_arn, "shards": {}}
        self.current = self.offsets.advance(start)
        return self.current

    def partitions(self, start: dict[str, Any], end: dict[str, Any]) -> list[ShardPartition]:
        return self.offsets.partitions(start, end)

    def read(self, partition: ShardPartition) -> Iterator[Any]:
        return read_partition(partition)

    def commit(self, end: dict[str, Any]) -> None:
        """Nothing to do: the stream keeps its records for 24 hours whatever the query has read."""


class BatchReader(DataSourceReader):
    """What the stream holds now, from TRIM_HORIZON (or nothing from LATEST)."""

    def __init__(self, options: SourceOptions) -> None:
        self.offsets = Offsets(options)

    def partitions(self) -> list[ShardPartition]:
        start = self.offsets.initial()
        return self.offsets.partitions(start, self.offsets.advance(start))

    def read(self, partition: ShardPartition) -> Iterator[Any]:
        return read_partition(partition)


def read_partition(partition: ShardPartition) -> Iterator[Any]:
    """A shard range's records as Arrow record batches (on an executor)."""
    options, shard_range = partition.options, partition.shard_range
    client = streams_client(options.client)
    for page in ShardPages(
        client, options.stream_arn, shard_range.shard_id, shard_range.starting, shard_range.start, upto=shard_range.end
    ):
        if page:
            yield record_batch(page, shard_range.shard_id)

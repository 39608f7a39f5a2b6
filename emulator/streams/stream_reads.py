"""The DynamoDB Streams API's reads, on the engine's state: ListStreams, DescribeStream, GetShardIterator and
GetRecords (plain values in and out, AWS's errors as AWSError subclasses; api/dynamodb/streams.py is their door), and
the shape of a stream in their answers (ListStreams' summary, DescribeStream's StreamDescription)."""

from __future__ import annotations

from typing import Any

from eddy.emulator.errors import ResourceNotFoundException, TrimmedDataAccessException, ValidationException
from eddy.emulator.kernel import Kernel
from eddy.emulator.streams.iterators import Position, ShardIterators, ShardIteratorType
from eddy.emulator.streams.read_limits import ReadLimits
from eddy.emulator.streams.shards import SequenceNumbers
from eddy.emulator.streams.stream import Stream
from eddy.emulator.streams.stream_registry import StreamRegistry

MAX_RESPONSE_BYTES = 1024 * 1024
TRIMMED = "The data you are trying to access has been trimmed"


class StreamReads:
    def __init__(
        self,
        kernel: Kernel,
        streams: StreamRegistry,
        sequence_numbers: SequenceNumbers,
        iterators: ShardIterators,
        read_limits: ReadLimits,
    ) -> None:
        self._lock, self._clock = kernel.lock, kernel.clock
        self._streams, self._sequence_numbers = streams, sequence_numbers
        self._iterators, self._read_limits = iterators, read_limits

    def _stream(self, stream_arn: str) -> Stream:
        """The stream, its retention and rollover brought up to the clock first."""
        self._streams.maintain(self._clock.now())
        return self._streams.get(stream_arn)

    def list_streams(
        self,
        account_id: str,
        region: str,
        *,
        table_name: str | None,
        limit: int,
        exclusive_start_stream_arn: str | None,
    ) -> dict[str, Any]:
        with self._lock:
            self._streams.maintain(self._clock.now())
            streams = self._streams.list(account_id, region, table_name)
            if exclusive_start_stream_arn is not None:
                arns = [stream.arn for stream in streams]
                streams = (
                    streams[arns.index(exclusive_start_stream_arn) + 1 :] if exclusive_start_stream_arn in arns else []
                )
            page = streams[:limit]
            result: dict[str, Any] = {"Streams": [stream_summary(stream) for stream in page]}
            if len(streams) > limit:
                result["LastEvaluatedStreamArn"] = page[-1].arn
            return result

    def describe_stream(
        self, stream_arn: str, *, limit: int, exclusive_start_shard_id: str | None, parent_shard_id: str | None
    ) -> dict[str, Any]:
        with self._lock:
            stream = self._stream(stream_arn)
            return {
                "StreamDescription": stream_description(
                    stream,
                    limit=limit,
                    exclusive_start_shard_id=exclusive_start_shard_id,
                    parent_shard_id=parent_shard_id,
                )
            }

    def get_shard_iterator(
        self, stream_arn: str, shard_id: str, iterator_type: ShardIteratorType, sequence_number: int | None
    ) -> str:
        with self._lock:
            stream = self._stream(stream_arn)
            shard = stream.shard(shard_id)
            if iterator_type is ShardIteratorType.TRIM_HORIZON:
                position = shard.trimmed_through + 1
            elif iterator_type is ShardIteratorType.LATEST:
                position = (self._sequence_numbers.last if shard.is_open else shard.last_sequence_number) + 1
            else:
                if sequence_number is None:
                    raise ValidationException(f"SequenceNumber is required for ShardIteratorType {iterator_type.value}")
                if not shard.covers(sequence_number) or sequence_number > self._sequence_numbers.last:
                    raise ResourceNotFoundException(
                        f"Requested resource not found: Sequence number {sequence_number} is not in shard {shard_id}"
                    )
                if sequence_number <= shard.trimmed_through:
                    raise TrimmedDataAccessException(TRIMMED)
                after = iterator_type is ShardIteratorType.AFTER_SEQUENCE_NUMBER
                position = sequence_number + 1 if after else sequence_number
            return self._iterators.issue(Position(stream.arn, shard.shard_id, position))

    def get_records(self, shard_iterator: str, *, limit: int) -> tuple[list[bytes], str | None]:
        """The records at an iterator, each already JSON-encoded, and the next iterator (None at a closed shard's end)."""
        with self._lock:
            position = self._iterators.parse(shard_iterator)
            stream = self._stream(position.stream_arn)
            shard = stream.shard(position.shard_id)
            self._read_limits.count(shard.shard_id)
            if position.sequence_number <= shard.trimmed_through:
                raise TrimmedDataAccessException(TRIMMED)
            start = shard.index_at(position.sequence_number)
            records = shard.records[start : start + limit]
            view_type, region = stream.view_type, stream.region
            encoded, size = [], 0
            for record in records:
                wire = record.wire(view_type, region)
                size += len(wire)
                if encoded and size > MAX_RESPONSE_BYTES:
                    break
                encoded.append(wire)
            if encoded:
                next_position = records[len(encoded) - 1].sequence_number + 1
            else:
                next_position = position.sequence_number
            if not shard.is_open and start + len(encoded) >= len(shard.records):
                return encoded, None
            return encoded, self._iterators.issue(Position(stream.arn, shard.shard_id, next_position))


def stream_summary(stream: Stream) -> dict[str, str]:
    """A stream as ListStreams names it."""
    return {"StreamArn": stream.arn, "TableName": stream.table_name, "StreamLabel": stream.label}


def stream_description(
    stream: Stream, *, limit: int, exclusive_start_shard_id: str | None, parent_shard_id: str | None
) -> dict[str, Any]:
    """DescribeStream's StreamDescription: a page of the stream's shards, oldest first."""
    shards = list(stream.shards.values())
    if parent_shard_id is not None:
        shards = [shard for shard in shards if shard.parent_shard_id == parent_shard_id]
    if exclusive_start_shard_id is not None:
        # AWS answers an ExclusiveStartShardId it does not know with no shards, not an error
        ids = [shard.shard_id for shard in shards]
        shards = shards[ids.index(exclusive_start_shard_id) + 1 :] if exclusive_start_shard_id in ids else []
    page = shards[:limit]
    description: dict[str, Any] = {
        "StreamArn": stream.arn,
        "StreamLabel": stream.label,
        "StreamStatus": stream.status,
        "StreamViewType": stream.view_type.value,
        "CreationRequestDateTime": stream.created_at,
        "TableName": stream.table_name,
        "KeySchema": [{"AttributeName": k["AttributeName"], "KeyType": k["KeyType"]} for k in stream.key_schema],
        "Shards": [shard.describe() for shard in page],
    }
    if len(shards) > limit:
        description["LastEvaluatedShardId"] = page[-1].shard_id
    return description

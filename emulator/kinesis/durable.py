"""moto's Kinesis data streams' durable channel (storage/channels.py).

KinesisStreamsChannel (told by moto's Kinesis through the seam's observer, moto_seam/kinesis/streams.py)
  log entries   {"op": "kinesis_stream", "shape"}: a stream created, resharded or its retention changed;
                {"op": "kinesis_record", "stream", "record"}: a record put; {"op": "kinesis_stream_deleted", "stream"}
  snapshot      {"kind": "kinesis_stream", "shape"}, then its records, {"kind": "kinesis_records", "stream",
                "records"}, ITEMS_PER_LINE a line
(The tables' destinations have theirs beside them: kinesis/destinations.py's KinesisDestinationsChannel.)
"""

from __future__ import annotations

import json
from typing import Any, Iterator

from eddy.emulator.moto_seam.kinesis import state as kinesis_state
from eddy.emulator.storage.channels import Channel, DurableLog

ITEMS_PER_LINE = 500


class KinesisStreamsChannel(Channel):
    name = "kinesis_streams"
    ops = ("kinesis_stream", "kinesis_record", "kinesis_stream_deleted")
    kinds = ("kinesis_stream", "kinesis_records")

    def __init__(self, log: DurableLog) -> None:
        self.log = log

    def kinesis_stream_changed(self, stream: Any) -> None:
        self.log.log({"op": "kinesis_stream", "shape": kinesis_state.stream_shape(stream)})

    def kinesis_record_put(self, stream: Any, shard: Any, record: Any) -> None:
        """A record about to be put, logged first, without the log's reserve (nothing is applied yet): WriteFailed,
        and it is not put."""
        entry = {"op": "kinesis_record", "stream": stream.arn, "record": kinesis_state.record_state(shard, record)}
        self.log.log_all([json.dumps(entry, separators=(",", ":")).encode()])

    def kinesis_stream_deleted(self, stream: Any) -> None:
        self.log.log({"op": "kinesis_stream_deleted", "stream": stream.arn})

    def snapshot_entries(self, generation: int) -> Iterator[dict[str, Any]]:
        for stream in kinesis_state.all_streams():
            yield {"kind": "kinesis_stream", "shape": kinesis_state.stream_shape(stream)}
            records = [
                kinesis_state.record_state(shard, record)
                for shard in stream.shards.values()
                for record in shard.records.values()
            ]
            for start in range(0, len(records), ITEMS_PER_LINE):
                yield {
                    "kind": "kinesis_records",
                    "stream": stream.arn,
                    "records": records[start : start + ITEMS_PER_LINE],
                }

    def restore(self, entry: dict[str, Any]) -> None:
        if entry["kind"] == "kinesis_records":
            for record in entry["records"]:
                kinesis_state.restore_record(entry["stream"], record)
        else:
            kinesis_state.restore_shape(entry["shape"])

    def replay(self, entry: dict[str, Any]) -> None:
        op = entry["op"]
        if op == "kinesis_stream":
            kinesis_state.restore_shape(entry["shape"])
        elif op == "kinesis_record":
            kinesis_state.restore_record(entry["stream"], entry["record"])
        else:
            kinesis_state.delete_stream(entry["stream"])

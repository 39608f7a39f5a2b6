"""Every stream the emulator knows, by ARN, and each table's latest stream."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from eddy.emulator.errors import ResourceNotFoundException, ValidationException
from eddy.emulator.streams.records import StreamViewType
from eddy.emulator.settings import Settings
from eddy.emulator.streams.shards import SequenceNumbers
from eddy.emulator.streams.stream import Stream, StreamObserver, stream_label

STREAM_ARN = re.compile(r"^arn:aws[a-z-]*:dynamodb:[a-z0-9-]+:\d{12}:table/[A-Za-z0-9_.-]{1,255}/stream/[0-9T:.-]+$")

TableKey = tuple[str, str, str]  # account, region, table name


class StreamRegistry:
    def __init__(
        self,
        settings: Settings,
        sequence_numbers: SequenceNumbers,
        directory: Path,
        observer: StreamObserver | None = None,
    ) -> None:
        self.observer = observer or StreamObserver()
        self.settings = settings
        self.sequence_numbers = sequence_numbers
        self.directory = directory
        self.streams: dict[str, Stream] = {}
        self.latest: dict[TableKey, Stream] = {}

    def enable(
        self,
        *,
        account_id: str,
        region: str,
        table_name: str,
        table_arn: str,
        view_type: StreamViewType,
        key_schema: list[dict[str, str]],
        now: float,
        enabled_version: int | None = None,
    ) -> Stream:
        current = self.latest.get((account_id, region, table_name))
        if current is not None and current.status == "ENABLED":
            # AWS answers ValidationException here (its older documents said ResourceInUseException)
            raise ValidationException(f"Table already has an enabled stream: TableName: {table_name}")
        # a label (and so the ARN and the change-log folder) is never one an earlier stream of the table had, even
        # one of a table deleted and created again within the same millisecond (a clock that stands still)
        label = stream_label(now)
        last = max(
            (
                s.label
                for s in self.streams.values()
                if (s.account_id, s.region, s.table_name) == (account_id, region, table_name)
            ),
            default=None,
        )
        if last is not None and last >= label:
            label = stream_label(max(now, _label_time(last)) + 0.001)
        stream = Stream(
            account_id=account_id,
            region=region,
            table_name=table_name,
            table_arn=table_arn,
            label=label,
            view_type=view_type,
            key_schema=key_schema,
            created_at=now,
            settings=self.settings,
            sequence_numbers=self.sequence_numbers,
            directory=self.stream_directory(account_id, region, table_name, label),
            observer=self.observer,
            first_shard=False,
            enabled_version=enabled_version,
        )
        self.add(stream)
        self.observer.stream_enabled(stream)
        stream.open_first_shard()
        return stream

    def stream_directory(self, account_id: str, region: str, table_name: str, label: str) -> Path:
        return self.directory / account_id / region / table_name / label.replace(":", "-")

    def add(self, stream: Stream) -> None:
        """A new stream, or one restored after a restart, becomes its table's latest."""
        self.streams[stream.arn] = stream
        self.latest[(stream.account_id, stream.region, stream.table_name)] = stream

    def disable(self, account_id: str, region: str, table_name: str, now: float) -> Stream:
        stream = self.enabled_stream(account_id, region, table_name)
        if stream is None:
            raise ValidationException(f"Table has no stream to disable: TableName: {table_name}")
        stream.disable(now)
        return stream

    def enabled_stream(self, account_id: str, region: str, table_name: str) -> Stream | None:
        stream = self.latest.get((account_id, region, table_name))
        return stream if stream is not None and stream.status == "ENABLED" else None

    def latest_stream(self, account_id: str, region: str, table_name: str) -> Stream | None:
        return self.latest.get((account_id, region, table_name))

    def table_deleted(self, account_id: str, region: str, table_name: str, now: float) -> None:
        """A deleted table's stream closes and stays readable through retention; a new table starts afresh."""
        stream = self.latest.pop((account_id, region, table_name), None)
        if stream is not None:
            stream.table_deleted = True
            if stream.status == "ENABLED":
                stream.disable(now)
            else:
                stream.write_description()

    def find(self, stream_arn: str) -> Stream | None:
        """The stream an ARN names, or None (an event source's ARN may name a Kinesis data stream instead)."""
        return self.streams.get(stream_arn)

    def get(self, stream_arn: str) -> Stream:
        stream = self.streams.get(stream_arn)
        if stream is None:
            if not STREAM_ARN.match(stream_arn):
                raise ValidationException(f"Invalid StreamArn: {stream_arn}")
            raise ResourceNotFoundException(f"Requested resource not found: Stream: {stream_arn} not found")
        return stream

    def list(self, account_id: str, region: str, table_name: str | None = None) -> list[Stream]:
        return [
            stream
            for stream in self.streams.values()
            if stream.account_id == account_id
            and stream.region == region
            and (table_name is None or stream.table_name == table_name)
        ]

    def maintain(self, now: float) -> None:
        for arn, stream in list(self.streams.items()):
            stream.maintain(now)
            if stream.expired:
                del self.streams[arn]
                shutil.rmtree(stream.directory, ignore_errors=True)

    def close(self) -> None:
        for stream in self.streams.values():
            stream.close_files()

    def reset(self) -> None:
        self.close()
        self.streams.clear()
        self.latest.clear()


def _label_time(label: str) -> float:
    from datetime import datetime, timezone

    return datetime.strptime(label, "%Y-%m-%dT%H:%M:%S.%f").replace(tzinfo=timezone.utc).timestamp()

"""A table's stream switched on and off with its definition (CreateTable's and UpdateTable's StreamSpecification), and
what a deleted table leaves closed: its streams, its commit version, its write rate, its Kinesis destinations. Built by
the composition root with the stream registry and what else is made anew on reset."""

from __future__ import annotations

import threading
from typing import Callable

from eddy.emulator.kinesis.destinations import KinesisDestinations
from eddy.emulator.streams.capture import TableKey
from eddy.emulator.streams.records import StreamViewType
from eddy.emulator.streams.stream import Stream
from eddy.emulator.streams.stream_registry import StreamRegistry
from eddy.emulator.streams.write_rates import WriteRates


class TableStreams:
    def __init__(
        self,
        lock: threading.RLock,
        now: Callable[[], float],
        streams: StreamRegistry,
        commit_versions: dict[TableKey, int],
        write_rates: WriteRates,
        kinesis: KinesisDestinations,
    ) -> None:
        self._lock = lock
        self._now = now
        self._streams = streams
        self._commit_versions = commit_versions
        self._write_rates = write_rates
        self._kinesis = kinesis

    def enable(
        self,
        *,
        account_id: str,
        region: str,
        table_name: str,
        table_arn: str,
        view_type: StreamViewType,
        key_schema: list[dict[str, str]],
    ) -> Stream:
        """A new stream for the table (a new label), its enabling a commit version of the table's own."""
        with self._lock:
            table = (account_id, region, table_name)
            version = self._commit_versions[table] = self._commit_versions.get(table, 1) + 1
            return self._streams.enable(
                account_id=account_id,
                region=region,
                table_name=table_name,
                table_arn=table_arn,
                view_type=view_type,
                key_schema=key_schema,
                now=self._now(),
                enabled_version=version,
            )

    def disable(self, account_id: str, region: str, table_name: str) -> Stream:
        with self._lock:
            return self._streams.disable(account_id, region, table_name, self._now())

    def enabled(self, account_id: str, region: str, table_name: str) -> Stream | None:
        """The table's enabled stream, if it has one."""
        return self._streams.enabled_stream(account_id, region, table_name)

    def table_deleted(self, account_id: str, region: str, table_name: str) -> None:
        with self._lock:
            self._streams.table_deleted(account_id, region, table_name, self._now())
            self._commit_versions.pop((account_id, region, table_name), None)
            self._write_rates.forget((account_id, region, table_name))
            self._kinesis.table_deleted((account_id, region, table_name))

"""CreateTable and UpdateTable as the engine runs them: the table made or changed by moto, its stream (Eddy's, not
moto's: the door took StreamSpecification out of the request and checked it) enabled or disabled, the definition
logged, under the engine's lock. Tables are read through the seam's views (moto_seam/tables/views.py).

The door's `after(account_id, region, response)` runs on an UpdateTable's answer while the lock is still held (a
global table's replicas changed with it and described).
"""

from __future__ import annotations

import json
import threading
from typing import Any, Callable

from eddy.emulator.aws_requests import Request, Response
from eddy.emulator.errors import AWSError, ValidationException
from eddy.emulator.moto_seam import bridge as moto_bridge
from eddy.emulator.moto_seam.tables import views as moto_tables
from eddy.emulator.dynamodb.table_streams import TableStreams
from eddy.emulator.streams.records import StreamViewType

TARGET_PREFIX = "DynamoDB_20120810."

Params = dict[str, Any]
#: (enabled, view type): a request's StreamSpecification as the door read it
StreamAsked = tuple[bool, StreamViewType | None]
After = Callable[[str, str, Response], Response]
#: the door's step after a table is made and logged, under the lock (account_id, region): a ResourcePolicy attached
Created = Callable[[str, str], None]


def stream_asked(spec: Params | None) -> StreamAsked | None:
    """A StreamSpecification Eddy wrote itself (well formed: a replica's stream) as the door would have read it."""
    if spec is None:
        return None
    kind = spec.get("StreamViewType")
    return spec["StreamEnabled"], None if kind is None else StreamViewType(kind)


class TableDefinitions:
    def __init__(
        self,
        lock: threading.RLock,
        definitions: Callable[[str, str, str, Params], None],
        streams: TableStreams,
        now: Callable[[], float],
        changing: Callable[[str, str, Params], None],
    ) -> None:
        self._lock = lock
        self._definitions = definitions
        #: told before moto changes a table's definition: what is put back if the change's entries are refused
        self._changing = changing
        self._streams = streams
        self._now = now

    def create_table(
        self, request: Request, params: Params, stream: StreamAsked | None, invalid: AWSError | None, created: Created
    ) -> Response:
        """moto's table made (its own validation answers first), then `invalid` raised (the table gone again before
        anyone saw it), or the definition logged, `created` told and the stream enabled."""
        with self._lock:
            call = moto_bridge.DynamoDBCall(request, json.dumps(params).encode())
            self._changing(call.account_id, call.region, params)
            response = call.run()
            if response.status != 200:
                return response
            key = (call.account_id, call.region, params["TableName"])
            if invalid is not None:
                moto_tables.drop(key)
                raise invalid
            self._definitions(call.account_id, call.region, "CreateTable", params)
            created(call.account_id, call.region)
            if stream is None or not stream[0]:
                return response
            table = moto_tables.view(*key)
            self._enable(table, stream[1])
            return self._described_as(response, request, table.name, "TableDescription")

    def update_table(self, request: Request, params: Params, stream: StreamAsked | None, after: After) -> Response:
        with self._lock:
            call = moto_bridge.DynamoDBCall(request, json.dumps(params).encode())
            self._changing(call.account_id, call.region, params)
            name = params.get("TableName")
            table = moto_tables.view(call.account_id, call.region, name) if isinstance(name, str) else None
            if stream is None or table is None:
                response = call.run()
                if response.status != 200:
                    return response
                self._definitions(call.account_id, call.region, "UpdateTable", params)
                if table is not None:
                    moto_tables.billing_mode_changed(table.key, table.billing_mode, self._now())
                return after(call.account_id, call.region, response)
            enabled, view_type = stream
            current = self._streams.enabled(call.account_id, call.region, table.name)
            if enabled and current is not None:
                raise ValidationException(f"Table already has an enabled stream: TableName: {table.name}")
            if not enabled and current is None:
                raise ValidationException(f"Table has no stream to disable: TableName: {table.name}")
            response = call.run()
            if response.status != 200:
                return response
            self._definitions(call.account_id, call.region, "UpdateTable", params)
            moto_tables.billing_mode_changed(table.key, table.billing_mode, self._now())
            if enabled:
                self._enable(table, view_type)
            else:
                disabled = self._streams.disable(call.account_id, call.region, table.name)
                moto_tables.set_stream(table.key, disabled.label, None)
            return after(
                call.account_id, call.region, self._described_as(response, request, table.name, "TableDescription")
            )

    def _enable(self, table: moto_tables.TableView, view_type: StreamViewType) -> None:
        stream = self._streams.enable(
            account_id=table.account_id,
            region=table.region,
            table_name=table.name,
            table_arn=table.arn,
            view_type=view_type,
            key_schema=table.key_schema,
        )
        moto_tables.set_stream(table.key, stream.label, view_type.value)

    def _described_as(self, response: Response, request: Request, name: str, key: str) -> Response:
        """`response` with its body replaced by moto's own DescribeTable of the table (now showing the stream)."""
        inner = request.for_target(TARGET_PREFIX + "DescribeTable", {"TableName": name})
        described = moto_bridge.DynamoDBCall(inner, inner.body).run()
        return moto_bridge.with_body(response, {key: json.loads(described.body)["Table"]})

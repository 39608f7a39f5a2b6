"""DynamoDB's operations run by the engine: the one way a DynamoDB request reaches moto's tables.

`DynamoDB.execute(operation, request, params)` takes the engine's lock, runs the request through the seam (the fast
path, fast_path.py, or moto's full path, moto_seam/bridge.py's DynamoDBCall) and, for a write, as one captured
operation (streams/capture.py): when it ends the changes are committed (streams/commits.py: logged, then shown to
readers, Kinesis destinations, replication and the pollers) before the answer goes back. A change of a table's
definition is handed to the engine (`definitions`: logged, a deleted table's streams closed). `write(request, work)`
is the same for a write the door composes of several item operations (a transaction with its ClientRequestToken,
PartiQL's statements): `work` gets a `Session` that runs them, under the lock, in the captured operation. `run` is
an operation Eddy asks for itself (a global table's replica made in its region), which never goes through the door.

The front door (api/dynamodb/door.py) parses and validates the request, calls one of these and shapes the answer;
`shape` and `after` are its shaping, called where they must run: `shape` on the fast path's answer before it is
encoded (moto's answer shares values with moto's items), `after` on the answer while the lock is still held (a table
description read from moto's table, replicas fanned out).

    >>> emu.dynamodb.execute("GetItem", request, {"TableName": "orders", "Key": {"pk": {"S": "a"}}})
"""

from __future__ import annotations

import json
import threading
from typing import Any, Callable, TypeVar

from eddy.emulator.aws_requests import Request, Response
from eddy.emulator.dynamodb import fast_path
from eddy.emulator.dynamodb.tables import TableDefinitions, stream_asked
from eddy.emulator.moto_seam import bridge as moto_bridge
from eddy.emulator.moto_seam.tables import views as moto_tables
from eddy.emulator.streams.capture import Capture, TableKey
from eddy.emulator.storage.channels import NOTHING
from eddy.emulator.streams.records import Image

TARGET_PREFIX = "DynamoDB_20120810."

WRITE_OPERATIONS = frozenset(
    {
        "PutItem",
        "UpdateItem",
        "DeleteItem",
        "BatchWriteItem",
        "TransactWriteItems",
        "ExecuteStatement",
        "BatchExecuteStatement",
        "ExecuteTransaction",
    }
)

TABLE_OPERATIONS = frozenset({"CreateTable", "UpdateTable", "DeleteTable"})
#: requests that change a table's definition: persistence keeps them, to rebuild the table after a restart
DEFINITION_OPERATIONS = TABLE_OPERATIONS | {
    "UpdateTimeToLive",
    "TagResource",
    "UntagResource",
    "UpdateContinuousBackups",
}

Params = dict[str, Any]
#: a table's definition changed (account, region, operation, params): the engine logs it
Definitions = Callable[[str, str, str, Params], None]
#: a table's definition is about to change (account, region, params): what to put back should its entry be refused
Changing = Callable[[str, str, Params], None]
#: the door's last step, under the lock: (account_id, region, response) -> the answer
After = Callable[[str, str, Response], Response]
T = TypeVar("T")


class DynamoDB:
    def __init__(
        self,
        lock: threading.RLock,
        capture: Capture,
        definitions: Definitions,
        tables: TableDefinitions,
        changing: Changing,
    ) -> None:
        self._lock = lock
        self._capture = capture
        self._definitions = definitions
        self._changing = changing
        #: CreateTable and UpdateTable with their streams (tables.py)
        self.tables = tables

    def execute(
        self,
        operation: str,
        request: Request,
        params: Params,
        *,
        shape: fast_path.Shape | None = None,
        after: After | None = None,
        written: After | None = None,
    ) -> Response:
        """One DynamoDB operation, its writes committed before it answers (`params`: the request's body, decoded and
        checked by the door; a write's numbers as DynamoDB stores them); `written`: the door's step on a write's answer
        from moto's full path while the write is still captured (what `shape` does on the fast path)."""
        with self._lock:
            # a write is one captured operation: committed when it ends (streams/commits.py), put back if it raises
            with self._capture.operation() if operation in WRITE_OPERATIONS else NOTHING:
                response = fast_path.answer(operation, request, params, shape)
                if response is not None:
                    return response
                call = moto_bridge.DynamoDBCall(
                    request, request.body if operation not in WRITE_OPERATIONS else json.dumps(params).encode()
                )  # its numbers as DynamoDB stores them
                if operation in DEFINITION_OPERATIONS:  # put back as it is now if its entry is refused
                    self._changing(call.account_id, call.region, params)
                response = call.run()
                if written is not None and operation in WRITE_OPERATIONS:
                    response = written(call.account_id, call.region, response)
            if operation in DEFINITION_OPERATIONS and response.status == 200:
                self._definitions(call.account_id, call.region, operation, params)
            return response if after is None else after(call.account_id, call.region, response)

    def run(self, operation: str, request: Request, params: Params) -> Response:
        """An operation Eddy asks for itself, well formed, for the request's caller (a global table's replica made,
        changed or described in its region: api/dynamodb/global_tables/), never through the door: `execute`'s, CreateTable
        and UpdateTable with their StreamSpecification through tables.py, a table's description as AWS answers it."""
        params = dict(params)
        stream = stream_asked(params.pop("StreamSpecification", None))
        if operation == "CreateTable":
            response = self.tables.create_table(request, params, stream, None, lambda account_id, region: None)
        elif operation == "UpdateTable":
            response = self.tables.update_table(request, params, stream, lambda account_id, region, answer: answer)
        else:
            response = self.execute(operation, request, params)
        return moto_tables.answer_as_aws(operation, params, response, moto_bridge.caller(request))

    def write(
        self, request: Request, params: Params, work: Callable[[Session], T], shape: fast_path.Shape | None = None
    ) -> T:
        """A write of several item operations (a transaction, PartiQL's statements), under the lock, captured; `shape`
        as for `execute`, for each item operation's answer."""
        with self._lock, self._capture.operation():
            return work(Session(self._capture, request, params, shape))


class Session:
    """What a composed write runs through: the request itself, or other item operations of the same caller, in the
    captured operation of `DynamoDB.write`."""

    def __init__(self, capture: Capture, request: Request, params: Params, shape: fast_path.Shape | None) -> None:
        self._capture = capture
        self._request = request
        self._params = params
        self._shape = shape
        self._call: moto_bridge.DynamoDBCall | None = None

    @property
    def call(self) -> moto_bridge.DynamoDBCall:
        """The request itself as moto's full path runs it (its caller: account_id, region)."""
        if self._call is None:
            self._call = moto_bridge.DynamoDBCall(self._request, json.dumps(self._params).encode())
        return self._call

    def run(self, operation: str, params: Params) -> tuple[int, Params]:
        """Another DynamoDB operation for the same caller (a PartiQL statement's item operation): status, body."""
        inner = self._request.for_target(TARGET_PREFIX + operation, params)
        response = (
            fast_path.answer(operation, inner, params, self._shape) or moto_bridge.DynamoDBCall(inner, inner.body).run()
        )
        return response.status, json.loads(response.body or b"{}")

    def next_operation(self) -> None:
        """A batch's statement is its own operation: the one before committed, the next one's capture begun (even
        when that commit is refused: the operation's end then has one to end)."""
        try:
            self._capture.end()
        finally:
            self._capture.begin()

    def written(self) -> list[tuple[TableKey, Image | None, Image | None]]:
        """Each item the operation has written so far: its table, its image before, its image now."""
        return self._capture.images()

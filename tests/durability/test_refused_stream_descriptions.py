"""A stream change the disk refuses leaves each stream's `stream.json` as readers in other processes read it.

`<state>/streams/<account>/<region>/<table>/<label>/stream.json` says whether a stream is on and whether its table was
deleted; Spark's table streams and exports read it from other processes (spark_batch/io/change_log.py globs
`streams/*/*/<table>/*/stream.json`), not through the emulator. A refused UpdateTable that turns a stream off, or a
refused DeleteTable, rewrote the file at once (DISABLED, table deleted) and its undo put the stream back in memory
only, so readers saw the stream off until the next write to it; a refused change that turned a stream on left the new
stream's folder behind, ENABLED, for a stream the emulator does not have. The fault is the one of
test_units_of_work.py: RLIMIT_FSIZE at the log's size, so the request's log entry fails with EFBIG (stream.json, a
small file, is still written); the refusal is DynamoDB's 500 InternalServerError, which the SDKs retry.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from botocore.config import Config

from tests.durability.test_disk_errors import failing_writes, lift
from tests.durability.test_disk_full import Eddy, refused, running
from tests.durability.test_units_of_work import KEY, door  # noqa: F401 (the door fixture)

pytestmark = pytest.mark.slow

STREAM = {"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"}


def descriptions(state: Path) -> dict[str, dict[str, Any]]:
    """Every stream's stream.json under the state directory, as a reader in another process finds it: by table and
    label, its status, when it was disabled and whether its table was deleted."""
    found = {}
    for path in sorted((state / "streams").glob("*/*/*/*/stream.json")):
        described = json.loads(path.read_text())
        found[f"{described['table']}/{described['label']}"] = {
            name: described[name] for name in ("status", "disabled_at", "table_deleted", "key_schema")
        }
    return found


def streams_held(eddy: Eddy) -> list[dict[str, Any]]:
    """The streams as DynamoDB Streams' API describes them."""
    streams = eddy.client("dynamodbstreams")
    return [
        {k: v for k, v in streams.describe_stream(StreamArn=s["StreamArn"])["StreamDescription"].items()}
        for s in streams.list_streams()["Streams"]
    ]


def test_a_refused_stream_change_leaves_stream_json_as_it_was(door: str, tmp_path: Path) -> None:
    state = tmp_path / "state"
    with running(door, state) as eddy:
        ddb, sqs = eddy.client("dynamodb"), eddy.client("sqs")
        ddb.create_table(TableName="orders", BillingMode="PAY_PER_REQUEST", StreamSpecification=STREAM, **KEY)
        ddb.create_table(TableName="plain", BillingMode="PAY_PER_REQUEST", **KEY)
        ddb.put_item(TableName="orders", Item={"pk": {"S": "a"}})
        url = sqs.create_queue(QueueName="work")["QueueUrl"]
        for n in range(60):  # the log grows past every other file this process writes while the limit holds
            sqs.send_message(QueueUrl=url, MessageBody=f"{n:03}" * 300)
        before, described = streams_held(eddy), descriptions(state)
        assert [(d["status"], d["table_deleted"]) for d in described.values()] == [("ENABLED", False)]
        with failing_writes(eddy.pid, state):
            for name, call in [
                ("UpdateTable stream off", lambda: ddb.update_table(
                    TableName="orders", StreamSpecification={"StreamEnabled": False})),
                ("DeleteTable", lambda: ddb.delete_table(TableName="orders")),
                ("UpdateTable stream on", lambda: ddb.update_table(TableName="plain", StreamSpecification=STREAM)),
                ("CreateTable with a stream", lambda: ddb.create_table(
                    TableName="refused", BillingMode="PAY_PER_REQUEST", StreamSpecification=STREAM, **KEY)),
            ]:
                assert refused(call, "dynamodb"), name
                assert (descriptions(state), streams_held(eddy)) == (described, before), name
        retrying = eddy.client("dynamodb", Config(retries={"mode": "standard", "total_max_attempts": 3}))
        with failing_writes(eddy.pid, state):  # the first attempt refused, then the disk works again
            retrying.meta.events.register_first("needs-retry", lambda attempts, **_: lift(eddy.pid))
            answer = retrying.update_table(TableName="orders", StreamSpecification={"StreamEnabled": False})
        assert (answer["ResponseMetadata"]["HTTPStatusCode"], answer["ResponseMetadata"]["RetryAttempts"]) == (200, 1)
        expected = descriptions(state)
        assert [(d["status"], d["table_deleted"]) for d in expected.values()] == [("DISABLED", False)]
        assert list(expected) == list(described)
    with running(door, state, kill=False) as eddy:  # after kill -9 (server) or the block's end (in-process)
        assert [s["StreamStatus"] for s in streams_held(eddy)] == ["DISABLED"]
        assert descriptions(state) == expected

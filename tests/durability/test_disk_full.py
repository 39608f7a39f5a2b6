"""A disk that fills in the middle of a workload: a write is acknowledged and durable, or refused and never seen.

The full disk is injected at the log layer (storage/disk.py: while the flag file EDDY_TEST_DISK_FULL names exists,
every write to the state directory fails with ENOSPC), which runs on any machine; test_small_disk.py fills a real
tmpfs where the tests may mount one. Both doors: emulate() in this process, and `eddy serve` killed with SIGKILL.

A refused write is answered as AWS answers a fault of its own, a 500 the SDKs retry: DynamoDB's InternalServerError
(botocore's model lists it for every DynamoDB operation), S3's InternalError, SQS's InternalFailure (the common error
of AWS's JSON and query protocols).
"""

from __future__ import annotations

import json
import os
import signal
import urllib.request
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Iterator

import boto3
import pytest
from botocore.config import Config
from botocore.exceptions import ClientError

from eddy import emulate
from eddy.emulator.api import router
from eddy.emulator.aws_requests import Request
from eddy.emulator.storage.disk import FAULT_FLAG
from tests.conftest import eddy_server

pytestmark = pytest.mark.slow

KEY = {"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
       "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}], "BillingMode": "PAY_PER_REQUEST"}
NO_RETRIES = Config(retries={"total_max_attempts": 1})
#: each service's words for a fault of its own (botocore retries a 500 whatever its code): Lambda's ServiceException is
#: botocore's lambda model's "The Lambda service encountered an internal error" (HTTP 500); Eddy's controls answer
#: DynamoDB's JSON error
REFUSED = {"dynamodb": "InternalServerError", "s3": "InternalError", "sqs": "InternalFailure", "sns": "InternalFailure",
           "kinesis": "InternalFailure", "lambda": "ServiceException", "control": "InternalServerError"}


class Eddy:
    """One door onto an Eddy with a state directory: its clients, a restart (kill -9 for the server)."""

    def __init__(self, door: str, state: Path) -> None:
        self.door, self.state = door, state
        self.url: str | None = None
        self.emu: Any = None
        #: the server's process id (None in-process)
        self.pid: int | None = None
        self._clients: dict[str, Any] = {}

    def client(self, service: str, config: Config = NO_RETRIES) -> Any:
        """A boto3 client of this door. One with the default config is made once for this Eddy and given again: a client
        costs some 12 ms of CPU to make, and the disk tests read everything back after every step (test_small_disk.py's
        workload made 470 clients a test). One with a config of the caller's is new, its own to register handlers on."""
        if config is not NO_RETRIES:
            return self._new_client(service, config)
        if service not in self._clients:
            self._clients[service] = self._new_client(service, config)
        return self._clients[service]

    def _new_client(self, service: str, config: Config) -> Any:
        if self.url is None:
            return boto3.client(service, region_name="us-east-1", config=config)
        return boto3.client(service, endpoint_url=self.url, region_name="us-east-1", aws_access_key_id="k",
                            aws_secret_access_key="s", config=config)

    def control(self, path: str, payload: dict[str, Any]) -> dict[str, Any]:
        """One of Eddy's controls through the door (in-process: through the router, as over HTTP); a refusal is
        raised as botocore raises a service's error."""
        if self.url is None:
            response = router.route(self.emu, Request("POST", "http://127.0.0.1" + path,
                                                      {"Content-Type": "application/json"}, json.dumps(payload).encode()))
            status, body = response.status, response.body
        else:
            request = urllib.request.Request(self.url + path, data=json.dumps(payload).encode(), method="POST")
            try:
                # longer than any control's own wait (POST /_eddy/idle's timeout: 120 s in the queue mappings' tests)
                with urllib.request.urlopen(request, timeout=300) as answered:
                    status, body = answered.status, answered.read()
            except urllib.error.HTTPError as error:
                status, body = error.code, error.read()
        answer = json.loads(body or b"{}")
        if status != 200:
            raise ClientError({"Error": {"Code": answer["__type"].rsplit("#", 1)[-1], "Message": answer["message"]},
                               "ResponseMetadata": {"HTTPStatusCode": status}}, path)
        return answer


@contextmanager
def running(door: str, state: Path, kill: bool = True) -> Iterator[Eddy]:
    eddy = Eddy(door, state)
    if door == "inprocess":
        with emulate(state_dir=state, housekeeping_interval=None) as emu:
            eddy.emu = emu
            yield eddy
        return
    with eddy_server("--state-dir", str(state), "--housekeeping-interval", "0") as (url, server):
        eddy.url, eddy.pid = url, server.pid
        yield eddy
        if kill:
            os.kill(server.pid, signal.SIGKILL)  # whatever was acknowledged must survive this
            server.wait(timeout=30)


@pytest.fixture(params=["inprocess", "server"])
def door(request: pytest.FixtureRequest) -> str:
    return request.param


@pytest.fixture
def disk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The flag file: while it exists (with the fault points it lists, or none for all), the disk is full."""
    flag = tmp_path / "disk-full"
    monkeypatch.setenv(FAULT_FLAG, str(flag))
    return flag


def refused(call: Callable[[], Any], service: str) -> bool:
    """True if the call was refused as a fault of Eddy's (a 500 of the service's own shape); False if it succeeded."""
    try:
        call()
    except ClientError as error:
        assert (error.response["ResponseMetadata"]["HTTPStatusCode"], error.response["Error"]["Code"]) == \
            (500, REFUSED[service]), error.response
        return True
    return False


def stream_records(eddy: Eddy, table: str, arn: str | None = None) -> list[tuple[str, dict[str, Any]]]:
    """Every record of the table's stream (`arn`, else the table's latest), in order: (event name, keys)."""
    streams = eddy.client("dynamodbstreams")
    arn = arn or eddy.client("dynamodb").describe_table(TableName=table)["Table"]["LatestStreamArn"]
    found = []
    for shard in streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"]:
        iterator = streams.get_shard_iterator(StreamArn=arn, ShardId=shard["ShardId"],
                                              ShardIteratorType="TRIM_HORIZON")["ShardIterator"]
        while iterator:
            page = streams.get_records(ShardIterator=iterator)
            found += [(int(r["dynamodb"]["SequenceNumber"]), r["eventName"], r["dynamodb"]["Keys"]["pk"]["S"])
                      for r in page["Records"]]
            iterator = page.get("NextShardIterator") if page["Records"] else None
    return [(name, key) for _, name, key in sorted(found)]


def what_eddy_holds(eddy: Eddy, queue: str | None = None, stream_arn: str | None = None) -> dict[str, Any]:
    """The table's items and stream records, the bucket's objects, the queue's message count. `queue` (its URL) and
    `stream_arn` where the caller knows them: the workload reads this after each of its 40 steps."""
    ddb, s3, sqs = eddy.client("dynamodb"), eddy.client("s3"), eddy.client("sqs")
    queue = queue or sqs.get_queue_url(QueueName="work")["QueueUrl"]
    return {"items": sorted(item["pk"]["S"] for item in ddb.scan(TableName="orders")["Items"]),
            "records": stream_records(eddy, "orders", stream_arn),
            "objects": sorted(o["Key"] for o in s3.list_objects_v2(Bucket="photos").get("Contents", [])),
            "messages": int(sqs.get_queue_attributes(QueueUrl=queue, AttributeNames=["ApproximateNumberOfMessages"])
                            ["Attributes"]["ApproximateNumberOfMessages"])}


def test_a_disk_that_fills_mid_workload_refuses_writes_whole_and_keeps_every_acknowledged_one(door, disk, tmp_path):
    state = tmp_path / "state"
    expected: dict[str, Any] = {"items": [], "records": [], "objects": [], "messages": 0}
    outcomes = []
    with running(door, state) as eddy:
        ddb, s3, sqs = eddy.client("dynamodb"), eddy.client("s3"), eddy.client("sqs")
        stream_arn = ddb.create_table(TableName="orders", StreamSpecification={
            "StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"}, **KEY)["TableDescription"]["LatestStreamArn"]
        s3.create_bucket(Bucket="photos")
        queue = sqs.create_queue(QueueName="work")["QueueUrl"]
        for i in range(40):
            full = 15 <= i < 30
            if i == 15:
                disk.write_text("")
            if i == 30:
                disk.unlink()  # room again: no restart needed
            step = i % 5
            if step == 0:
                keys = [f"put{i}"]
                outcome = refused(lambda: ddb.put_item(TableName="orders", Item={"pk": {"S": keys[0]}}), "dynamodb")
            elif step == 1:
                keys = [f"batch{i}-{n}" for n in range(3)]
                outcome = refused(lambda: ddb.batch_write_item(RequestItems={"orders": [
                    {"PutRequest": {"Item": {"pk": {"S": key}}}} for key in keys]}), "dynamodb")
            elif step == 2:
                keys = [f"tx{i}-{n}" for n in range(2)]
                outcome = refused(lambda: ddb.transact_write_items(TransactItems=[
                    {"Put": {"TableName": "orders", "Item": {"pk": {"S": key}}}} for key in keys]), "dynamodb")
            elif step == 3:
                keys = []
                outcome = refused(lambda: s3.put_object(Bucket="photos", Key=f"o{i}", Body=b"x" * (i * 100)), "s3")
                if not outcome:
                    expected["objects"].append(f"o{i}")
            else:
                keys = []
                outcome = refused(lambda: sqs.send_message(QueueUrl=queue, MessageBody=f"m{i}"), "sqs")
                expected["messages"] += 0 if outcome else 1
            outcomes.append(outcome)
            if not outcome:
                expected["items"] += keys
                expected["records"] += [("INSERT", key) for key in keys]
            # reads are served while the disk is full, and a refused write is seen nowhere
            assert what_eddy_holds(eddy, queue, stream_arn) == {**expected, "items": sorted(expected["items"]),
                                                                "objects": sorted(expected["objects"])}, i
        assert outcomes == [15 <= i < 30 for i in range(40)]
    expected = {**expected, "items": sorted(expected["items"]), "objects": sorted(expected["objects"])}
    with running(door, state, kill=False) as eddy:  # after kill -9 (server) or the block's end (in-process)
        assert what_eddy_holds(eddy) == expected


def test_the_sdks_retry_of_a_refused_write_succeeds(door, disk, tmp_path):
    with running(door, tmp_path / "state") as eddy:
        ddb = eddy.client("dynamodb", Config(retries={"mode": "standard"}))
        ddb.create_table(TableName="orders", StreamSpecification={"StreamEnabled": True,
                                                                  "StreamViewType": "NEW_AND_OLD_IMAGES"}, **KEY)
        disk.write_text("1")  # the disk refuses one write, then has room
        answer = ddb.put_item(TableName="orders", Item={"pk": {"S": "a"}})
        assert (answer["ResponseMetadata"]["HTTPStatusCode"], answer["ResponseMetadata"]["RetryAttempts"]) == (200, 1)
        assert not disk.exists()
        assert ddb.scan(TableName="orders")["Items"] == [{"pk": {"S": "a"}}]
        assert stream_records(eddy, "orders") == [("INSERT", "a")]


def test_a_batch_of_statements_reports_each_one_the_disk_refused_as_its_own_internal_server_error(door, disk, tmp_path):
    """BatchExecuteStatement's statements are independent writes: one the disk refuses is that statement's error, code
    InternalServerError (botocore's BatchStatementErrorCodeEnum lists it), the others stand; the answer is a 200 whose
    refused statements the caller sends again (as with any BatchStatementError)."""
    state = tmp_path / "state"
    inserts = [{"Statement": f"INSERT INTO orders VALUE {{'pk': '{key}'}}"} for key in ("a", "b", "c")]
    with running(door, state) as eddy:
        ddb = eddy.client("dynamodb")
        ddb.create_table(TableName="orders", StreamSpecification={"StreamEnabled": True,
                                                                  "StreamViewType": "NEW_AND_OLD_IMAGES"}, **KEY)
        disk.write_text("segment 1")  # the disk refuses the next segment write only: the first statement's
        answer = ddb.batch_execute_statement(Statements=inserts)
        reason = answer["Responses"][0]["Error"].pop("Message")
        assert answer["Responses"] == [{"TableName": "orders", "Error": {"Code": "InternalServerError"}},
                                       {"TableName": "orders"}, {"TableName": "orders"}]
        assert reason.startswith(f"The write was not made: a write to {state}") and "the disk is full" in reason
        assert sorted(item["pk"]["S"] for item in ddb.scan(TableName="orders")["Items"]) == ["b", "c"]
        assert stream_records(eddy, "orders") == [("INSERT", "b"), ("INSERT", "c")]
        disk.write_text("")  # full: every write statement refused, the reads in a batch of their own answered
        answer = ddb.batch_execute_statement(Statements=[{"Statement": "UPDATE orders SET v = 1 WHERE pk = 'b'"},
                                                         {"Statement": "DELETE FROM orders WHERE pk = 'c'"}])
        assert [response["Error"]["Code"] for response in answer["Responses"]] == ["InternalServerError"] * 2
        answer = ddb.batch_execute_statement(Statements=[{"Statement": "SELECT * FROM orders WHERE pk = 'b'"}])
        assert answer["Responses"] == [{"TableName": "orders", "Item": {"pk": {"S": "b"}}}]
        disk.unlink()
        assert ddb.batch_execute_statement(Statements=inserts[:1])["Responses"] == [{"TableName": "orders"}]
    with running(door, state, kill=False) as eddy:  # after kill -9 (server) or the block's end (in-process)
        assert sorted(item["pk"]["S"] for item in eddy.client("dynamodb").scan(TableName="orders")["Items"]) == \
            ["a", "b", "c"]
        assert stream_records(eddy, "orders") == [("INSERT", "b"), ("INSERT", "c"), ("INSERT", "a")]


def test_a_shard_rollover_split_or_merge_the_disk_refuses_changes_no_shard_then_or_after_a_restart(door, disk, tmp_path):
    """A stream's shards change as its items do: all or nothing. Refused (the log write of its shards fails), a
    control's split, merge or rollover is a 500, and so is the clock's advance that would make a rollover due, with
    the shards as they were in memory and on disk; with room again they change, and the lineage read back after a
    restart is the one shown."""
    state = tmp_path / "state"
    with running(door, state) as eddy:
        ddb, streams = eddy.client("dynamodb"), eddy.client("dynamodbstreams")
        ddb.create_table(TableName="orders", StreamSpecification={"StreamEnabled": True,
                                                                  "StreamViewType": "NEW_AND_OLD_IMAGES"}, **KEY)
        arn = ddb.describe_table(TableName="orders")["Table"]["LatestStreamArn"]
        ddb.put_item(TableName="orders", Item={"pk": {"S": "a"}})
        first = streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"]
        disk.write_text("wal")
        shard = first[0]["ShardId"]
        for path, payload in [("/_eddy/shards/split", {"StreamArn": arn, "ShardId": shard}),
                              ("/_eddy/shards/rollover", {"StreamArn": arn})]:
            assert refused(lambda: eddy.control(path, payload), "control")
        # past the 4 hours a shard stays open: refused too (the clock's move is logged before it is made), so time
        # stands and no rollover falls due
        assert refused(lambda: eddy.control("/_eddy/clock", {"advance": 5 * 3600}), "control")
        assert streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"] == first
        disk.unlink()
        eddy.control("/_eddy/clock", {"advance": 5 * 3600})  # the retry, with room: its maintenance rolls over
        rolled = streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"]
        assert [(s["ShardId"], s.get("ParentShardId")) for s in rolled[:1]] == [(shard, None)]
        assert "EndingSequenceNumber" in rolled[0]["SequenceNumberRange"] and len(rolled) == 2
        child = rolled[1]["ShardId"]
        assert rolled[1]["ParentShardId"] == shard
        halves = eddy.control("/_eddy/shards/split", {"StreamArn": arn, "ShardId": child})["ChildShardIds"]
        disk.write_text("wal")
        assert refused(lambda: eddy.control("/_eddy/shards/merge", {"StreamArn": arn, "ShardId": halves[0],
                                                                    "AdjacentShardId": halves[1]}), "control")
        disk.unlink()
        ddb.put_item(TableName="orders", Item={"pk": {"S": "b"}})
        lineage = streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"]
        assert [(s["ShardId"], s.get("ParentShardId")) for s in lineage] == \
            [(shard, None), (child, shard), (halves[0], child), (halves[1], child)]
        records = stream_records(eddy, "orders")
        assert records == [("INSERT", "a"), ("INSERT", "b")]
    with running(door, state, kill=False) as eddy:  # after kill -9 (server) or the block's end (in-process)
        assert eddy.client("dynamodbstreams").describe_stream(StreamArn=arn)["StreamDescription"]["Shards"] == lineage
        assert stream_records(eddy, "orders") == records

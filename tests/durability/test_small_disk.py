"""A real disk that fills in the middle of a workload: every write path is acknowledged and durable, or refused whole
with a 500 the SDKs retry and seen nowhere (no item, no stream record, no object, message, topic, Kinesis record,
function or mapping), and accepted again once the disk has room, without a restart.

The disk is a real tmpfs of 8 MB (tests/durability/small_disk.py: this machine's tests and CI run as root, which may
mount one), filled by a filler file until the kernel answers ENOSPC, so each refusal is the filesystem's own, at
whatever write hits it first (a segment, the log, a body file, the log's reserve). Items are 6 KB, more than a page,
so a DynamoDB write needs a new page of its segment and cannot slip into the free end of one. Both doors: emulate()
in this process, and `eddy serve` killed with SIGKILL before the restart.

The refusals are in each service's words for a fault of its own (botocore retries a 500 whatever its code):
DynamoDB's InternalServerError (botocore's model lists it for every DynamoDB operation), S3's InternalError, the
InternalFailure of AWS's JSON and query protocols (SQS, SNS, Kinesis), Lambda's ServiceException (botocore's
lambda model: "The Lambda service encountered an internal error", HTTP 500).
"""

from __future__ import annotations

import io
import zipfile
from pathlib import Path
from typing import Any, Callable

import pytest
from botocore.config import Config

from tests.durability.small_disk import SmallDisk, small_disk
from tests.durability.test_disk_full import KEY, Eddy, refused, running, stream_records

pytestmark = pytest.mark.slow

ROLE = "arn:aws:iam::123456789012:role/lambda-role"
BIG = "x" * 6000  # more than a page: a write of it needs new pages


@pytest.fixture(params=["inprocess", "server"])
def door(request: pytest.FixtureRequest) -> str:
    return request.param


@pytest.fixture
def disk(tmp_path: Path) -> Any:
    with small_disk(tmp_path / "disk") as mounted:
        yield mounted


def outcome(call: Callable[[], Any], service: str) -> bool:
    """True if the call succeeded; False if it was refused as a fault of Eddy's, a 500 of the service's shape."""
    return not refused(call, service)


def now(eddy: Eddy) -> int:
    """The emulator's clock (TTL's time)."""
    return int(eddy.control("/_eddy/clock", {})["Now"])


def zipped(source: str) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("app.py", source)
    return buffer.getvalue()


class Workload:
    """Every write path once per round, each step's outcome noted, and what Eddy must hold then (the model)."""

    def __init__(self, eddy: Eddy) -> None:
        self.eddy = eddy
        self.ddb, self.s3, self.sqs = eddy.client("dynamodb"), eddy.client("s3"), eddy.client("sqs")
        self.sns, self.kinesis, self.lam = eddy.client("sns"), eddy.client("kinesis"), eddy.client("lambda")
        self.items: dict[str, str] = {}
        self.expiry: dict[str, int] = {}  # the items with a TTL: when they expire
        self.delivered: list[tuple[str, str]] = []  # what the trigger was handed (in-process)
        self.model: dict[str, Any] = {"records": [], "objects": [], "messages": 0, "topics": [], "kinesis": [],
                                      "functions": [], "mappings": 0}

    def set_up(self) -> None:
        self.ddb.create_table(TableName="orders", StreamSpecification={"StreamEnabled": True,
                                                                       "StreamViewType": "NEW_AND_OLD_IMAGES"}, **KEY)
        self.ddb.update_time_to_live(TableName="orders",
                                     TimeToLiveSpecification={"Enabled": True, "AttributeName": "expires"})
        self.s3.create_bucket(Bucket="photos")
        self.queue = self.sqs.create_queue(QueueName="work")["QueueUrl"]
        self.kinesis.create_stream(StreamName="clicks", ShardCount=1)
        self.shard = self.kinesis.list_shards(StreamName="clicks")["Shards"][0]["ShardId"]
        self.stream_arn = self.ddb.describe_table(TableName="orders")["Table"]["LatestStreamArn"]
        self.topic = self.sns.create_topic(Name="news")["TopicArn"]
        self.model["topics"].append("news")
        self.ddb.put_item(TableName="orders", Item={"pk": {"S": "keep"}})
        self.item_written("keep")
        if self.eddy.emu is not None:  # a trigger: a registered callable (in-process only) on the table's stream
            self.eddy.emu.register_function("trigger", lambda event, context: self.delivered.extend(
                (record["eventName"], record["dynamodb"]["Keys"]["pk"]["S"]) for record in event["Records"]))
            self.lam.create_event_source_mapping(FunctionName="trigger", EventSourceArn=self.stream_arn,
                                                 StartingPosition="TRIM_HORIZON")
            self.model.update(mappings=1, functions=["trigger"])

    def item_written(self, key: str, expires: int | None = None) -> None:
        self.model["records"].append(("MODIFY" if key in self.items else "INSERT", key))
        self.items[key] = "x"
        if expires is not None:
            self.expiry[key] = expires

    def _item_deleted(self, key: str) -> None:
        if key in self.items:
            self.model["records"].append(("REMOVE", key))
            del self.items[key]
            self.expiry.pop(key, None)

    def tick(self) -> None:
        """100 seconds pass on the emulator's clock (before a round, while the disk has room: the clock is logged)."""
        self.eddy.control("/_eddy/clock", {"advance": 100})

    def round(self, r: int) -> list[bool]:
        """One of each write, in order; their outcomes (True: accepted), the model following the accepted ones."""
        ddb, big = self.ddb, {"S": BIG}
        expires = now(self.eddy) + 50  # TTL's time: a round's items expire by the next round's sweep (tick)
        keys = {"batch": [f"b{r}-{n}" for n in range(3)], "tx": [f"t{r}-{n}" for n in range(2)]}
        steps: list[tuple[str, Callable[[], Any], Callable[[], None]]] = [
            ("dynamodb", lambda: ddb.put_item(TableName="orders", Item={"pk": {"S": f"p{r}"}, "v": big}),
             lambda: self.item_written(f"p{r}")),
            ("dynamodb", lambda: ddb.put_item(TableName="orders", Item={"pk": {"S": f"e{r}"}, "v": big,
                                                                        "expires": {"N": str(expires)}}),
             lambda: self.item_written(f"e{r}", expires)),
            ("dynamodb", lambda: ddb.update_item(TableName="orders", Key={"pk": {"S": f"p{r}"}},
                                                 UpdateExpression="SET w = :w", ExpressionAttributeValues={":w": big}),
             lambda: self.item_written(f"p{r}")),
            ("dynamodb", lambda: ddb.batch_write_item(RequestItems={"orders": [
                {"PutRequest": {"Item": {"pk": {"S": key}, "v": big}}} for key in keys["batch"]]}),
             lambda: [self.item_written(key) for key in keys["batch"]]),
            ("dynamodb", lambda: ddb.transact_write_items(TransactItems=[
                {"Put": {"TableName": "orders", "Item": {"pk": {"S": key}, "v": big}}} for key in keys["tx"]]),
             lambda: [self.item_written(key) for key in keys["tx"]]),
            ("dynamodb", lambda: ddb.execute_statement(Statement=f"INSERT INTO orders VALUE {{'pk': 's{r}', 'v': ?}}",
                                                       Parameters=[big]),
             lambda: self.item_written(f"s{r}")),
            ("dynamodb", lambda: ddb.delete_item(TableName="orders", Key={"pk": {"S": f"t{r}-0"}}),
             lambda: self._item_deleted(f"t{r}-0")),
            ("control", lambda: self.eddy.control("/_eddy/ttl/sweep", {}),  # expired items' REMOVEs (TTL's)
             lambda: [self._item_deleted(key) for key in sorted(self.expiry) if self.expiry[key] < now(self.eddy)]),
            ("s3", lambda: self.s3.put_object(Bucket="photos", Key=f"o{r}", Body=b"o" * 5000),
             lambda: self.model["objects"].append(f"o{r}")),
            ("sqs", lambda: self.sqs.send_message(QueueUrl=self.queue, MessageBody=f"m{r}"),
             lambda: self.model.update(messages=self.model["messages"] + 1)),
            ("sns", lambda: self.sns.create_topic(Name=f"topic{r}"), lambda: self.model["topics"].append(f"topic{r}")),
            ("kinesis", lambda: self.kinesis.put_record(StreamName="clicks", Data=f"k{r}".encode(), PartitionKey="p"),
             lambda: self.model["kinesis"].append(f"k{r}")),
            ("lambda", lambda: self.lam.create_function(
                FunctionName=f"f{r}", Runtime="python3.12", Role=ROLE, Handler="app.handler",
                Code={"ZipFile": zipped("def handler(event, context):\n    return None\n")}),
             lambda: self.model["functions"].append(f"f{r}")),
            ("lambda", lambda: self.lam.create_event_source_mapping(
                FunctionName=f"f{r}", EventSourceArn=self.stream_arn, StartingPosition="TRIM_HORIZON", Enabled=False),
             lambda: self.model.update(mappings=self.model["mappings"] + 1)),
            ("dynamodb", lambda: ddb.update_item(TableName="orders", Key={"pk": {"S": "keep"}},  # an item that is there
                                                 UpdateExpression="SET v = :v",
                                                 ExpressionAttributeValues={":v": {"S": f"v{r}" + BIG}}),
             lambda: self.item_written("keep")),
            ("dynamodb", lambda: ddb.delete_item(TableName="orders", Key={"pk": {"S": f"b0-{r}"}}),  # round 0's
             lambda: self._item_deleted(f"b0-{r}")),
            ("dynamodb", lambda: ddb.execute_transaction(TransactStatements=[
                {"Statement": "UPDATE orders SET w = ? WHERE pk = 'keep'", "Parameters": [{"S": f"w{r}" + BIG}]}]),
             lambda: self.item_written("keep")),
            ("sns", lambda: self.sns.publish(TopicArn=self.topic, Message=f"n{r}"), lambda: None),
            ("s3", lambda: self.s3.delete_object(Bucket="photos", Key=f"o{r - 1}"),
             lambda: f"o{r - 1}" in self.model["objects"] and self.model["objects"].remove(f"o{r - 1}")),
        ]
        outcomes = []
        for service, call, accepted in steps:
            ok = outcome(call, service)
            if ok:
                accepted()
            outcomes.append(ok)
            assert held(self.eddy, self.stream_arn, self.queue, self.shard) == self.expected(), (r, service, ok)
        return outcomes

    def expected(self) -> dict[str, Any]:
        return {**self.model, "items": sorted(self.items), "objects": sorted(self.model["objects"]),
                "topics": sorted(self.model["topics"]), "functions": sorted(self.model["functions"])}


def held(eddy: Eddy, stream_arn: str, queue: str | None = None, shard: str | None = None) -> dict[str, Any]:
    """What Eddy holds, as its clients read it (reads are served on a full disk). `queue` (the queue's URL) and
    `shard` (the Kinesis stream's one shard), where the caller knows them: held is read after every step (some 60
    times a test), and looking them up again each time was a fifth of its requests."""
    ddb, s3, sqs, sns = eddy.client("dynamodb"), eddy.client("s3"), eddy.client("sqs"), eddy.client("sns")
    kinesis, lam = eddy.client("kinesis"), eddy.client("lambda")
    queue = queue or sqs.get_queue_url(QueueName="work")["QueueUrl"]
    shard = shard or kinesis.list_shards(StreamName="clicks")["Shards"][0]["ShardId"]
    iterator = kinesis.get_shard_iterator(StreamName="clicks", ShardId=shard,
                                          ShardIteratorType="TRIM_HORIZON")["ShardIterator"]
    return {"items": sorted(item["pk"]["S"] for item in ddb.scan(TableName="orders")["Items"]),
            "records": stream_records(eddy, "orders", stream_arn),
            "objects": sorted(o["Key"] for o in s3.list_objects_v2(Bucket="photos").get("Contents", [])),
            "messages": int(sqs.get_queue_attributes(QueueUrl=queue, AttributeNames=["ApproximateNumberOfMessages"])
                            ["Attributes"]["ApproximateNumberOfMessages"]),
            "topics": sorted(t["TopicArn"].rsplit(":", 1)[1] for t in sns.list_topics()["Topics"]),
            "kinesis": [r["Data"].decode() for r in kinesis.get_records(ShardIterator=iterator)["Records"]],
            "functions": sorted(f["FunctionName"] for f in lam.list_functions()["Functions"]),
            "mappings": len(lam.list_event_source_mappings(EventSourceArn=stream_arn)["EventSourceMappings"])}


def test_a_real_disk_that_fills_mid_workload_refuses_every_write_path_whole(door: str, disk: SmallDisk,
                                                                             caplog: pytest.LogCaptureFixture) -> None:
    state = disk.mount_point / "state"
    with running(door, state) as eddy:
        work = Workload(eddy)
        work.set_up()
        assert all(work.round(0))
        work.tick()
        disk.fill()
        caplog.clear()
        # a full disk: every write refused (a delete of an item that is not there changes nothing, so is answered)
        assert work.round(1) == [False] * 6 + [True] + [False] * 12
        if door == "inprocess":  # one WARNING line for the episode, saying where and how much is free
            assert [(r.levelname, r.getMessage().split(": a write to ")[0]) for r in caplog.records
                    if r.levelname == "WARNING"] == [("WARNING", "writes refused until the disk has room")]
            assert f"a write to {state}" in caplog.text and "the disk is full; free there: 0 bytes" in caplog.text
        disk.room()
        assert all(work.round(2))  # room again: every write path accepted, no restart (the TTL sweep too)
        assert ("REMOVE", "e0") in work.model["records"]
        if door == "inprocess":  # the trigger was handed exactly the accepted writes' records, in order
            assert eddy.emu.wait_idle(timeout=120)["Idle"]
            assert work.delivered == work.model["records"]
        expected = work.expected()
        stream_arn = work.stream_arn
    if door == "inprocess":  # a registered callable lives in its process: register it again after a restart
        expected["functions"].remove("trigger")
    with running(door, state, kill=False) as eddy:  # after kill -9 (server) or the block's end (in-process)
        assert held(eddy, stream_arn) == expected


def test_the_sdks_retry_of_a_write_a_full_disk_refused_succeeds_once_it_has_room(door: str, disk: SmallDisk) -> None:
    with running(door, disk.mount_point / "state") as eddy:
        work = Workload(eddy)
        work.set_up()
        clients = {name: eddy.client(name, Config(retries={"mode": "standard", "total_max_attempts": 3}))
                   for name in ("dynamodb", "s3", "sqs")}
        for client in clients.values():  # after the first attempt's refusal, the disk has room again
            client.meta.events.register_first("needs-retry", lambda attempts, **_: disk.room())
        disk.fill()
        answers = [clients["dynamodb"].put_item(TableName="orders", Item={"pk": {"S": "a"}, "v": {"S": BIG}})]
        disk.fill()
        answers.append(clients["s3"].put_object(Bucket="photos", Key="o", Body=b"o" * 5000))
        disk.fill()
        answers.append(clients["sqs"].send_message(QueueUrl=work.queue, MessageBody="m"))
        disk.fill()  # a batch and a transaction are refused whole, and retried whole
        answers.append(clients["dynamodb"].batch_write_item(RequestItems={"orders": [
            {"PutRequest": {"Item": {"pk": {"S": key}, "v": {"S": BIG}}}} for key in ("b0", "b1")]}))
        disk.fill()
        answers.append(clients["dynamodb"].transact_write_items(TransactItems=[
            {"Put": {"TableName": "orders", "Item": {"pk": {"S": key}, "v": {"S": BIG}}}} for key in ("t0", "t1")]))
        assert [(a["ResponseMetadata"]["HTTPStatusCode"], a["ResponseMetadata"]["RetryAttempts"]) for a in answers] \
            == [(200, 1)] * 5
        assert answers[3]["UnprocessedItems"] == {}
        for key in ("a", "b0", "b1", "t0", "t1"):
            work.item_written(key)
        work.model.update(objects=["o"], messages=1)
        assert held(eddy, work.stream_arn) == work.expected()


def test_a_disk_that_fills_while_a_change_is_applied_still_logs_it_from_the_reserve(disk: SmallDisk, monkeypatch):
    """The race between the room check and the log entry: the disk fills while moto applies a request to S3, to
    SQS, or a table's creation (changes that cannot be taken back once applied). The log's reserve
    (storage/disk.py) gives its room back so the entry is written: the change is acknowledged, visible and durable;
    the requests after it are refused until the disk has room again. In-process only: the disk is filled at that
    exact moment by a hook in this process (a second process could not time it)."""
    from eddy.emulator.api.dynamodb import tables as dynamodb_tables
    from eddy.emulator.moto_seam.services import moments

    state = disk.mount_point / "state"
    begin, create_table = moments.begin, dynamodb_tables.create_table
    with running("inprocess", state) as eddy:
        work = Workload(eddy)
        work.set_up()
        assert (state / "disk.reserve").stat().st_size == 1 << 20

        def filling(*args: Any, **kwargs: Any) -> Any:  # the disk fills as moto begins applying the request
            disk.fill()
            return begin(*args, **kwargs)

        monkeypatch.setattr(moments, "begin", filling)
        accepted = [outcome(lambda: work.s3.put_object(Bucket="photos", Key="raced", Body=b"r" * 5000), "s3"),
                    outcome(lambda: work.sqs.send_message(QueueUrl=work.queue, MessageBody="refused"), "sqs")]
        monkeypatch.undo()
        assert accepted == [True, False] and not (state / "disk.reserve").exists()
        work.model.update(objects=["raced"])
        assert held(eddy, work.stream_arn) == work.expected()
        disk.room()
        assert outcome(lambda: work.sqs.send_message(QueueUrl=work.queue, MessageBody="raced"), "sqs")
        assert (state / "disk.reserve").exists()  # made again once the disk had room

        def filling_table(*args: Any, **kwargs: Any) -> Any:
            disk.fill()
            return create_table(*args, **kwargs)

        monkeypatch.setattr(dynamodb_tables, "create_table", filling_table)
        created = outcome(lambda: work.ddb.create_table(TableName="raced", **KEY), "dynamodb")
        monkeypatch.undo()
        assert created and work.ddb.list_tables()["TableNames"] == ["orders", "raced"]
        assert not outcome(lambda: work.ddb.create_table(TableName="refused", **KEY), "dynamodb")
        disk.room()
        work.model.update(messages=1)
        expected = work.expected()
        expected["functions"].remove("trigger")  # a registered callable lives in its process
    with running("inprocess", state) as eddy:
        assert held(eddy, work.stream_arn) == expected
        assert eddy.client("dynamodb").list_tables()["TableNames"] == ["orders", "raced"]

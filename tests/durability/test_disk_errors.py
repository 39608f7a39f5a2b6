"""A disk that fails otherwise than by filling, after moto applied a request: the request is undone, not only refused.

The failure is real and at the file layer: the kernel's RLIMIT_FSIZE (setrlimit(2) for this process, prlimit(2) for
the server's), set to the size of the write-ahead log's file, so the next write that grows a file past it fails with
EFBIG ("File too large"; Python ignores SIGXFSZ, so the write fails rather than the process ending). EFBIG is not a
full disk (ENOSPC, EDQUOT), so the log's reserve does not apply: the log entry of a request moto already applied
(service_journal.py logs a request once moto accepted it) is refused, and so are the lines S3's object change log
wrote for it. Each request is answered with its service's 500 (S3's InternalError, the InternalFailure of AWS's
JSON and query protocols: tests/durability/test_disk_full.py's REFUSED), which the SDKs retry, and moto's services
are put back as the log holds them: nothing of the request is read, listed or streamed, before or after a restart.
With the limit lifted, the SDK's retry succeeds. Both doors: emulate() in this process, and `eddy serve` killed with
SIGKILL.
"""

from __future__ import annotations

import json
import resource
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from botocore.config import Config
from botocore.exceptions import ClientError

from eddy import emulate
from tests.durability.test_disk_full import Eddy, refused, running
from tests.emulator.functions.test_functions import create_function

pytestmark = pytest.mark.slow

QUEUE_ARN = "arn:aws:sqs:us-east-1:123456789012:work"


@pytest.fixture(params=["inprocess", "server"])
def door(request: pytest.FixtureRequest) -> str:
    return request.param


@contextmanager
def failing_writes(pid: int | None, state: Path) -> Iterator[None]:
    """Every write of the process (`pid`, or this one) that grows a file past the log's present size fails (EFBIG)."""
    [wal] = sorted((state / "wal").glob("*.log"))[-1:]
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    limits = (wal.stat().st_size, hard)
    if pid is None:
        resource.setrlimit(resource.RLIMIT_FSIZE, limits)
    else:
        resource.prlimit(pid, resource.RLIMIT_FSIZE, limits)
    try:
        yield
    finally:
        lift(pid, soft, hard)


def lift(pid: int | None, soft: int = resource.RLIM_INFINITY, hard: int = resource.RLIM_INFINITY) -> None:
    if pid is None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
    else:
        resource.prlimit(pid, resource.RLIMIT_FSIZE, (soft, hard))


def held(eddy: Eddy, state: Path) -> dict[str, Any]:
    """What the services hold, as clients read it, and the bucket's object change log (a volume stream's source)."""
    s3, sqs, sns, kinesis = eddy.client("s3"), eddy.client("sqs"), eddy.client("sns"), eddy.client("kinesis")
    keys = [o["Key"] for o in s3.list_objects_v2(Bucket="photos").get("Contents", [])]
    shard = kinesis.list_shards(StreamName="clicks")["Shards"][0]["ShardId"]
    iterator = kinesis.get_shard_iterator(StreamName="clicks", ShardId=shard,
                                          ShardIteratorType="TRIM_HORIZON")["ShardIterator"]
    url = sqs.get_queue_url(QueueName="work")["QueueUrl"]
    changes = state / "objects" / "123456789012" / "aws" / "photos" / "changes.jsonl"
    return {
        "objects": {key: s3.get_object(Bucket="photos", Key=key)["Body"].read() for key in keys},
        "messages": sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["ApproximateNumberOfMessages"])
        ["Attributes"]["ApproximateNumberOfMessages"],
        "topics": sorted(t["TopicArn"].rsplit(":", 1)[1] for t in sns.list_topics()["Topics"]),
        "subscriptions": sorted((s["TopicArn"].rsplit(":", 1)[1], s["Endpoint"])
                                for s in sns.list_subscriptions()["Subscriptions"]),
        "object changes": [(line["event_name"], line["keys"]["key"]["S"], line["commit_version"])
                           for line in map(json.loads, changes.read_text().splitlines())],
        "kinesis": [(r["Data"], r["SequenceNumber"]) for r in kinesis.get_records(ShardIterator=iterator)["Records"]],
    }


def test_a_request_moto_applied_whose_log_entry_the_disk_refuses_is_undone(door: str, tmp_path: Path) -> None:
    state = tmp_path / "state"
    with running(door, state) as eddy:
        s3, sqs, sns = eddy.client("s3"), eddy.client("sqs"), eddy.client("sns")
        s3.create_bucket(Bucket="photos")
        url = sqs.create_queue(QueueName="work")["QueueUrl"]
        news = sns.create_topic(Name="news")["TopicArn"]
        kinesis = eddy.client("kinesis")
        kinesis.create_stream(StreamName="clicks", ShardCount=1)
        first = kinesis.put_record(StreamName="clicks", Data=b"k0", PartitionKey="p")["SequenceNumber"]
        s3.put_object(Bucket="photos", Key="keep", Body=b"k" * 500)
        for n in range(60):  # the log grows past every other file this process writes while the limit holds
            sqs.send_message(QueueUrl=url, MessageBody=f"{n:03}" * 300)
        before = held(eddy, state)
        assert (before["objects"], before["messages"], before["object changes"], before["kinesis"]) == \
            ({"keep": b"k" * 500}, "60", [("INSERT", "keep", 1)], [(b"k0", first)])
        pid = None if eddy.url is None else eddy.pid
        with failing_writes(pid, state):
            for service, call in [
                ("s3", lambda: s3.put_object(Bucket="photos", Key="refused", Body=b"r" * 500)),
                ("s3", lambda: s3.put_object(Bucket="photos", Key="keep", Body=b"replaced")),
                ("s3", lambda: s3.delete_object(Bucket="photos", Key="keep")),
                ("sqs", lambda: sqs.send_message(QueueUrl=url, MessageBody="refused")),
                ("sns", lambda: sns.create_topic(Name="refused")),
                ("sns", lambda: sns.subscribe(TopicArn=news, Protocol="sqs", Endpoint=QUEUE_ARN)),
                # Kinesis is Eddy's to log (not the journal's): its record is logged before it is put
                ("kinesis", lambda: kinesis.put_record(StreamName="clicks", Data=b"refused", PartitionKey="p")),
            ]:
                assert refused(call, service), service
                assert held(eddy, state) == before, service  # moto's state and the object change log as they were
        retrying = eddy.client("s3", Config(retries={"mode": "standard", "total_max_attempts": 3}))
        with failing_writes(pid, state):  # the first attempt refused, then the disk works again
            retrying.meta.events.register_first("needs-retry", lambda attempts, **_: lift(pid))
            answer = retrying.put_object(Bucket="photos", Key="retried", Body=b"t" * 500)
        assert (answer["ResponseMetadata"]["HTTPStatusCode"], answer["ResponseMetadata"]["RetryAttempts"]) == (200, 1)
        sns.subscribe(TopicArn=news, Protocol="sqs", Endpoint=QUEUE_ARN)
        second = kinesis.put_record(StreamName="clicks", Data=b"k1", PartitionKey="p")["SequenceNumber"]
        assert int(second) == int(first) + 1  # the refused record took no sequence number
        expected = {**before, "objects": {"keep": b"k" * 500, "retried": b"t" * 500},
                    "subscriptions": [("news", QUEUE_ARN)], "kinesis": [(b"k0", first), (b"k1", second)],
                    "object changes": [("INSERT", "keep", 1), ("INSERT", "retried", 2)]}
        assert held(eddy, state) == expected
    with running(door, state, kill=False) as eddy:  # after kill -9 (server) or the block's end (in-process)
        assert held(eddy, state) == expected


def test_after_a_reset_a_request_the_disk_refuses_is_undone_from_the_new_log(door: str, tmp_path: Path) -> None:
    """A reset (POST /moto-api/reset; emulate()'s reset) drops the snapshots with the log: moto's services are then
    put back from the new log alone, not from a snapshot that is gone."""
    state = tmp_path / "state"
    with running(door, state, kill=False) as eddy:  # a clean stop: a snapshot the next start reads
        eddy.client("s3").create_bucket(Bucket="before")
    block = emulate(state_dir=state, housekeeping_interval=None) if door == "inprocess" else None
    with (block or running(door, state, kill=False)) as opened:
        eddy = opened if block is None else Eddy(door, state)
        if block is None:
            urllib.request.urlopen(urllib.request.Request(eddy.url + "/moto-api/reset", method="POST"), timeout=60)
        else:
            block.reset()
        s3 = eddy.client("s3")
        s3.create_bucket(Bucket="photos")
        for n in range(60):
            s3.put_object(Bucket="photos", Key=f"k{n:02}", Body=f"{n:02}".encode() * 300)
        with failing_writes(eddy.pid, state):
            assert refused(lambda: s3.put_object(Bucket="photos", Key="refused", Body=b"r"), "s3")
        assert [b["Name"] for b in s3.list_buckets()["Buckets"]] == ["photos"]
        assert len(s3.list_objects_v2(Bucket="photos")["Contents"]) == 60


def test_a_function_whose_log_entry_the_disk_refuses_is_neither_created_nor_deleted(door: str, tmp_path: Path) -> None:
    """Lambda's API is Eddy's own: a function is made in its registry, then logged; refused (EFBIG), CreateFunction
    and DeleteFunction answer Lambda's ServiceException (botocore's lambda model: "The Lambda service encountered an
    internal error", HTTP 500) and the registry is as it was, then and after a restart; the retry succeeds."""
    state = tmp_path / "state"
    with running(door, state) as eddy:
        lam, sqs = eddy.client("lambda"), eddy.client("sqs")
        create_function(lam, "kept", "def handler(event, context):\n    return 1\n")
        url = sqs.create_queue(QueueName="work")["QueueUrl"]
        for n in range(60):  # the log grows past every other file this process writes while the limit holds
            sqs.send_message(QueueUrl=url, MessageBody=f"{n:03}" * 300)
        with failing_writes(eddy.pid, state):
            assert refused(lambda: create_function(lam, "refused", "def handler(event, context):\n    return 2\n"),
                           "lambda")
            assert refused(lambda: lam.delete_function(FunctionName="kept"), "lambda")
            assert [f["FunctionName"] for f in lam.list_functions()["Functions"]] == ["kept"]
            assert lam.invoke(FunctionName="kept")["Payload"].read() == b"1"
        create_function(lam, "refused", "def handler(event, context):\n    return 2\n")
    with running(door, state, kill=False) as eddy:  # after kill -9 (server) or the block's end (in-process)
        lam = eddy.client("lambda")
        assert sorted(f["FunctionName"] for f in lam.list_functions()["Functions"]) == ["kept", "refused"]
        assert lam.invoke(FunctionName="refused")["Payload"].read() == b"2"


def test_the_pushes_of_a_request_the_disk_refuses_are_not_made_after_a_clean_restart(tmp_path: Path) -> None:
    # An S3 put with a function notification, an SNS publish to a function and a PutEvents whose rule targets a
    # function, each refused (500): the asynchronous invocations and the EventBridge delivery they queued were kept in
    # memory though their own log entry was refused, so the snapshot of a clean stop wrote them down and they ran
    # after the restart (found by probing on 2026-11-28). In process: the function is a registered callable.
    state, seen = tmp_path / "state", []
    with emulate(state_dir=state, housekeeping_interval=None) as emu:
        eddy = Eddy("inprocess", state)
        eddy.emu = emu
        arn = emu.register_function("sink", lambda event, context: seen.append(event))
        s3, sns, events, sqs = (eddy.client(name) for name in ("s3", "sns", "events", "sqs"))
        s3.create_bucket(Bucket="photos")
        s3.put_bucket_notification_configuration(Bucket="photos", NotificationConfiguration={
            "LambdaFunctionConfigurations": [{"LambdaFunctionArn": arn, "Events": ["s3:ObjectCreated:*"]}]})
        topic = sns.create_topic(Name="news")["TopicArn"]
        sns.subscribe(TopicArn=topic, Protocol="lambda", Endpoint=arn)
        events.put_rule(Name="orders", EventPattern=json.dumps({"source": ["shop"]}))
        events.put_targets(Rule="orders", Targets=[{"Id": "sink", "Arn": arn}])
        url = sqs.create_queue(QueueName="work")["QueueUrl"]
        for number in range(60):  # a log of some size, so that its next entries are what the limit refuses
            sqs.send_message(QueueUrl=url, MessageBody=f"{number:03}" * 300)
        emu.wait_idle()
        seen.clear()
        answers = []
        with failing_writes(None, state):
            for call in (lambda: s3.put_object(Bucket="photos", Key="refused", Body=b"r"),
                         lambda: sns.publish(TopicArn=topic, Message="refused"),
                         lambda: events.put_events(Entries=[{"Source": "shop", "DetailType": "t", "Detail": "{}"}])):
                with pytest.raises(ClientError) as refusal:
                    call()
                answers.append((refusal.value.response["Error"]["Code"],
                                refusal.value.response["ResponseMetadata"]["HTTPStatusCode"]))
        assert answers == [("InternalError", 500), ("InternalFailure", 500), ("InternalFailure", 500)]
        emu.wait_idle()
        assert seen == []
    with emulate(state_dir=state, housekeeping_interval=None) as emu:  # after a clean stop (its snapshot)
        emu.register_function("sink", lambda event, context: seen.append(event))
        report = emu.wait_idle()
        # nothing ran, failed or waits (without the fix: the two invocations and the delivery, tried at the start)
        assert (report["Pending"], report["Failures"], seen) == ([], [], [])

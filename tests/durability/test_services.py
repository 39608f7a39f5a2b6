"""moto's services are durable as DynamoDB is: a clean restart brings every resource back exactly (full listings
compared), recovery says what it restored, and a corrupt state is refused. Both doors."""

from __future__ import annotations

import json
import logging
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from eddy import emulate
from eddy.emulator.storage.wal import CorruptStateError
from tests.conftest import QUIET
from tests.durability.service_listings import build, listings, running
from tests.emulator.functions.test_functions import create_function
from tests.emulator.helpers import create_table


@pytest.fixture(params=["inprocess", "server"])
def kind(request: pytest.FixtureRequest) -> str:
    return request.param


def test_a_clean_restart_brings_every_resource_back_exactly_and_the_next_keeps_what_both_runs_made(kind, tmp_path):
    """The first run's every resource comes back exactly; the second run's changes are logged on top of the first
    run's snapshot and survive the next restart. One workload serves both (it makes every kind of resource and
    uploads 5.6 MB): the second run checks it, changes it, and the third finds both runs' changes."""
    state = str(tmp_path / "state")
    with running(kind, state) as door:
        built = build(door.client)
        before = listings(door.client, built)
    with running(kind, state) as door:
        assert listings(door.client, built) == before
        sqs, lam = door.client("sqs"), door.client("lambda")
        # the messages come back with the ids they were sent with; the ones in flight stay in flight
        visible = sqs.receive_message(QueueUrl=built["queue"], MaxNumberOfMessages=10,
                                      AttributeNames=["ApproximateReceiveCount"])["Messages"]
        bodies = sorted(message["Body"] for message in visible)
        assert [m["MessageId"] for m in visible if not m["Body"].startswith("{")] == built["sent"][3:]
        assert bodies[:3] == ["message 3", "message 4", "message 5"]
        assert json.loads(bodies[3])["Message"] == "a photo"  # the filter policy kept "filtered out" away
        assert {m["Attributes"]["ApproximateReceiveCount"] for m in visible} == {"1"}
        # receipt handles handed out before the restart still work
        for handle in built["in_flight"]:
            sqs.delete_message(QueueUrl=built["queue"], ReceiptHandle=handle)
        # FIFO deduplication remembers what it saw: the same deduplication id is not delivered twice
        sqs.send_message(QueueUrl=built["fifo"], MessageBody="order 1 again", MessageGroupId="g",
                         MessageDeduplicationId="order-1")
        # (hidden for an hour, as the inbox's are: the next run's listings find it in flight however slow the machine)
        fifo = sqs.receive_message(QueueUrl=built["fifo"], MaxNumberOfMessages=10, VisibilityTimeout=3600)["Messages"]
        assert [(m["MessageId"], m["Body"]) for m in fifo] == [(built["fifo_id"], "order 1")]
        # a layer's next version follows the ones published before
        assert lam.publish_layer_version(LayerName="shared", Content={"ZipFile": b"PK\x05\x06" + bytes(18)})["Version"] == 3
        door.client("s3").put_object(Bucket="photos", Key="second-run.txt", Body=b"2")
        door.client("sqs").send_message(QueueUrl=built["queue"], MessageBody="second run")
        second = listings(door.client, built)
    with running(kind, state) as door:  # the second run's changes, on top of the first run's snapshot
        assert listings(door.client, built) == second
        assert door.client("s3").get_object(Bucket="photos", Key="second-run.txt")["Body"].read() == b"2"


def test_sqs_visibility_and_delays_follow_the_emulators_clock_across_a_restart(kind, tmp_path):
    state = str(tmp_path / "state")
    with running(kind, state) as door:
        sqs = door.client("sqs")
        queue = sqs.create_queue(QueueName="jobs")["QueueUrl"]
        sqs.send_message(QueueUrl=queue, MessageBody="now")
        sqs.send_message(QueueUrl=queue, MessageBody="in ten minutes", DelaySeconds=600)
        assert [m["Body"] for m in sqs.receive_message(QueueUrl=queue, VisibilityTimeout=300)["Messages"]] == ["now"]
    with running(kind, state) as door:
        sqs = door.client("sqs")
        assert "Messages" not in sqs.receive_message(QueueUrl=queue, MaxNumberOfMessages=10)
        door.advance(301)  # the first message's visibility timeout is over on the emulator's clock
        again = sqs.receive_message(QueueUrl=queue, AttributeNames=["ApproximateReceiveCount"])["Messages"]
        assert [(m["Body"], m["Attributes"]["ApproximateReceiveCount"]) for m in again] == [("now", "2")]
        sqs.delete_message(QueueUrl=queue, ReceiptHandle=again[0]["ReceiptHandle"])
        door.advance(300)  # and the delayed one is delivered
        assert [m["Body"] for m in sqs.receive_message(QueueUrl=queue)["Messages"]] == ["in ten minutes"]


def test_recovery_reports_what_it_restored_per_service(tmp_path, caplog):
    state = str(tmp_path / "state")
    with emulate(state_dir=state, **QUIET):
        build(_client)
    caplog.set_level(logging.INFO, logger="eddy")
    with emulate(state_dir=state, **QUIET):
        lines = [record.getMessage() for record in caplog.records if record.getMessage().startswith("recovered")]
    assert sorted(lines) == [
        "recovered iam: 1 role, 0 users, 1 policy",
        "recovered lambda: 0 functions, 0 event source mappings, 2 layer versions",
        "recovered s3: 1 bucket, 2 objects",
        "recovered sns: 1 topic, 1 subscription",
        "recovered sqs: 2 queues, 8 messages",  # 6 + 1 delayed + 1 from SNS - 1 deleted, and 1 FIFO
    ]


def test_a_server_prints_its_recovery_lines_at_start_up(tmp_path):
    state = str(tmp_path / "state")
    with running("server", state) as door:
        door.client("sqs").create_queue(QueueName="one")
    out = _serve_until_ready(state)
    assert "recovered sqs: 1 queue, 0 messages" in out
    assert "recovered dynamodb" not in out  # a service that holds nothing gets no line


def test_a_corrupt_state_of_the_services_is_refused(tmp_path):
    state = tmp_path / "state"
    with running("server", str(state)) as door:
        door.client("sqs").create_queue(QueueName="one")
    services = next((state / "snapshots").glob("*.services"))
    services.write_bytes(services.read_bytes()[:-7] + b"garbage")
    with pytest.raises(CorruptStateError, match=r"\.services: the state of moto's services is corrupt"):
        with emulate(state_dir=str(state), **QUIET):
            pass
    served = subprocess.run([sys.executable, "-m", "eddy", "serve", "--port", "0", "--state-dir", str(state)],
                            capture_output=True, text=True, timeout=120)
    assert served.returncode == 1
    (line,) = served.stderr.strip().splitlines()  # one line, naming the file
    assert "cannot start on this state directory: " in line and str(services) in line


def test_a_missing_body_file_is_refused(tmp_path):
    state = tmp_path / "state"
    _without_a_clean_stop(state, """
        s3 = boto3.client("s3", region_name="us-east-1")
        s3.create_bucket(Bucket="photos")
        s3.put_object(Bucket="photos", Key="big", Body=b"B" * 5000)
    """)
    (body,) = (state / "bodies").iterdir()
    body.unlink()  # the log names a body the directory no longer has
    with pytest.raises(CorruptStateError, match=f"{body}: a request body the state names is missing"):
        with emulate(state_dir=str(state), **QUIET):
            pass


def _without_a_clean_stop(state: Path, code: str) -> None:
    """Run `code` in another process inside emulate(state_dir=state), which then ends without closing it."""
    script = ("import os, boto3\nfrom emulator import emulate\n"
              f"with emulate(state_dir={str(state)!r}):\n" + textwrap.indent(textwrap.dedent(code), "    ")
              + "\n    os._exit(0)\n")
    subprocess.run([sys.executable, "-c", script], check=True, timeout=120)


def _client(name: str):
    import boto3

    return boto3.client(name, region_name="us-east-1")


def _serve_until_ready(state: str) -> str:
    """`eddy serve` on `state` until it says it is serving; answers what it printed before (then stops it)."""
    process = subprocess.Popen([sys.executable, "-m", "eddy", "serve", "--port", "0", "--state-dir", state,
                                "--housekeeping-interval", "0"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               text=True)
    out = []
    try:
        for line in process.stdout:
            out.append(line)
            if " on http://" in line:
                break
    finally:
        process.terminate()
        process.wait(timeout=60)
    return "".join(out)



def test_a_mapping_delivers_to_its_on_failure_queue_created_before_the_restart(kind, tmp_path):
    """The issue's case: the destination queue was gone after a restart and the mapping logged NotFoundException."""
    state = str(tmp_path / "state")
    with running(kind, state) as door:
        dynamodb, lam, sqs = door.client("dynamodb"), door.client("lambda"), door.client("sqs")
        create_table(dynamodb, "orders")
        stream_arn = dynamodb.describe_table(TableName="orders")["Table"]["LatestStreamArn"]
        queue = sqs.create_queue(QueueName="failures")["QueueUrl"]
        queue_arn = sqs.get_queue_attributes(QueueUrl=queue, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
        create_function(lam, "broken", "def handler(event, context):\n    raise RuntimeError('no')\n")
        lam.create_event_source_mapping(EventSourceArn=stream_arn, FunctionName="broken", StartingPosition="LATEST",
                                        MaximumRetryAttempts=0,
                                        DestinationConfig={"OnFailure": {"Destination": queue_arn}})
    with running(kind, state) as door:
        dynamodb, sqs = door.client("dynamodb"), door.client("sqs")
        dynamodb.put_item(TableName="orders", Item={"pk": {"S": "after-restart"}})
        records = _drain_bodies(sqs, queue)  # a long poll: it answers when the on-failure record arrives
        assert [record["requestContext"]["condition"] for record in records] == ["RetryAttemptsExhausted"]
        assert records[0]["DDBStreamBatchInfo"]["streamArn"] == stream_arn


def _drain_bodies(sqs, queue: str) -> list[dict]:
    messages = sqs.receive_message(QueueUrl=queue, MaxNumberOfMessages=10, WaitTimeSeconds=20).get("Messages", [])
    return [json.loads(message["Body"]) for message in messages]


def test_requests_to_the_services_bring_the_next_snapshot_sooner(tmp_path):
    """A request to moto's services counts as ten log entries toward the next snapshot (its replay costs that
    much more than a DynamoDB commit's), so the log a crash leaves to replay stays short."""
    state = tmp_path / "state"
    with emulate(state_dir=str(state), snapshot_every=50, **QUIET):
        sqs = _client("sqs")
        queue = sqs.create_queue(QueueName="q")["QueueUrl"]
        for n in range(3):
            sqs.send_message(QueueUrl=queue, MessageBody=str(n))
        assert not (state / "snapshots").exists()  # 4 requests so far: 40 entries' worth
        sqs.send_message(QueueUrl=queue, MessageBody="3")
        assert [path.suffix for path in sorted((state / "snapshots").iterdir())] == [".services", ".snapshot"]

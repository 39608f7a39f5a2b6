"""S3 Lifecycle's expirations are S3 changes like any other: kept in the state directory's log across a kill -9
(the deletion is a DeleteObject the services' journal logs, its lifecycle mark with it), so the restart's replay
deletes the object again as S3 Lifecycle's and rebuilds the queue with the one s3:LifecycleExpiration:Delete record
S3 sent (an ObjectRemoved:Delete, which the configuration does not ask for, would leave it without)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import boto3

from eddy import emulate
from tests.durability.killed_workloads import ROOT

WORKLOAD = textwrap.dedent("""
    import os, signal, sys
    import boto3
    from eddy import emulate

    rules = {"Rules": [{"ID": "tmp", "Status": "Enabled", "Filter": {"Prefix": "tmp/"}, "Expiration": {"Days": 1}}]}
    with emulate(state_dir=sys.argv[1], housekeeping_interval=None) as emu:
        s3, sqs = boto3.client("s3", region_name="us-east-1"), boto3.client("sqs", region_name="us-east-1")
        s3.create_bucket(Bucket="scratch")
        url = sqs.create_queue(QueueName="expirations")["QueueUrl"]
        arn = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
        s3.put_bucket_notification_configuration(Bucket="scratch", NotificationConfiguration={
            "QueueConfigurations": [{"Id": "gone", "QueueArn": arn, "Events": ["s3:LifecycleExpiration:*"]}]})
        s3.put_bucket_lifecycle_configuration(Bucket="scratch", LifecycleConfiguration=rules)
        s3.put_object(Bucket="scratch", Key="tmp/a", Body=b"a")
        s3.put_object(Bucket="scratch", Key="keep/b", Body=b"b")
        emu.clock.advance(3 * 86400)
        print("SWEPT", emu.sweep_lifecycle(), flush=True)
        emu.wait_idle()
        os.kill(os.getpid(), signal.SIGKILL)  # no final snapshot: the restart replays the log
""")


def test_an_expiration_carried_out_is_replayed_as_s3_lifecycle_s_after_a_kill(tmp_path):
    done = subprocess.run([sys.executable, "-c", f"import sys; sys.path.insert(0, {str(ROOT)!r})\n" + WORKLOAD,
                           str(tmp_path)], capture_output=True, text=True, timeout=300, check=False)
    assert "SWEPT 1" in done.stdout, done.stderr
    with emulate(state_dir=tmp_path, housekeeping_interval=None) as emu:
        s3, sqs = boto3.client("s3"), boto3.client("sqs")
        assert [o["Key"] for o in s3.list_objects_v2(Bucket="scratch")["Contents"]] == ["keep/b"]
        assert emu.sweep_lifecycle() == 0
        url = sqs.get_queue_url(QueueName="expirations")["QueueUrl"]
        bodies = [json.loads(m["Body"]) for m in sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10)["Messages"]]
        events = [body.get("Event") or body["Records"][0]["eventName"] for body in bodies]
        assert sorted(events) == ["LifecycleExpiration:Delete", "s3:TestEvent"]

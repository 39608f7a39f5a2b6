"""S3 Lifecycle's expirations are S3 changes like any other: kept in the state directory through a restart (the
deletion is a DeleteObject the services' journal logs, its lifecycle mark with it), with the one event S3 sent."""

from __future__ import annotations

import json

import boto3

from eddy import emulate


def test_an_expiration_carried_out_stays_carried_out_after_a_restart(tmp_path):
    rules = {"Rules": [{"ID": "tmp", "Status": "Enabled", "Filter": {"Prefix": "tmp/"}, "Expiration": {"Days": 1}}]}
    with emulate(state_dir=tmp_path, housekeeping_interval=None) as emu:
        s3, sqs = boto3.client("s3"), boto3.client("sqs")
        s3.create_bucket(Bucket="scratch")
        url = sqs.create_queue(QueueName="expirations")["QueueUrl"]
        arn = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
        s3.put_bucket_notification_configuration(Bucket="scratch", NotificationConfiguration={
            "QueueConfigurations": [{"Id": "gone", "QueueArn": arn, "Events": ["s3:LifecycleExpiration:*"]}]})
        s3.put_bucket_lifecycle_configuration(Bucket="scratch", LifecycleConfiguration=rules)
        s3.put_object(Bucket="scratch", Key="tmp/a", Body=b"a")
        s3.put_object(Bucket="scratch", Key="keep/b", Body=b"b")
        emu.clock.advance(3 * 86400)
        assert emu.sweep_lifecycle() == 1
        emu.wait_idle()
    with emulate(state_dir=tmp_path, housekeeping_interval=None) as emu:
        s3, sqs = boto3.client("s3"), boto3.client("sqs")
        assert [o["Key"] for o in s3.list_objects_v2(Bucket="scratch")["Contents"]] == ["keep/b"]
        assert emu.sweep_lifecycle() == 0
        bodies = [json.loads(m["Body"]) for m in sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10)["Messages"]]
        events = [body.get("Event") or body["Records"][0]["eventName"] for body in bodies]
        assert sorted(events) == ["LifecycleExpiration:Delete", "s3:TestEvent"]

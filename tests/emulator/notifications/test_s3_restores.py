"""RestoreObject's S3 events, in both doors: ObjectRestore:Post, then ObjectRestore:Completed with its
glacierEventData, to a queue, and "Object Restore Initiated" / "Object Restore Completed" on the default event bus.

Sources: LocalStack's AWS-validated tests/aws/services/s3/test_s3_notifications_sqs.py::TestS3NotificationsToSQS::
test_restore_object and its snapshot (the two records; Completed's userIdentity "AmazonCustomer:<owner>" and
glacierEventData.restoreEventData with lifecycleRestorationExpiryTime and lifecycleRestoreStorageClass "GLACIER");
Amazon S3 User Guide, "Event message structure" (glacierEventData after s3, the expiry as 1970-01-01T00:00:00.000Z).
"""

from __future__ import annotations

import json
import re

from eddy.emulator.notifications.s3_events import customer_id
from tests.emulator.notifications.test_s3_eventbridge import delivered, expected
from tests.emulator.triggers.sqs_helpers import queue

ACCOUNT = "123456789012"


def test_a_restore_sends_its_post_and_completed_records_as_s3_does(door):
    s3, sqs = door.client("s3"), door.client("sqs")
    url, arn = queue(sqs, "restores")
    s3.create_bucket(Bucket="archive")
    s3.put_bucket_notification_configuration(Bucket="archive", NotificationConfiguration={"QueueConfigurations": [
        {"Id": "restores", "QueueArn": arn, "Events": ["s3:ObjectRestore:*"]}]})
    [test_event] = sqs.receive_message(QueueUrl=url)["Messages"]
    sqs.delete_message(QueueUrl=url, ReceiptHandle=test_event["ReceiptHandle"])
    s3.put_object(Bucket="archive", Key="my_key_restore", Body=b"something", StorageClass="GLACIER")
    s3.restore_object(Bucket="archive", Key="my_key_restore",
                      RestoreRequest={"Days": 1, "GlacierJobParameters": {"Tier": "Expedited"}})
    assert 'ongoing-request="false"' in s3.head_object(Bucket="archive", Key="my_key_restore")["Restore"]
    s3.get_object(Bucket="archive", Key="my_key_restore")["Body"].read()  # reading it sends nothing more
    messages = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10)["Messages"]
    posted, completed = (json.loads(m["Body"])["Records"][0] for m in messages)
    assert [posted["eventName"], completed["eventName"]] == ["ObjectRestore:Post", "ObjectRestore:Completed"]
    common = {"eventVersion": "2.1", "eventSource": "aws:s3", "awsRegion": "us-east-1"}
    obj = {"key": "my_key_restore", "size": 9, "eTag": "437b930db84b8079c2dd804a71936b5f"}
    for record in (posted, completed):
        assert {k: record[k] for k in common} == common
        assert {k: v for k, v in record["s3"]["object"].items() if k != "sequencer"} == obj
        assert record["s3"]["configurationId"] == "restores"
    assert int(completed["s3"]["object"]["sequencer"], 16) > int(posted["s3"]["object"]["sequencer"], 16)
    assert "glacierEventData" not in posted
    assert completed["userIdentity"] == {"principalId": f"AmazonCustomer:{customer_id(ACCOUNT)}"}
    assert list(completed)[-1] == "glacierEventData"
    restore = completed["glacierEventData"]["restoreEventData"]
    assert list(restore) == ["lifecycleRestorationExpiryTime", "lifecycleRestoreStorageClass"]
    assert restore["lifecycleRestoreStorageClass"] == "GLACIER"
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.000Z", restore["lifecycleRestorationExpiryTime"])


def test_a_restore_puts_initiated_and_completed_on_the_default_bus_as_aws_recorded_them(door):
    """AWS's recorded events: LocalStack's tests/aws/services/s3/test_s3_notifications_eventbridge.snapshot.json
    (localstack/localstack at 8b9a79f05846), TestS3NotificationsToEventBridge::test_restore_object: "Object Restore
    Initiated" with the requester's source-ip-address, "Object Restore Completed" with restore-expiry-time and no
    source-ip-address (S3 restored it, not a client), both with source-storage-class GLACIER and no reason."""
    s3, sqs, events = door.client("s3"), door.client("sqs"), door.client("events")
    url, arn = queue(sqs, "s3-events")
    events.put_rule(Name="restores", EventPattern=json.dumps({"source": ["aws.s3"], "detail-type": [
        "Object Restore Initiated", "Object Restore Completed"]}))
    events.put_targets(Rule="restores", Targets=[{"Id": "q", "Arn": arn}])
    s3.create_bucket(Bucket="archive")
    s3.put_bucket_notification_configuration(Bucket="archive",
                                             NotificationConfiguration={"EventBridgeConfiguration": {}})
    s3.put_object(Bucket="archive", Key="my_key_restore", Body=b"something", StorageClass="GLACIER")
    s3.restore_object(Bucket="archive", Key="my_key_restore",
                      RestoreRequest={"Days": 1, "GlacierJobParameters": {"Tier": "Expedited"}})
    initiated, completed = delivered(door, url)
    obj = {"key": "my_key_restore", "size": 9, "etag": "437b930db84b8079c2dd804a71936b5f"}
    assert initiated == expected(initiated, "archive", "Object Restore Initiated", obj,
                                 **{"source-storage-class": "GLACIER"})
    recorded_completed = expected(completed, "archive", "Object Restore Completed", obj,
                                  **{"source-storage-class": "GLACIER",
                                     "restore-expiry-time": completed["detail"]["restore-expiry-time"]})
    del recorded_completed["detail"]["source-ip-address"]
    assert completed == recorded_completed
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", completed["detail"]["restore-expiry-time"])

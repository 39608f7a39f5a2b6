"""S3 to EventBridge through both doors: a bucket with `{"EventBridgeConfiguration": {}}` puts each object event on
its region's default event bus, matched by rules and delivered to their targets, in S3's shape. AWS's recorded
events: LocalStack's AWS-validated tests/aws/services/s3/test_s3_notifications_eventbridge.snapshot.json
(test_object_created_put: "Object Created" with reason PutObject, size, etag and sequencer; "Object Deleted" with
reason DeleteObject, deletion-type "Permanently Deleted", the object's key and sequencer only; test_object_put_acl:
"Object ACL Updated" with the object's key and etag only, no reason), and the Amazon S3 User Guide, "EventBridge event
message structure" (version-id in a versioned bucket, "Delete Marker Created", the reasons CopyObject and
CompleteMultipartUpload)."""

from __future__ import annotations

import hashlib
import json

from tests.emulator.notifications.test_s3_event_types import multipart_etag, multipart_upload
from tests.emulator.trigger_helpers import wait_idle
from tests.emulator.triggers.sqs_helpers import queue

ACCOUNT, REGION = "123456789012", "us-east-1"
EVERY_OBJECT_EVENT = ["Object Created", "Object Deleted", "Object ACL Updated", "Object Tags Added",
                      "Object Tags Deleted"]


def bucket_to_rule(door, bucket: str, bus: str = "default") -> str:
    """The bucket sends its events to EventBridge; a rule on `bus` for them sends them to a new queue (its URL)."""
    s3, sqs, events = door.client("s3"), door.client("sqs"), door.client("events")
    s3.create_bucket(Bucket=bucket)
    s3.put_bucket_notification_configuration(Bucket=bucket, NotificationConfiguration={"EventBridgeConfiguration": {}})
    assert s3.get_bucket_notification_configuration(Bucket=bucket)["EventBridgeConfiguration"] == {}
    url, arn = queue(sqs, f"{bucket}-{bus}")
    if bus != "default":
        events.create_event_bus(Name=bus)
    pattern = {"source": ["aws.s3"], "detail-type": EVERY_OBJECT_EVENT, "detail": {"bucket": {"name": [bucket]}}}
    events.put_rule(Name=f"{bucket}-events", EventBusName=bus, EventPattern=json.dumps(pattern))
    events.put_targets(Rule=f"{bucket}-events", EventBusName=bus, Targets=[{"Id": "queue", "Arn": arn}])
    return url


def delivered(door, url: str) -> list[dict]:
    """The events the rule's queue holds once every delivery is done, in the order they were sent."""
    assert wait_idle(door)["Idle"]
    sqs, events = door.client("sqs"), []
    while messages := sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10).get("Messages", []):
        events += [json.loads(message["Body"]) for message in messages]
        sqs.delete_message_batch(QueueUrl=url, Entries=[{"Id": str(n), "ReceiptHandle": m["ReceiptHandle"]}
                                                        for n, m in enumerate(messages)])
    return events


def expected(event: dict, bucket: str, detail_type: str, obj: dict, **detail: str) -> dict:
    """S3's event as AWS's recorded ones are, with `event`'s own id, time, request-id and sequencer (drawn)."""
    if "sequencer" in obj:
        obj = {**obj, "sequencer": event["detail"]["object"]["sequencer"]}
    return {"version": "0", "id": event["id"], "detail-type": detail_type, "source": "aws.s3", "account": ACCOUNT,
            "time": event["time"], "region": REGION, "resources": [f"arn:aws:s3:::{bucket}"],
            "detail": {"version": "0", "bucket": {"name": bucket}, "object": obj,
                       "request-id": event["detail"]["request-id"], "requester": ACCOUNT,
                       "source-ip-address": "127.0.0.1", **detail}}


def test_a_put_and_a_delete_reach_the_default_bus_as_s3_records_them(door):
    url = bucket_to_rule(door, "photos-eventbridge")
    other_bus = bucket_to_rule(door, "photos-elsewhere", bus="uploads")  # S3 puts its events on the default bus only
    s3 = door.client("s3")
    s3.put_object(Bucket="photos-eventbridge", Key="cat.jpg", Body=b"data")
    s3.delete_object(Bucket="photos-eventbridge", Key="cat.jpg")
    s3.put_object(Bucket="photos-elsewhere", Key="dog.jpg", Body=b"data")
    created, deleted = delivered(door, url)
    assert created == expected(created, "photos-eventbridge", "Object Created",
                               {"key": "cat.jpg", "size": 4, "etag": "8d777f385d3dfec8815d20f7496026dc",
                                "sequencer": ""}, reason="PutObject")
    assert deleted == expected(deleted, "photos-eventbridge", "Object Deleted", {"key": "cat.jpg", "sequencer": ""},
                               reason="DeleteObject", **{"deletion-type": "Permanently Deleted"})
    assert created["id"] != deleted["id"] and created["detail"]["request-id"] != deleted["detail"]["request-id"]
    assert int(deleted["detail"]["object"]["sequencer"], 16) > int(created["detail"]["object"]["sequencer"], 16)
    assert delivered(door, other_bus) == []


def test_a_versioned_buckets_events_carry_the_version_and_a_delete_marker(door):
    url = bucket_to_rule(door, "ledger-eventbridge")
    s3 = door.client("s3")
    s3.put_bucket_versioning(Bucket="ledger-eventbridge", VersioningConfiguration={"Status": "Enabled"})
    version = s3.put_object(Bucket="ledger-eventbridge", Key="2026/entry.json", Body=b"{}")["VersionId"]
    marker = s3.delete_object(Bucket="ledger-eventbridge", Key="2026/entry.json")["VersionId"]
    s3.delete_object(Bucket="ledger-eventbridge", Key="2026/entry.json", VersionId=version)
    created, marked, deleted = delivered(door, url)
    assert created == expected(created, "ledger-eventbridge", "Object Created",
                               {"key": "2026/entry.json", "size": 2, "etag": hashlib.md5(b"{}").hexdigest(),
                                "version-id": version, "sequencer": ""}, reason="PutObject")
    assert marked == expected(marked, "ledger-eventbridge", "Object Deleted",
                              {"key": "2026/entry.json", "etag": hashlib.md5(b"").hexdigest(), "version-id": marker,
                               "sequencer": ""}, reason="DeleteObject", **{"deletion-type": "Delete Marker Created"})
    assert deleted == expected(deleted, "ledger-eventbridge", "Object Deleted",
                               {"key": "2026/entry.json", "version-id": version, "sequencer": ""},
                               reason="DeleteObject", **{"deletion-type": "Permanently Deleted"})


def test_copies_uploads_acls_tags_and_batch_deletes_are_each_their_event(door):
    url = bucket_to_rule(door, "docs-eventbridge")
    s3 = door.client("s3")
    etag = s3.put_object(Bucket="docs-eventbridge", Key="a.txt", Body=b"something")["ETag"].strip('"')
    delivered(door, url)  # the put's event, seen above
    s3.copy_object(Bucket="docs-eventbridge", Key="b.txt", CopySource={"Bucket": "docs-eventbridge", "Key": "a.txt"})
    parts = [b"p" * 5 * 1024 * 1024, b"tail"]
    multipart_upload(s3, "docs-eventbridge", "big.bin", parts)
    s3.put_object_acl(Bucket="docs-eventbridge", Key="a.txt", ACL="private")  # the ACL it has: no event (recorded)
    s3.put_object_acl(Bucket="docs-eventbridge", Key="a.txt", ACL="public-read")
    s3.put_object_tagging(Bucket="docs-eventbridge", Key="a.txt", Tagging={"TagSet": [{"Key": "k", "Value": "v"}]})
    s3.delete_object_tagging(Bucket="docs-eventbridge", Key="a.txt")
    s3.delete_objects(Bucket="docs-eventbridge", Delete={"Objects": [{"Key": "a.txt"}, {"Key": "b.txt"}]})
    copied, uploaded, acl, tagged, untagged, deleted_a, deleted_b = delivered(door, url)
    assert copied == expected(copied, "docs-eventbridge", "Object Created",
                              {"key": "b.txt", "size": 9, "etag": etag, "sequencer": ""}, reason="CopyObject")
    assert uploaded == expected(uploaded, "docs-eventbridge", "Object Created",
                                {"key": "big.bin", "size": 5 * 1024 * 1024 + 4, "etag": multipart_etag(parts),
                                 "sequencer": ""}, reason="CompleteMultipartUpload")
    for event, detail_type in ((acl, "Object ACL Updated"), (tagged, "Object Tags Added"),
                               (untagged, "Object Tags Deleted")):
        assert event == expected(event, "docs-eventbridge", detail_type, {"key": "a.txt", "etag": etag})
    for event, key in ((deleted_a, "a.txt"), (deleted_b, "b.txt")):
        assert event == expected(event, "docs-eventbridge", "Object Deleted", {"key": key, "sequencer": ""},
                                 reason="DeleteObject", **{"deletion-type": "Permanently Deleted"})

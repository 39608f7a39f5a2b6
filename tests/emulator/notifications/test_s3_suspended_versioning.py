"""A bucket whose versioning is Suspended, as S3 keeps it (moto_seam/s3/versioning.py) and as S3 tells of it, to a queue,
a topic, a function and EventBridge, in both doors: LocalStack's AWS-validated test_object_created_put_versioned,
request for request, its answers and events compared whole with AWS's (github.com/localstack/localstack at
8b9a79f05846835cf4dff63ab7eefdde9df83783, tests/aws/services/s3/test_s3_notifications_sqs.snapshot.json and
test_s3_notifications_eventbridge.snapshot.json). S3's record is one shape to every destination (Amazon S3 User Guide,
"Event message structure"), so a topic's and a function's records are compared with the queue's recording. Values
that differ from run to run are replaced as LocalStack's snapshot transformers replace them (`transformed`), each
version id checked first against the version S3 answered."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.emulator.notifications.test_s3_eventbridge import bucket_to_rule, delivered
from tests.emulator.notifications.test_s3_notifications import FORWARDER, notify, wait_for_messages
from tests.emulator.recorded_snapshots import assert_recorded
from tests.emulator.trigger_helpers import create_zip_function
from tests.emulator.triggers.sqs_helpers import queue

BUCKET, KEY = "versions-suspended", "test-key"
METADATA_204 = {"HTTPHeaders": {}, "HTTPStatusCode": 204}
METADATA_200 = {"HTTPHeaders": {}, "HTTPStatusCode": 200}


def record(event_name: str, obj: dict[str, Any]) -> dict[str, Any]:
    """One S3 record of the recording (test_s3_notifications_sqs.snapshot.json), its object `obj`."""
    return {
        "eventVersion": "2.1", "eventSource": "aws:s3", "awsRegion": "<region>", "eventTime": "date",
        "eventName": event_name, "userIdentity": {"principalId": "<principal-id:2>"},
        "requestParameters": {"sourceIPAddress": "<ip-address:1>"},
        "responseElements": {"x-amz-request-id": "amz-request-id", "x-amz-id-2": "amz-id"},
        "s3": {"s3SchemaVersion": "1.0", "configurationId": "<config-id:1>",
               "bucket": {"name": "<resource:1>", "ownerIdentity": {"principalId": "<principal-id:1>"},
                          "arn": "arn:<partition>:s3:::<resource:1>"},
               "object": {"key": KEY, **obj}}}


#: message-versioning-active and message-versioning-suspended, as recorded (sorted by eventName, eTag)
ACTIVE = [
    record("ObjectCreated:Put", {"size": 13, "eTag": "6869c34ca384e0ed836d49214f881e87", "versionId": "version-id",
                                 "sequencer": "sequencer"}),
    record("ObjectCreated:Put", {"size": 4, "eTag": "8d777f385d3dfec8815d20f7496026dc", "versionId": "version-id",
                                 "sequencer": "sequencer"}),
    record("ObjectRemoved:Delete", {"versionId": "version-id", "sequencer": "sequencer"}),
    record("ObjectRemoved:DeleteMarkerCreated", {"eTag": "d41d8cd98f00b204e9800998ecf8427e",
                                                 "versionId": "version-id", "sequencer": "sequencer"}),
]
SUSPENDED = [
    record("ObjectCreated:Put", {"size": 13, "eTag": "2fb1d4988881168bbcd6432d7593be5a", "sequencer": "sequencer"}),
    record("ObjectRemoved:Delete", {"versionId": "version-id", "sequencer": "sequencer"}),
]


def bus_event(detail_type: str, obj: dict[str, Any], number: int, **detail: str) -> dict[str, Any]:
    """One event of test_s3_notifications_eventbridge.snapshot.json's message-versioning-suspended."""
    return {
        "version": "0", "id": f"<uuid:{number}>", "detail-type": detail_type, "source": "aws.s3",
        "account": "111111111111", "time": "date", "region": "<region>",
        "resources": ["arn:<partition>:s3:::<bucket-name:1>"],
        "detail": {"version": "0", "bucket": {"name": "<bucket-name:1>"}, "object": {"key": "<key-name:1>", **obj},
                   "request-id": "request-id", "requester": "<requester>", "source-ip-address": "<ip-address:1>",
                   **detail}}


BUS_SUSPENDED = [
    bus_event("Object Created", {"size": 13, "etag": "2fb1d4988881168bbcd6432d7593be5a",
                                 "sequencer": "object-sequencer"}, 1, reason="PutObject"),
    bus_event("Object Deleted", {"version-id": "<version-id:3>", "sequencer": "object-sequencer"}, 2,
              reason="DeleteObject", **{"deletion-type": "Permanently Deleted"}),
]


def transformed(records: list[dict[str, Any]], versions: list[str | None]) -> list[dict[str, Any]]:
    """S3 records sorted as the recorded test sorts them, each record's versionId first checked to be `versions`'
    (None: no versionId), then the values LocalStack's s3 transformers replace (versionId, sequencer, the request
    ids) replaced as they replace them."""
    records = sorted(records, key=lambda r: (r["eventName"], r["s3"]["object"].get("eTag", "")))
    assert [r["s3"]["object"].get("versionId") for r in records] == versions
    shaped = []
    for one in records:
        obj = {name: ("version-id" if name == "versionId" else "sequencer" if name == "sequencer" else value)
               for name, value in one["s3"]["object"].items()}
        elements = {"x-amz-request-id": "amz-request-id", "x-amz-id-2": "amz-id"}
        assert sorted(one["responseElements"]) == sorted(elements)
        shaped.append({**one, "responseElements": elements, "s3": {**one["s3"], "object": obj}})
    return shaped


def shaped(answer: dict[str, Any]) -> dict[str, Any]:
    """An answer as LocalStack records it: its ResponseMetadata without headers."""
    return {**answer, "ResponseMetadata": {"HTTPHeaders": {}, "HTTPStatusCode": answer["ResponseMetadata"][
        "HTTPStatusCode"]}}


def destination(door, kind: str) -> Any:
    """The bucket, notifying `kind` of its object events (ObjectCreated:*, ObjectRemoved:*): the S3 records it is
    sent, once `count` are (a callable)."""
    s3, sqs = door.client("s3"), door.client("sqs")
    s3.create_bucket(Bucket=BUCKET)
    inbox, inbox_arn = queue(sqs, "inbox")
    events = ["s3:ObjectCreated:*", "s3:ObjectRemoved:*"]
    if kind == "queue":
        notify(s3, BUCKET, QueueConfigurations=[{"QueueArn": inbox_arn, "Events": events}])
    elif kind == "topic":
        sns = door.client("sns")
        topic = sns.create_topic(Name="objects")["TopicArn"]
        sns.subscribe(TopicArn=topic, Protocol="sqs", Endpoint=inbox_arn, Attributes={"RawMessageDelivery": "true"})
        notify(s3, BUCKET, TopicConfigurations=[{"TopicArn": topic, "Events": events}])
    else:
        function = create_zip_function(door.client("lambda"), "forwarder", "python", FORWARDER,
                                       Environment={"Variables": {"QUEUE_URL": inbox}}, Timeout=30)["FunctionArn"]
        notify(s3, BUCKET, LambdaFunctionConfigurations=[{"LambdaFunctionArn": function, "Events": events}])

    def received(count: int) -> list[dict[str, Any]]:
        records: list[dict[str, Any]] = []
        while len(records) < count:
            messages = wait_for_messages(sqs, inbox, 1)
            assert messages, f"{len(records)} of {count} records in a minute"
            records += [r for message in messages for r in message.get("Records", [])]  # not S3's s3:TestEvent
        assert len(records) == count
        return records

    return received


@pytest.mark.parametrize("kind", ["queue", "topic", "function"])
def test_a_suspended_buckets_put_and_deleted_delete_marker_are_answered_and_told_as_aws_did(door, kind):
    received = destination(door, kind)
    s3 = door.client("s3")
    s3.put_bucket_versioning(Bucket=BUCKET, VersioningConfiguration={"Status": "Enabled"})
    first = s3.put_object(Bucket=BUCKET, Key=KEY, Body=b"data")
    second = s3.put_object(Bucket=BUCKET, Key=KEY, Body=b"data-version2")
    marker = s3.delete_object(Bucket=BUCKET, Key=KEY)
    deleted = s3.delete_object(Bucket=BUCKET, Key=KEY, VersionId=first["VersionId"])
    assert_recorded({"delete-marker": shaped(marker), "delete-version": shaped(deleted)}, {
        "delete-marker": {"DeleteMarker": True, "VersionId": "<version-id:3>", "ResponseMetadata": METADATA_204},
        "delete-version": {"VersionId": "<version-id:1>", "ResponseMetadata": METADATA_204}})
    active = transformed(received(4), [second["VersionId"], first["VersionId"], first["VersionId"],
                                       marker["VersionId"]])
    assert_recorded(active, ACTIVE)

    s3.put_bucket_versioning(Bucket=BUCKET, VersioningConfiguration={"Status": "Suspended"})
    null_version = s3.put_object(Bucket=BUCKET, Key=KEY, Body=b"data-version3")
    marker_deleted = s3.delete_object(Bucket=BUCKET, Key=KEY, VersionId=marker["VersionId"])
    assert_recorded({"add-null-version": shaped(null_version), "del-delete-marker": shaped(marker_deleted)}, {
        "add-null-version": {"ChecksumCRC32": "e4sjzQ==", "ChecksumType": "FULL_OBJECT",
                             "ETag": "\"2fb1d4988881168bbcd6432d7593be5a\"", "ServerSideEncryption": "AES256",
                             "ResponseMetadata": METADATA_200},
        "del-delete-marker": {"DeleteMarker": True, "VersionId": "<version-id:3>", "ResponseMetadata": METADATA_204}})
    assert marker_deleted["VersionId"] == marker["VersionId"]
    assert_recorded(transformed(received(2), [None, marker["VersionId"]]), SUSPENDED)


def test_a_suspended_buckets_events_reach_eventbridge_as_aws_recorded_them(door):
    url = bucket_to_rule(door, BUCKET)
    s3 = door.client("s3")
    s3.put_bucket_versioning(Bucket=BUCKET, VersioningConfiguration={"Status": "Enabled"})
    first = s3.put_object(Bucket=BUCKET, Key=KEY, Body=b"data")["VersionId"]
    s3.put_object(Bucket=BUCKET, Key=KEY, Body=b"data-version2")
    marker = s3.delete_object(Bucket=BUCKET, Key=KEY)["VersionId"]
    s3.delete_object(Bucket=BUCKET, Key=KEY, VersionId=first)
    assert len(delivered(door, url)) == 4  # the Enabled bucket's: test_s3_eventbridge.py compares them
    s3.put_bucket_versioning(Bucket=BUCKET, VersioningConfiguration={"Status": "Suspended"})
    s3.put_object(Bucket=BUCKET, Key=KEY, Body=b"data-version3")
    answer = s3.delete_object(Bucket=BUCKET, Key=KEY, VersionId=marker)
    assert (answer["DeleteMarker"], answer["VersionId"]) == (True, marker)
    events = sorted(delivered(door, url), key=lambda e: (e["detail"].get("deletion-type", ""), e["detail-type"],
                                                         e["detail"]["object"].get("etag", "")))
    assert [e["detail"]["object"].get("version-id") for e in events] == [None, marker]
    for event in events:  # as LocalStack's transformers replace them
        assert event["detail"]["requester"] == "123456789012"
        event["detail"].update({"request-id": "request-id", "requester": "<requester>"})
        event["detail"]["object"]["sequencer"] = "object-sequencer"
    assert_recorded(events, BUS_SUSPENDED)

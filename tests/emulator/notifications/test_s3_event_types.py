"""Which event S3 sends for each write, through both doors: one record per operation, named as on AWS (Amazon S3 User
Guide, "Supported event types for SQS, SNS, and Lambda"; AWS's recorded records in LocalStack's
test_s3_notifications_{sqs,lambda}.snapshot.json): ObjectCreated:CompleteMultipartUpload with the multipart object's
size and eTag ("<md5>-<parts>") and nothing before it, ObjectCreated:Copy, ObjectCreated:Put (its tags no
ObjectTagging event), ObjectTagging:Put and ObjectAcl:Put (eventVersion 2.3, key and eTag only), ObjectCreated:Post
for a browser upload, and a versioned bucket's versionId."""

from __future__ import annotations

import hashlib
import json
import urllib.request
import uuid

import pytest

from tests.emulator.notifications.test_s3_notifications import (FORWARDER, NODE_FORWARDER, key_filter, notify,
                                                                 wait_for_messages)
from tests.emulator.trigger_helpers import create_zip_function, wait_idle
from tests.emulator.triggers.sqs_helpers import queue

PART = 5 * 1024 * 1024  # S3's smallest part but the last


def multipart_upload(s3, bucket: str, key: str, parts: list[bytes]) -> str:
    """The object's ETag as CompleteMultipartUpload answers it."""
    upload = s3.create_multipart_upload(Bucket=bucket, Key=key)["UploadId"]
    etags = [s3.upload_part(Bucket=bucket, Key=key, UploadId=upload, PartNumber=number, Body=body)["ETag"]
             for number, body in enumerate(parts, start=1)]
    return s3.complete_multipart_upload(Bucket=bucket, Key=key, UploadId=upload, MultipartUpload={
        "Parts": [{"PartNumber": number, "ETag": etag} for number, etag in enumerate(etags, start=1)]})["ETag"]


def multipart_etag(parts: list[bytes]) -> str:
    """S3's eTag of a multipart object: the MD5 of its parts' MD5s, then the number of parts."""
    return hashlib.md5(b"".join(hashlib.md5(part).digest() for part in parts)).hexdigest() + f"-{len(parts)}"


def records(messages: list[dict]) -> list[dict]:
    return [record for message in messages for record in message.get("Records", [])]


def left_in(sqs, url: str) -> list[dict]:
    """What a queue still holds once the emulator is idle (every delivery done)."""
    return [json.loads(m["Body"]) for m in sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10).get("Messages", [])]


@pytest.mark.parametrize("runtime", ["python", "node"])
def test_a_multipart_upload_is_one_complete_multipart_upload_record(door, runtime):
    s3, sqs, lam = door.client("s3"), door.client("sqs"), door.client("lambda")
    s3.create_bucket(Bucket="videos")
    direct, direct_arn = queue(sqs, "uploads")  # a queue destination
    inbox, _ = queue(sqs, "inbox")  # what the function destination forwards
    function_arn = create_zip_function(lam, "forwarder", runtime, FORWARDER if runtime == "python" else NODE_FORWARDER,
                                       Environment={"Variables": {"QUEUE_URL": inbox}})["FunctionArn"]
    notify(s3, "videos",
           QueueConfigurations=[{"Id": "to-queue", "QueueArn": direct_arn, "Events": ["s3:ObjectCreated:*"],
                                 "Filter": key_filter(prefix="queued/")}],
           LambdaFunctionConfigurations=[{"Id": "to-function", "LambdaFunctionArn": function_arn,
                                          "Events": ["s3:ObjectCreated:*"], "Filter": key_filter(prefix="direct/")}])
    assert [m["Event"] for m in wait_for_messages(sqs, direct, 1)] == ["s3:TestEvent"]
    parts = [b"a" * PART, b"tail"]
    for key in ("queued/film.mp4", "direct/film.mp4"):
        assert multipart_upload(s3, "videos", key, parts).strip('"') == multipart_etag(parts)
    [to_queue] = records(wait_for_messages(sqs, direct, 1))
    [to_function] = records(wait_for_messages(sqs, inbox, 1))
    assert wait_idle(door)["Idle"]
    assert left_in(sqs, direct) == [] and left_in(sqs, inbox) == []  # nothing more: no ObjectCreated:Put before it
    for record, key, configuration in ((to_queue, "queued/film.mp4", "to-queue"),
                                       (to_function, "direct/film.mp4", "to-function")):
        assert (record["eventName"], record["s3"]["configurationId"]) == ("ObjectCreated:CompleteMultipartUpload",
                                                                          configuration)
        assert record["s3"]["object"] == {"key": key, "size": PART + 4, "eTag": multipart_etag(parts),
                                          "sequencer": record["s3"]["object"]["sequencer"]}


def test_copy_and_put_with_tags_are_one_record_each(door):
    s3, sqs = door.client("s3"), door.client("sqs")
    s3.create_bucket(Bucket="docs")
    url, arn = queue(sqs, "changes")
    notify(s3, "docs", QueueConfigurations=[{"Id": "all", "QueueArn": arn,
                                             "Events": ["s3:ObjectCreated:*", "s3:ObjectTagging:*", "s3:ObjectAcl:Put"]}])
    wait_for_messages(sqs, url, 1)  # s3:TestEvent
    s3.put_object(Bucket="docs", Key="a.txt", Body=b"alpha", Tagging="team=blue")
    s3.copy_object(Bucket="docs", Key="b.txt", CopySource={"Bucket": "docs", "Key": "a.txt"},
                   TaggingDirective="REPLACE", Tagging="team=red")
    s3.put_object_tagging(Bucket="docs", Key="b.txt", Tagging={"TagSet": [{"Key": "team", "Value": "green"}]})
    s3.put_object_acl(Bucket="docs", Key="b.txt", ACL="private")  # as the object has it: S3 sends nothing (AWS's
    s3.put_object_acl(Bucket="docs", Key="b.txt", ACL="public-read")  # recorded test_object_put_acl: 4 puts, 3 events)
    s3.put_object_acl(Bucket="docs", Key="b.txt", ACL="public-read")  # unchanged again: nothing
    got = records(wait_for_messages(sqs, url, 4))
    assert wait_idle(door)["Idle"] and left_in(sqs, url) == []
    assert [(r["eventName"], r["eventVersion"], r["s3"]["object"]["key"]) for r in got] == [
        ("ObjectCreated:Put", "2.1", "a.txt"), ("ObjectCreated:Copy", "2.1", "b.txt"),
        ("ObjectTagging:Put", "2.3", "b.txt"), ("ObjectAcl:Put", "2.3", "b.txt")]
    etag = hashlib.md5(b"alpha").hexdigest()
    assert [(r["s3"]["object"]["size"], r["s3"]["object"]["eTag"]) for r in got[:2]] == [(5, etag)] * 2
    # a property's event: the object's key and eTag only (AWS's recorded ObjectTagging:Put and ObjectAcl:Put)
    assert [r["s3"]["object"] for r in got[2:]] == [{"key": "b.txt", "eTag": etag}] * 2


def test_a_versioned_buckets_put_carries_its_version_id(door):
    s3, sqs = door.client("s3"), door.client("sqs")
    s3.create_bucket(Bucket="ledger")
    s3.put_bucket_versioning(Bucket="ledger", VersioningConfiguration={"Status": "Enabled"})
    url, arn = queue(sqs, "changes")
    notify(s3, "ledger", QueueConfigurations=[{"QueueArn": arn, "Events": ["s3:ObjectCreated:Put"]}])
    wait_for_messages(sqs, url, 1)  # s3:TestEvent
    versions = [s3.put_object(Bucket="ledger", Key="entry.json", Body=body)["VersionId"] for body in (b"1", b"22")]
    got = records(wait_for_messages(sqs, url, 2))
    assert [(r["s3"]["object"]["versionId"], r["s3"]["object"]["size"]) for r in got] == [
        (versions[0], 1), (versions[1], 2)]


def test_a_browser_upload_is_object_created_post(door):
    """POST Object (an HTML form's upload) is HTTP only: boto3 makes the form, a browser (urllib here) sends it, so
    only `eddy serve` can take it."""
    if door.name == "inprocess":
        pytest.skip("a POST form upload reaches Eddy over HTTP only; the in-process door serves boto3's requests")
    s3, sqs = door.client("s3"), door.client("sqs")
    s3.create_bucket(Bucket="forms")
    url, arn = queue(sqs, "changes")
    notify(s3, "forms", QueueConfigurations=[{"QueueArn": arn, "Events": ["s3:ObjectCreated:*"]}])
    wait_for_messages(sqs, url, 1)  # s3:TestEvent
    form = s3.generate_presigned_post(Bucket="forms", Key="upload.txt")
    boundary = uuid.uuid4().hex
    fields = [f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n{value}\r\n'
              for name, value in form["fields"].items()]
    body = ("".join(fields) + f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="upload.txt"\r\n'
            f"Content-Type: text/plain\r\n\r\nposted\r\n--{boundary}--\r\n").encode()
    request = urllib.request.Request(form["url"], data=body, method="POST",
                                     headers={"Content-Type": f"multipart/form-data; boundary={boundary}"})
    with urllib.request.urlopen(request, timeout=30) as answer:
        assert answer.status == 204
    [record] = records(wait_for_messages(sqs, url, 1))
    assert (record["eventName"], record["s3"]["object"]["key"], record["s3"]["object"]["size"]) == (
        "ObjectCreated:Post", "upload.txt", 6)

"""A bucket whose versioning is Suspended keeps its versions as S3 keeps them (moto_seam/s3/versioning.py), and a null
version is answered `VersionId: null` once the bucket's versioning was ever set; moto's own behaviour pinned (it drops
every version at a Suspended bucket's put).

AWS's answers: LocalStack's AWS-validated tests/aws/services/s3/test_s3.snapshot.json at
8b9a79f05846835cf4dff63ab7eefdde9df83783, TestS3::test_s3_put_object_versioned (its requests repeated, its PutObject
and GetObject answers compared whole; its ListObjectVersions answers on the members versioning decides: moto's listing
lacks EncodingType and each version's ChecksumAlgorithm/ChecksumType, and adds the Owner's DisplayName, as
aws-differences.md says). A Suspended bucket's DeleteObject without a VersionId is as the Amazon S3 User Guide describes
it ("Deleting objects from versioning-suspended buckets": the null version removed, a delete marker with version ID
null put in its place); no recording shows it.
"""

from __future__ import annotations

import hashlib

import boto3
import pytest
from botocore.exceptions import ClientError
from moto import mock_aws
from moto.s3.models import FakeBucket, S3Backend

from eddy import emulate
from eddy.emulator.moto_seam.s3 import versioning
from tests.conftest import QUIET
from tests.emulator.moto_seam.test_s3_objects import recorded_shape
from tests.emulator.recorded_snapshots import assert_recorded

PRE, VERSIONED, POST = "non-version-bucket-key", "versioned-bucket-key", "non-version-bucket-key-after-disable"
METADATA = {"HTTPHeaders": {}, "HTTPStatusCode": 200}


def put(checksum: str, etag: str, version: str | None = None) -> dict:
    """A PutObject answer of the recording."""
    answer = {"ChecksumCRC32": checksum, "ChecksumType": "FULL_OBJECT", "ETag": f"\"{etag}\"",
              "ServerSideEncryption": "AES256", "ResponseMetadata": METADATA}
    return {**answer, "VersionId": version} if version else answer


def got(body: str, checksum: str, etag: str, version: str | None = None) -> dict:
    """A GetObject answer of the recording."""
    answer = {"AcceptRanges": "bytes", "Body": body, "ChecksumCRC32": checksum, "ChecksumType": "FULL_OBJECT",
              "ContentLength": len(body), "ContentType": "binary/octet-stream", "ETag": f"\"{etag}\"",
              "LastModified": "datetime", "Metadata": {}, "ServerSideEncryption": "AES256", "ResponseMetadata": METADATA}
    return {**answer, "VersionId": version} if version else answer


PRE_ETAG, V1_ETAG, V2_ETAG, POST_ETAG = ("e1474add07e050008472599be0883b17", "c43b615a50200509ceccc5f4122da4bf",
                                         "a26fe9d9854f719b8865291904326b58", "6c0a0d0895ef9829b63848d506a68536")
#: test_s3_put_object_versioned's answers, as recorded (the null version's id "null": its own asserts say so)
RECORDED = {
    "put-pre-versioned": put("uQZ0CQ==", PRE_ETAG),
    "get-pre-versioned": got("non-versioned-key", "uQZ0CQ==", PRE_ETAG),
    "get-post-versioned": got("non-versioned-key", "uQZ0CQ==", PRE_ETAG, "null"),
    "put-obj-versioned-1": put("LyTTBg==", V1_ETAG, "<version-id:2>"),
    "put-obj-versioned-2": put("304OzQ==", V2_ETAG, "<version-id:3>"),
    "get-obj-versioned": got("versioned-key-updated", "304OzQ==", V2_ETAG, "<version-id:3>"),
    "get-obj-versioned-disabled": got("versioned-key-updated", "304OzQ==", V2_ETAG, "<version-id:3>"),
    "get-obj-non-versioned-disabled": got("non-versioned-key", "uQZ0CQ==", PRE_ETAG, "null"),
    "put-non-versioned-post-disable": put("XHqTwA==", POST_ETAG),
    "get-non-versioned-post-disable": got("non-versioned-key-post", "XHqTwA==", POST_ETAG, "null"),
}
#: its list-object-versioned and list-bucket-suspended: each version's (Key, VersionId, IsLatest, Size, ETag)
LISTED = [(PRE, "null", True, 17, f"\"{PRE_ETAG}\""), (VERSIONED, "<version-id:3>", True, 21, f"\"{V2_ETAG}\""),
          (VERSIONED, "<version-id:2>", False, 13, f"\"{V1_ETAG}\"")]


def listed(s3, bucket: str) -> list[tuple]:
    return [(v["Key"], v["VersionId"], v["IsLatest"], v["Size"], v["ETag"])
            for v in s3.list_object_versions(Bucket=bucket)["Versions"]]


def test_a_bucket_versioned_then_suspended_answers_as_aws_did(door):
    """test_s3_put_object_versioned, request for request."""
    s3, bucket, answers = door.client("s3"), "versioned-then-suspended", {}
    s3.create_bucket(Bucket=bucket)
    answers["put-pre-versioned"] = s3.put_object(Bucket=bucket, Key=PRE, Body="non-versioned-key")
    answers["get-pre-versioned"] = s3.get_object(Bucket=bucket, Key=PRE)
    assert listed(s3, bucket) == [LISTED[0]]
    s3.put_bucket_versioning(Bucket=bucket, VersioningConfiguration={"Status": "Enabled"})
    answers["get-post-versioned"] = s3.get_object(Bucket=bucket, Key=PRE)
    answers["put-obj-versioned-1"] = s3.put_object(Bucket=bucket, Key=VERSIONED, Body="versioned-key")
    answers["put-obj-versioned-2"] = s3.put_object(Bucket=bucket, Key=VERSIONED, Body="versioned-key-updated")
    answers["get-obj-versioned"] = s3.get_object(Bucket=bucket, Key=VERSIONED)
    versions = [answers["put-obj-versioned-2"]["VersionId"], answers["put-obj-versioned-1"]["VersionId"]]
    expected = [LISTED[0], LISTED[1][:1] + (versions[0],) + LISTED[1][2:], LISTED[2][:1] + (versions[1],) + LISTED[2][2:]]
    assert listed(s3, bucket) == expected
    s3.put_bucket_versioning(Bucket=bucket, VersioningConfiguration={"Status": "Suspended"})
    assert listed(s3, bucket) == expected
    answers["get-obj-versioned-disabled"] = s3.get_object(Bucket=bucket, Key=VERSIONED)
    answers["get-obj-non-versioned-disabled"] = s3.get_object(Bucket=bucket, Key=PRE)
    answers["put-non-versioned-post-disable"] = s3.put_object(Bucket=bucket, Key=POST, Body="non-versioned-key-post")
    answers["get-non-versioned-post-disable"] = s3.get_object(Bucket=bucket, Key=POST)
    assert_recorded({name: recorded_shape(answer) for name, answer in answers.items()}, RECORDED)


def test_a_suspended_buckets_null_version_is_replaced_and_its_other_versions_kept(door):
    """A put and a delete without a VersionId replace the null version only (a null delete marker for the delete);
    a version is read, headed and deleted by its id, as in a bucket with versioning Enabled."""
    s3, bucket = door.client("s3"), "suspended-versions"
    s3.create_bucket(Bucket=bucket)
    s3.put_bucket_versioning(Bucket=bucket, VersioningConfiguration={"Status": "Enabled"})
    kept = s3.put_object(Bucket=bucket, Key="k", Body=b"kept")["VersionId"]
    s3.put_bucket_versioning(Bucket=bucket, VersioningConfiguration={"Status": "Suspended"})
    s3.put_object(Bucket=bucket, Key="k", Body=b"null one")
    s3.put_object(Bucket=bucket, Key="k", Body=b"null two")  # replaces the null version
    assert listed(s3, bucket) == [("k", "null", True, 8, s3.head_object(Bucket=bucket, Key="k")["ETag"]),
                                  ("k", kept, False, 4, f"\"{hashlib.md5(b'kept').hexdigest()}\"")]
    headed = s3.head_object(Bucket=bucket, Key="k", VersionId=kept)  # moto refused it (400) in a Suspended bucket
    assert (headed["VersionId"], headed["ContentLength"]) == (kept, 4)
    assert s3.get_object(Bucket=bucket, Key="k", VersionId=kept)["Body"].read() == b"kept"

    marker = s3.delete_object(Bucket=bucket, Key="k")
    assert (marker["DeleteMarker"], marker["VersionId"]) == (True, "null")
    listing = s3.list_object_versions(Bucket=bucket)
    assert [(m["Key"], m["VersionId"], m["IsLatest"]) for m in listing["DeleteMarkers"]] == [("k", "null", True)]
    assert [(v["Key"], v["VersionId"], v["IsLatest"]) for v in listing["Versions"]] == [("k", kept, False)]
    with pytest.raises(ClientError) as gone:
        s3.get_object(Bucket=bucket, Key="k")
    assert gone.value.response["Error"]["Code"] == "NoSuchKey"

    removed = s3.delete_object(Bucket=bucket, Key="k", VersionId="null")  # the marker, by its id
    assert (removed["DeleteMarker"], removed["VersionId"]) == (True, "null")
    assert s3.get_object(Bucket=bucket, Key="k")["Body"].read() == b"kept"


def test_moto_drops_a_suspended_buckets_versions_and_the_patches_are_on_while_an_emulator_is_open_only():
    def versions_after_a_suspended_put() -> list[str]:
        s3 = boto3.client("s3", region_name="us-east-1")
        s3.create_bucket(Bucket="pinned")
        s3.put_bucket_versioning(Bucket="pinned", VersioningConfiguration={"Status": "Enabled"})
        s3.put_object(Bucket="pinned", Key="k", Body=b"one")
        s3.put_bucket_versioning(Bucket="pinned", VersioningConfiguration={"Status": "Suspended"})
        s3.put_object(Bucket="pinned", Key="k", Body=b"two")
        return [v["VersionId"] == "null" for v in s3.list_object_versions(Bucket="pinned")["Versions"]]

    with mock_aws():
        assert versions_after_a_suspended_put() == [True]  # moto: the Enabled version gone
    with emulate(**QUIET):
        assert versions_after_a_suspended_put() == [True, False]
    assert (FakeBucket.__dict__["is_versioned"], S3Backend.put_object, S3Backend.delete_object) == (
        versioning.original_is_versioned, versioning.original_put_object, versioning.original_delete_object)

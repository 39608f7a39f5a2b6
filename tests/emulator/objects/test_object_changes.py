"""S3 object change capture, in both doors: one change per object per operation, durable in the state directory."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

import boto3
import pytest

from eddy import emulate
from tests.conftest import eddy_server


@contextlib.contextmanager
def s3_client(door: str, state_dir: Path):
    if door == "inprocess":
        with emulate(state_dir=state_dir, housekeeping_interval=None):
            yield boto3.client("s3", region_name="us-east-1")
    else:
        with eddy_server("--housekeeping-interval", "0", "--state-dir", str(state_dir)) as (url, _):
            yield boto3.client("s3", region_name="us-east-1", endpoint_url=url)


def lines(state_dir: Path) -> list[dict]:
    [log] = list((state_dir / "objects").rglob("changes.jsonl"))
    assert log.parent.name == "photos"
    return [json.loads(line) for line in log.read_text().splitlines()]


@pytest.mark.parametrize("door", ["inprocess", "server"])
def test_every_object_change_is_captured_once(tmp_path: Path, door: str) -> None:
    state_dir = tmp_path / "state"
    with s3_client(door, state_dir) as s3:
        s3.create_bucket(Bucket="photos")
        s3.put_object(Bucket="photos", Key="cats/1.jpg", Body=b"one")
        s3.put_object(Bucket="photos", Key="cats/1.jpg", Body=b"one again")      # replaced
        s3.copy_object(Bucket="photos", Key="cats/2.jpg", CopySource={"Bucket": "photos", "Key": "cats/1.jpg"})
        upload = s3.create_multipart_upload(Bucket="photos", Key="big.bin")["UploadId"]
        part = s3.upload_part(Bucket="photos", Key="big.bin", UploadId=upload, PartNumber=1, Body=b"x" * 10)
        s3.complete_multipart_upload(Bucket="photos", Key="big.bin", UploadId=upload, MultipartUpload={
            "Parts": [{"PartNumber": 1, "ETag": part["ETag"]}]})
        etag = s3.head_object(Bucket="photos", Key="big.bin")["ETag"].strip('"')
        s3.delete_object(Bucket="photos", Key="cats/1.jpg")
        s3.delete_object(Bucket="photos", Key="never-there")                    # no change
        s3.delete_objects(Bucket="photos", Delete={"Objects": [{"Key": "cats/2.jpg"}, {"Key": "big.bin"}]})
        captured = lines(state_dir)
    assert [(line["commit_version"], line["event_name"], line["keys"]["key"]["S"],
             (line["new_image"] or line["old_image"])["size"]["N"]) for line in captured] == [
        (1, "INSERT", "cats/1.jpg", "3"), (2, "MODIFY", "cats/1.jpg", "9"), (3, "INSERT", "cats/2.jpg", "9"),
        (4, "INSERT", "big.bin", "10"), (5, "REMOVE", "cats/1.jpg", "9"), (6, "REMOVE", "cats/2.jpg", "9"),
        (7, "REMOVE", "big.bin", "10")]
    assert captured[3]["new_image"]["etag"] == {"S": etag}
    assert captured[1]["old_image"]["size"] == {"N": "3"} and captured[1]["new_image"]["last_modified_time"]["S"]


def test_versions_go_on_after_a_restart_and_reset_forgets(tmp_path: Path) -> None:
    state_dir = tmp_path / "state"
    for body in (b"first", b"second run"):
        with emulate(state_dir=state_dir, housekeeping_interval=None) as emu:
            s3 = boto3.client("s3", region_name="us-east-1")
            s3.create_bucket(Bucket="photos")
            s3.put_object(Bucket="photos", Key=body.decode(), Body=body)
    assert [(line["commit_version"], line["keys"]["key"]["S"]) for line in lines(state_dir)] == [
        (1, "first"), (2, "second run")]
    with emulate(state_dir=state_dir, housekeeping_interval=None) as emu:
        emu.reset()
        assert not (state_dir / "objects").exists()


@pytest.mark.parametrize("door", ["inprocess", "server"])
def test_a_delete_in_a_versioned_bucket_is_a_remove(tmp_path: Path, door: str) -> None:
    """The delete leaves a delete marker as the key's latest version: the object is gone (a REMOVE), where the
    capture used to fail on the marker (it has no size) and the delete answered 500."""
    state_dir = tmp_path / "state"
    with s3_client(door, state_dir) as s3:
        s3.create_bucket(Bucket="photos")
        s3.put_bucket_versioning(Bucket="photos", VersioningConfiguration={"Status": "Enabled"})
        s3.put_object(Bucket="photos", Key="cat.jpg", Body=b"meow")
        s3.delete_object(Bucket="photos", Key="cat.jpg")
        s3.delete_object(Bucket="photos", Key="cat.jpg")  # a second marker over the first: no change
        captured = lines(state_dir)
    assert [(line["event_name"], line["keys"]["key"]["S"]) for line in captured] == [
        ("INSERT", "cat.jpg"), ("REMOVE", "cat.jpg")]
    assert captured[1]["old_image"]["size"] == {"N": "4"} and captured[1]["new_image"] is None

"""moto_seam/notifications/ pinned against moto's own S3: the events moto sends inside an operation that S3 does
not (QUIETED), still sent by moto (so the seam is still needed), and dropped while an emulator is open; AWS's
answer for destinations S3 cannot validate, with ArgumentName1/ArgumentValue1 (moto's model has neither)."""

from __future__ import annotations

import inspect
import json

import boto3
import pytest
from botocore.exceptions import ClientError
from moto import mock_aws
from moto.s3.models import S3Backend

from eddy import emulate
from eddy.emulator.moto_seam.notifications import configurations, object_events
from tests.conftest import QUIET

REGION = "us-east-1"
EVERY_EVENT = ["s3:ObjectCreated:*", "s3:ObjectTagging:*"]


def _bucket_to_queue(s3, sqs) -> str:
    url = sqs.create_queue(QueueName="events")["QueueUrl"]
    arn = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    s3.create_bucket(Bucket="uploads")
    s3.put_bucket_notification_configuration(Bucket="uploads", NotificationConfiguration={
        "QueueConfigurations": [{"Id": "all", "QueueArn": arn, "Events": EVERY_EVENT}]})
    return url


def _operations(s3) -> None:
    """A multipart upload, a PutObject and a CopyObject: one event each on S3."""
    upload = s3.create_multipart_upload(Bucket="uploads", Key="big.bin")["UploadId"]
    part = s3.upload_part(Bucket="uploads", Key="big.bin", UploadId=upload, PartNumber=1, Body=b"x" * 10)
    s3.complete_multipart_upload(Bucket="uploads", Key="big.bin", UploadId=upload,
                                 MultipartUpload={"Parts": [{"PartNumber": 1, "ETag": part["ETag"]}]})
    s3.put_object(Bucket="uploads", Key="small.txt", Body=b"small")
    s3.copy_object(Bucket="uploads", Key="copy.txt", CopySource={"Bucket": "uploads", "Key": "small.txt"})


def _event_names(sqs, url: str) -> list[str]:
    names = []
    while messages := sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10).get("Messages", []):
        for message in messages:
            body = json.loads(message["Body"])
            names += [record["eventName"] for record in body.get("Records", [])]
            sqs.delete_message(QueueUrl=url, ReceiptHandle=message["ReceiptHandle"])
    return names


def test_the_moto_pieces_the_seam_relies_on_are_there():
    assert list(inspect.signature(S3Backend.complete_multipart_upload).parameters) == [
        "self", "bucket_name", "multipart_id", "body"]
    assert set(object_events.QUIETED) == {"complete_multipart_upload", "put_object", "copy_object"}
    assert list(inspect.signature(configurations.moto_serialize.S3Serializer._serialize_error_metadata).parameters) == [
        "self", "serialized", "error", "shape"]
    assert "assert filter_rule[\"Name\"] in [\"suffix\", \"prefix\"]" in inspect.getsource(
        inspect.unwrap(configurations.S3Response._notification_config_from_body))


def test_moto_sends_events_s3_does_not_and_eddy_drops_them():
    with emulate(**QUIET):
        pass  # the seam is installed; with no emulator open, moto's own events go out
    with mock_aws():
        s3, sqs = boto3.client("s3", region_name=REGION), boto3.client("sqs", region_name=REGION)
        url = _bucket_to_queue(s3, sqs)
        _operations(s3)
        assert _event_names(sqs, url) == [  # moto's: a Put and a tagging event inside each operation
            "ObjectCreated:Put", "ObjectTagging:Put", "ObjectCreated:CompleteMultipartUpload",
            "ObjectCreated:Put", "ObjectTagging:Put", "ObjectCreated:Copy"]
    with emulate(**QUIET):
        s3, sqs = boto3.client("s3", region_name=REGION), boto3.client("sqs", region_name=REGION)
        url = _bucket_to_queue(s3, sqs)
        _operations(s3)
        assert _event_names(sqs, url) == [
            "ObjectCreated:CompleteMultipartUpload", "ObjectCreated:Put", "ObjectCreated:Copy"]


def test_destinations_s3_cannot_validate_are_named_one_by_one():
    with mock_aws():  # moto alone accepts them
        s3 = boto3.client("s3", region_name=REGION)
        s3.create_bucket(Bucket="uploads")
        s3.put_bucket_notification_configuration(Bucket="uploads", NotificationConfiguration={
            "QueueConfigurations": [{"QueueArn": f"arn:aws:sqs:{REGION}:123456789012:nowhere",
                                     "Events": ["s3:ObjectCreated:*"]}]})
    with emulate(**QUIET):
        s3 = boto3.client("s3", region_name=REGION)
        s3.create_bucket(Bucket="uploads")
        queue = f"arn:aws:sqs:{REGION}:123456789012:nowhere"
        function = f"arn:aws:lambda:{REGION}:123456789012:function:nobody"
        with pytest.raises(ClientError) as refused:
            s3.put_bucket_notification_configuration(Bucket="uploads", NotificationConfiguration={
                "QueueConfigurations": [{"QueueArn": queue, "Events": ["s3:ObjectCreated:*"]}],
                "LambdaFunctionConfigurations": [{"LambdaFunctionArn": function, "Events": ["s3:ObjectRemoved:*"]}]})
        error = refused.value.response["Error"]
        assert {k: v for k, v in error.items() if k not in ("RequestId", "HostId")} == {
            "Code": "InvalidArgument", "Message": "Unable to validate the following destination configurations",
            "ArgumentName1": queue, "ArgumentValue1": "The destination queue does not exist",
            "ArgumentName2": f"{function}, null", "ArgumentValue2": f"Not authorized to invoke function [{function}]"}


def test_filter_rule_names_in_either_case():
    def configure(s3, name: str) -> None:
        s3.put_bucket_notification_configuration(Bucket="uploads", NotificationConfiguration={"QueueConfigurations": [
            {"QueueArn": f"arn:aws:sqs:{REGION}:123456789012:events", "Events": ["s3:ObjectCreated:*"],
             "Filter": {"Key": {"FilterRules": [{"Name": name, "Value": ".jpg"}]}}}]})

    with mock_aws():  # moto alone: only "suffix" and "prefix", anything else fails its parser's assert
        s3, sqs = boto3.client("s3", region_name=REGION), boto3.client("sqs", region_name=REGION)
        sqs.create_queue(QueueName="events")
        s3.create_bucket(Bucket="uploads")
        with pytest.raises(AssertionError):
            configure(s3, "Suffix")
    with emulate(**QUIET):
        s3, sqs = boto3.client("s3", region_name=REGION), boto3.client("sqs", region_name=REGION)
        sqs.create_queue(QueueName="events")
        s3.create_bucket(Bucket="uploads")
        configure(s3, "Suffix")
        with pytest.raises(ClientError) as refused:
            configure(s3, "Infix")
        assert {k: v for k, v in refused.value.response["Error"].items() if k not in ("RequestId", "HostId")} == {
            "Code": "InvalidArgument", "Message": "filter rule name must be either prefix or suffix",
            "ArgumentName": "FilterRule.Name", "ArgumentValue": "Infix"}

"""moto_seam/s3/bucket_policies.py: a bucket policy applies as over HTTPS (Eddy's endpoint stands for AWS's). moto evaluates no
conditions, so the usual "Deny s3:* unless aws:SecureTransport" statement (sam --resolve-s3's managed bucket and
cdk bootstrap's carry it: samcli/lib/bootstrap/bootstrap.py) denied every request; pinned against moto's original,
which still does."""

import json

import pytest
from botocore.exceptions import ClientError
from moto import mock_aws
from moto.iam.access_control import PermissionResult
from moto.s3.models import FakeBucket

from eddy.emulator.moto_seam.s3 import bucket_policies as s3_seam


def _policy(condition):
    deny = {"Effect": "Deny", "Principal": "*", "Action": "s3:*",
            "Resource": ["arn:aws:s3:::artifacts", "arn:aws:s3:::artifacts/*"]}
    if condition is not None:
        deny["Condition"] = {"Bool": {"aws:SecureTransport": condition}}
    return {"Version": "2012-10-17", "Statement": [deny]}


def test_a_deny_unless_tls_statement_denies_nothing_and_an_unconditional_deny_still_denies(door):
    s3 = door.client("s3")
    s3.create_bucket(Bucket="artifacts")
    s3.put_bucket_policy(Bucket="artifacts", Policy=json.dumps(_policy("false")))
    s3.put_object(Bucket="artifacts", Key="code.zip", Body=b"zip")
    assert s3.get_object(Bucket="artifacts", Key="code.zip")["Body"].read() == b"zip"
    s3.put_bucket_policy(Bucket="artifacts", Policy=json.dumps(_policy(None)))
    with pytest.raises(ClientError) as raised:
        s3.put_object(Bucket="artifacts", Key="other.zip", Body=b"zip")
    assert raised.value.response["ResponseMetadata"]["HTTPStatusCode"] == 403


def test_over_https_keeps_true_conditions_unconditionally_and_drops_false_ones():
    assert s3_seam.over_https(_policy("false"))["Statement"] == []
    kept = s3_seam.over_https(_policy("true"))["Statement"]
    assert kept == [{key: value for key, value in _policy("true")["Statement"][0].items() if key != "Condition"}]
    other = {"Version": "2012-10-17", "Statement": [{"Effect": "Deny", "Principal": "*", "Action": "s3:*",
                                                     "Resource": "*", "Condition": {"IpAddress": {"aws:SourceIp": "1"}}}]}
    assert s3_seam.over_https(other) == other


def test_moto_still_denies_on_a_condition_it_does_not_evaluate():
    with mock_aws():
        bucket = FakeBucket("artifacts", "123456789012", "us-east-1")
        bucket.policy = json.dumps(_policy("false")).encode()
        assert s3_seam.original_get_permission(bucket, "s3:PutObject", "arn:aws:s3:::artifacts/x") == \
            PermissionResult.DENIED

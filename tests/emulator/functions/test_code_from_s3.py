"""A function's code from S3 (CreateFunction's Code.S3Bucket and S3Key), in both doors: the object's zip runs, and a
missing object or bucket is refused as Lambda refuses it, the function not made.

Source: Lambda's answer recorded in a CloudFormation stack's events against AWS ("Error occurred while GetObject. S3
Error Code: NoSuchKey. S3 Error Message: The specified key does not exist.", InvalidParameterValueException, 400)."""

from __future__ import annotations

import json

import pytest
from botocore.exceptions import ClientError

from tests.emulator.functions.test_functions import ROLE, zip_of
from tests.lambda_functions import created_function

HANDLER = "def handler(event, context):\n    return {'got': event}\n"


def refused(call, **params) -> tuple[dict, int]:
    with pytest.raises(ClientError) as error:
        call(**params)
    return error.value.response["Error"], error.value.response["ResponseMetadata"]["HTTPStatusCode"]


def create(lam, bucket: str, key: str) -> dict:
    return created_function(lam, FunctionName="from-s3", Runtime="python3.12", Role=ROLE, Handler="app.handler",
                               Code={"S3Bucket": bucket, "S3Key": key})


def test_code_from_s3_runs_and_a_missing_object_or_bucket_is_refused(door):
    lam, s3 = door.client("lambda"), door.client("s3")
    s3.create_bucket(Bucket="code")
    assert refused(create, lam=lam, bucket="code", key="missing.zip") == ({
        "Code": "InvalidParameterValueException",
        "Message": "Error occurred while GetObject. S3 Error Code: NoSuchKey. S3 Error Message: The specified key "
                   "does not exist."}, 400)
    assert refused(create, lam=lam, bucket="no-such-bucket", key="app.zip") == ({
        "Code": "InvalidParameterValueException",
        "Message": "Error occurred while GetObject. S3 Error Code: NoSuchBucket. S3 Error Message: The specified "
                   "bucket does not exist"}, 400)
    assert lam.list_functions()["Functions"] == []  # refused: nothing made
    s3.put_object(Bucket="code", Key="app.zip", Body=zip_of({"app.py": HANDLER}))
    create(lam, "code", "app.zip")
    lam.get_waiter("function_active_v2").wait(FunctionName="from-s3")
    answer = lam.invoke(FunctionName="from-s3", Payload=json.dumps({"n": 1}))
    assert json.loads(answer["Payload"].read()) == {"got": {"n": 1}}

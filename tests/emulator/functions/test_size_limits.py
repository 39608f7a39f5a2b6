"""A function's size limits refused in Lambda's words, whole answers, in both doors: environment variables over 4 KB
(their compact JSON), a zip over 50 MB, a CreateFunction request over 70167211 bytes, code over 250 MB unzipped. The
expected answers are AWS's recorded ones, from LocalStack's AWS-validated snapshot
github.com/localstack/localstack@8b9a79f05846835cf4dff63ab7eefdde9df83783
tests/aws/services/lambda_/test_lambda_api.snapshot.json, TestLambdaSizeLimits (recorded 25-11-2025):
test_large_environment_variables_fails, test_large_environment_fails_multiple_keys,
test_lambda_envvars_near_limit_succeeds, test_oversized_zipped_create_lambda, test_oversized_request_create_lambda,
test_oversized_unzipped_lambda. The packages are made as the recording made them: stored, not compressed, except the
250 MB one (its size is what the zip says once unzipped)."""

from __future__ import annotations

import io
import zipfile

import pytest

from tests.emulator.api.lambda_.test_error_documents import refused
from tests.emulator.functions.test_functions import ROLE
from tests.lambda_functions import created_function

ECHO = "def handler(event, context):\n    return event\n"


def package(size: int, compression: int = zipfile.ZIP_STORED) -> bytes:
    """A zip of handler.py padded with '#' to `size` characters, written a megabyte at a time; deflated at level 1
    when compressed (what Lambda measures is the size the zip says its file has, whatever the level: 1.7 -> 0.5 s of
    CPU for the 250 MB one)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression, compresslevel=1) as archive, \
            archive.open("handler.py", "w", force_zip64=True) as handler:  # the ZipFile's compression and level
        handler.write(ECHO.encode())
        left = size - len(ECHO)
        while left > 0:
            chunk = min(left, 1 << 20)
            handler.write(b"#" * chunk)
            left -= chunk
    return buffer.getvalue()


def create(lam, name: str, code: dict, **options):
    return created_function(lam, FunctionName=name, Runtime="python3.12", Role=ROLE, Handler="handler.handler",
                               Code=code, **options)


def environment_refusal(measured: str) -> dict:
    message = ("Lambda was unable to configure your environment variables because the environment variables you have "
               f"provided exceeded the 4KB limit. String measured: {measured}")
    return {"Error": {"Code": "InvalidParameterValueException", "Message": message}, "Type": "User",
            "message": message, "Status": 400}


def test_environment_variables_over_4_kb(door):
    lam = door.client("lambda")
    code = {"ZipFile": package(len(ECHO))}
    over = {"LARGE_VAR": "x" * (4096 - 6 - len("LARGE_VAR"))}  # 4097 bytes as {"LARGE_VAR":"xx..."}
    assert refused(create, lam=lam, name="large", code=code, Environment={"Variables": over}) == environment_refusal(
        '{"LARGE_VAR":"' + over["LARGE_VAR"] + '"}')
    several = {"SMALL_VAR": "ok", "LARGE_VAR": "x" * 4064}
    assert refused(create, lam=lam, name="large", code=code, Environment={"Variables": several}) == \
        environment_refusal('{"SMALL_VAR":"ok","LARGE_VAR":"' + several["LARGE_VAR"] + '"}')
    assert refused(lam.get_function, FunctionName="large")["Error"]["Code"] == "ResourceNotFoundException"
    at_limit = {"LARGE_VAR": "x" * (4096 - 7 - len("LARGE_VAR"))}
    assert create(lam, "large", code, Environment={"Variables": at_limit})["Environment"] == {"Variables": at_limit}
    assert refused(lam.update_function_configuration, FunctionName="large", Environment={"Variables": over}) == \
        environment_refusal('{"LARGE_VAR":"' + over["LARGE_VAR"] + '"}')


@pytest.mark.slow  # a 50 MB zip and a 71 MB request through boto3: 10 to 25 s a door
def test_a_package_over_50_mb_zipped_or_250_mb_unzipped(door):
    lam, s3 = door.client("lambda"), door.client("s3")
    assert refused(create, lam=lam, name="zipped", code={"ZipFile": package(52_428_800)}) == {
        "Error": {"Code": "RequestEntityTooLargeException", "Message": "Zipped size must be smaller than 52428800 bytes"},
        "Status": 413}
    request = "Request must be smaller than 70167211 bytes for the CreateFunction operation"
    assert refused(create, lam=lam, name="request", code={"ZipFile": package(len(ECHO))},
                   Environment={"Variables": {"largeKey": "#" * 71_000_000}}) == {
        "Error": {"Code": "RequestEntityTooLargeException", "Message": request}, "Status": 413}
    s3.create_bucket(Bucket="code")
    s3.put_object(Bucket="code", Key="test_lambda.zip", Body=package(262_144_000, zipfile.ZIP_DEFLATED))
    message = "Unzipped size must be smaller than 262144000 bytes"
    assert refused(create, lam=lam, name="unzipped", code={"S3Bucket": "code", "S3Key": "test_lambda.zip"}) == {
        "Error": {"Code": "InvalidParameterValueException", "Message": message}, "Type": "User", "message": message,
        "Status": 400}
    assert lam.list_functions()["Functions"] == []

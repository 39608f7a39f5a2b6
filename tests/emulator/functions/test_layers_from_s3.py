"""PublishLayerVersion with its Content in S3, and functions using that layer, in both doors.

Source: LocalStack's AWS-validated tests/aws/services/lambda_/test_lambda_api.py and test_lambda_api.snapshot.json:
TestLambdaLayer::test_layer_s3_content (recorded 25-11-2025: 201, Content {CodeSha256, CodeSize, Location},
CreatedDate, Description "", LayerArn, LayerVersionArn, Version, and no LicenseInfo or compatible lists where none
were given), the publish_result answers of TestLambdaLayer (CompatibleRuntimes and CompatibleArchitectures where
given), and TestLambdaFunction's code-from-S3 refusals ("Error occurred while GetObject. S3 Error Code: NoSuchKey.
S3 Error Message: The specified key does not exist.", and NoSuchBucket's). The API reference's S3ObjectVersion:
"For versioned objects, the version of the layer archive object to use".
"""

from __future__ import annotations

import base64
import hashlib
import json
import urllib.error
import urllib.request

import pytest
from botocore.exceptions import ClientError

from tests.emulator.functions.test_functions import create_function, zip_of

HANDLER = '''
import helper
def handler(event, context):
    return helper.TEXT
'''


def layer_zip(text: str) -> bytes:
    return zip_of({"python/helper.py": f"TEXT = {text!r}\n"})


def invoke(lam, name: str) -> object:
    response = lam.invoke(FunctionName=name, Payload=b"{}")
    assert "FunctionError" not in response, response["Payload"].read()
    return json.loads(response["Payload"].read())


def test_a_layer_published_from_s3_answers_as_aws_and_its_functions_import_it(door):
    s3, lam = door.client("s3"), door.client("lambda")
    s3.create_bucket(Bucket="layers")
    body = layer_zip("from s3")
    s3.put_object(Bucket="layers", Key="/layercontent.zip", Body=body)
    published = lam.publish_layer_version(LayerName="helper", Content={"S3Bucket": "layers", "S3Key": "/layercontent.zip"})
    status = published.pop("ResponseMetadata")["HTTPStatusCode"]
    arn = "arn:aws:lambda:us-east-1:123456789012:layer:helper"
    assert (status, published) == (201, {
        "Content": {"Location": published["Content"]["Location"],
                    "CodeSha256": base64.b64encode(hashlib.sha256(body).digest()).decode(), "CodeSize": len(body)},
        "LayerArn": arn, "LayerVersionArn": f"{arn}:1", "Description": "", "CreatedDate": published["CreatedDate"],
        "Version": 1})
    got = lam.get_layer_version(LayerName="helper", VersionNumber=1)
    got.pop("ResponseMetadata")
    assert got == published

    created = create_function(lam, "greeter", HANDLER, Layers=[f"{arn}:1"])
    assert created["Layers"] == [{"Arn": f"{arn}:1", "CodeSize": len(body)}]
    assert invoke(lam, "greeter") == "from s3"


def test_the_given_object_version_is_published_and_the_optional_members_answered_where_given(door):
    s3, lam = door.client("s3"), door.client("lambda")
    s3.create_bucket(Bucket="layers")
    s3.put_bucket_versioning(Bucket="layers", VersioningConfiguration={"Status": "Enabled"})
    first = s3.put_object(Bucket="layers", Key="helper.zip", Body=layer_zip("first"))["VersionId"]
    s3.put_object(Bucket="layers", Key="helper.zip", Body=layer_zip("second"))
    published = lam.publish_layer_version(
        LayerName="helper", Description="helpers", LicenseInfo="MIT", CompatibleRuntimes=[],
        CompatibleArchitectures=["x86_64"], Content={"S3Bucket": "layers", "S3Key": "helper.zip", "S3ObjectVersion": first})
    assert {name: published[name] for name in (
        "Description", "LicenseInfo", "CompatibleRuntimes", "CompatibleArchitectures")} == {
        "Description": "helpers", "LicenseInfo": "MIT", "CompatibleRuntimes": [], "CompatibleArchitectures": ["x86_64"]}
    assert published["Content"]["CodeSize"] == len(layer_zip("first"))
    create_function(lam, "greeter", HANDLER, Layers=[published["LayerVersionArn"]])
    assert invoke(lam, "greeter") == "first"


@pytest.mark.parametrize("content, code, message", [
    ({"S3Bucket": "layers", "S3Key": "non/existent.zip"}, "NoSuchKey", "The specified key does not exist."),
    ({"S3Bucket": "no-such-bucket", "S3Key": "helper.zip"}, "NoSuchBucket", "The specified bucket does not exist"),
])
def test_content_s3_does_not_hold_is_refused_in_lambdas_words_and_publishes_nothing(door, content, code, message):
    s3, lam = door.client("s3"), door.client("lambda")
    s3.create_bucket(Bucket="layers")
    with pytest.raises(ClientError) as refused:
        lam.publish_layer_version(LayerName="helper", Content=content)
    assert (refused.value.response["Error"], refused.value.response["ResponseMetadata"]["HTTPStatusCode"]) == (
        {"Code": "InvalidParameterValueException",
         "Message": f"Error occurred while GetObject. S3 Error Code: {code}. S3 Error Message: {message}"}, 400)
    assert lam.list_layer_versions(LayerName="helper")["LayerVersions"] == []


def test_the_content_location_downloads_the_layers_zip(door):
    # AWS answers Content.Location as a presigned URL the zip is downloaded from (the API reference's
    # LayerVersionContentOutput: "A link to the layer archive in Amazon S3 that is valid for 10 minutes"; LocalStack's
    # AWS-validated snapshots transform it as a URL); moto's "s3://" downloads nothing. Eddy's is a URL it serves.
    lam = door.client("lambda")
    body = layer_zip("inline")
    published = lam.publish_layer_version(LayerName="helper", Content={"ZipFile": body})
    location = published["Content"]["Location"]
    assert location == lam.get_layer_version(LayerName="helper", VersionNumber=1)["Content"]["Location"]
    assert lam.list_layer_versions(LayerName="helper")["LayerVersions"][0]["LayerVersionArn"] == (
        published["LayerVersionArn"])
    with urllib.request.urlopen(location, timeout=60) as answer:
        assert (answer.status, answer.headers["Content-Type"], answer.read()) == (200, "application/zip", body)
    lam.delete_layer_version(LayerName="helper", VersionNumber=1)
    with pytest.raises(urllib.error.HTTPError) as gone:
        urllib.request.urlopen(location, timeout=60)
    assert gone.value.code == 404

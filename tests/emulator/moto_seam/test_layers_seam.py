"""moto_seam/layers.py pinned against moto's Lambda: the pieces it wraps are there and still behave as the seam
assumes (moto publishes an empty layer for an S3 key it does not have, reads the newest version whatever
S3ObjectVersion says, answers LicenseInfo "" and no Description when none was given), so the seam is still needed;
moto's own behaviour is back once no emulator is open."""

from __future__ import annotations

import inspect
import io
import zipfile

import boto3
from moto import mock_aws
from moto.awslambda.models import LayerVersion

from eddy import emulate
from tests.conftest import QUIET

REGION = "us-east-1"


def zipped(text: str) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("python/helper.py", text)
    return buffer.getvalue()


def test_the_moto_pieces_the_seam_wraps_are_there():
    assert list(inspect.signature(LayerVersion.__init__).parameters) == ["self", "spec", "account_id", "region"]
    assert '"LicenseInfo": self.license_info' in inspect.getsource(LayerVersion.get_layer_version)
    from moto.awslambda.responses import LambdaResponse

    assert 'self.backend.delete_layer_version(layer_name, layer_version)\n        return "{}"' in inspect.getsource(
        LambdaResponse.delete_layer_version)  # moto's 200 and its UnknownLayerException: replaced by the seam


def moto_answers() -> tuple[dict, dict]:
    s3, lam = boto3.client("s3", region_name=REGION), boto3.client("lambda", region_name=REGION)
    s3.create_bucket(Bucket="layers")
    s3.put_bucket_versioning(Bucket="layers", VersioningConfiguration={"Status": "Enabled"})
    first = s3.put_object(Bucket="layers", Key="helper.zip", Body=zipped("X = 1\n"))["VersionId"]
    s3.put_object(Bucket="layers", Key="helper.zip", Body=zipped("X = 22222\n"))
    missing = lam.publish_layer_version(LayerName="missing", Content={"S3Bucket": "layers", "S3Key": "nope.zip"})
    versioned = lam.publish_layer_version(
        LayerName="versioned", Content={"S3Bucket": "layers", "S3Key": "helper.zip", "S3ObjectVersion": first})
    return missing, versioned


def test_moto_alone_publishes_an_empty_layer_for_a_missing_key_and_reads_the_newest_version():
    with mock_aws():
        missing, versioned = moto_answers()
    assert (missing["Content"]["CodeSize"], missing["LicenseInfo"], "Description" in missing) == (0, "", False)
    assert versioned["Content"]["CodeSize"] == len(zipped("X = 22222\n"))


def test_moto_is_itself_again_once_the_emulator_has_closed():
    with emulate(**QUIET):
        pass
    with mock_aws():
        missing, _ = moto_answers()
    assert missing["Content"]["CodeSize"] == 0


def test_moto_alone_answers_layer_versions_and_their_permissions_unlike_aws():
    """What the seam replaces (GetLayerVersion, Add/RemoveLayerVersionPermission, GetLayerVersionPolicy): moto answers
    "Cannot find layer" for a version not there, 200 for a statement added, takes a statement id twice and ignores a
    RevisionId that is not the latest; its handlers are its own again once no emulator is open."""
    from botocore.exceptions import ClientError
    from moto.awslambda.responses import LambdaResponse

    with emulate(**QUIET):
        pass
    for name in ("get_layer_version", "add_layer_version_permission", "get_layer_version_policy",
                 "remove_layer_version_permission", "delete_layer_version"):
        assert getattr(LambdaResponse, name).__module__ == "moto.awslambda.responses"
    with mock_aws():
        lam = boto3.client("lambda", region_name=REGION)
        lam.publish_layer_version(LayerName="shared", Content={"ZipFile": zipped("X = 1\n")})
        try:
            lam.get_layer_version(LayerName="shared", VersionNumber=2)
        except ClientError as error:
            missing = error.response["Error"]
        grant = dict(LayerName="shared", VersionNumber=1, Action="lambda:GetLayerVersion", Principal="*")
        first = lam.add_layer_version_permission(StatementId="s1", **grant)
        again = lam.add_layer_version_permission(StatementId="s1", RevisionId="wrong", **grant)
    assert missing == {"Code": "ResourceNotFoundException", "Message": "Cannot find layer"}
    assert (first["ResponseMetadata"]["HTTPStatusCode"], again["ResponseMetadata"]["HTTPStatusCode"]) == (200, 200)

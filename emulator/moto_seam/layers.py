"""moto's Lambda layers, read by Eddy: the one place Eddy touches moto's layer store (moto_bridge's sibling).

PublishLayerVersion, GetLayerVersion, ListLayers, ListLayerVersions, DeleteLayerVersion and the layer version
permissions are moto's; a function that names a layer version gets its zip and its grants from here. Two changes
while an emulator is open (install/uninstall), each as AWS was recorded answering (LocalStack's AWS-validated
tests/aws/services/lambda_/test_lambda_api.py and its snapshot, TestLambdaLayer::test_layer_s3_content and the
other publish_result answers; TestLambdaFunction's code-from-S3 refusals):

- Content from S3 is read as S3 holds it (S3ObjectVersion's version where given; moto reads the newest), and a key
  or version S3 does not have is refused, "Error occurred while GetObject. S3 Error Code: NoSuchKey. S3 Error
  Message: The specified key does not exist." (moto published an empty layer);
- a version's answer has Description ("" when none was given) and LicenseInfo, CompatibleRuntimes and
  CompatibleArchitectures exactly where they were given (moto: LicenseInfo always, the lists only when not empty);
- its Content.Location is a URL the zip can be downloaded from, as AWS's presigned one is: where the emulator serves
  it (`activate(location)`; moto's is "s3://", which nothing can download).
"""

from __future__ import annotations

import contextlib

import base64
import functools
import sys
from typing import Any, Callable, NamedTuple

from eddy.emulator.moto_seam import Patches

GIVEN = "_eddy_given"  # the members PublishLayerVersion was given, kept on moto's LayerVersion
OPTIONAL = ("LicenseInfo", "CompatibleRuntimes", "CompatibleArchitectures")

_patches = Patches()
#: (account, region, layer name, version) -> the URL the emulator serves the version's zip at; None: moto's answer
_location: Callable[[str, str, str, int], str] | None = None


def activate(location: Callable[[str, str, str, int], str]) -> None:
    global _location
    _location = location


def deactivate() -> None:
    global _location
    _location = None


def install() -> None:
    from moto.awslambda.models import LayerVersion

    _patches.set(LayerVersion, "__init__", _wrap_init(LayerVersion.__init__))
    _patches.set(LayerVersion, "get_layer_version", _wrap_answer(LayerVersion.get_layer_version))
    from moto.awslambda.responses import LambdaResponse

    _patches.set(LambdaResponse, "delete_layer_version", _delete_layer_version)


def uninstall() -> None:
    _patches.restore()


def _wrap_init(init: Any) -> Any:
    @functools.wraps(init)
    def made(self: Any, spec: dict[str, Any], account_id: str, region: str) -> None:
        content = spec.get("Content") or {}
        if "ZipFile" not in content and content.get("S3Bucket") and content.get("S3Key"):
            zipped = base64.b64encode(_s3_object(account_id, region, content)).decode()
            init(self, {**spec, "Content": {"ZipFile": zipped}}, account_id, region)
            self.content = content
        else:
            init(self, spec, account_id, region)
        self.__dict__[GIVEN] = frozenset(name for name in OPTIONAL if name in spec)

    return made


def _s3_object(account_id: str, region: str, content: dict[str, Any]) -> bytes:
    """The object's bytes, or Lambda's refusal in AWS's words (moto's for a missing bucket)."""
    from moto.awslambda.exceptions import InvalidParameterValueException
    from moto.s3.exceptions import MissingBucket
    from moto.s3.models import s3_backends
    from moto.utilities.utils import get_partition

    backend = s3_backends[account_id][get_partition(region)]
    try:
        key = backend.get_object(content["S3Bucket"], content["S3Key"], version_id=content.get("S3ObjectVersion"))
    except MissingBucket:
        raise InvalidParameterValueException(
            "Error occurred while GetObject. S3 Error Code: NoSuchBucket. S3 Error Message: The specified bucket "
            "does not exist"
        ) from None
    if key is None:
        code, message = (
            ("NoSuchVersion", "The specified version does not exist.")
            if content.get("S3ObjectVersion")
            else ("NoSuchKey", "The specified key does not exist.")
        )
        raise InvalidParameterValueException(
            f"Error occurred while GetObject. S3 Error Code: {code}. S3 Error Message: {message}"
        )
    return bytes(key.value)


def _wrap_answer(answer: Any) -> Any:
    @functools.wraps(answer)
    def layer_version(self: Any) -> dict[str, Any]:
        version = answer(self)
        given = self.__dict__.get(GIVEN)
        if given is None:  # made before the patch (or without it): moto's answer
            return version
        version.setdefault("Description", self.description or "")
        values = {
            "LicenseInfo": self.license_info,
            "CompatibleRuntimes": self.compatible_runtimes,
            "CompatibleArchitectures": self.compatible_architectures,
        }
        for name in OPTIONAL:
            if name in given:
                version[name] = values[name]
            else:
                version.pop(name, None)
        location = _location
        if location is not None:
            version["Content"]["Location"] = location(self.account_id, self.region, self.name, int(self.version))
        return version

    return layer_version


def _delete_layer_version(self: Any) -> tuple[str, dict[str, Any]]:
    """DeleteLayerVersion as AWS was recorded answering it (LocalStack's test_lambda_api.snapshot.json,
    TestLambdaLayer::test_layer_exceptions and ::test_layer_lifecycle): 204, whether the layer or the version was
    there or not (moto: 200, and ResourceNotFoundException for a layer it does not have); a version below 1 refused,
    "Layer Version Cannot be less than 1"."""
    from urllib.parse import unquote

    from moto.awslambda.exceptions import InvalidParameterValueException, UnknownLayerException

    name, version = unquote(self.path.split("/")[-3]), self.path.split("/")[-1]
    if int(version) < 1:
        raise InvalidParameterValueException("Layer Version Cannot be less than 1")
    with contextlib.suppress(UnknownLayerException):  # a layer moto never had: deleted all the same, as AWS answers
        self.backend.delete_layer_version(name, version)
    return "", {"status": 204}  # moto takes the status from the headers


class PublishedLayerVersion(NamedTuple):
    arn: str
    zip_file: bytes
    code_size: int
    #: the Principal of each statement of the version's policy that allows lambda:GetLayerVersion
    grantees: frozenset[str]


def _layer_version(account_id: str, region: str, name: str, version: int) -> Any:
    """moto's layer version, None if there is none (moto's Lambda loaded by the first function naming a layer)."""
    from moto.awslambda.exceptions import UnknownLayerException
    from moto.awslambda.models import lambda_backends

    try:
        return lambda_backends[account_id][region].get_layer_version(name, str(version))
    except (KeyError, UnknownLayerException):
        return None


def find_layer_version(account_id: str, region: str, name: str, version: int) -> PublishedLayerVersion | None:
    layer_version = _layer_version(account_id, region, name, version)
    if layer_version is None:
        return None
    grantees = frozenset(
        str(statement.get("Principal"))
        for statement in layer_version.policy.statements
        if statement.get("Effect", "Allow") == "Allow"
        and statement.get("Action") in ("lambda:GetLayerVersion", "lambda:*")
    )
    return PublishedLayerVersion(layer_version.arn, layer_version.code_bytes, layer_version.code_size, grantees)


def layer_version_configuration(account_id: str, region: str, name: str, version: int) -> dict | None:
    """GetLayerVersion's answer for a version (what GetLayerVersionByArn returns too)."""
    layer_version = _layer_version(account_id, region, name, version)
    return None if layer_version is None else layer_version.get_layer_version()


def layers_code_size(account_id: str, region: str) -> int:
    """The zipped size of every layer version the account has in the region, which Lambda counts in
    GetAccountSettings' AccountUsage.TotalCodeSize; 0 while nothing has loaded moto's Lambda (no layer published)."""
    models = sys.modules.get("moto.awslambda.models")
    if models is None:
        return 0
    backends = models.lambda_backends
    if account_id not in backends or region not in backends[account_id]:
        return 0
    layers = list(backends[account_id][region]._layers._layers.values())
    return sum(version.code_size for layer in layers for version in list(layer.layer_versions.values()))

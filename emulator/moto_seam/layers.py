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
  it (`activate(location)`; moto's is "s3://", which nothing can download);
- GetLayerVersion, DeleteLayerVersion and the layer version permissions (Add/RemoveLayerVersionPermission,
  GetLayerVersionPolicy) answer and refuse as AWS does (TestLambdaLayer::test_layer_exceptions,
  ::test_layer_policy_exceptions, ::test_layer_policy_lifecycle): moto's handlers are replaced (moto: "Cannot find
  layer" for everything missing, no duplicate statement id or RevisionId checked, the RevisionId of a removal compared
  with a list, 200 for a statement added); the statements stay in moto's store, where find_layer_version reads them.
"""

from __future__ import annotations

import contextlib

import base64
import functools
import json
import sys
import uuid
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
    _patches.set(LambdaResponse, "get_layer_version", _get_layer_version)
    _patches.set(LambdaResponse, "add_layer_version_permission", _add_layer_version_permission)
    _patches.set(LambdaResponse, "get_layer_version_policy", _get_layer_version_policy)
    _patches.set(LambdaResponse, "remove_layer_version_permission", _remove_layer_version_permission)


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


#: AWS's answers for a layer version below 1, one not there, and a RevisionId that is not the policy's latest
BELOW_ONE = (400, "InvalidParameterValueException", "Layer Version Cannot be less than 1")
NOT_THERE = (404, "ResourceNotFoundException", "The resource you requested does not exist.")
STALE_REVISION = (
    412,
    "PreconditionFailedException",
    "The Revision Id provided does not match the latest Revision Id. Call the GetLayerPolicy API to retrieve the latest "
    "Revision Id",
)


def _refused(status: int, code: str, message: str) -> tuple[int, dict[str, Any], str]:
    """Lambda's error document: Type User, the message under the member the model names it by (Message for
    ResourceNotFoundException, message for the others)."""
    member = "Message" if code == "ResourceNotFoundException" else "message"
    return status, {"status": status, "x-amzn-ErrorType": code}, json.dumps({"Type": "User", member: message})


def _named(self: Any, depth: int) -> tuple[str, str]:
    """The layer's name and the version's number in a request's path (…/layers/<name>/versions/<n>[/policy[/<sid>]])."""
    from urllib.parse import unquote

    parts = self.path.split("?")[0].rstrip("/").split("/")
    return unquote(parts[-3 - depth]), parts[-1 - depth]


def _found(self: Any, name: str, number: str) -> Any:
    """moto's layer version (None: no such layer or version)."""
    from moto.awslambda.exceptions import UnknownLayerException

    try:
        return self.backend.get_layer_version(name, number)
    except UnknownLayerException:
        return None


def _get_layer_version(self: Any) -> Any:
    """GetLayerVersion: a version below 1 refused, one not there answered in AWS's words (moto: "Cannot find layer")."""
    name, number = _named(self, 0)
    if int(number) < 1:
        return _refused(*BELOW_ONE)
    layer_version = _found(self, name, number)
    return _refused(*NOT_THERE) if layer_version is None else json.dumps(layer_version.get_layer_version())


def _delete_layer_version(self: Any) -> tuple[Any, ...]:
    """DeleteLayerVersion as AWS was recorded answering it (LocalStack's test_lambda_api.snapshot.json,
    TestLambdaLayer::test_layer_exceptions and ::test_layer_lifecycle): 204, whether the layer or the version was
    there or not (moto: 200, and ResourceNotFoundException for a layer it does not have); a version below 1 refused,
    "Layer Version Cannot be less than 1"."""
    from moto.awslambda.exceptions import UnknownLayerException

    name, version = _named(self, 0)
    if int(version) < 1:
        return _refused(*BELOW_ONE)
    with contextlib.suppress(UnknownLayerException):  # a layer moto never had: deleted all the same, as AWS answers
        self.backend.delete_layer_version(name, version)
    return "", {"status": 204}  # moto takes the status from the headers


def _policy_of(self: Any, depth: int) -> tuple[Any, Any]:
    """(the version's moto Policy, None), or (None, AWS's refusal of a layer or version not there)."""
    name, number = _named(self, depth)
    layer_version = _found(self, name, number)
    if layer_version is None:
        arn = f"arn:aws:lambda:{self.region}:{self.current_account}:layer:{name}:{number}"
        return None, _refused(404, "ResourceNotFoundException", f"Layer version {arn} does not exist.")
    return layer_version.policy, None


def _add_layer_version_permission(self: Any) -> Any:
    """AddLayerVersionPermission: the statement AWS writes (Sid, Effect, Principal, Action, Resource; an
    OrganizationId as a condition), a new RevisionId, 201; a RevisionId that is not the latest and a statement id
    already there refused in AWS's words."""
    policy, refusal = _policy_of(self, 1)
    if refusal is not None:
        return refusal
    request = json.loads(self.body or "{}")
    revision = self.querystring.get("RevisionId", [""])[0]
    if revision and revision != policy.revision:
        return _refused(*STALE_REVISION)
    sid = request.get("StatementId")
    if any(statement.get("Sid") == sid for statement in policy.statements):
        return _refused(
            409,
            "ResourceConflictException",
            f"The statement id ({sid}) provided already exists. Please provide a new statement id, or remove the "
            "existing statement.",
        )
    statement: dict[str, Any] = {
        "Sid": sid,
        "Effect": "Allow",
        "Principal": request.get("Principal"),
        "Action": request.get("Action"),
        "Resource": policy.parent.arn,
    }
    if request.get("OrganizationId"):
        statement["Condition"] = {"StringEquals": {"aws:PrincipalOrgID": request["OrganizationId"]}}
    policy.statements.append(statement)
    policy.revision = str(uuid.uuid4())
    return 201, {"status": 201}, json.dumps({"Statement": json.dumps(statement), "RevisionId": policy.revision})


def _get_layer_version_policy(self: Any) -> Any:
    policy, refusal = _policy_of(self, 1)
    if refusal is not None:
        return refusal
    if not policy.statements:
        return _refused(404, "ResourceNotFoundException", "No policy is associated with the given resource.")
    document = {"Version": "2012-10-17", "Id": "default", "Statement": policy.statements}
    return json.dumps({"Policy": json.dumps(document), "RevisionId": policy.revision})


def _remove_layer_version_permission(self: Any) -> Any:
    """RemoveLayerVersionPermission: 204 and a new RevisionId; a RevisionId that is not the latest and a statement id
    not there refused in AWS's words."""
    policy, refusal = _policy_of(self, 2)
    if refusal is not None:
        return refusal
    revision = self.querystring.get("RevisionId", [""])[0]
    if revision and revision != policy.revision:
        return _refused(*STALE_REVISION)
    sid = self.path.split("?")[0].rstrip("/").split("/")[-1]
    kept = [statement for statement in policy.statements if statement.get("Sid") != sid]
    if len(kept) == len(policy.statements):
        return _refused(404, "ResourceNotFoundException", f"Statement {sid} is not found in resource policy.")
    policy.statements[:] = kept
    policy.revision = str(uuid.uuid4())
    return 204, {"status": 204}, ""


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

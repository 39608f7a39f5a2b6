"""Lambda layers of a function: which layer versions it names, and laying them out where its runtime looks.

    layers = resolve_layers(params["Layers"], account_id, region)     # the AWS errors for what cannot be used
    lay_out(layers, function.opt_dir)                                  # like Lambda's /opt, in layer order

Layer versions are published with moto's PublishLayerVersion (emulator/moto_seam/layers.py reads them).
Lambda extracts a function's layers into /opt one over the other, in the order the function lists them, so a
later layer's file replaces an earlier one's; the runtimes then search /opt/python and
/opt/python/lib/python3.x/site-packages (Python), /opt/nodejs/node_modules and /opt/nodejs/nodeNN/node_modules
(Node.js). Eddy does the same in a folder beside the function's code (runtimes/ put it on the search path).
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import NamedTuple

from eddy.emulator.errors import AccessDeniedException, InvalidParameterValueException, constraint_violation
from eddy.emulator.moto_seam.layers import find_layer_version
from eddy.emulator.functions.packages import unpack_zip

LAYER_VERSION_ARN = re.compile(
    r"^arn:[a-zA-Z0-9-]+:lambda:([a-zA-Z0-9-]+):([0-9]{12}):layer:([a-zA-Z0-9-_]+):([0-9]+)$"
)
MAX_LAYERS = 5
#: where the emulator serves a layer version's zip (Content.Location; api/lambda_/resources/code_locations.py)
CONTENT_PATH = "/_eddy/code/layers/"


def content_location(endpoint: str, account_id: str, region: str, name: str, version: int) -> str:
    """The URL a layer version's zip is downloaded from (AWS answers a presigned S3 URL; this one is the emulator's)."""
    return f"{endpoint.rstrip('/')}{CONTENT_PATH}{account_id}/{region}/{name}/{version}"


class Layer(NamedTuple):
    arn: str
    code_size: int
    zip_file: bytes

    def configuration(self) -> dict[str, object]:
        return {"Arn": self.arn, "CodeSize": self.code_size}


def resolve_layers(arns: object, account_id: str, region: str) -> list[Layer]:
    """The layer versions a CreateFunction or UpdateFunctionConfiguration names, in order."""
    if not isinstance(arns, list) or not all(isinstance(arn, str) for arn in arns):
        raise InvalidParameterValueException("Layers must be a list of layer version ARNs")
    for arn in arns:
        if not LAYER_VERSION_ARN.match(arn) or len(arn) > 140:
            raise constraint_violation(
                "layers",
                arns,
                "Member must satisfy constraint: [Member must have length "
                "less than or equal to 140, Member must have length greater than or equal to "
                "1, Member must satisfy regular expression pattern: "
                "arn:[a-zA-Z0-9-]+:lambda:[a-zA-Z0-9-]+:\\d{12}:layer:[a-zA-Z0-9-_]+:[0-9]+, "
                "Member must not be null]",
            )
    if len(arns) > MAX_LAYERS:
        raise InvalidParameterValueException("Cannot reference more than 5 layers.")
    names = [arn.rsplit(":", 1)[0] for arn in arns]
    for later, name in enumerate(names):  # the first pair, in AWS's words (AWS-recorded: test_lambda_api.snapshot.json,
        # TestLambdaLayer::test_layer_function_exceptions, "two_identical_layer_versions_single_function_exc" and
        # "three_layer_versions_single_function_exc")
        if name in names[:later]:
            raise InvalidParameterValueException(
                "Two different versions of the same layer are not allowed to be referenced in the same function. "
                f"{arns[names.index(name)]} and {arns[later]} are versions of the same layer."
            )
    if any(LAYER_VERSION_ARN.match(arn).group(1) != region for arn in arns):  # type: ignore[union-attr]
        raise InvalidParameterValueException(  # "create_function_with_layer_in_different_region"
            f"Layers are not in the same region as the function. Layers are expected to be in region {region}."
        )
    return [_layer(arn, account_id) for arn in arns]


def _layer(arn: str, caller_account: str) -> Layer:
    region, account_id, name, version = LAYER_VERSION_ARN.match(arn).groups()  # type: ignore[union-attr]
    published = find_layer_version(account_id, region, name, int(version))
    if published is None:
        raise InvalidParameterValueException(f"Layer version {arn} does not exist.")
    if account_id != caller_account and not published.grantees & {
        "*",
        caller_account,
        f"arn:aws:iam::{caller_account}:root",
    }:
        raise AccessDeniedException(
            f"User: arn:aws:iam::{caller_account}:root is not authorized to perform: "
            f"lambda:GetLayerVersion on resource: {arn} because no resource-based policy "
            "allows the lambda:GetLayerVersion action"
        )
    return Layer(arn, published.code_size, published.zip_file)


def lay_out(layers: list[Layer], opt_dir: Path) -> None:
    """Each layer's files into opt_dir, in order, a later layer's over an earlier one's."""
    shutil.rmtree(opt_dir, ignore_errors=True)
    opt_dir.mkdir(parents=True)
    for layer in layers:
        unpack_zip(layer.zip_file, opt_dir, replace=False)

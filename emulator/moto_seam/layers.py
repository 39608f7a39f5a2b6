"""moto's Lambda layers, read by Eddy: the one place Eddy touches moto's layer store (moto_bridge's sibling).

PublishLayerVersion, GetLayerVersion, ListLayers, ListLayerVersions, DeleteLayerVersion and the layer version
permissions are moto's; a function that names a layer version gets its zip and its grants from here.
"""

from __future__ import annotations

from typing import Any, NamedTuple


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

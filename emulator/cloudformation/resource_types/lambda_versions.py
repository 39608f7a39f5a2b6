"""AWS::Lambda::Version, AWS::Lambda::Alias, AWS::Lambda::Url, AWS::Lambda::LayerVersion and
AWS::Lambda::LayerVersionPermission through Eddy's Lambda API (PublishVersion, CreateAlias, CreateFunctionUrlConfig,
PublishLayerVersion, ...), as the CloudFormation User Guide documents them:

- Version: Ref is the version's ARN (arn:...:function:<name>:<n>); Fn::GetAtt FunctionArn (the same) and Version (the
  number). FunctionName, Description and CodeSha256 change only by replacement (a new version is published; the old one
  is deleted unless the resource is retained, as SAM's AutoPublishAlias retains it). A Version made when the function
  has not changed since its last version fails as CloudFormation fails it: "A version for this Lambda function exists
  ( 1 ). Modify the function to create a new version." (as stacks report it: aws-cdk issue 5334, Serverless
  Framework's common errors).
- Alias: Ref is the alias's ARN; Fn::GetAtt AliasArn. FunctionName and Name change by replacement, FunctionVersion,
  Description and RoutingConfig in place. RoutingConfig is CloudFormation's shape: {"AdditionalVersionWeights":
  [{"FunctionVersion": "2", "FunctionWeight": 0.1}]}.
- Url: Ref is the ARN of the function the URL invokes (qualified by its alias); Fn::GetAtt FunctionArn (the same) and
  FunctionUrl (Eddy's: api/lambda_/function_urls/). TargetFunctionArn and Qualifier change by replacement, AuthType, Cors and
  InvokeMode in place (an update that leaves Cors or InvokeMode out clears them); the registry schema's
  createOnlyProperties (aws-cloudformation-resource-providers-lambda, AWS::Lambda::Url).

ProvisionedConcurrencyConfig ({"ProvisionedConcurrentExecutions": N}, either type) is put on the version or alias
through PutProvisionedConcurrencyConfig once it exists, changed in place and deleted when an update removes it; the
resource is complete when the configuration is put (IN_PROGRESS), where CloudFormation waits for READY (Eddy's
execution environments start on demand either way: api/lambda_/resources/provisioned_concurrency.py).
"""

from __future__ import annotations

from typing import Any

from eddy.emulator.cloudformation.errors import ResourceFailed
from eddy.emulator.cloudformation.resource_types.base import (
    Created,
    Provisioning,
    ResourceType,
    delete_if_there,
    required,
)


def _provisioned_concurrency(
    provisioning: Provisioning, function: str, qualifier: str, old: dict[str, Any], new: dict[str, Any]
) -> None:
    """The ProvisionedConcurrencyConfig a version or alias has after a create or update: put, changed or deleted."""
    wanted = (new.get("ProvisionedConcurrencyConfig") or {}).get("ProvisionedConcurrentExecutions")
    had = (old.get("ProvisionedConcurrencyConfig") or {}).get("ProvisionedConcurrentExecutions")
    awslambda = provisioning.client("lambda")
    if wanted is not None and wanted != had:
        awslambda.put_provisioned_concurrency_config(
            FunctionName=function, Qualifier=qualifier, ProvisionedConcurrentExecutions=int(wanted)
        )
    elif wanted is None and had is not None:
        awslambda.delete_provisioned_concurrency_config(FunctionName=function, Qualifier=qualifier)


class Version(ResourceType):
    type_name = "AWS::Lambda::Version"
    replacing = frozenset({"FunctionName", "Description", "CodeSha256"})

    def create(self, provisioning: Provisioning, properties: dict[str, Any]) -> Created:
        required(properties, "FunctionName")
        request = {key: properties[key] for key in ("FunctionName", "Description", "CodeSha256") if key in properties}
        awslambda = provisioning.client("lambda")
        before = {
            v["Version"]
            for v in awslambda.list_versions_by_function(FunctionName=request["FunctionName"], MaxItems=10000)[
                "Versions"
            ]
        }
        version = awslambda.publish_version(**request)
        if version["Version"] in before:  # nothing changed since it was published: CloudFormation refuses it
            raise ResourceFailed(
                f"A version for this Lambda function exists ( {version['Version']} ). Modify the "
                "function to create a new version."
            )
        arn = version["FunctionArn"]
        _provisioned_concurrency(provisioning, request["FunctionName"], version["Version"], {}, properties)
        return Created(arn, {"FunctionArn": arn, "Version": version["Version"]})

    def update(
        self, provisioning: Provisioning, physical_id: str, old: dict[str, Any], new: dict[str, Any]
    ) -> dict[str, Any]:
        function, _, version = physical_id.rpartition(":")
        _provisioned_concurrency(provisioning, function, version, old, new)  # (the one property updated in place)
        return {"FunctionArn": physical_id, "Version": version}

    def delete(self, provisioning: Provisioning, physical_id: str, properties: dict[str, Any]) -> None:
        delete_if_there(provisioning.client("lambda"), "delete_function", FunctionName=physical_id)


def _routing(properties: dict[str, Any]) -> dict[str, Any]:
    """CloudFormation's RoutingConfig as the Lambda API's ({} when there is none: no weights)."""
    weights = (properties.get("RoutingConfig") or {}).get("AdditionalVersionWeights") or []
    if not isinstance(weights, list) or not all(
        isinstance(w, dict) and {"FunctionVersion", "FunctionWeight"} <= set(w) for w in weights
    ):
        raise ResourceFailed(
            "Properties validation failed for resource with message: #/RoutingConfig/"
            "AdditionalVersionWeights: each item needs FunctionVersion and FunctionWeight"
        )
    return {"AdditionalVersionWeights": {str(w["FunctionVersion"]): float(w["FunctionWeight"]) for w in weights}}


class Alias(ResourceType):
    type_name = "AWS::Lambda::Alias"
    replacing = frozenset({"FunctionName", "Name"})

    def create(self, provisioning: Provisioning, properties: dict[str, Any]) -> Created:
        required(properties, "FunctionName", "FunctionVersion", "Name")
        alias = provisioning.client("lambda").create_alias(
            FunctionName=properties["FunctionName"],
            Name=properties["Name"],
            FunctionVersion=str(properties["FunctionVersion"]),
            Description=properties.get("Description", ""),
            RoutingConfig=_routing(properties),
        )
        _provisioned_concurrency(provisioning, properties["FunctionName"], properties["Name"], {}, properties)
        return Created(alias["AliasArn"], {"AliasArn": alias["AliasArn"]})

    def update(
        self, provisioning: Provisioning, physical_id: str, old: dict[str, Any], new: dict[str, Any]
    ) -> dict[str, Any]:
        required(new, "FunctionName", "FunctionVersion", "Name")
        function, _, name = physical_id.rpartition(":")
        provisioning.client("lambda").update_alias(
            FunctionName=function,
            Name=name,
            FunctionVersion=str(new["FunctionVersion"]),
            Description=new.get("Description", ""),
            RoutingConfig=_routing(new),
        )
        _provisioned_concurrency(provisioning, function, name, old, new)
        return {"AliasArn": physical_id}

    def delete(self, provisioning: Provisioning, physical_id: str, properties: dict[str, Any]) -> None:
        function, _, name = physical_id.rpartition(":")
        delete_if_there(provisioning.client("lambda"), "delete_alias", FunctionName=function, Name=name)


class Url(ResourceType):
    type_name = "AWS::Lambda::Url"
    replacing = frozenset({"TargetFunctionArn", "Qualifier"})

    @staticmethod
    def _target(properties: dict[str, Any]) -> dict[str, Any]:
        target = {"FunctionName": properties["TargetFunctionArn"]}
        if properties.get("Qualifier"):
            target["Qualifier"] = properties["Qualifier"]
        return target

    def create(self, provisioning: Provisioning, properties: dict[str, Any]) -> Created:
        required(properties, "TargetFunctionArn", "AuthType")
        settings = {key: properties[key] for key in ("AuthType", "Cors", "InvokeMode") if key in properties}
        url = provisioning.client("lambda").create_function_url_config(**self._target(properties), **settings)
        return Created(url["FunctionArn"], {"FunctionArn": url["FunctionArn"], "FunctionUrl": url["FunctionUrl"]})

    def update(
        self, provisioning: Provisioning, physical_id: str, old: dict[str, Any], new: dict[str, Any]
    ) -> dict[str, Any]:
        required(new, "TargetFunctionArn", "AuthType")
        settings = {"AuthType": new["AuthType"]}
        for key, cleared in (("Cors", {}), ("InvokeMode", "BUFFERED")):
            if key in new or key in old:
                settings[key] = new.get(key, cleared)
        url = provisioning.client("lambda").update_function_url_config(**self._target(new), **settings)
        return {"FunctionArn": url["FunctionArn"], "FunctionUrl": url["FunctionUrl"]}

    def delete(self, provisioning: Provisioning, physical_id: str, properties: dict[str, Any]) -> None:
        delete_if_there(provisioning.client("lambda"), "delete_function_url_config", **self._target(properties))


def _layer_version(arn: str) -> tuple[str, int]:
    """A layer version's ARN (arn:aws:lambda:<region>:<account>:layer:<name>:<version>) as its layer and number."""
    layer, _, number = arn.rpartition(":")
    return layer, int(number)


class LayerVersion(ResourceType):
    """Every property is create-only (the type's registry schema, cfn-lint's us_east_1/aws-lambda-layerversion.json):
    a change publishes a new version, and the cleanup deletes the old one unless it is retained (SAM's
    AWS::Serverless::LayerVersion retains it by default: RetentionPolicy Retain)."""

    type_name = "AWS::Lambda::LayerVersion"
    replacing = frozenset(
        {"CompatibleArchitectures", "CompatibleRuntimes", "Content", "Description", "LayerName", "LicenseInfo"}
    )

    def create(self, provisioning: Provisioning, properties: dict[str, Any]) -> Created:
        required(properties, "Content")
        content = properties["Content"] if isinstance(properties["Content"], dict) else {}
        missing = [key for key in ("S3Bucket", "S3Key") if key not in content]
        if missing:
            raise ResourceFailed(
                f"Properties validation failed for resource with message: #/Content: required key [{missing[0]}] "
                "not found"
            )
        request = {
            key: properties[key]
            for key in ("Description", "LicenseInfo", "CompatibleRuntimes", "CompatibleArchitectures")
            if key in properties
        }
        published = provisioning.client("lambda").publish_layer_version(
            LayerName=properties.get("LayerName") or provisioning.name(140),
            Content={key: content[key] for key in ("S3Bucket", "S3Key", "S3ObjectVersion") if key in content},
            **request,
        )
        return Created(published["LayerVersionArn"], {"LayerVersionArn": published["LayerVersionArn"]})

    def update(
        self, provisioning: Provisioning, physical_id: str, old: dict[str, Any], new: dict[str, Any]
    ) -> dict[str, Any]:
        return {"LayerVersionArn": physical_id}

    def delete(self, provisioning: Provisioning, physical_id: str, properties: dict[str, Any]) -> None:
        layer, number = _layer_version(physical_id)
        provisioning.client("lambda").delete_layer_version(LayerName=layer.rpartition(":")[2], VersionNumber=number)


class LayerVersionPermission(ResourceType):
    """A grant on a layer version (AddLayerVersionPermission); every property is create-only (its registry schema).
    Ref is "<layer version ARN>#<statement id>"."""

    type_name = "AWS::Lambda::LayerVersionPermission"
    replacing = frozenset({"Action", "LayerVersionArn", "OrganizationId", "Principal"})

    def create(self, provisioning: Provisioning, properties: dict[str, Any]) -> Created:
        required(properties, "LayerVersionArn", "Action", "Principal")
        layer, number = _layer_version(properties["LayerVersionArn"])
        statement_id = provisioning.name(100)
        grant = {key: properties[key] for key in ("Action", "Principal", "OrganizationId") if key in properties}
        provisioning.client("lambda").add_layer_version_permission(
            LayerName=layer.rpartition(":")[2], VersionNumber=number, StatementId=statement_id, **grant
        )
        return Created(f"{properties['LayerVersionArn']}#{statement_id}", {})

    def update(
        self, provisioning: Provisioning, physical_id: str, old: dict[str, Any], new: dict[str, Any]
    ) -> dict[str, Any]:
        return {}

    def delete(self, provisioning: Provisioning, physical_id: str, properties: dict[str, Any]) -> None:
        arn, _, statement_id = physical_id.rpartition("#")
        layer, number = _layer_version(arn)
        delete_if_there(
            provisioning.client("lambda"),
            "remove_layer_version_permission",
            LayerName=layer.rpartition(":")[2],
            VersionNumber=number,
            StatementId=statement_id,
        )


TYPES = [Version(), Alias(), Url(), LayerVersion(), LayerVersionPermission()]

"""What `cdk bootstrap` and every CDK app's stack make besides the services Eddy runs: AWS::ECR::Repository (the
bootstrap's container assets repository, a record in moto's ECR: Eddy runs no containers) and AWS::CDK::Metadata
(the construct library's version report: CloudFormation keeps its Analytics property and nothing else)."""

from __future__ import annotations

import uuid
from typing import Any

from botocore.exceptions import ClientError

from eddy.emulator.cloudformation.resource_types.base import (
    Created,
    Provisioning,
    ResourceType,
    json_text,
    lower_first,
    not_found,
    tags_list,
)


class Repository(ResourceType):
    type_name = "AWS::ECR::Repository"
    replacing = frozenset({"RepositoryName", "EncryptionConfiguration"})
    name_property = "RepositoryName"

    def create(self, provisioning: Provisioning, properties: dict[str, Any]) -> Created:
        name = properties.get("RepositoryName") or provisioning.name(256, lowercase=True)
        request: dict[str, Any] = {
            key: properties[key]
            for key in ("ImageTagMutability", "ImageScanningConfiguration", "EncryptionConfiguration")
            if key in properties
        }
        if properties.get("Tags"):
            request["tags"] = tags_list(properties)
        ecr = provisioning.client("ecr")
        ecr.create_repository(repositoryName=name, **lower_first(request))
        try:
            self._policies(ecr, name, {}, properties)
        except Exception:
            ecr.delete_repository(repositoryName=name, force=True)
            raise
        return Created(name, self._attributes(ecr, name))

    @staticmethod
    def _attributes(ecr: Any, name: str) -> dict[str, Any]:
        repository = ecr.describe_repositories(repositoryNames=[name])["repositories"][0]
        return {"Arn": repository["repositoryArn"], "RepositoryUri": repository["repositoryUri"]}

    @staticmethod
    def _policies(ecr: Any, name: str, old: dict[str, Any], new: dict[str, Any]) -> None:
        if old.get("LifecyclePolicy") != new.get("LifecyclePolicy"):
            text = (new.get("LifecyclePolicy") or {}).get("LifecyclePolicyText")
            if text:
                ecr.put_lifecycle_policy(repositoryName=name, lifecyclePolicyText=json_text(text))
            elif old.get("LifecyclePolicy"):
                ecr.delete_lifecycle_policy(repositoryName=name)
        if old.get("RepositoryPolicyText") != new.get("RepositoryPolicyText"):
            if new.get("RepositoryPolicyText"):
                ecr.set_repository_policy(repositoryName=name, policyText=json_text(new["RepositoryPolicyText"]))
            elif old.get("RepositoryPolicyText"):
                ecr.delete_repository_policy(repositoryName=name)

    def update(
        self, provisioning: Provisioning, physical_id: str, old: dict[str, Any], new: dict[str, Any]
    ) -> dict[str, Any]:
        ecr = provisioning.client("ecr")
        if old.get("ImageTagMutability") != new.get("ImageTagMutability"):
            ecr.put_image_tag_mutability(
                repositoryName=physical_id, imageTagMutability=new.get("ImageTagMutability", "MUTABLE")
            )
        if old.get("ImageScanningConfiguration") != new.get("ImageScanningConfiguration"):
            ecr.put_image_scanning_configuration(
                repositoryName=physical_id,
                **lower_first(
                    {"ImageScanningConfiguration": new.get("ImageScanningConfiguration") or {"ScanOnPush": False}}
                ),
            )
        self._policies(ecr, physical_id, old, new)
        return self._attributes(ecr, physical_id)

    def delete(self, provisioning: Provisioning, physical_id: str, properties: dict[str, Any]) -> None:
        try:
            provisioning.client("ecr").delete_repository(
                repositoryName=physical_id, force=str(properties.get("EmptyOnDelete", "false")).lower() == "true"
            )
        except ClientError as error:
            if not not_found(error):
                raise


class Metadata(ResourceType):
    type_name = "AWS::CDK::Metadata"

    def create(self, provisioning: Provisioning, properties: dict[str, Any]) -> Created:
        return Created(str(uuid.uuid4()), {})

    def update(
        self, provisioning: Provisioning, physical_id: str, old: dict[str, Any], new: dict[str, Any]
    ) -> dict[str, Any]:
        return {}

    def delete(self, provisioning: Provisioning, physical_id: str, properties: dict[str, Any]) -> None:
        return None


TYPES = [Repository(), Metadata()]

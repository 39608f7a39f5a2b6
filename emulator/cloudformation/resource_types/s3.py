"""AWS::S3::Bucket (with its NotificationConfiguration, versioning, tags) and AWS::S3::BucketPolicy through
the S3 API; a bucket's notifications to functions are Eddy's (moto_seam/notifications/)."""

from __future__ import annotations

from typing import Any

from botocore.exceptions import ClientError

from eddy.emulator.cloudformation.resource_types.base import (
    Created,
    Provisioning,
    ResourceType,
    already_exists,
    json_text,
    not_found,
    required,
    tags_list,
)


def _filter(configuration: dict[str, Any]) -> dict[str, Any]:
    rules = ((configuration.get("Filter") or {}).get("S3Key") or {}).get("Rules") or []
    return (
        {"Filter": {"Key": {"FilterRules": [{"Name": rule["Name"], "Value": rule["Value"]} for rule in rules]}}}
        if rules
        else {}
    )


def notification_configuration(properties: dict[str, Any]) -> dict[str, Any]:
    """CloudFormation's NotificationConfiguration as PutBucketNotificationConfiguration takes it."""
    declared = properties.get("NotificationConfiguration") or {}
    answer: dict[str, Any] = {}
    for source, target, arn_key, destination in (
        ("LambdaConfigurations", "LambdaFunctionConfigurations", "LambdaFunctionArn", "Function"),
        ("QueueConfigurations", "QueueConfigurations", "QueueArn", "Queue"),
        ("TopicConfigurations", "TopicConfigurations", "TopicArn", "Topic"),
    ):
        entries = [
            {arn_key: entry[destination], "Events": [entry["Event"]], **_filter(entry)}
            for entry in declared.get(source) or []
        ]
        if entries:
            answer[target] = entries
    if (declared.get("EventBridgeConfiguration") or {}).get("EventBridgeEnabled"):
        answer["EventBridgeConfiguration"] = {}
    return answer


class Bucket(ResourceType):
    type_name = "AWS::S3::Bucket"
    replacing = frozenset({"BucketName", "ObjectLockEnabled"})
    name_property = "BucketName"

    def create(self, provisioning: Provisioning, properties: dict[str, Any]) -> Created:
        name = properties.get("BucketName") or provisioning.name(63, lowercase=True)
        s3 = provisioning.client("s3")
        if properties.get("BucketName"):
            try:
                s3.head_bucket(Bucket=name)
            except ClientError:
                pass  # none yet: made below
            else:
                raise already_exists(self.type_name, name)
        request: dict[str, Any] = {"Bucket": name}
        if provisioning.region != "us-east-1":
            request["CreateBucketConfiguration"] = {"LocationConstraint": provisioning.region}
        s3.create_bucket(**request)
        try:
            self._configure(s3, name, {}, properties)
        except Exception:
            s3.delete_bucket(Bucket=name)
            raise
        return Created(name, self._attributes(provisioning, name))

    @staticmethod
    def _attributes(provisioning: Provisioning, name: str) -> dict[str, Any]:
        region = provisioning.region
        return {
            "Arn": f"arn:aws:s3:::{name}",
            "DomainName": f"{name}.s3.amazonaws.com",
            "RegionalDomainName": f"{name}.s3.{region}.amazonaws.com",
            "DualStackDomainName": f"{name}.s3.dualstack.{region}.amazonaws.com",
            "WebsiteURL": f"http://{name}.s3-website-{region}.amazonaws.com",
        }

    @staticmethod
    def _configure(s3: Any, name: str, old: dict[str, Any], new: dict[str, Any]) -> None:
        if old.get("VersioningConfiguration") != new.get("VersioningConfiguration") and new.get(
            "VersioningConfiguration"
        ):
            s3.put_bucket_versioning(
                Bucket=name, VersioningConfiguration={"Status": new["VersioningConfiguration"]["Status"]}
            )
        if old.get("Tags") != new.get("Tags"):
            if new.get("Tags"):
                s3.put_bucket_tagging(Bucket=name, Tagging={"TagSet": tags_list(new)})
            else:
                s3.delete_bucket_tagging(Bucket=name)
        if old.get("NotificationConfiguration") != new.get("NotificationConfiguration"):
            s3.put_bucket_notification_configuration(
                Bucket=name, NotificationConfiguration=notification_configuration(new)
            )

    def update(
        self, provisioning: Provisioning, physical_id: str, old: dict[str, Any], new: dict[str, Any]
    ) -> dict[str, Any]:
        self._configure(provisioning.client("s3"), physical_id, old, new)
        return self._attributes(provisioning, physical_id)

    def delete(self, provisioning: Provisioning, physical_id: str, properties: dict[str, Any]) -> None:
        try:
            provisioning.client("s3").delete_bucket(Bucket=physical_id)
        except ClientError as error:
            if not not_found(error):
                raise


class BucketPolicy(ResourceType):
    type_name = "AWS::S3::BucketPolicy"
    replacing = frozenset({"Bucket"})

    def create(self, provisioning: Provisioning, properties: dict[str, Any]) -> Created:
        required(properties, "Bucket", "PolicyDocument")
        provisioning.client("s3").put_bucket_policy(
            Bucket=properties["Bucket"], Policy=json_text(properties["PolicyDocument"])
        )
        return Created(properties["Bucket"], {})

    def update(
        self, provisioning: Provisioning, physical_id: str, old: dict[str, Any], new: dict[str, Any]
    ) -> dict[str, Any]:
        self.create(provisioning, new)
        return {}

    def delete(self, provisioning: Provisioning, physical_id: str, properties: dict[str, Any]) -> None:
        try:
            provisioning.client("s3").delete_bucket_policy(Bucket=physical_id)
        except ClientError as error:
            if not not_found(error):
                raise


TYPES = [Bucket(), BucketPolicy()]

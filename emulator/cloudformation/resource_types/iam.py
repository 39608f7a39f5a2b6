"""AWS::IAM::Role, AWS::IAM::Policy and AWS::IAM::ManagedPolicy through the IAM API (Eddy does not enforce IAM: a role is what a
function's Role names, kept as IAM keeps it)."""

from __future__ import annotations

from typing import Any

from botocore.exceptions import ClientError

from eddy.emulator.cloudformation.resource_types.base import (
    Created,
    Provisioning,
    ResourceType,
    json_text,
    not_found,
    required,
    tags_list,
)


AWS_MANAGED = "arn:aws:iam::aws:policy/"


def _document(value: Any) -> str:
    """A policy document as IAM here takes it: one without a Version (SAM's policy templates write none, which
    AWS reads as 2008-10-17) gets 2012-10-17, the only version moto's IAM accepts; Eddy enforces no IAM."""
    if isinstance(value, dict) and "Version" not in value:
        value = {"Version": "2012-10-17", **value}
    return json_text(value)


class Role(ResourceType):
    type_name = "AWS::IAM::Role"
    replacing = frozenset({"RoleName", "Path"})
    name_property = "RoleName"

    def create(self, provisioning: Provisioning, properties: dict[str, Any]) -> Created:
        required(properties, "AssumeRolePolicyDocument")
        name = properties.get("RoleName") or provisioning.name(64)
        request: dict[str, Any] = {
            "RoleName": name,
            "Path": properties.get("Path", "/"),
            "AssumeRolePolicyDocument": json_text(properties["AssumeRolePolicyDocument"]),
        }
        for key in ("Description", "MaxSessionDuration", "PermissionsBoundary"):
            if key in properties:
                request[key] = properties[key]
        if properties.get("Tags"):
            request["Tags"] = tags_list(properties)
        iam = provisioning.client("iam")
        role = iam.create_role(**request)["Role"]
        try:
            self._policies(iam, name, {}, properties)
        except Exception:
            self.delete(provisioning, name, properties)
            raise
        return Created(name, {"Arn": role["Arn"], "RoleId": role["RoleId"]})

    @staticmethod
    def _policies(iam: Any, name: str, old: dict[str, Any], new: dict[str, Any]) -> None:
        before, after = set(old.get("ManagedPolicyArns") or []), set(new.get("ManagedPolicyArns") or [])
        for arn in sorted(before - after):
            try:
                iam.detach_role_policy(RoleName=name, PolicyArn=arn)
            except ClientError as error:
                if not (arn.startswith(AWS_MANAGED) and not_found(error)):
                    raise
        for arn in sorted(after - before):
            try:
                iam.attach_role_policy(RoleName=name, PolicyArn=arn)
            except ClientError as error:
                # an AWS managed policy moto has no document for (moto_seam/services/aws_managed_policies.py makes
                # the others when named): Eddy enforces no IAM, so the role is made without it
                # (docs/guides/deploy.md says so); any other refusal fails the role
                if not (arn.startswith(AWS_MANAGED) and not_found(error)):
                    raise
        inline_before = {policy["PolicyName"]: policy for policy in old.get("Policies") or []}
        inline_after = {policy["PolicyName"]: policy for policy in new.get("Policies") or []}
        for policy_name in inline_before:
            if policy_name not in inline_after:
                iam.delete_role_policy(RoleName=name, PolicyName=policy_name)
        for policy_name, policy in inline_after.items():
            if inline_before.get(policy_name) != policy:
                iam.put_role_policy(
                    RoleName=name, PolicyName=policy_name, PolicyDocument=_document(policy["PolicyDocument"])
                )

    def update(
        self, provisioning: Provisioning, physical_id: str, old: dict[str, Any], new: dict[str, Any]
    ) -> dict[str, Any]:
        iam = provisioning.client("iam")
        if old.get("AssumeRolePolicyDocument") != new.get("AssumeRolePolicyDocument"):
            iam.update_assume_role_policy(
                RoleName=physical_id, PolicyDocument=json_text(new["AssumeRolePolicyDocument"])
            )
        if old.get("Description") != new.get("Description") or old.get("MaxSessionDuration") != new.get(
            "MaxSessionDuration"
        ):
            iam.update_role(
                RoleName=physical_id,
                Description=new.get("Description", ""),
                **({"MaxSessionDuration": new["MaxSessionDuration"]} if "MaxSessionDuration" in new else {}),
            )
        self._policies(iam, physical_id, old, new)
        role = iam.get_role(RoleName=physical_id)["Role"]
        return {"Arn": role["Arn"], "RoleId": role["RoleId"]}

    def delete(self, provisioning: Provisioning, physical_id: str, properties: dict[str, Any]) -> None:
        iam = provisioning.client("iam")
        try:
            for policy in iam.list_attached_role_policies(RoleName=physical_id)["AttachedPolicies"]:
                iam.detach_role_policy(RoleName=physical_id, PolicyArn=policy["PolicyArn"])
            for policy_name in iam.list_role_policies(RoleName=physical_id)["PolicyNames"]:
                iam.delete_role_policy(RoleName=physical_id, PolicyName=policy_name)
            iam.delete_role(RoleName=physical_id)
        except ClientError as error:
            if not not_found(error):
                raise


class Policy(ResourceType):
    """An inline policy put on each of its roles, users and groups."""

    type_name = "AWS::IAM::Policy"

    def create(self, provisioning: Provisioning, properties: dict[str, Any]) -> Created:
        required(properties, "PolicyDocument", "PolicyName")
        self._put(provisioning, properties)
        return Created(provisioning.name(128), {"Id": provisioning.logical_id})

    @staticmethod
    def _put(provisioning: Provisioning, properties: dict[str, Any]) -> None:
        iam, document = provisioning.client("iam"), _document(properties["PolicyDocument"])
        for role in properties.get("Roles") or []:
            iam.put_role_policy(RoleName=role, PolicyName=properties["PolicyName"], PolicyDocument=document)
        for user in properties.get("Users") or []:
            iam.put_user_policy(UserName=user, PolicyName=properties["PolicyName"], PolicyDocument=document)
        for group in properties.get("Groups") or []:
            iam.put_group_policy(GroupName=group, PolicyName=properties["PolicyName"], PolicyDocument=document)

    def update(
        self, provisioning: Provisioning, physical_id: str, old: dict[str, Any], new: dict[str, Any]
    ) -> dict[str, Any]:
        self.delete(provisioning, physical_id, old)
        self._put(provisioning, new)
        return {"Id": provisioning.logical_id}

    def delete(self, provisioning: Provisioning, physical_id: str, properties: dict[str, Any]) -> None:
        iam, name = provisioning.client("iam"), properties["PolicyName"]
        removals = (
            [(iam.delete_role_policy, {"RoleName": role}) for role in properties.get("Roles") or []]
            + [(iam.delete_user_policy, {"UserName": user}) for user in properties.get("Users") or []]
            + [(iam.delete_group_policy, {"GroupName": group}) for group in properties.get("Groups") or []]
        )
        for remove, owner in removals:
            try:
                remove(PolicyName=name, **owner)
            except ClientError as error:
                if not not_found(error):
                    raise


_ATTACHMENTS = (
    ("Roles", "RoleName", "attach_role_policy", "detach_role_policy"),
    ("Users", "UserName", "attach_user_policy", "detach_user_policy"),
    ("Groups", "GroupName", "attach_group_policy", "detach_group_policy"),
)


class ManagedPolicy(ResourceType):
    """A customer managed policy (CreatePolicy) attached to its roles, users and groups. ManagedPolicyName,
    Description and Path are create-only (its registry schema, cfn-lint's us_east_1/aws-iam-managedpolicy.json); a
    new PolicyDocument is a new default version (the oldest other version deleted first when IAM's five are there),
    attachments follow Roles, Users and Groups in place. Ref is the policy's ARN."""

    type_name = "AWS::IAM::ManagedPolicy"
    replacing = frozenset({"ManagedPolicyName", "Description", "Path"})
    name_property = "ManagedPolicyName"

    def create(self, provisioning: Provisioning, properties: dict[str, Any]) -> Created:
        required(properties, "PolicyDocument")
        iam = provisioning.client("iam")
        request = {
            "PolicyName": properties.get("ManagedPolicyName") or provisioning.name(128),
            "PolicyDocument": _document(properties["PolicyDocument"]),
            "Path": properties.get("Path", "/"),
            **({"Description": properties["Description"]} if "Description" in properties else {}),
        }
        arn = iam.create_policy(**request)["Policy"]["Arn"]
        self._attach(iam, arn, {}, properties)
        return Created(arn, self._attributes(iam, arn))

    @staticmethod
    def _attributes(iam: Any, arn: str) -> dict[str, Any]:
        policy = iam.get_policy(PolicyArn=arn)["Policy"]
        names = ("PolicyId", "DefaultVersionId", "AttachmentCount", "PermissionsBoundaryUsageCount", "IsAttachable")
        return {"PolicyArn": arn, **{name: policy[name] for name in names if name in policy}}

    @staticmethod
    def _attach(iam: Any, arn: str, old: dict[str, Any], new: dict[str, Any]) -> None:
        for key, member, attach, detach in _ATTACHMENTS:
            had, wanted = old.get(key) or [], new.get(key) or []
            for name in [name for name in had if name not in wanted]:
                try:
                    getattr(iam, detach)(PolicyArn=arn, **{member: name})
                except ClientError as error:
                    if not not_found(error):
                        raise
            for name in [name for name in wanted if name not in had]:
                getattr(iam, attach)(PolicyArn=arn, **{member: name})

    def update(
        self, provisioning: Provisioning, physical_id: str, old: dict[str, Any], new: dict[str, Any]
    ) -> dict[str, Any]:
        required(new, "PolicyDocument")
        iam = provisioning.client("iam")
        if old.get("PolicyDocument") != new["PolicyDocument"]:
            versions = iam.list_policy_versions(PolicyArn=physical_id)["Versions"]
            others = sorted((v for v in versions if not v["IsDefaultVersion"]), key=lambda v: v["CreateDate"])
            if len(versions) >= 5:
                iam.delete_policy_version(PolicyArn=physical_id, VersionId=others[0]["VersionId"])
            iam.create_policy_version(
                PolicyArn=physical_id, PolicyDocument=_document(new["PolicyDocument"]), SetAsDefault=True
            )
        self._attach(iam, physical_id, old, new)
        return self._attributes(iam, physical_id)

    def delete(self, provisioning: Provisioning, physical_id: str, properties: dict[str, Any]) -> None:
        iam = provisioning.client("iam")
        self._attach(iam, physical_id, properties, {})
        try:
            for version in iam.list_policy_versions(PolicyArn=physical_id)["Versions"]:
                if not version["IsDefaultVersion"]:
                    iam.delete_policy_version(PolicyArn=physical_id, VersionId=version["VersionId"])
            iam.delete_policy(PolicyArn=physical_id)
        except ClientError as error:
            if not not_found(error):
                raise


TYPES = [Role(), Policy(), ManagedPolicy()]

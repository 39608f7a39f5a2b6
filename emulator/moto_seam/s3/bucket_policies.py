"""Bucket policies as they apply to a request over HTTPS, which Eddy's endpoint stands for (moto evaluates no
conditions)."""

from __future__ import annotations

import json
from typing import Any

from moto.s3.models import FakeBucket

from eddy.emulator.moto_seam import Patches

original_get_permission = FakeBucket.get_permission


def over_https(policy: dict[str, Any]) -> dict[str, Any]:
    """A bucket policy as it applies to a request over HTTPS, which Eddy's endpoint stands for: a statement whose
    only condition is `Bool aws:SecureTransport` applies unconditionally when it asks for "true" and never when it
    asks for "false". moto evaluates no conditions, so without this the usual "deny unless TLS" statement (sam
    --resolve-s3's and cdk bootstrap's buckets carry one) denies every request."""
    statements = policy.get("Statement")
    if not isinstance(statements, list):
        return policy
    applied = []
    for statement in statements:
        condition = statement.get("Condition") if isinstance(statement, dict) else None
        secure = (
            (condition or {}).get("Bool", {}) if isinstance(condition, dict) and list(condition) == ["Bool"] else {}
        )
        if isinstance(secure, dict) and list(secure) == ["aws:SecureTransport"]:
            if str(secure["aws:SecureTransport"]).lower() == "false":
                continue
            statement = {key: value for key, value in statement.items() if key != "Condition"}
        applied.append(statement)
    return {**policy, "Statement": applied}


def _permission_over_https(self: FakeBucket, action: str, resource: str) -> Any:
    if self.policy is None:
        return original_get_permission(self, action, resource)
    try:
        policy = json.loads(self.policy.decode())
    except ValueError:
        return original_get_permission(self, action, resource)
    from moto.iam.access_control import IAMPolicy

    return IAMPolicy(json.dumps(over_https(policy))).is_action_permitted(action, resource)


_patches = Patches()


def install() -> None:
    _patches.set(FakeBucket, "get_permission", _permission_over_https)


def uninstall() -> None:
    _patches.restore()

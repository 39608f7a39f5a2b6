"""AWS managed IAM policies, each made in an account when it is first named.

Every account has AWS's managed policies (`arn:aws:iam::aws:policy/<path><name>`, e.g.
`arn:aws:iam::aws:policy/AWSLambdaExecute`). moto keeps their documents (moto.iam.aws_managed_policies, about 1,600
of them) but makes them in an account's IAM only when told to load all of them at once (its
`iam.load_aws_managed_policies` setting: seconds and megabytes for every account), so without it AttachRolePolicy of
one is NoSuchEntity "Policy ... does not exist or is not attachable." (LocalStack's AWS-validated
test_s3_notifications_lambda.py attaches AWSLambdaExecute). While an emulator is open, an operation that names one
by ARN (AttachRolePolicy, AttachUserPolicy, AttachGroupPolicy, GetPolicy) finds it: it is made in that account
from moto's document first, as moto would have made it. Policies moto has no document for stay missing.
"""

from __future__ import annotations

import functools
import json
from typing import Any

from moto.iam.models import AWSManagedPolicy, IAMBackend

from eddy.emulator.moto_seam import Patches

#: the operations of moto's IAM backend that look a policy up by its ARN, and the name of that argument
BY_ARN = ("attach_role_policy", "attach_user_policy", "attach_group_policy", "get_policy")
PREFIX = "arn:aws:iam::aws:policy/"

_patches = Patches()


def install() -> None:
    for name in BY_ARN:
        _patches.set(IAMBackend, name, _finding_aws_policies(getattr(IAMBackend, name)))


def uninstall() -> None:
    _patches.restore()


@functools.lru_cache(maxsize=1)
def _documents() -> dict[str, Any]:
    """moto's AWS managed policies by name (read once, when a first one is named)."""
    from moto.iam.aws_managed_policies import aws_managed_policies_data

    return json.loads(aws_managed_policies_data)


def _made(backend: IAMBackend, policy_arn: str) -> None:
    """The AWS managed policy `policy_arn`, made in `backend`'s account if moto has its document and it is not there."""
    if not isinstance(policy_arn, str) or not policy_arn.startswith(PREFIX) or policy_arn in backend.managed_policies:
        return
    name = policy_arn.rsplit("/", 1)[-1]
    data = _documents().get(name)
    if data is None:
        return
    policy = AWSManagedPolicy.from_data(name, backend.account_id, backend.region_name, data)
    if policy.arn != policy_arn:  # the ARN names another path than AWS's
        return
    backend.aws_managed_policies.append(policy)
    backend.managed_policies[policy.arn] = policy


def _finding_aws_policies(operation: Any) -> Any:
    @functools.wraps(operation)
    def found(self: IAMBackend, policy_arn: str, *args: Any, **kwargs: Any) -> Any:
        _made(self, policy_arn)
        return operation(self, policy_arn, *args, **kwargs)

    return found

"""A subscription's SubscriptionPrincipal: who subscribed, as SNS's GetSubscriptionAttributes names it.

AWS answers every subscription's attributes with ``SubscriptionPrincipal``, the IAM identity whose request made it
(``arn:aws:iam::<account>:user/<name>`` for a user: LocalStack's AWS-validated test_sns.snapshot.json,
TestSNSSubscriptionSQS::test_subscribe_sqs_queue and the other subscription-attributes snapshots); moto answers none.
Here Subscribe keeps the identity moto's STS gives the request's access key (GetCallerIdentity's), a user's in IAM's
form (moto's STS says ``arn:aws:sts::<account>:user/moto`` for keys IAM does not know), an assumed role's as STS
names it (no AWS recording of a role's was found). A repeated Subscribe of the same endpoint keeps the first.
"""

from __future__ import annotations

import functools
from typing import Any

from moto.sns.responses import SNSResponse
from moto.sts.models import sts_backends
from moto.utilities.utils import get_partition

from eddy.emulator.moto_seam import Patches

ATTRIBUTE = "SubscriptionPrincipal"

_patches = Patches()


def install() -> None:
    _patches.set(SNSResponse, "subscribe", _wrap_subscribe(SNSResponse.subscribe))


def uninstall() -> None:
    _patches.restore()


def principal(account: str, region: str, access_key: str) -> str:
    """The IAM principal of a request signed with `access_key` in `account`, as SNS names a subscriber."""
    partition = get_partition(region)
    _, arn, _ = sts_backends[account][partition].get_caller_identity(access_key, region)
    prefix = f"arn:{partition}:sts::{account}:user/"
    return f"arn:{partition}:iam::{account}:user/{arn[len(prefix):]}" if arn.startswith(prefix) else arn


def _wrap_subscribe(subscribe: Any) -> Any:
    @functools.wraps(subscribe)
    def subscribed(self: SNSResponse) -> Any:
        result = subscribe(self)
        subscription = self.backend.subscriptions.get(result.result["SubscriptionArn"])
        if subscription is not None and ATTRIBUTE not in subscription.attributes:
            subscription.attributes[ATTRIBUTE] = principal(
                self.current_account, self.region, self.get_access_key()
            )
        return result

    return subscribed

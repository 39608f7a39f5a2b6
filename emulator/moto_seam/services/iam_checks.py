"""moto's IAM checks loaded only where moto makes them. Before every action moto imports its IAM access control
(moto.iam.access_control, which loads moto's S3, and S3 its EventBridge and more) and only then asks whether
IAM is enforced (INITIAL_NO_AUTH_ACTION_COUNT, infinite unless a test sets it); not enforced, it only counts the
request. While an emulator is open the count is taken without that import, so a server that has served only
DynamoDB has not loaded S3; once IAM is enforced, moto's own method runs. Installed when moto.core is loaded
(moto_seam/__init__.py); pinned by tests/emulator/moto_seam/services/test_iam_checks.py."""

from __future__ import annotations

from moto import settings
from moto.core.authorization import ActionAuthenticatorMixin

from eddy.emulator.moto_seam import Patches

_original_normal_action = ActionAuthenticatorMixin._authenticate_and_authorize_normal_action


def _normal_action(self: ActionAuthenticatorMixin, resource: str = "*") -> None:
    if ActionAuthenticatorMixin.request_count < settings.INITIAL_NO_AUTH_ACTION_COUNT:
        ActionAuthenticatorMixin.request_count += 1  # what moto does while IAM is not enforced
        return
    _original_normal_action(self, resource)


_patches = Patches()


def install() -> None:
    _patches.set(ActionAuthenticatorMixin, "_authenticate_and_authorize_normal_action", _normal_action)


def uninstall() -> None:
    _patches.restore()

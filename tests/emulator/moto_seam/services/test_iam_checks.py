"""iam_checks.py: moto's IAM access control is imported only once IAM is enforced; what moto answers is unchanged
(enforced or not), and moto's method is still the shape the patch was written against."""

from __future__ import annotations

import inspect

import boto3
from botocore.exceptions import ClientError
from moto import mock_aws
from moto.core import set_initial_no_auth_action_count
from moto.core.authorization import ActionAuthenticatorMixin

from eddy import emulate
from eddy.emulator.moto_seam.services import iam_checks
from tests.conftest import QUIET


def test_moto_imports_its_access_control_before_it_asks_whether_iam_is_enforced():
    assert "from moto.iam.access_control import IAMRequest" in inspect.getsource(iam_checks._original_normal_action)
    checks = inspect.getsource(ActionAuthenticatorMixin._authenticate_and_authorize_action)
    assert "ActionAuthenticatorMixin.request_count\n            >= settings.INITIAL_NO_AUTH_ACTION_COUNT" in checks
    assert "ActionAuthenticatorMixin.request_count += 1" in checks


def _list_tables_as_an_unknown_key() -> object:
    dynamodb = boto3.client("dynamodb", region_name="us-east-1", aws_access_key_id="AKIAUNKNOWNKEY000000",
                            aws_secret_access_key="unknown")
    try:
        return dynamodb.list_tables()["TableNames"]
    except ClientError as refused:
        return refused.response["Error"], refused.response["ResponseMetadata"]["HTTPStatusCode"]


@set_initial_no_auth_action_count(0)
def _enforced(block) -> object:
    with block():
        return _list_tables_as_an_unknown_key()


def test_enforced_iam_refuses_as_moto_refuses():
    with_moto = _enforced(mock_aws)
    assert with_moto[1] == 403 and "<Code>InvalidClientTokenId</Code>" in with_moto[0]["Message"]
    assert _enforced(lambda: emulate(**QUIET)) == with_moto


def test_unenforced_iam_counts_each_request_as_moto_does():
    with emulate(**QUIET):
        before = ActionAuthenticatorMixin.request_count
        assert _list_tables_as_an_unknown_key() == []
        assert ActionAuthenticatorMixin.request_count == before + 1

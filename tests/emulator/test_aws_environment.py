"""emulate() as on AWS: a region and credentials where none are configured (restored after), what is configured
left alone, and a client made before the block reaching Eddy like the others."""

from __future__ import annotations

import os
from pathlib import Path

import boto3

from eddy import emulate
from eddy.emulator.aws_environment import DEFAULT_REGION, session_for

QUIET = {"housekeeping_interval": None}


def test_emulate_gives_a_region_and_credentials_and_takes_them_back(unconfigured: None) -> None:
    with emulate(**QUIET):
        assert os.environ["AWS_DEFAULT_REGION"] == DEFAULT_REGION
        dynamodb = boto3.client("dynamodb")  # no NoRegionError, no NoCredentialsError
        dynamodb.create_table(TableName="orders", KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                              AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                              BillingMode="PAY_PER_REQUEST")
        assert dynamodb.describe_table(TableName="orders")["Table"]["TableArn"].startswith("arn:aws:dynamodb:us-east-1:")
    assert "AWS_DEFAULT_REGION" not in os.environ
    assert "AWS_ACCESS_KEY_ID" not in os.environ and "AWS_SECRET_ACCESS_KEY" not in os.environ


def test_a_configured_region_and_profile_are_left_alone(unconfigured: None) -> None:
    Path(os.environ["AWS_CONFIG_FILE"]).write_text("[default]\nregion = eu-west-1\n")
    with emulate(**QUIET):
        assert "AWS_DEFAULT_REGION" not in os.environ
        assert boto3.client("dynamodb").meta.region_name == "eu-west-1"


def test_a_client_made_before_emulate_without_credentials_reaches_eddy(unconfigured: None) -> None:
    early = boto3.client("dynamodb", region_name="us-east-1")  # no credentials anywhere when it was made
    with emulate(**QUIET):
        early.create_table(TableName="orders", KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                           AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                           BillingMode="PAY_PER_REQUEST")
        assert boto3.client("dynamodb").list_tables()["TableNames"] == ["orders"]


def test_a_session_for_eddys_endpoint_has_a_region_and_fake_credentials(unconfigured: None) -> None:
    session = session_for("http://127.0.0.1:1")
    assert session.region_name == DEFAULT_REGION
    assert session.get_credentials().access_key == "testing"
    assert session_for(None).get_credentials() is None  # AWS itself: the caller's own business


def _botocores_answer() -> bool:
    """Whether botocore's own credential chain (without its network providers) finds credentials."""
    import botocore.session

    resolver = botocore.session.Session().get_component("credential_provider")
    for name in ("iam-role", "container-role"):
        resolver.remove(name)
    try:
        return resolver.load_credentials() is not None
    except Exception:
        return False


def test_credentials_are_found_where_botocore_finds_them(unconfigured: None, monkeypatch) -> None:
    """credentials_configured answers without building botocore's chain when the environment has keys or nothing
    names any (no variable, no file): in each case what botocore's chain answers."""
    from eddy.emulator.aws_environment import credentials_configured

    config, shared = Path(os.environ["AWS_CONFIG_FILE"]), Path(os.environ["AWS_SHARED_CREDENTIALS_FILE"])
    monkeypatch.setenv("HOME", str(config.parent))  # no ~/.boto
    cases = []
    cases.append(("nothing", credentials_configured(), _botocores_answer()))
    config.write_text("[default]\nregion = eu-west-1\n")
    cases.append(("a region only", credentials_configured(), _botocores_answer()))
    shared.write_text("[default]\naws_access_key_id = a\naws_secret_access_key = b\n")
    cases.append(("a credentials file", credentials_configured(), _botocores_answer()))
    shared.unlink()
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "a")
    cases.append(("a key without its secret", credentials_configured(), _botocores_answer()))
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "b")
    cases.append(("keys in the environment", credentials_configured(), _botocores_answer()))
    assert cases == [("nothing", False, False), ("a region only", False, False), ("a credentials file", True, True),
                     ("a key without its secret", False, False), ("keys in the environment", True, True)]

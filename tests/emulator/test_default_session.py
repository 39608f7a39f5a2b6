"""boto3's default session inside emulate(): as fresh as moto's own (credentials read anew at every block), given
back when the block ends, and reading botocore's models once per process (aws_environment.fresh_session)."""

from __future__ import annotations

import boto3
import pytest

from eddy import emulate
from eddy.emulator import aws_environment
from eddy.emulator.aws_environment import fresh_session


def test_each_block_has_its_own_default_session_whose_clients_read_the_credentials_of_their_block(monkeypatch):
    before = boto3.DEFAULT_SESSION
    seen = []
    for key in ("first-block-key", "second-block-key"):
        with emulate():
            monkeypatch.setenv("AWS_ACCESS_KEY_ID", key)  # over the fake one moto sets for its block
            client = boto3.client("dynamodb", region_name="us-east-1")
            client.create_table(TableName="orders", BillingMode="PAY_PER_REQUEST",
                                KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                                AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}])
            seen.append((boto3.DEFAULT_SESSION, client._request_signer._credentials.access_key,
                         client.list_tables()["TableNames"]))
        assert boto3.DEFAULT_SESSION is before
    (first, first_key, first_tables), (second, second_key, second_tables) = seen
    assert first is not second
    assert (first_key, first_tables, second_key, second_tables) == (
        "first-block-key", ["orders"], "second-block-key", ["orders"])
    # one loader (botocore's models, read once) behind both blocks' sessions
    assert first._session.get_component("data_loader") is second._session.get_component("data_loader")


def test_a_fresh_session_takes_boto3s_options_and_shares_the_loader():
    one, other = fresh_session(region_name="eu-west-1"), fresh_session(region_name="ap-south-1",
                                                                       aws_access_key_id="a", aws_secret_access_key="b")
    assert (one.region_name, other.region_name, other.get_credentials().access_key) == ("eu-west-1", "ap-south-1", "a")
    assert one._session.get_component("data_loader") is other._session.get_component("data_loader")
    with pytest.raises(Exception, match="Unknown service"):
        one.client("no-such-service")


def test_the_loader_made_before_any_session_is_the_one_a_session_would_have(monkeypatch, tmp_path):
    # without a config file a session's data path is AWS_DATA_PATH's; the loader is made as boto3.Session makes it
    # (botocore's create_loader, then boto3's data folder), and the sessions made afterwards share it
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "no-config"))
    monkeypatch.setenv("AWS_DATA_PATH", str(tmp_path / "models"))
    monkeypatch.setattr(aws_environment, "_loaders", {})
    loader = aws_environment.shared_loader()
    session = fresh_session(region_name="eu-west-1")
    assert session._session.get_component("data_loader") is loader
    assert loader.search_paths == boto3.Session(region_name="eu-west-1")._loader.search_paths
    assert loader.search_paths[0] == str(tmp_path / "models")
    assert loader.load_service_model("dynamodb", "service-2")["metadata"]["serviceId"] == "DynamoDB"


@pytest.mark.parametrize("service, type_name", [
    ("dynamodb", "service-2"), ("s3", "service-2"), ("sqs", "paginators-1"), ("dynamodbstreams", "endpoint-rule-set-1"),
    ("ec2", "waiters-2"), ("dynamodb", "resources-1"),  # boto3's own data folder
])
def test_the_shared_loader_loads_the_models_botocores_loader_loads_without_listing_every_service(
        monkeypatch, tmp_path, service, type_name):
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "no-config"))
    monkeypatch.delenv("AWS_DATA_PATH", raising=False)
    monkeypatch.setattr(aws_environment, "_loaders", {})
    ours, botocores = aws_environment.shared_loader(), boto3.Session(region_name="us-east-1")._loader
    assert ours.load_service_model(service, type_name) == botocores.load_service_model(service, type_name)
    assert [key for key in ours._cache if key[0] == "list_available_services"] == []
    # an api_version named takes botocore's own method
    version = ours.determine_latest_version(service, type_name)
    assert ours.load_service_model(service, type_name, version) == botocores.load_service_model(service, type_name)


@pytest.mark.parametrize("service", ["no-such-service", "dynamodb/2012-08-10", ".."])
def test_the_shared_loader_refuses_what_botocores_refuses_in_its_words(monkeypatch, tmp_path, service):
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "no-config"))
    monkeypatch.setattr(aws_environment, "_loaders", {})
    ours, botocores = aws_environment.shared_loader(), boto3.Session(region_name="us-east-1")._loader

    def refusal(loader):
        with pytest.raises(Exception) as refused:
            loader.load_service_model(service, "service-2")
        return type(refused.value).__name__, str(refused.value)

    assert refusal(ours) == refusal(botocores)
    assert refusal(ours)[0] == "UnknownServiceError"

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


#: events of each kind botocore's built-in handlers listen to, a service's and an operation's among them
EVENTS = ["before-send.dynamodb.PutItem", "before-sign.s3.PutObject", "before-parameter-build.s3.PutObject",
          "provide-client-params.s3.GetObject", "needs-retry.dynamodb.GetItem", "after-call.ec2.DescribeInstances",
          "before-call.sqs.SendMessage", "creating-client-class.s3", "choose-signer.cognito-identity.GetId",
          "service-data-loaded", "docs.*.glacier.*.complete-section", "request-created.machinelearning.Predict"]


def handlers(session: boto3.Session, event: str) -> list:
    """The handlers a session's botocore emitter calls for `event`, in the order it calls them; a closure (boto3's
    lazy_call makes one per session) as its name and what it closes over."""
    return [(handler.__qualname__, [cell.cell_contents for cell in handler.__closure__])
            if getattr(handler, "__closure__", None) else handler
            for handler in session._session.get_component("event_emitter")._emitter._handlers.prefix_search(event)]


def test_a_fresh_sessions_handlers_are_a_new_sessions_and_its_own(monkeypatch):
    from botocore import handlers as builtin

    names = {spec[0] for spec in builtin.BUILTIN_HANDLERS} | set(EVENTS)
    ours, theirs = fresh_session(region_name="us-east-1"), boto3.Session(region_name="us-east-1")
    assert {name: handlers(ours, name) for name in names} == {name: handlers(theirs, name) for name in names}
    assert sum(len(handlers(ours, name)) for name in EVENTS) > 20

    # a handler one session registers is its own
    def mine(**_):
        return None

    ours.events.register("before-send.dynamodb", mine)
    assert mine in handlers(ours, "before-send.dynamodb.PutItem")
    assert mine not in handlers(fresh_session(region_name="us-east-1"), "before-send.dynamodb.PutItem")

    # a built-in handler added later (as moto adds its own) is in every session made after, once; a session's
    # initializers run for each session, once
    monkeypatch.setattr(builtin, "BUILTIN_HANDLERS", [*builtin.BUILTIN_HANDLERS, ("before-send.s3", mine)])
    initialized = []
    botocore_module = __import__("botocore")
    botocore_module.register_initializer(initialized.append)
    try:
        later, other = fresh_session(region_name="us-east-1"), fresh_session(region_name="us-east-1")
    finally:
        botocore_module.unregister_initializer(initialized.append)
    assert handlers(later, "before-send.s3.PutObject").count(mine) == 1
    assert handlers(later, "before-send.s3.PutObject") == handlers(boto3.Session(), "before-send.s3.PutObject")
    assert initialized == [later._session, other._session]

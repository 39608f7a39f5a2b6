"""Any service moto serves is durable, not only the ones Eddy names: SSM, KMS and Cognito-IdP hold what pickle
cannot carry as it is (SSM a lambda as a defaultdict's factory, KMS and Cognito-IdP RSA key objects), and still
come back after a clean restart and after many snapshots, in both doors. A snapshot that fails never fails a
client's request and never loses the log."""

from __future__ import annotations

import base64
import json
import logging
from typing import Any, Callable

import pytest

from eddy import emulate
from eddy.emulator.storage import persistence
from tests.conftest import QUIET, ServerDoor, eddy_server
from tests.durability.service_listings import running
from tests.emulator.helpers import create_table

SECRET = b"attack at dawn"


@pytest.fixture(params=["inprocess", "server"])
def kind(request: pytest.FixtureRequest) -> str:
    return request.param


def use_other_services(client: Callable[[str], Any]) -> dict[str, Any]:
    """SSM parameters, KMS keys (symmetric and RSA) and a Cognito user pool; answers what the client was given."""
    ssm, kms, cognito = client("ssm"), client("kms"), client("cognito-idp")
    ssm.put_parameter(Name="/app/url", Value="https://example.com", Type="String",
                      Tags=[{"Key": "team", "Value": "web"}])
    ssm.put_parameter(Name="/app/url", Value="https://example.org", Type="String", Overwrite=True)
    ssm.put_parameter(Name="/app/password", Value="s3cret", Type="SecureString")
    key = kms.create_key(Description="app data")["KeyMetadata"]["KeyId"]
    kms.create_alias(AliasName="alias/app", TargetKeyId=key)
    signing = kms.create_key(KeySpec="RSA_2048", KeyUsage="SIGN_VERIFY")["KeyMetadata"]["KeyId"]
    pool = cognito.create_user_pool(PoolName="customers")["UserPool"]["Id"]
    cognito.admin_create_user(UserPoolId=pool, Username="ada",
                              UserAttributes=[{"Name": "email", "Value": "ada@example.com"}])
    cognito.create_user_pool_client(UserPoolId=pool, ClientName="web")
    return {"key": key, "signing": signing, "pool": pool,
            "ciphertext": kms.encrypt(KeyId="alias/app", Plaintext=SECRET)["CiphertextBlob"],
            "signature": kms.sign(KeyId=signing, Message=b"invoice 7", MessageType="RAW",
                                  SigningAlgorithm="RSASSA_PSS_SHA_256")["Signature"]}


def other_listings(client: Callable[[str], Any], made: dict[str, Any]) -> dict[str, Any]:
    ssm, kms, cognito = client("ssm"), client("kms"), client("cognito-idp")
    answers = {
        "parameters": ssm.get_parameters_by_path(Path="/app", WithDecryption=True)["Parameters"],
        "history": ssm.get_parameter_history(Name="/app/url")["Parameters"],
        "parameter tags": ssm.list_tags_for_resource(ResourceType="Parameter", ResourceId="/app/url")["TagList"],
        "keys": kms.list_keys()["Keys"],
        "key": kms.describe_key(KeyId=made["key"])["KeyMetadata"],
        "aliases": [alias for alias in kms.list_aliases()["Aliases"] if "TargetKeyId" in alias],
        "public key": kms.get_public_key(KeyId=made["signing"])["PublicKey"],
        "pools": cognito.list_user_pools(MaxResults=10)["UserPools"],
        "pool": cognito.describe_user_pool(UserPoolId=made["pool"])["UserPool"],
        "users": cognito.list_users(UserPoolId=made["pool"])["Users"],
        "pool clients": cognito.list_user_pool_clients(UserPoolId=made["pool"])["UserPoolClients"],
    }
    return {name: answer for name, answer in answers.items()}


def assert_keys_work(client: Callable[[str], Any], made: dict[str, Any]) -> None:
    """The keys made before the restart are the same keys: what they encrypted and signed then checks now."""
    kms = client("kms")
    assert kms.decrypt(CiphertextBlob=made["ciphertext"])["Plaintext"] == SECRET
    assert kms.verify(KeyId=made["signing"], Message=b"invoice 7", MessageType="RAW", Signature=made["signature"],
                      SigningAlgorithm="RSASSA_PSS_SHA_256")["SignatureValid"] is True


def test_they_come_back_from_the_log_alone_after_a_kill_9_and_from_a_snapshot_after_a_clean_restart(kind, tmp_path):
    """No snapshot at the kill: recovery replays the requests. A KMS key's symmetric material is drawn from the
    request's seed; an RSA key, which no seed makes again, was kept with its CreateKey request: both are the keys they
    were. Then the clean stop folds the services into a snapshot (pickled: nothing kept back as a journal), and the
    next start brings them back from it. In-process the first run ends as a crash leaves it (no final snapshot,
    nothing more written: storage's leave_as_is); the server is killed with kill -9."""
    state = tmp_path / "state"
    if kind == "server":
        with eddy_server("--state-dir", str(state), "--housekeeping-interval", "0") as (url, process):
            made = use_other_services(ServerDoor(url).client)
            before = _plain(other_listings(ServerDoor(url).client, made))
            process.kill()
            process.wait()
    else:
        with emulate(state_dir=str(state), **QUIET) as emu:
            made = use_other_services(_client)
            before = _plain(other_listings(_client, made))
            emu.persistence.leave_as_is()
    assert not (state / "snapshots").exists()
    with running(kind, str(state)) as door:
        assert _plain(other_listings(door.client, made)) == before
        assert_keys_work(door.client, made)
    # the clean stop folded the services into a snapshot (pickled: nothing kept back as a journal)
    assert [path.suffix for path in sorted((state / "snapshots").iterdir())] == [".services", ".snapshot"]
    with running(kind, str(state)) as door:
        assert _plain(other_listings(door.client, made)) == before
        assert_keys_work(door.client, made)


def _plain(answers: dict[str, Any]) -> Any:
    """Answers as JSON would carry them (bytes as base64, times as text)."""
    return json.loads(json.dumps(answers, default=lambda value: base64.b64encode(value).decode()
                                 if isinstance(value, bytes) else str(value)))


def test_items_put_after_using_them_are_all_acknowledged_and_all_come_back(kind, tmp_path):
    """With a snapshot every few log entries, every request is followed by a snapshot of all the services."""
    state = tmp_path / "state"
    with running(kind, str(state), snapshot_every=3) as door:
        made = use_other_services(door.client)
        dynamodb = door.client("dynamodb")
        create_table(dynamodb, "orders")
        for n in range(20):  # each answered 200 (boto3 raises on an error answer)
            dynamodb.put_item(TableName="orders", Item={"pk": {"S": f"order-{n}"}})
        door.client("ssm").put_parameter(Name="/app/after", Value="items", Type="String")
        before = other_listings(door.client, made)
        generation = int(max((state / "snapshots").glob("*.snapshot")).stem)
    assert generation >= 12  # one at least after each of the 12 requests to moto's services (each weighs 10)
    with running(kind, str(state), snapshot_every=3) as door:
        assert other_listings(door.client, made) == before
        assert_keys_work(door.client, made)
        items = door.client("dynamodb").scan(TableName="orders")["Items"]
        assert sorted(item["pk"]["S"] for item in items) == sorted(f"order-{n}" for n in range(20))


def test_a_service_that_cannot_be_pickled_keeps_its_journal(tmp_path, caplog):
    """The safety net: moto's state holding something no reducer carries (here a lambda put into SSM's backend)
    is not folded into the snapshot; the requests to moto's services are kept instead, as a journal beside it, and
    carried from snapshot to snapshot, so a restart replays them: nothing lost, and no request failed."""
    from moto.ssm.models import ssm_backends

    caplog.set_level(logging.WARNING, logger="eddy")
    state = str(tmp_path / "state")
    with emulate(state_dir=state, snapshot_every=3, **QUIET):
        made = use_other_services(_client)
        ssm_backends["123456789012"]["us-east-1"].unpicklable = lambda: None
        _client("ssm").put_parameter(Name="/app/first-run", Value="1", Type="String")
        create_table(_client("dynamodb"), "orders")
        _client("dynamodb").put_item(TableName="orders", Item={"pk": {"S": "a"}})
    assert any("cannot be folded into a snapshot" in record.getMessage() for record in caplog.records)
    with emulate(state_dir=state, snapshot_every=3, **QUIET):
        assert_keys_work(_client, made)  # the journal replayed the keys' requests onto the last pickled state
        _client("ssm").put_parameter(Name="/app/second-run", Value="2", Type="String")
        ssm_backends["123456789012"]["us-east-1"].unpicklable = lambda: None
    with emulate(state_dir=state, **QUIET):
        names = [p["Name"] for p in _client("ssm").get_parameters_by_path(Path="/app")["Parameters"]]
        assert sorted(names) == ["/app/first-run", "/app/password", "/app/second-run", "/app/url"]
        assert [i["pk"]["S"] for i in _client("dynamodb").scan(TableName="orders")["Items"]] == ["a"]


def test_a_failed_snapshot_fails_no_request_and_loses_nothing(tmp_path, monkeypatch, caplog):
    """A snapshot that cannot be written (here: the disk refuses it) is logged; the request that was due to take it
    is answered as its write was acknowledged, the log is kept whole, and the next start recovers from it."""
    caplog.set_level(logging.ERROR, logger="eddy")
    state = str(tmp_path / "state")
    written = persistence.write_snapshot

    def disk_full(*args: Any, **kwargs: Any) -> Any:
        raise OSError(28, "No space left on device")

    with emulate(state_dir=state, snapshot_every=5, **QUIET):
        dynamodb = _client("dynamodb")
        create_table(dynamodb, "orders")
        monkeypatch.setattr(persistence, "write_snapshot", disk_full)
        for n in range(12):
            dynamodb.put_item(TableName="orders", Item={"pk": {"S": f"order-{n}"}})
        _client("sqs").create_queue(QueueName="jobs")
    failures = [record for record in caplog.records if record.getMessage().startswith("a snapshot failed")]
    assert failures and all("No space left on device" in str(record.exc_info[1]) for record in failures)
    monkeypatch.setattr(persistence, "write_snapshot", written)
    with emulate(state_dir=state, **QUIET):
        items = _client("dynamodb").scan(TableName="orders")["Items"]
        assert sorted(item["pk"]["S"] for item in items) == sorted(f"order-{n}" for n in range(12))
        assert [url.rsplit("/", 1)[1] for url in _client("sqs").list_queues()["QueueUrls"]] == ["jobs"]


def _client(name: str) -> Any:
    import boto3

    return boto3.client(name, region_name="us-east-1")

"""One caller parser (emulator/callers.py): the region a request is signed for, then its endpoint's, then us-east-1;
the account moto is told (MOTO_ACCOUNT_ID, x-moto-account-id), then the access key's. SigV4's credential scope is
`<access key>/<date>/<region>/<service>/aws4_request` (AWS General Reference, "Elements of an AWS API request
signature"), in the Authorization header or in a presigned URL's X-Amz-Credential."""

from __future__ import annotations

import os
import subprocess
import sys

import boto3
import pytest

from eddy.emulator import callers
from eddy.emulator.aws_requests import Request
from eddy.emulator.moto_seam import actions, bridge

SIGNED = "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20250101/eu-west-1/dynamodb/aws4_request, SignedHeaders=host, Signature=ab"


@pytest.mark.parametrize("authorization, url, expected", [
    (SIGNED, "https://dynamodb.us-west-2.amazonaws.com/", callers.Scope("AKIDEXAMPLE", "eu-west-1", "dynamodb")),
    ("", "https://b.s3.amazonaws.com/k?X-Amz-Credential=AKIDEXAMPLE%2F20250101%2Fap-south-1%2Fs3%2Faws4_request&X-Amz-Date=1",
     callers.Scope("AKIDEXAMPLE", "ap-south-1", "s3")),
    ("", "https://dynamodb.us-west-2.amazonaws.com/", None),
    ("AWS4-HMAC-SHA256 SignedHeaders=host, Credential=AKID/20250101/eu-west-3/dynamodb/aws4_request, Signature=ab",
     "https://dynamodb.us-west-2.amazonaws.com/", callers.Scope("AKID", "eu-west-3", "dynamodb")),  # not first
    ("AWS4-HMAC-SHA256 Credential=AKID/2025/eu-west-3/dynamodb/aws4_request, X Credential=B/20250101/sa-east-1/s3/",
     "https://dynamodb.us-west-2.amazonaws.com/", callers.Scope("B", "sa-east-1", "s3")),  # the first that is one
])
def test_the_scope_is_the_signatures(authorization, url, expected):
    assert callers.scope_of(authorization, url) == expected
    assert callers.scope_of(authorization, url) == expected  # read again: the same
    match = callers._CREDENTIAL.search(authorization) or callers._QUERY_CREDENTIAL.search(url)
    assert expected == (callers.Scope(*match.groups()) if match else None)  # the first match of the whole header's


@pytest.mark.parametrize("authorization, url, expected", [
    (SIGNED, "https://dynamodb.us-west-2.amazonaws.com/", "eu-west-1"),  # the signature's scope first
    ("", "https://streams.dynamodb.us-west-2.amazonaws.com/", "us-west-2"),  # then the endpoint's
    ("", "http://127.0.0.1:4566/", "us-east-1"),  # then the default
])
def test_the_region_is_the_scopes_then_the_endpoints_then_us_east_1(authorization, url, expected):
    assert callers.region_of(authorization, url) == expected
    assert callers.region_in(callers.scope_of(authorization, url), url) == expected  # the scope read once, by moto_caller


def test_the_account_is_the_one_named_then_the_access_keys(monkeypatch):
    monkeypatch.delenv("MOTO_ACCOUNT_ID", raising=False)
    by_key = {"AKIDEXAMPLE": "111122223333"}.__getitem__
    assert callers.account_of({"x-moto-account-id": "444455556666"}.get, "AKIDEXAMPLE", by_key) == "444455556666"
    assert callers.account_of({}.get, "AKIDEXAMPLE", by_key) == "111122223333"
    monkeypatch.setenv("MOTO_ACCOUNT_ID", "777788889999")
    assert callers.account_of({"x-moto-account-id": "444455556666"}.get, "AKIDEXAMPLE", by_key) == "777788889999"


def test_an_environment_variable_is_read_as_os_environ_get_reads_it(monkeypatch):
    # aws_environment.variable reads os.environ's own dict (no KeyError raised for an unset name): the same answers
    # as os.environ.get, through every way a test changes the environment, and nothing kept from an earlier answer
    from unittest import mock

    from eddy.emulator.aws_environment import variable

    name = "EDDY_TEST_VARIABLE_READ"
    monkeypatch.delenv(name, raising=False)
    seen = [variable(name)]
    monkeypatch.setenv(name, "one")
    seen.append(variable(name))
    os.environ[name] = "twé"  # not ASCII: decoded as os.environ decodes it
    seen.append(variable(name))
    with mock.patch.dict(os.environ, {name: "three"}):
        seen.append(variable(name))
    del os.environ[name]
    seen.append(variable(name))
    with mock.patch.object(os, "environ", {name: "a plain dict"}):  # os.environ replaced: its own get answers
        seen.append(variable(name))
    assert seen == [None, "one", "twé", "three", None, "a plain dict"]


def test_moto_account_id_set_between_calls_moves_the_next_call_to_its_account(emu, monkeypatch):
    # moto's MOTO_ACCOUNT_ID names the caller's account (moto.core.responses reads it on every request); the fast
    # path (PutItem, GetItem) reads it afresh on each call too, so a test that switches accounts by setting it sees
    # another account's tables at once, and its own again once it is removed
    monkeypatch.delenv("MOTO_ACCOUNT_ID", raising=False)
    client = boto3.client("dynamodb", region_name="us-east-1")
    table = dict(TableName="ledger", KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                 AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}], BillingMode="PAY_PER_REQUEST")
    arns = [client.create_table(**table)["TableDescription"]["TableArn"]]
    client.put_item(TableName="ledger", Item={"pk": {"S": "a"}, "owner": {"S": "default"}})
    monkeypatch.setenv("MOTO_ACCOUNT_ID", "111122223333")
    with pytest.raises(client.exceptions.ResourceNotFoundException) as missing:
        client.get_item(TableName="ledger", Key={"pk": {"S": "a"}})
    arns.append(client.create_table(**table)["TableDescription"]["TableArn"])
    client.put_item(TableName="ledger", Item={"pk": {"S": "a"}, "owner": {"S": "other"}})
    items = [client.get_item(TableName="ledger", Key={"pk": {"S": "a"}})["Item"]]
    monkeypatch.delenv("MOTO_ACCOUNT_ID")
    items.append(client.get_item(TableName="ledger", Key={"pk": {"S": "a"}})["Item"])
    assert missing.value.response["Error"] == {
        "Code": "ResourceNotFoundException", "Message": "Requested resource not found"}
    assert arns == ["arn:aws:dynamodb:us-east-1:123456789012:table/ledger",
                    "arn:aws:dynamodb:us-east-1:111122223333:table/ledger"]
    assert items == [{"pk": {"S": "a"}, "owner": {"S": "other"}}, {"pk": {"S": "a"}, "owner": {"S": "default"}}]


def test_the_door_and_the_fast_path_read_the_same_caller(monkeypatch):
    monkeypatch.delenv("MOTO_ACCOUNT_ID", raising=False)
    request = Request("POST", "https://dynamodb.eu-west-1.amazonaws.com/", {"Authorization": SIGNED})
    assert (bridge.caller(request), actions.moto_caller(request.url, request.header)) == (
        ("123456789012", "eu-west-1"), ("123456789012", "eu-west-1", "AKIDEXAMPLE"))
    named = Request("POST", request.url, {"authorization": SIGNED, "User-Agent": "x", "X-MOTO-Account-Id": b"444455556666"})
    assert (bridge.caller(named), actions.moto_caller(named.url, named.header)) == (
        ("444455556666", "eu-west-1"), ("444455556666", "eu-west-1", "AKIDEXAMPLE"))


def test_a_header_is_found_by_its_name_in_any_case_and_a_missing_one_is_the_default():
    request = Request("POST", "http://127.0.0.1:4566/", {"X-Amz-Target": "DynamoDB_20120810.GetItem",
                                                         "content-TYPE": b"application/x-amz-json-1.0"})
    assert [request.header(name, "none") for name in (
        "X-Amz-Target", "x-amz-target", "Content-Type", "x-moto-account-id", "Target", "content-type\nx")] == [
        "DynamoDB_20120810.GetItem", "DynamoDB_20120810.GetItem", "application/x-amz-json-1.0", "none", "none", "none"]


def test_the_x_moto_account_id_header_in_any_case_names_the_account_on_every_path(door):
    # moto reads x-moto-account-id as the caller's account (moto.core.responses); a header's name is
    # case-insensitive (RFC 9110 5.1), and the server door hands it on as werkzeug spells it (X-Moto-Account-Id)
    client = door.client("dynamodb")
    named = door.client("dynamodb")
    named.meta.events.register("before-sign.dynamodb.*", lambda request, **_: request.headers.add_header(
        "X-MOTO-ACCOUNT-ID", "111122223333"))
    arn = named.create_table(TableName="ledger", KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                             AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                             BillingMode="PAY_PER_REQUEST")["TableDescription"]["TableArn"]
    named.put_item(TableName="ledger", Item={"pk": {"S": "a"}})
    with pytest.raises(client.exceptions.ResourceNotFoundException) as missing:
        client.get_item(TableName="ledger", Key={"pk": {"S": "a"}})
    assert (arn, named.get_item(TableName="ledger", Key={"pk": {"S": "a"}})["Item"]) == (
        "arn:aws:dynamodb:us-east-1:111122223333:table/ledger", {"pk": {"S": "a"}})
    assert missing.value.response["Error"] == {
        "Code": "ResourceNotFoundException", "Message": "Requested resource not found"}


def test_a_request_in_another_region_keeps_its_signer():
    request = Request("POST", "https://dynamodb.eu-west-1.amazonaws.com/", {"Authorization": SIGNED, "User-Agent": "x"})
    moved = request.in_region("ap-south-1")
    assert (moved.url, moved.headers) == ("https://dynamodb.ap-south-1.amazonaws.com/", {
        "Authorization": "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20250101/ap-south-1/dynamodb/aws4_request, "
                         "SignedHeaders=host, Signature=ab"})
    unsigned = Request("POST", "http://127.0.0.1:4566/", {}).in_region("ap-south-1")
    assert unsigned.headers == {"Authorization": callers.authorization("ap-south-1", "dynamodb")}


@pytest.mark.parametrize("url, expected", [
    ("https://dynamodb.eu-west-1.amazonaws.com/", "https://dynamodb.ap-south-1.amazonaws.com/"),
    ("https://streams.dynamodb.eu-west-1.amazonaws.com/x", "https://streams.dynamodb.ap-south-1.amazonaws.com/x"),
    ("http://127.0.0.1:4566/", "http://127.0.0.1:4566/"),  # Eddy's own endpoint names no region: kept
])
def test_an_endpoint_moved_to_another_region(url, expected):
    assert callers.endpoint_in_region(url, "ap-south-1") == expected


def test_an_access_key_iam_made_in_another_account_speaks_for_that_account_on_every_path(door):
    # moto maps an access key its IAM made to that key's account (moto.iam.models.get_account_id_from); Eddy's fast
    # path (PutItem, GetItem: moto_seam/actions.py) reads the same mapping as moto's full path (CreateTable, ListTables)
    iam = door.client("iam")
    iam.meta.events.register("before-sign.iam.*", lambda request, **_: request.headers.add_header(
        "x-moto-account-id", "111122223333"))
    iam.create_user(UserName="writer")
    key = iam.create_access_key(UserName="writer")["AccessKey"]
    endpoint = door.client("dynamodb").meta.endpoint_url
    writer = boto3.client("dynamodb", region_name="us-east-1", endpoint_url=endpoint,
                          aws_access_key_id=key["AccessKeyId"], aws_secret_access_key=key["SecretAccessKey"])
    arn = writer.create_table(TableName="ledger", KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                              AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                              BillingMode="PAY_PER_REQUEST")["TableDescription"]["TableArn"]
    writer.put_item(TableName="ledger", Item={"pk": {"S": "a"}})
    assert arn == "arn:aws:dynamodb:us-east-1:111122223333:table/ledger"
    assert writer.get_item(TableName="ledger", Key={"pk": {"S": "a"}})["Item"] == {"pk": {"S": "a"}}
    assert (writer.list_tables()["TableNames"], door.client("dynamodb").list_tables()["TableNames"]) == (["ledger"], [])


def test_the_seam_loads_neither_moto_iam_nor_cryptography_before_a_request_needs_them():
    # moto's IAM models (with the `cryptography` modules they import) are read where something loaded them: a
    # server's door and engine, imported, have not
    probe = ("import sys\nimport eddy.emulator.engine, eddy.emulator.api.server\n"
             "print(sorted(m for m in sys.modules if m.startswith(('moto.iam', 'cryptography'))))")
    done = subprocess.run([sys.executable, "-c", probe], check=False, capture_output=True, text=True, timeout=300)
    assert (done.returncode, done.stdout.strip()) == (0, "[]"), done.stderr

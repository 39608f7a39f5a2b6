"""Resource-based policies survive a restart as they were (document, revision id, a deletion's tombstone), from the
final snapshot and from the log after a crash; a deleted table's policies stay gone."""

from __future__ import annotations

import json

import boto3
import pytest

from eddy import emulate

POLICY = json.dumps({"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Principal": {"AWS": "123456789012"},
                                                             "Action": "dynamodb:GetItem", "Resource": "*"}]})


def table(dynamodb, name: str) -> tuple[str, str]:
    described = dynamodb.create_table(
        TableName=name, BillingMode="PAY_PER_REQUEST", KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
        StreamSpecification={"StreamEnabled": True, "StreamViewType": "KEYS_ONLY"})["TableDescription"]
    return described["TableArn"], described["LatestStreamArn"]


def observe(dynamodb, arns: list[str]) -> dict:
    seen = {}
    for arn in arns:
        try:
            seen[arn] = {key: value for key, value in dynamodb.get_resource_policy(ResourceArn=arn).items()
                         if key != "ResponseMetadata"}
        except dynamodb.exceptions.ClientError as error:
            seen[arn] = error.response["Error"]
    seen["tombstone"] = dynamodb.delete_resource_policy(ResourceArn=arns[2]).get("RevisionId")
    return seen


@pytest.mark.parametrize("crash", [False, True], ids=["clean-stop", "crash"])
def test_policies_come_back_as_they_were(tmp_path, crash):
    with emulate(state_dir=tmp_path, housekeeping_interval=None) as emu:
        dynamodb = boto3.client("dynamodb", region_name="us-east-1")
        kept, kept_stream = table(dynamodb, "kept")
        dynamodb.put_resource_policy(ResourceArn=kept, Policy=POLICY)
        dynamodb.put_resource_policy(ResourceArn=kept_stream, Policy=POLICY.replace("GetItem", "GetRecords"))
        deleted, _ = table(dynamodb, "deleted")
        dynamodb.put_resource_policy(ResourceArn=deleted, Policy=POLICY)
        dynamodb.delete_table(TableName="deleted")
        table(dynamodb, "deleted")  # made again: no policy
        cleared, _ = table(dynamodb, "cleared")
        dynamodb.put_resource_policy(ResourceArn=cleared, Policy=POLICY)
        dynamodb.delete_resource_policy(ResourceArn=cleared)
        before = observe(dynamodb, [kept, kept_stream, cleared, deleted])
        if crash:
            emu.persistence.close = lambda: None  # stop as a crash would: no final snapshot, the log replayed
    assert before[deleted]["Code"] == "PolicyNotFoundException" and before["tombstone"].isdigit()
    with emulate(state_dir=tmp_path, housekeeping_interval=None):
        dynamodb = boto3.client("dynamodb", region_name="us-east-1")
        assert observe(dynamodb, [kept, kept_stream, cleared, deleted]) == before

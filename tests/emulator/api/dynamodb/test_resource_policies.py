"""Resource-based policies on tables and streams (Put/Get/DeleteResourcePolicy, CreateTable's ResourcePolicy) as
DynamoDB answers them. Both doors; every answer compared whole (status, error type, message, body).

Sources, recorded against AWS: the ack-api-quirks DynamoDB findings (verified 2026-10-09) DDB-TABLE-205 (no policy:
Get PolicyNotFoundException, Delete 200 {}, a bogus ExpectedRevisionId '... but table <name> has no associated'
[cut there by the capture], the deletion's tombstone revision), 207 (revision ids are 13-digit epoch-ms change
times; an equivalent re-Put is a no-op), 208/351/352/353/355 (the canonical document), 354 (no Version: 2008-10-17,
not the same document), 211 (size, JSON, Statement, Resource), 212 (ResourceArn forms; the index message's ARN is
cut by the capture at the account), 213 (a stream is its own policy slot), 214 (a deleted table's ARN), 356
(duplicate Sids, Allow to *); moto's AWS-verified tests/test_dynamodb/test_dynamodb_resource_policy.py (the
ExpectedRevisionId messages).
"""

from __future__ import annotations

import json

import pytest

from tests.emulator.api.dynamodb.rules.conftest import invalid, refused

ACCOUNT = "123456789012"
NOT_FOUND = "Resource-based policy not found for the provided ResourceArn: "


def document(action: str = "dynamodb:GetItem", resource: str = "*", **statement) -> str:
    return json.dumps({"Version": "2012-10-17", "Statement": [{
        "Sid": "Read", "Effect": "Allow", "Principal": {"AWS": ACCOUNT}, "Action": [action], "Resource": resource,
        **statement}]}, indent=2)


def answer(response: dict) -> dict:
    return {key: value for key, value in response.items() if key != "ResponseMetadata"}


def policy_not_found(message: str) -> tuple[int, str, str]:
    return 400, "PolicyNotFoundException", NOT_FOUND + message


@pytest.fixture
def dynamodb(door):
    client = door.client("dynamodb", validate=False)
    client.create_table(TableName="orders", BillingMode="PAY_PER_REQUEST",
                        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                        StreamSpecification={"StreamEnabled": True, "StreamViewType": "KEYS_ONLY"})
    return client


@pytest.fixture
def arns(dynamodb):
    table = dynamodb.describe_table(TableName="orders")["Table"]
    return table["TableArn"], table["LatestStreamArn"]


def test_a_policy_reads_back_in_dynamodbs_canonical_form_and_an_equivalent_one_changes_nothing(dynamodb, arns):
    table_arn, _ = arns
    assert refused(lambda: dynamodb.get_resource_policy(ResourceArn=table_arn)) == policy_not_found(table_arn)
    revision = dynamodb.put_resource_policy(ResourceArn=table_arn, Policy=document(resource=table_arn))["RevisionId"]
    assert len(revision) == 13 and revision.isdigit()
    assert answer(dynamodb.get_resource_policy(ResourceArn=table_arn)) == {"RevisionId": revision, "Policy": (
        '{"Version":"2012-10-17","Statement":[{"Sid":"Read","Effect":"Allow","Principal":{"AWS":'
        f'"arn:aws:iam::{ACCOUNT}:root"}},"Action":"dynamodb:GetItem","Resource":"{table_arn}"}}]}}')}
    same = {"Statement": {"Resource": [table_arn], "Action": "dynamodb:GetItem", "Effect": "allow", "Sid": "Read",
                          "Principal": {"AWS": [ACCOUNT, f"arn:aws:iam::{ACCOUNT}:root"]}}, "Version": "2012-10-17"}
    assert answer(dynamodb.put_resource_policy(ResourceArn=table_arn, Policy=json.dumps(same))) == {
        "RevisionId": revision}
    changed = dynamodb.put_resource_policy(ResourceArn=table_arn, Policy=document("dynamodb:PutItem"))["RevisionId"]
    assert changed > revision  # ids are change times, increasing (moto's test_put_resource_policy_multiple_times)


def test_lists_conditions_and_a_missing_version_as_dynamodb_rewrites_them(dynamodb, arns):
    table_arn, _ = arns
    sent = {"Statement": [{"Condition": {"StringEquals": {"aws:PrincipalAccount": [ACCOUNT]}},
                           "Resource": [f"{table_arn}/index/*", table_arn], "NotAction": ["dynamodb:DeleteTable"],
                           "Principal": {"AWS": f"arn:aws:iam::{ACCOUNT}:root"}, "Effect": "Deny"},
                          {"Action": ["dynamodb:Query", "dynamodb:GetItem", "dynamodb:GetItem"], "Resource": "*",
                           "Effect": "Allow", "Principal": {"AWS": ACCOUNT}}]}
    revision = dynamodb.put_resource_policy(ResourceArn=table_arn, Policy=json.dumps(sent))["RevisionId"]
    read = dynamodb.get_resource_policy(ResourceArn=table_arn)
    assert answer(read) == {"RevisionId": revision, "Policy": (
        '{"Version":"2008-10-17","Statement":[{"Effect":"Deny","Principal":{"AWS":'
        f'"arn:aws:iam::{ACCOUNT}:root"}},"NotAction":"dynamodb:DeleteTable","Resource":["{table_arn}/index/*",'
        f'"{table_arn}"],"Condition":{{"StringEquals":{{"aws:PrincipalAccount":"{ACCOUNT}"}}}}}},{{"Effect":"Allow",'
        f'"Principal":{{"AWS":"arn:aws:iam::{ACCOUNT}:root"}},"Action":["dynamodb:Query","dynamodb:GetItem",'
        '"dynamodb:GetItem"],"Resource":"*"}]}')}
    # the read-back names Version 2008-10-17, which the document sent did not: another document (DDB-TABLE-354)
    assert dynamodb.put_resource_policy(ResourceArn=table_arn, Policy=read["Policy"])["RevisionId"] > revision


def test_a_stream_has_its_own_policy(dynamodb, arns):
    table_arn, stream_arn = arns
    assert refused(lambda: dynamodb.get_resource_policy(ResourceArn=stream_arn)) == policy_not_found(stream_arn)
    stream_policy = document("dynamodb:GetRecords", stream_arn)
    revision = dynamodb.put_resource_policy(ResourceArn=stream_arn, Policy=stream_policy)["RevisionId"]
    assert dynamodb.get_resource_policy(ResourceArn=stream_arn)["RevisionId"] == revision
    assert refused(lambda: dynamodb.get_resource_policy(ResourceArn=table_arn)) == policy_not_found(table_arn)
    unknown = f"{table_arn}/stream/2000-01-01T00:00:00.000"
    assert refused(lambda: dynamodb.get_resource_policy(ResourceArn=unknown)) == (
        400, "ResourceNotFoundException", "Requested resource not found: Stream: 2000-01-01T00:00:00.000 not found "
                                          "for Table: orders")
    assert answer(dynamodb.delete_resource_policy(ResourceArn=stream_arn)) == {"RevisionId": revision}


def test_delete_answers_nothing_without_a_policy_then_the_deleted_id_then_the_deletions(dynamodb, arns, door):
    table_arn, _ = arns
    assert answer(dynamodb.delete_resource_policy(ResourceArn=table_arn)) == {}
    assert answer(dynamodb.delete_resource_policy(ResourceArn=table_arn)) == {}
    revision = dynamodb.put_resource_policy(ResourceArn=table_arn, Policy=document())["RevisionId"]
    door.advance(2)
    assert answer(dynamodb.delete_resource_policy(ResourceArn=table_arn, ExpectedRevisionId=revision)) == {
        "RevisionId": revision}
    tombstone = dynamodb.delete_resource_policy(ResourceArn=table_arn)["RevisionId"]
    assert int(revision) + 2000 <= int(tombstone) <= door.now() * 1000  # the deletion's time, on the emulator's clock
    assert refused(lambda: dynamodb.get_resource_policy(ResourceArn=table_arn)) == policy_not_found(table_arn)
    assert refused(lambda: dynamodb.delete_resource_policy(ResourceArn=table_arn, ExpectedRevisionId=revision)) == \
        policy_not_found(f"Requested update for policy with revision id {revision}, but the policy associated to "
                         f"target table orders has revision id {tombstone}.")


def test_expected_revision_ids_are_held_to_the_current_policy(dynamodb, arns):
    table_arn, _ = arns
    for call in (lambda: dynamodb.put_resource_policy(ResourceArn=table_arn, Policy=document(),
                                                      ExpectedRevisionId="123456789"),
                 lambda: dynamodb.delete_resource_policy(ResourceArn=table_arn, ExpectedRevisionId="123456789")):
        assert refused(call) == policy_not_found(
            "Requested update for policy with revision id 123456789, but table orders has no associated policy.")
    first = dynamodb.put_resource_policy(ResourceArn=table_arn, Policy=document(), ExpectedRevisionId="NO_POLICY")
    assert refused(lambda: dynamodb.put_resource_policy(
        ResourceArn=table_arn, Policy=document("dynamodb:Query"), ExpectedRevisionId="NO_POLICY")) == policy_not_found(
        "Requested policy update expecting none to be present for table orders, but a policy exists with revision id "
        f"{first['RevisionId']}.")
    second = dynamodb.put_resource_policy(ResourceArn=table_arn, Policy=document("dynamodb:PutItem"),
                                          ExpectedRevisionId=first["RevisionId"])["RevisionId"]
    stale = policy_not_found(f"Requested update for policy with revision id {first['RevisionId']}, but the policy "
                             f"associated to target table orders has revision id {second}.")
    assert refused(lambda: dynamodb.put_resource_policy(ResourceArn=table_arn, Policy=document("dynamodb:Query"),
                                                        ExpectedRevisionId=first["RevisionId"])) == stale
    assert refused(lambda: dynamodb.delete_resource_policy(ResourceArn=table_arn,
                                                           ExpectedRevisionId=first["RevisionId"])) == stale
    assert dynamodb.get_resource_policy(ResourceArn=table_arn)["RevisionId"] == second


@pytest.mark.parametrize("policy, message", [
    ("{not json", "One or more parameter values were invalid: Invalid policy document: This policy contains invalid "
                  "Json"),
    ("", "One or more parameter values were invalid: Invalid policy document: This policy contains invalid Json"),
    (json.dumps({"Version": "2012-10-17", "Statement": []}),
     "One or more parameter values were invalid: Invalid policy document: Could not parse the policy: Statement is "
     "empty!"),
    (json.dumps({"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Principal": {"AWS": ACCOUNT},
                                                         "Action": "dynamodb:GetItem"}]}),
     "One or more parameter values were invalid: Invalid policy document: Missing required field Resource"),
    (json.dumps({"Version": "2012-10-17", "Statement": [
        {"Sid": "A", "Effect": "Allow", "Principal": {"AWS": ACCOUNT}, "Action": "dynamodb:GetItem", "Resource": "*"},
        {"Sid": "A", "Effect": "Allow", "Principal": {"AWS": ACCOUNT}, "Action": "dynamodb:Query", "Resource": "*"}]}),
     "One or more parameter values were invalid: Invalid policy document: The Statement Ids in the policy are not "
     "unique"),
    (document(Principal="*"), "Resource-based policy grants unbounded access in one or more elements. Please revise "
                              "the policy to ensure least-privilege form of access"),
    (document(Principal={"AWS": "*"}), "Resource-based policy grants unbounded access in one or more elements. Please "
                                       "revise the policy to ensure least-privilege form of access"),
    (document() + " " * 20480, "One or more parameter values were invalid: Maximum policy size of 20480 bytes "
                               "exceeded"),
], ids=["json", "empty", "no-statement", "no-resource", "same-sids", "allow-star", "allow-aws-star", "size"])
def test_a_document_dynamodb_refuses_changes_nothing(dynamodb, arns, policy, message):
    table_arn, _ = arns
    revision = dynamodb.put_resource_policy(ResourceArn=table_arn, Policy=document())["RevisionId"]
    assert refused(lambda: dynamodb.put_resource_policy(ResourceArn=table_arn, Policy=policy)) == invalid(message)
    assert dynamodb.get_resource_policy(ResourceArn=table_arn)["RevisionId"] == revision


def test_resource_arns_that_are_not_the_callers_table_or_stream(dynamodb, arns):
    table_arn, _ = arns
    cases = {
        "orders": invalid("One or more parameter values were invalid: ARNs must start with 'arn:': orders"),
        table_arn.replace("us-east-1", "us-west-2"): invalid(
            "One or more parameter values were invalid: Invalid resource Arn: "
            + table_arn.replace("us-east-1", "us-west-2")),
        table_arn.replace("arn:aws:", "arn:aws-cn:"): invalid(
            "One or more parameter values were invalid: Invalid resource Arn: "
            + table_arn.replace("arn:aws:", "arn:aws-cn:")),
        table_arn.replace(ACCOUNT, "111122223333"): invalid(
            "This action is only supported by accounts that match the resource owner’s account."),
        f"{table_arn}/index/by_status": invalid(
            "One or more parameter values were invalid: Invalid resource arn provided, only table or stream is "
            f"accepted. Provided resource arn: {table_arn}/index/by_status"),
        f"{table_arn}/backup/0170": invalid(
            f"One or more parameter values were invalid: Provided Arn is not a DynamoDB resource arn: "
            f"{table_arn}/backup/0170"),
        f"{table_arn}-missing": (400, "ResourceNotFoundException",
                                 "Requested resource not found: Table: orders-missing not found"),
        table_arn.upper().replace("ARN:AWS:DYNAMODB:US-EAST-1", "arn:aws:dynamodb:us-east-1").replace(
            "TABLE/", "table/"): (400, "ResourceNotFoundException", "Requested resource not found: Table: ORDERS not "
                                                                    "found"),
    }
    for arn, expected in cases.items():
        assert refused(lambda: dynamodb.get_resource_policy(ResourceArn=arn)) == expected, arn
        assert refused(lambda: dynamodb.put_resource_policy(ResourceArn=arn, Policy=document())) == expected, arn
        assert refused(lambda: dynamodb.delete_resource_policy(ResourceArn=arn)) == expected, arn


def test_policies_go_with_their_table_and_create_table_attaches_one(dynamodb, arns):
    table_arn, stream_arn = arns
    dynamodb.put_resource_policy(ResourceArn=table_arn, Policy=document())
    dynamodb.put_resource_policy(ResourceArn=stream_arn, Policy=document("dynamodb:GetRecords", stream_arn))
    dynamodb.delete_table(TableName="orders")
    gone = (400, "ResourceNotFoundException", "Requested resource not found: Table: orders not found")
    assert refused(lambda: dynamodb.get_resource_policy(ResourceArn=table_arn)) == gone
    assert refused(lambda: dynamodb.put_resource_policy(ResourceArn=table_arn, Policy=document())) == gone
    assert refused(lambda: dynamodb.delete_resource_policy(ResourceArn=table_arn)) == gone
    assert refused(lambda: dynamodb.get_resource_policy(ResourceArn=stream_arn)) == policy_not_found(stream_arn)
    key = {"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}], "BillingMode": "PAY_PER_REQUEST",
           "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}]}
    assert refused(lambda: dynamodb.create_table(TableName="orders", ResourcePolicy="{not json", **key)) == invalid(
        "One or more parameter values were invalid: Invalid policy document: This policy contains invalid Json")
    assert dynamodb.list_tables()["TableNames"] == []
    dynamodb.create_table(TableName="orders", ResourcePolicy=document(), **key)
    read = dynamodb.get_resource_policy(ResourceArn=table_arn)
    assert json.loads(read["Policy"])["Statement"][0]["Action"] == "dynamodb:GetItem" and len(read["RevisionId"]) == 13


def test_the_canonical_form_of_documents_docstring():
    from eddy.emulator.api.dynamodb.resource_policies.documents import canonical

    answered, sameness = canonical('{"Statement": {"Effect": "allow", "Principal": {"AWS": "111122223333"}, '
                                   '"Action": ["dynamodb:GetItem"], "Resource": "*"}}')
    assert answered == ('{"Version":"2008-10-17","Statement":[{"Effect":"Allow","Principal":{"AWS":'
                        '"arn:aws:iam::111122223333:root"},"Action":"dynamodb:GetItem","Resource":"*"}]}')
    assert sameness == answered.replace('"Version":"2008-10-17",', "")

"""Expressions a client gets wrong, seeded and bounded: undefined names and values, unreadable conditions,
filters, key conditions, updates and projections, through the in-process door. Each must be answered as AWS
answers a client's mistake (a 400 in AWS's error shape, never the generic fallback that names a request id, never
a Python name), and what the item held must be as it was."""

from __future__ import annotations

import itertools
import random

import pytest
from botocore.exceptions import ClientError

from tests.emulator.api.test_fuzz import INTERNAL

SEED, CASES = 7, 400
EXPRESSIONS = ["x", "a =", "((", "a = :v AND", "#n = :v", "a = :undefined", "size(", "attribute_exists()",
               "a BETWEEN :v", "contains(a)", "a.b.c[", "NOT", "a = :v OR OR", "a < :v < :v", "a <> :v"]
UPDATES = ["SET", "SET a", "SET a = ", "REMOVE", "ADD a", "DELETE a :v", "SET pk = :v", "SET a = list_append(:v)",
           "SET #x = :v", "SET #x = :v, a.b = :v", "SET a = :v + :v", "SET a = b", "UPDATE a"]
PROJECTIONS = ["a..b", "#x", "a[", "", ",", "a,,b", "a.", "a b"]
KEY_CONDITIONS = ["pk = :v AND sk > :n AND sk < :n", "sk = :n", "pk > :v", "pk = :v OR sk = :n", "begins_with(pk, :v)",
                  "pk = :v AND begins_with(sk, :n)", "pk = :v AND sk BETWEEN :n", "pk = :v AND contains(sk, :n)",
                  "pk = :v AND sk IN (:n)", "#p = :v", "pk = :v AND NOT sk = :n"]
VALUES = [None, {":v": {"S": "a"}}, {":v": {"N": "1"}, ":n": {"N": "1"}}, {":v": {"L": [{"S": "1"}]}},
          {":v": {"SS": ["a"]}, ":n": {"S": "x"}}, {}]
NAMES = [None, {"#n": "n"}, {"#x": "x"}, {"#p": "pk"}]
ITEM = {"pk": {"S": "a"}, "sk": {"N": "1"}, "n": {"N": "5"}, "m": {"M": {"k": {"S": "v"}}}}
KEY = {"pk": {"S": "a"}, "sk": {"N": "1"}}


def requests(dynamodb) -> list:
    def extra(values, names):
        return {member: given for member, given in (("ExpressionAttributeValues", values),
                                                    ("ExpressionAttributeNames", names)) if given is not None}

    calls = []
    for expression, values, names in itertools.product(EXPRESSIONS, VALUES, NAMES):
        more = extra(values, names)
        calls += [lambda e=expression, more=more: dynamodb.scan(TableName="orders", FilterExpression=e, **more),
                  lambda e=expression, more=more: dynamodb.query(
                      TableName="orders", KeyConditionExpression="pk = :k", FilterExpression=e,
                      **dict(more, ExpressionAttributeValues=dict(more.get("ExpressionAttributeValues", {}),
                                                                  **{":k": {"S": "a"}}))),
                  lambda e=expression, more=more: dynamodb.put_item(
                      TableName="orders", Item={"pk": {"S": "b"}, "sk": {"N": "2"}}, ConditionExpression=e, **more),
                  lambda e=expression, more=more: dynamodb.transact_write_items(TransactItems=[
                      {"ConditionCheck": {"TableName": "orders", "Key": KEY, "ConditionExpression": e, **more}}])]
    for update, values, names in itertools.product(UPDATES, VALUES, NAMES):
        calls.append(lambda u=update, more=extra(values, names): dynamodb.update_item(
            TableName="orders", Key=KEY, UpdateExpression=u, **more))
    for projection, names in itertools.product(PROJECTIONS, NAMES):
        calls += [lambda p=projection, more=extra(None, names): dynamodb.get_item(
                      TableName="orders", Key=KEY, ProjectionExpression=p, **more),
                  lambda p=projection, more=extra(None, names): dynamodb.batch_get_item(
                      RequestItems={"orders": {"Keys": [KEY], "ProjectionExpression": p, **more}})]
    for condition, values, names in itertools.product(KEY_CONDITIONS, VALUES, NAMES):
        calls.append(lambda k=condition, more=extra(values, names): dynamodb.query(
            TableName="orders", KeyConditionExpression=k, **more))
    calls.append(lambda: dynamodb.scan(TableName="orders", ExclusiveStartKey={"pk": {"S": "a"}}))
    return calls


@pytest.fixture
def dynamodb(door):
    client = door.client("dynamodb", validate=False)
    client.create_table(TableName="orders", BillingMode="PAY_PER_REQUEST",
                        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
                        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"},
                                              {"AttributeName": "sk", "AttributeType": "N"}])
    client.put_item(TableName="orders", Item=ITEM)
    return client


@pytest.mark.parametrize("door", ["inprocess"], indirect=True)
def test_expressions_a_client_gets_wrong_get_aws_errors(dynamodb):
    calls = requests(dynamodb)
    refused = 0
    for call in random.Random(SEED).sample(calls, CASES):
        try:
            call()
        except ClientError as error:
            status = error.response["ResponseMetadata"]["HTTPStatusCode"]
            message = error.response["Error"]["Message"]
            assert status == 400 and "could not be processed" not in message and not INTERNAL.search(message), message
            refused += 1
    assert refused > CASES * 0.8  # the sample is mostly mistakes: the test reaches the code it is about
    kept = dynamodb.get_item(TableName="orders", Key=KEY)["Item"]  # valid requests in the sample may add "a"
    assert {name: kept[name] for name in ITEM} == ITEM

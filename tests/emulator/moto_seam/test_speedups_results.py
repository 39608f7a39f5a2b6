"""Eddy's dynamo_to_dict (moto_seam/speedups/dynamodb_results.py) answers what moto's own answers, for the values
moto's DynamoDB handlers hand it, and is the one moto's answers go through while an emulator is open."""

from __future__ import annotations

import datetime
from decimal import Decimal

import boto3
import pytest
from moto.dynamodb import responses as moto_responses
from moto.dynamodb.models.dynamo_type import DynamoType, Item, LimitedSizeDict
from moto.dynamodb.models.utilities import dynamo_to_dict as motos

from eddy import emulate
from eddy.emulator.moto_seam.speedups import dynamodb_results

ATTRIBUTES = {
    "s": {"S": "héllo"}, "n": {"N": "-12.500"}, "b": {"B": b"\x00\x01"}, "b64": {"B": "AAE="}, "t": {"BOOL": False},
    "null": {"NULL": True}, "ss": {"SS": ["a", "bé"]}, "ns": {"NS": ["1", "2.5"]}, "bs": {"BS": [b"x", "eXo="]},
    "l": {"L": [{"S": "a"}, {"N": "1"}, {"L": [{"BOOL": True}]}, {"B": b"\xff"}]},
    "m": {"M": {"k": {"M": {"é": {"SS": ["x"]}, "n": {"NULL": True}}}, "l": {"L": []}}}, "empty": {"M": {}},
}


class WithToJson:
    def to_json(self):
        return {"Nested": DynamoType({"S": "x"}), "When": datetime.datetime(2026, 11, 28, 17, 0)}


class DictWithToJson(dict):
    def to_json(self):
        return {"replaced": True}


def _item() -> Item:
    return Item(DynamoType({"S": "a"}), None, {"pk": {"S": "a"}, **ATTRIBUTES})


VALUES = [
    {"Item": _item().describe_attrs(None)["Item"]},  # GetItem's answer: a LimitedSizeDict of DynamoTypes
    {"Items": [_item().attrs, _item().attrs], "Count": 2, "ScannedCount": 2, "LastEvaluatedKey": None},
    {"Attributes": {name: DynamoType(value) for name, value in ATTRIBUTES.items()}},
    {"ConsumedCapacity": {"TableName": "t", "CapacityUnits": 0.5}, "Decimal": Decimal("1.5"), "Bytes": b"\x00"},
    {"Table": WithToJson(), "Tags": [{"Key": "k", "Value": "v"}], "When": datetime.datetime(2026, 1, 1)},
    {"Subclass": DictWithToJson(a=1), "Limited": LimitedSizeDict(a=DynamoType({"N": "1"})), "tuple": (1, 2)},
    [DynamoType({"L": [{"M": {"a": {"B": b"z"}}}]}), None, True, 3, 2.5, "s"],
    DynamoType({"BS": [b"a"]}),
    {},
]


@pytest.mark.parametrize("value", VALUES, ids=range(len(VALUES)))
def test_answers_are_made_plain_as_moto_makes_them(value):
    ours, theirs = dynamodb_results.dynamo_to_dict(value), motos(value)
    assert ours == theirs and repr(ours) == repr(theirs)  # the same types too (bytes, Decimal, datetime)


def test_motos_answers_go_through_it_while_an_emulator_is_open():
    assert moto_responses.dynamo_to_dict is motos
    with emulate():
        assert moto_responses.dynamo_to_dict is dynamodb_results.dynamo_to_dict
        dynamodb = boto3.client("dynamodb", region_name="us-east-1")
        dynamodb.create_table(TableName="answers", KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                              AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                              BillingMode="PAY_PER_REQUEST")
        dynamodb.put_item(TableName="answers", Item={"pk": {"S": "a"}, "b": {"B": b"\x00"}, "m": {"M": {"n": {"N": "1"}}}})
        assert dynamodb.get_item(TableName="answers", Key={"pk": {"S": "a"}})["Item"] == {
            "pk": {"S": "a"}, "b": {"B": b"\x00"}, "m": {"M": {"n": {"N": "1"}}}}
    assert moto_responses.dynamo_to_dict is motos

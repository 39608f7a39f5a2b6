"""Eddy's Item.size and Item.__deepcopy__ (moto_seam/speedups/dynamodb_reads.py) give what moto's own give, and
are the ones moto's Query and Scan use while an emulator is open."""

from __future__ import annotations

import copy

import boto3
import pytest
from moto.dynamodb.models.dynamo_type import DynamoType, Item, LimitedSizeDict

from eddy import emulate
from eddy.emulator.moto_seam.speedups import dynamodb_reads

ITEMS = [
    {"pk": {"S": "a"}},
    {"pk": {"S": "é"}, "n": {"N": "-12.500E3"}, "b": {"B": b"\x00\x01"}, "t": {"BOOL": False}, "null": {"NULL": True},
     "ss": {"SS": ["a", "bé"]}, "ns": {"NS": ["1", "2.5"]}, "bs": {"BS": [b"x", b"yz"]}, "ключ": {"S": "значение"}},
    {"pk": {"N": "7"}, "l": {"L": [{"S": "a"}, {"N": "1"}, {"L": [{"BOOL": True}, {"M": {}}]}, {"B": b"\xff"}]},
     "m": {"M": {"k": {"M": {"é": {"SS": ["x"]}, "n": {"NULL": True}}}, "l": {"L": []}, "ns": {"NS": ["3"]}}}},
    {"pk": {"S": "big"}, **{f"a{i}": {"S": "y" * 100} for i in range(50)}},
]


def _item(attrs: dict, range_key: dict | None = None) -> Item:
    return Item(DynamoType(attrs["pk"]), DynamoType(range_key) if range_key else None, attrs)


def _described(value, seen: dict[int, int]):
    """The whole of a copied value: types, contents and which of its parts are one object (by first appearance)."""
    if isinstance(value, Item):
        return ("Item", _described(value.hash_key, seen), _described(value.range_key, seen),
                type(value.attrs).__name__, [(k, _described(v, seen)) for k, v in value.attrs.items()])
    if isinstance(value, DynamoType):
        return ("DynamoType", seen.setdefault(id(value), len(seen)), value.type, _described(value.value, seen))
    if isinstance(value, dict):
        return ("dict", [(k, _described(v, seen)) for k, v in value.items()])
    if isinstance(value, list):
        return ("list", seen.setdefault(id(value), len(seen)), [_described(v, seen) for v in value])
    return (type(value).__name__, value)


@pytest.mark.parametrize("attrs", ITEMS, ids=range(len(ITEMS)))
def test_items_are_measured_as_moto_measures_them(attrs):
    item = _item(attrs)
    assert dynamodb_reads.item_size(item) == dynamodb_reads.original_item_size(item)


@pytest.mark.parametrize("attrs", ITEMS, ids=range(len(ITEMS)))
def test_items_are_copied_as_moto_copies_them(attrs):
    item = _item(attrs, {"N": "3"})
    ours, theirs = dynamodb_reads.item_deepcopy(item, {}), dynamodb_reads.original_item_deepcopy(item, {})
    assert _described(ours, {}) == _described(theirs, {}) and ours == theirs == item
    assert not any(id(part) == id(original) for part, original in zip(ours.attrs.values(), item.attrs.values()))


def test_parts_shared_in_an_item_stay_shared_in_its_copy_and_a_page_shares_what_it_shared():
    shared = DynamoType({"M": {"x": {"S": "1"}}})
    item = _item({"pk": {"S": "a"}})
    dict.__setitem__(item.attrs, "one", shared)
    dict.__setitem__(item.attrs, "two", shared)
    item.attrs["key"] = item.hash_key
    page = [item, item]
    memo_ours, memo_theirs = {}, {}  # one memo a page, as copy.deepcopy(results) hands each item
    ours = [dynamodb_reads.item_deepcopy(each, memo_ours) for each in page]
    theirs = [dynamodb_reads.original_item_deepcopy(each, memo_theirs) for each in page]
    seen_ours, seen_theirs = {}, {}
    assert [_described(each, seen_ours) for each in ours] == [_described(each, seen_theirs) for each in theirs]
    assert ours[0] is ours[1] and ours[0].attrs["one"] is ours[0].attrs["two"]


def test_a_limited_size_dict_value_and_other_values_are_copied_by_deepcopy():
    item = _item({"pk": {"S": "a"}})
    dict.__setitem__(item.attrs, "odd", LimitedSizeDict(a=[1, {"b": 2}]))
    assert _described(dynamodb_reads.item_deepcopy(item, {}), {}) == _described(copy.deepcopy(item), {})


def test_query_and_scan_use_them_while_an_emulator_is_open():
    assert Item.size is dynamodb_reads.original_item_size
    assert Item.__deepcopy__ is dynamodb_reads.original_item_deepcopy
    with emulate():
        assert Item.size is dynamodb_reads.item_size and Item.__deepcopy__ is dynamodb_reads.item_deepcopy
        dynamodb = boto3.client("dynamodb", region_name="us-east-1")
        dynamodb.create_table(TableName="reads", BillingMode="PAY_PER_REQUEST",
                              KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"},
                                         {"AttributeName": "sk", "KeyType": "RANGE"}],
                              AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"},
                                                    {"AttributeName": "sk", "AttributeType": "N"}])
        for sk in range(3):
            dynamodb.put_item(TableName="reads", Item={"pk": {"S": "a"}, "sk": {"N": str(sk)}, "m": {"M": {"n": {"N": "1"}}}})
        answer = dynamodb.query(TableName="reads", KeyConditionExpression="pk = :p",
                                ExpressionAttributeValues={":p": {"S": "a"}}, ProjectionExpression="sk, m.n")
        assert (answer["Items"], answer["Count"]) == ([{"sk": {"N": str(sk)}, "m": {"M": {"n": {"N": "1"}}}}
                                                       for sk in range(3)], 3)
        assert dynamodb.scan(TableName="reads", Limit=2)["Count"] == 2
    assert Item.size is dynamodb_reads.original_item_size

"""Eddy's replacements of moto's Item.__init__ and Table.query give exactly what moto's own methods give."""

from __future__ import annotations

import pytest
from moto.dynamodb.exceptions import ItemSizeTooLarge
from moto.dynamodb.models.dynamo_type import DynamoType, Item
from moto.dynamodb.models.table import Table

from eddy.emulator.moto_seam.speedups import dynamodb as moto_speedups
from eddy.emulator.moto_seam.speedups import dynamodb_items


def _built(init, attrs):
    item = Item.__new__(Item)
    try:
        init(item, DynamoType(attrs["pk"]), None, attrs)
    except ItemSizeTooLarge as error:
        return ("refused", type(error).__name__)
    return ("built", type(item.attrs).__name__, dict(item.attrs), item.hash_key, item.range_key)


@pytest.mark.parametrize("attrs", [
    {"pk": {"S": "a"}},
    {"pk": {"S": "a"}, "n": {"N": "1.50"}, "m": {"M": {"x": {"L": [{"S": "é"}, {"NULL": True}]}}},
     "ss": {"SS": ["a", "b"]}, "b": {"B": b"\x00\x01"}, "t": {"BOOL": True}},
    {"pk": {"S": "a"}, "big": {"S": "x" * 404990}},  # just within moto's 405,000 bytes
    {"pk": {"S": "a"}, "big": {"S": "x" * 404997}},  # just over: ItemSizeTooLarge
    {"pk": {"S": "a"}, **{f"a{i}": {"S": "y" * 2000} for i in range(203)}},  # over, by many attributes
])
def test_items_are_built_as_moto_builds_them(attrs):
    assert _built(dynamodb_items.item_init, attrs) == _built(dynamodb_items.original_item_init, attrs)


@pytest.mark.parametrize("value", [
    {"S": "héllo"}, {"N": "-12.500"}, {"B": b"\x00\x01\x02"}, {"BOOL": False}, {"NULL": True}, {"SS": ["a", "bé"]},
    {"NS": ["1", "22.5"]}, {"BS": [b"x", b"yz"]}, {"L": [{"S": "a"}, {"N": "1"}, {"L": [{"BOOL": True}]}]},
    {"M": {"k": {"M": {"é": {"SS": ["x"]}, "n": {"NULL": True}}}, "l": {"L": []}}}, {"M": {}}, {"S": ""},
])
def test_sizes_are_moto_sizes(value):
    assert dynamodb_items.attribute_size(DynamoType(value)) == DynamoType(value).size()


def _table(hash_type: str) -> Table:
    table = Table("t", "123456789012", "us-east-1",
                  schema=[{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
                  attr=[{"AttributeName": "pk", "AttributeType": hash_type}, {"AttributeName": "sk", "AttributeType": "N"}])
    for pk in ("1", "2", "10", "1.0") if hash_type == "N" else ("a", "b", "c"):
        for sk in (3, 1, 2, 10):
            table.put_item({"pk": {hash_type: pk}, "sk": {"N": str(sk)}, "v": {"S": f"{pk}/{sk}"}})
    return table


def _answer(query, table, hash_value, *args, **kwargs):
    items, scanned, last_key = query(table, hash_value, *args, **kwargs)
    return [item.to_json() for item in items], scanned, last_key


@pytest.mark.parametrize("hash_type,hash_value", [("S", "b"), ("S", "zz"), ("N", "1"), ("N", "1.00"), ("N", "7")])
@pytest.mark.parametrize("call", [
    dict(range_comparison=None, range_objs=[], limit=None, exclusive_start_key=None, scan_index_forward=True),
    dict(range_comparison=">", range_objs=[DynamoType({"N": "1"})], limit=None, exclusive_start_key=None,
         scan_index_forward=False),
    dict(range_comparison=None, range_objs=[], limit=2, exclusive_start_key=None, scan_index_forward=True),
    dict(range_comparison="BETWEEN", range_objs=[DynamoType({"N": "2"}), DynamoType({"N": "10"})], limit=1,
         exclusive_start_key=None, scan_index_forward=False),
])
def test_a_query_on_the_tables_key_answers_as_moto_does(hash_type, hash_value, call):
    table = _table(hash_type)
    key = DynamoType({hash_type: hash_value})
    args = (call["range_comparison"], call["range_objs"], call["limit"], call["exclusive_start_key"],
            call["scan_index_forward"], None)
    ours = _answer(moto_speedups._query, table, key, *args)
    assert ours == _answer(moto_speedups.original_query, table, key, *args)
    assert "all_items" not in table.__dict__  # the partition view is gone after the query
    if ours[2] is not None:  # the next page, from moto's own LastEvaluatedKey
        args = (*args[:3], ours[2], *args[4:])
        assert _answer(moto_speedups._query, table, key, *args) == _answer(moto_speedups.original_query, table, key, *args)


def test_the_replacements_are_installed_only_while_an_emulator_is_active():
    from eddy import emulate

    assert Item.__init__ is dynamodb_items.original_item_init and Table.query is moto_speedups.original_query
    with emulate(housekeeping_interval=None):
        assert Item.__init__ is dynamodb_items.item_init and Table.query is moto_speedups._query
    assert Item.__init__ is dynamodb_items.original_item_init and Table.query is moto_speedups.original_query


def test_items_are_not_kept_by_motos_instance_tracker_while_an_emulator_runs():
    """moto keeps every model instance it makes until a reset: every item version ever written, every copy a
    read handed back. While an emulator runs, items are made without that list (and are freed when replaced)."""
    import boto3

    from eddy import emulate

    with emulate(housekeeping_interval=None):
        dynamodb = boto3.client("dynamodb", region_name="us-east-1", aws_access_key_id="a", aws_secret_access_key="b")
        dynamodb.create_table(TableName="tracked", KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                              AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                              BillingMode="PAY_PER_REQUEST")
        tracked = len(Item.instances_tracked)
        for version in range(3):
            dynamodb.put_item(TableName="tracked", Item={"pk": {"S": "a"}, "v": {"N": str(version)}})
            dynamodb.batch_write_item(RequestItems={"tracked": [{"PutRequest": {"Item": {"pk": {"S": "b"}}}}]})
            dynamodb.update_item(TableName="tracked", Key={"pk": {"S": "a"}}, UpdateExpression="SET w = :w",
                                 ExpressionAttributeValues={":w": {"S": "x"}})
            assert dynamodb.query(TableName="tracked", KeyConditionExpression="pk = :p",
                                  ExpressionAttributeValues={":p": {"S": "a"}})["Count"] == 1
            assert dynamodb.scan(TableName="tracked")["Count"] == 2
        assert len(Item.instances_tracked) == tracked
    before = len(Item.instances_tracked)
    Item(DynamoType({"S": "a"}), None, {"pk": {"S": "a"}})  # plain moto again: tracked as moto tracks
    assert len(Item.instances_tracked) == before + 1

"""A validated put's item kept as its image's text (moto_seam/speedups/dynamodb_text_items.py, made by
dynamodb_puts.item_to_put(types_checked=True)): the same item moto's own put stores, its image's text byte for byte
the one item_images makes from moto's DynamoTypes, its attributes decoded only when moto reads them.

Items are given as moto's parser shapes a request's (binary values decoded to bytes: moto_seam/actions.py); moto's
own put (`dynamodb_puts.original_put_item`, moto's Item.__init__: no emulator is open here) is the reference.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
from moto.dynamodb.models.dynamo_type import DynamoType, Item
from moto.dynamodb.models.table import Table

from eddy.emulator.moto_seam.speedups import dynamodb_puts, dynamodb_reads, dynamodb_text_items
from eddy.emulator.moto_seam.speedups.dynamodb_text_items import TextItem, undecoded
from eddy.emulator.moto_seam.tables import item_images
from eddy.emulator.streams.item_size import item_size
from tests.emulator.moto_seam.test_speedups_put_item import raw

ITEMS = [
    {"pk": {"S": "a"}, "sk": {"N": "1"}},
    {"pk": {"S": "é☃😀"}, "sk": {"N": "-12.5"}, "n": {"N": "123456789012345678901234567890123456.78"},
     "b": {"B": b"\x00\xff\x01"}, "empty_b": {"B": b""}, "t": {"BOOL": False}, "f": {"BOOL": True},
     "null": {"NULL": True}, "ss": {"SS": ["a", "bé", ""]}, "ns": {"NS": ["1", "2.5", "-0.001"]},
     "bs": {"BS": [b"x", b"\x00\x01"]}, "ключ": {"S": "значение \"quoted\" \\ \n\t"}},
    {"pk": {"S": "m"}, "sk": {"N": "2"},
     "l": {"L": [{"S": "a"}, {"N": "1"}, {"L": [{"BOOL": True}, {"M": {}}]}, {"B": b"\xfe"}, {"BS": [b"q"]}]},
     "m": {"M": {"k": {"M": {"é": {"SS": ["x"]}, "n": {"NULL": True}}}, "l": {"L": []},
                 "B": {"S": "a member named B"}, "BS": {"L": [{"B": b"in a list"}]}, "bin": {"B": b"\x10"}}}},
    {"pk": {"S": "names"}, "sk": {"N": "3"}, "B": {"S": "named B"}, "BS": {"N": "4"}, "S": {"N": "5"},
     "M": {"M": {"B": {"B": b"b"}}}, "L": {"L": [{"M": {"BS": {"BS": [b"bs"]}}}]}},
    {"pk": {"S": "big"}, "sk": {"N": "4"}, **{f"a{i}": {"S": "y" * 100} for i in range(50)}},
]


def _table() -> Table:
    return Table("t", "123456789012", "us-east-1",
                 schema=[{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
                 attr=[{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "sk", "AttributeType": "N"}])


def _moto_item(attrs: dict) -> Item:
    return dynamodb_puts.original_put_item(_table(), copy.deepcopy(attrs))


@pytest.mark.parametrize("fits", [True, False])
@pytest.mark.parametrize("attrs", ITEMS, ids=range(len(ITEMS)))
def test_a_validated_put_keeps_its_item_as_the_text_item_images_would_make(attrs, fits):
    ours = dynamodb_puts.item_to_put(_table(), attrs, types_checked=True, fits=fits)
    theirs = _moto_item(attrs)
    assert type(ours) is TextItem and undecoded(ours)
    assert (ours.eddy_image, ours.eddy_image_size) == (
        item_images.image_text_of(theirs), item_size(item_images.image_of(theirs)))  # made from moto's DynamoTypes
    assert raw((ours.hash_key, ours.range_key)) == raw((theirs.hash_key, theirs.range_key))
    # what Query and Scan ask of every item (twice an item, every time they read it), answered from the text once
    # and kept with it: it stays undecoded, and its copy keeps the size too
    assert ours.eddy_moto_size is None
    assert dynamodb_reads.item_size(ours) == dynamodb_reads.original_item_size(theirs) == ours.eddy_moto_size
    assert dynamodb_reads.item_size(ours) == theirs.size()
    copied = dynamodb_reads.item_deepcopy(ours, {})
    assert undecoded(ours) and undecoded(copied) and copied.eddy_image is ours.eddy_image
    assert copied.eddy_moto_size == theirs.size() and dynamodb_reads.item_size(copied) == theirs.size()
    assert raw((copied.hash_key, copied.range_key)) == raw((ours.hash_key, ours.range_key))
    assert copied.hash_key is not ours.hash_key
    # moto reads its attributes: decoded into the DynamoTypes moto's own put builds, and kept
    assert raw(ours) == raw(theirs) and ours == theirs
    assert not undecoded(ours) and ours.attrs is ours.attrs
    assert raw(copied) == raw(theirs)
    assert dynamodb_reads.original_item_size(ours) == dynamodb_reads.item_size(ours) == theirs.size()


@pytest.mark.parametrize("attrs", [
    {"big": {"S": "x" * 404995}},
    {"big": {"L": [{"S": "x" * 1000}] * 405}},
    {"big": {"B": b"\x00" * 404999}},
    {"big": {"BS": [b"\x00" * 200000, b"\x01" * 200000]}, "more": {"M": {"m": {"S": "y" * 5000}}}},
    {"big": {"S": "x" * 404980}},  # within the limit
], ids=range(5))
def test_a_validated_put_that_does_not_fit_is_refused_as_moto_refuses_it(attrs):
    attrs = {"pk": {"S": "a"}, "sk": {"N": "1"}, **attrs}

    def outcome(put):
        try:
            return "stored", raw(put())
        except Exception as error:  # moto's refusal: compared by type and message
            return "refused", type(error).__name__, str(error)

    ours = outcome(lambda: dynamodb_puts.item_to_put(_table(), attrs, types_checked=True))
    assert ours == outcome(lambda: _moto_item(attrs))


def test_its_text_is_forgotten_when_moto_may_have_changed_it_and_kept_while_moto_never_read_it():
    """write_hook's add(old, new) forgets the new item's kept image (moto may have changed it in place; capture
    makes it again when the operation ends): not a TextItem's that moto never read, which is all that item holds."""
    attrs = ITEMS[1]
    unread = dynamodb_puts.item_to_put(_table(), attrs, types_checked=True)
    text = unread.eddy_image
    dynamodb_text_items.forget_image(unread)
    assert unread.eddy_image is text and undecoded(unread)
    read = dynamodb_puts.item_to_put(_table(), attrs, types_checked=True)
    read.attrs["n"] = DynamoType({"N": "2"})  # as UpdateItem changes an item in place
    dynamodb_text_items.forget_image(read)
    assert read.eddy_image is None
    assert item_images.image_of(read) == dict(item_images.image_of(_moto_item(attrs)), n={"N": "2"})
    replaced = dynamodb_puts.item_to_put(_table(), attrs, types_checked=True)
    replaced.attrs = {"pk": DynamoType({"S": "x"})}  # set without a read (moto's __deepcopy__ does)
    assert not undecoded(replaced) and replaced.attrs == {"pk": DynamoType({"S": "x"})}


def test_moto_s_own_copy_of_a_text_item_is_the_item():
    """moto's Item.__deepcopy__ (the one in place while no emulator is open) reads the attributes and sets the
    copy's: the same item."""
    ours = dynamodb_puts.item_to_put(_table(), ITEMS[2], types_checked=True)
    assert raw(dynamodb_reads.original_item_deepcopy(ours, {})) == raw(_moto_item(ITEMS[2]))


# -- through boto3: items put as text, read, changed and streamed as any item -----------------------------------

def _every_type(pk: str) -> dict:
    return {"pk": {"S": pk}, "n": {"N": "41"}, "s": {"S": "é ☃"}, "b": {"B": b"\x01\x02\x03"}, "t": {"BOOL": True},
            "z": {"NULL": True}, "ss": {"SS": ["x", "y"]}, "ns": {"NS": ["1", "2.5"]}, "bs": {"BS": [b"\x00", b"\xff"]},
            "l": {"L": [{"S": "a"}, {"B": b"\x09"}, {"M": {"k": {"N": "1"}}}]},
            "m": {"M": {"city": {"S": "Lisbon"}, "bin": {"B": b"\xfe"}, "deep": {"L": [{"NULL": True}]}}}}


def test_items_put_as_text_are_read_changed_and_streamed_as_any_item(door):
    """PutItem's and BatchWriteItem's items (kept as text) answered by GetItem, Query, Scan with a filter on a
    binary, PartiQL and a condition, changed by UpdateItem and a transaction, and streamed: INSERTs with the
    items as sent, MODIFYs whose old images are those (DynamoDB's answers: the items as written, numbers as
    written here in DynamoDB's stored form)."""
    from tests.emulator.helpers import create_table, read_shard, shards

    dynamodb, streams = door.client("dynamodb"), door.client("dynamodbstreams")
    arn = create_table(dynamodb)["LatestStreamArn"]
    first, second = _every_type("a"), _every_type("b")
    dynamodb.put_item(TableName="orders", Item=first)
    dynamodb.batch_write_item(RequestItems={"orders": [{"PutRequest": {"Item": second}}]})
    assert dynamodb.get_item(TableName="orders", Key={"pk": {"S": "a"}})["Item"] == first
    assert dynamodb.get_item(TableName="orders", Key={"pk": {"S": "b"}})["Item"] == second
    assert dynamodb.query(TableName="orders", KeyConditionExpression="pk = :p",
                          ExpressionAttributeValues={":p": {"S": "b"}})["Items"] == [second]
    scanned = dynamodb.scan(TableName="orders", FilterExpression="begins_with(b, :p) AND m.bin = :r",
                            ExpressionAttributeValues={":p": {"B": b"\x01\x02"}, ":r": {"B": b"\xfe"}})
    assert sorted(scanned["Items"], key=lambda item: item["pk"]["S"]) == [first, second]
    updated = dynamodb.update_item(TableName="orders", Key={"pk": {"S": "a"}}, ReturnValues="ALL_NEW",
                                   UpdateExpression="SET n = n + :one, m.city = :c REMOVE bs",
                                   ExpressionAttributeValues={":one": {"N": "1"}, ":c": {"S": "Porto"}})
    first_after = {**{k: v for k, v in first.items() if k != "bs"}, "n": {"N": "42"},
                   "m": {"M": {**first["m"]["M"], "city": {"S": "Porto"}}}}
    assert updated["Attributes"] == first_after
    dynamodb.transact_write_items(TransactItems=[{"Update": {
        "TableName": "orders", "Key": {"pk": {"S": "b"}}, "UpdateExpression": "SET t = :f",
        "ConditionExpression": "begins_with(l[1], :p)",
        "ExpressionAttributeValues": {":f": {"BOOL": False}, ":p": {"B": b"\x09"}}}}])
    second_after = {**second, "t": {"BOOL": False}}
    assert dynamodb.execute_statement(Statement="SELECT * FROM orders WHERE pk = 'b'")["Items"] == [second_after]
    with pytest.raises(dynamodb.exceptions.ConditionalCheckFailedException):
        dynamodb.put_item(TableName="orders", Item={"pk": {"S": "b"}}, ConditionExpression="b = :other",
                          ExpressionAttributeValues={":other": {"B": b"\x01"}})
    records = [record for shard in shards(streams, arn) for record in read_shard(streams, arn, shard["ShardId"])]
    seen = sorted(((r["eventName"], r["dynamodb"]["Keys"]["pk"]["S"], r["dynamodb"].get("OldImage"),
                    r["dynamodb"]["NewImage"]) for r in records), key=lambda r: (r[1], r[0]))
    assert seen == [("INSERT", "a", None, first), ("MODIFY", "a", first, first_after),
                    ("INSERT", "b", None, second), ("MODIFY", "b", second, second_after)]


def test_a_stored_item_stays_text_until_moto_reads_it(emu):
    """What keeps a stored item small: puts, a Query, a Scan with a filter and the stream's reads leave the stored
    items undecoded (moto's Query and Scan copy the items they return; Eddy's speedups copy an undecoded item's
    text and measure it from its text); an UpdateItem decodes the item it changes, and keeps its new image's text."""
    import boto3

    from eddy.emulator.moto_seam import bridge
    from tests.emulator.helpers import create_table, read_shard, shards

    dynamodb = boto3.client("dynamodb", region_name="us-east-1")
    streams = boto3.client("dynamodbstreams", region_name="us-east-1")
    arn = create_table(dynamodb)["LatestStreamArn"]
    dynamodb.put_item(TableName="orders", Item=_every_type("a"))
    dynamodb.batch_write_item(RequestItems={"orders": [{"PutRequest": {"Item": _every_type(key)}} for key in "bc"]})
    dynamodb.query(TableName="orders", KeyConditionExpression="pk = :p", ExpressionAttributeValues={":p": {"S": "a"}})
    assert len(dynamodb.scan(TableName="orders", FilterExpression="n = :n",
                             ExpressionAttributeValues={":n": {"N": "41"}})["Items"]) == 3
    assert len([r for shard in shards(streams, arn) for r in read_shard(streams, arn, shard["ShardId"])]) == 3
    table = bridge.find_table("123456789012", "us-east-1", "orders")

    def stored(key: str) -> Any:
        return table.get_item(DynamoType({"S": key}), None)

    assert [undecoded(stored(key)) for key in "abc"] == [True, True, True]
    # the Scan measured each one from its text once, as moto's own Item.size() measures it, and kept the size
    sizes = [dynamodb_reads.original_item_size(Item(DynamoType({"S": key}), None, _every_type(key))) for key in "abc"]
    assert [stored(key).eddy_moto_size for key in "abc"] == sizes
    dynamodb.update_item(TableName="orders", Key={"pk": {"S": "c"}}, UpdateExpression="SET n = :n",
                         ExpressionAttributeValues={":n": {"N": "7"}})
    assert [undecoded(stored(key)) for key in "abc"] == [True, True, False]
    assert stored("c").eddy_image == item_images.image_text_of(copy.deepcopy(stored("c")))  # made from its attrs
    assert item_images.image_of(stored("c"))["n"] == {"N": "7"}

"""DynamoDB JSON decoded into Spark types, the raw JSON kept."""

from __future__ import annotations

import json
from decimal import Decimal as D

import pytest
from pyspark.sql import Row
from pyspark.testing import assertDataFrameEqual

from eddy.spark_batch.dynamodb_json import ItemType, infer_item_type, with_item_columns

ITEMS = [
    {"pk": {"S": "a"}, "price": {"N": "1.25"}, "photo": {"B": "aGVsbG8="}, "active": {"BOOL": True},
     "gone": {"NULL": True}, "tags": {"SS": ["x", "y"]}, "sizes": {"NS": ["1", "2.5"]}, "blobs": {"BS": ["AQ=="]},
     "scores": {"L": [{"N": "1"}, {"N": "2"}]}, "mixed_list": {"L": [{"S": "s"}, {"N": "1"}]},
     "address": {"M": {"city": {"S": "Lisbon"}, "zip": {"N": "1000"}}}, "either": {"S": "text"}},
    {"pk": {"S": "b"}, "price": {"N": "100"}, "either": {"N": "5"}, "gone": {"NULL": True},
     "address": {"M": {"city": {"S": "Porto"}, "floor": {"BOOL": False}}}, "huge": {"N": "1E+100"}},
]


@pytest.fixture
def images(spark):
    return spark.createDataFrame([(json.dumps(item),) for item in ITEMS], "image string")


def test_every_type_decodes(images) -> None:
    item_type = infer_item_type(images, "image")
    assert item_type.spark_type().simpleString() == (
        "struct<active:boolean,address:struct<city:string,floor:boolean,zip:decimal(38,0)>,blobs:array<binary>,"
        "either:string,gone:string,huge:string,mixed_list:array<string>,photo:binary,pk:string,price:decimal(38,2),"
        "scores:array<decimal(38,0)>,sizes:array<decimal(38,1)>,tags:array<string>>")
    decoded = with_item_columns(images, "image", item_type)
    assert decoded.columns[0] == "image"  # the raw DynamoDB JSON stays
    assertDataFrameEqual(decoded.drop("image"), [
        Row(active=True, address=Row(city="Lisbon", floor=None, zip=D(1000)), blobs=[bytearray(b"\x01")],
            either='{"S":"text"}', gone=None, huge=None, mixed_list=['{"S":"s"}', '{"N":"1"}'],
            photo=bytearray(b"hello"), pk="a", price=D("1.25"), scores=[D(1), D(2)], sizes=[D("1.0"), D("2.5")],
            tags=["x", "y"]),
        Row(active=None, address=Row(city="Porto", floor=False, zip=None), blobs=None, either='{"N":"5"}', gone=None,
            huge="1E+100", mixed_list=None, photo=None, pk="b", price=D("100.00"), scores=None, sizes=None, tags=None),
    ])


def test_a_type_survives_a_round_trip_and_names_may_not_clash(spark, images) -> None:
    item_type = infer_item_type(images, "image")
    assert ItemType.from_dict(json.loads(json.dumps(item_type.to_dict()))) == item_type
    clashing = spark.createDataFrame([('{"image": {"S": "x"}}',)], "image string")
    with pytest.raises(ValueError, match="attribute names clash with the columns already there: image"):
        with_item_columns(clashing, "image")

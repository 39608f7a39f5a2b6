"""moto_seam/tables/views.py pinned against moto's DynamoDB: a table's view is Eddy's own copy of what moto keeps
(name, ARN, key schema with its attribute types, billing mode), a table's stream set on moto's description by its key,
and every table's items read as their images."""

from __future__ import annotations

import boto3
from moto import mock_aws

from eddy import emulate
from eddy.emulator.moto_seam.tables import views
from tests.emulator.helpers import create_table

ACCOUNT, REGION = "123456789012", "us-east-1"


@mock_aws
def test_a_view_is_a_copy_of_what_moto_keeps():
    dynamodb = boto3.client("dynamodb", region_name=REGION)
    create_table(dynamodb, "orders", view_type=None, range_key=True)
    view = views.view(ACCOUNT, REGION, "orders")
    assert view == views.TableView(
        ACCOUNT,
        REGION,
        "orders",
        f"arn:aws:dynamodb:{REGION}:{ACCOUNT}:table/orders",
        [
            {"AttributeName": "pk", "KeyType": "HASH", "AttributeType": "S"},
            {"AttributeName": "sk", "KeyType": "RANGE", "AttributeType": "S"},
        ],
        "PAY_PER_REQUEST",
    )
    view.key_schema.clear()  # a copy: moto's table is not changed through it
    assert views.view(ACCOUNT, REGION, "orders").key_schema[0]["AttributeName"] == "pk"
    assert views.view(ACCOUNT, REGION, "missing") is None
    assert views.view(ACCOUNT, "eu-west-1", "orders") is None


@mock_aws
def test_a_stream_set_by_the_tables_key_is_what_describe_table_shows():
    dynamodb = boto3.client("dynamodb", region_name=REGION)
    create_table(dynamodb, "orders", view_type=None)
    views.set_stream((ACCOUNT, REGION, "orders"), "2026-01-01T00:00:00.000", "KEYS_ONLY")
    table = dynamodb.describe_table(TableName="orders")["Table"]
    assert (table["StreamSpecification"], table["LatestStreamLabel"], table["LatestStreamArn"]) == (
        {"StreamEnabled": True, "StreamViewType": "KEYS_ONLY"},
        "2026-01-01T00:00:00.000",
        f"arn:aws:dynamodb:{REGION}:{ACCOUNT}:table/orders/stream/2026-01-01T00:00:00.000",
    )
    views.set_stream((ACCOUNT, REGION, "missing"), "label", None)  # a table that is gone: nothing to keep in step


@mock_aws
def test_contents_are_every_tables_key_and_its_items_images_text():
    dynamodb = boto3.client("dynamodb", region_name=REGION)
    create_table(dynamodb, "orders", view_type=None)
    create_table(dynamodb, "empty", view_type=None)
    dynamodb.put_item(TableName="orders", Item={"pk": {"S": "a"}, "b": {"B": b"\x00"}, "l": {"L": [{"N": "1"}]}})
    contents = {key: texts() for key, texts in views.contents()}
    assert contents == {
        (ACCOUNT, REGION, "orders"): ['{"pk":{"S":"a"},"b":{"B":"AA=="},"l":{"L":[{"N":"1"}]}}'],
        (ACCOUNT, REGION, "empty"): [],
    }


@mock_aws
def test_indexes_are_the_key_attributes_of_the_table_and_of_each_index():
    dynamodb = boto3.client("dynamodb", region_name=REGION)
    dynamodb.create_table(
        TableName="orders",
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
        AttributeDefinitions=[{"AttributeName": name, "AttributeType": "S"} for name in ("pk", "sk", "city", "rank")],
        GlobalSecondaryIndexes=[
            {
                "IndexName": "by_city",
                "KeySchema": [{"AttributeName": "city", "KeyType": "HASH"}],
                "Projection": {"ProjectionType": "ALL"},
            }
        ],
        LocalSecondaryIndexes=[
            {
                "IndexName": "by_rank",
                "KeySchema": [
                    {"AttributeName": "pk", "KeyType": "HASH"},
                    {"AttributeName": "rank", "KeyType": "RANGE"},
                ],
                "Projection": {"ProjectionType": "KEYS_ONLY"},
            }
        ],
        BillingMode="PAY_PER_REQUEST",
    )
    assert views.indexes(ACCOUNT, REGION, "orders") == ("pk", {"by_city": ["city"]}, {"by_rank": ["pk", "rank"]})
    assert views.indexes(ACCOUNT, REGION, "missing") == (None, {}, {})


def test_a_tables_id_is_the_one_describe_table_answers():
    with emulate(housekeeping_interval=None):
        dynamodb = boto3.client("dynamodb", region_name=REGION)
        create_table(dynamodb, "orders")
        assert (
            views.table_id((ACCOUNT, REGION, "orders"))
            == dynamodb.describe_table(TableName="orders")["Table"]["TableId"]
        )
        assert views.table_id((ACCOUNT, REGION, "missing")) is None

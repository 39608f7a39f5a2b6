"""moto_seam/tables/ttl.py pinned against moto's DynamoDB: a table's TTL specification is what UpdateTimeToLive wrote into
moto's Table.ttl, and an item's TTL attribute is a DynamoType whose `type` and `value` are DynamoDB's."""

from __future__ import annotations

import boto3
from moto import mock_aws
from moto.dynamodb.models import dynamodb_backends

from eddy.emulator.moto_seam.tables import ttl as moto_ttl
from tests.emulator.helpers import create_table

ACCOUNT, REGION = "123456789012", "us-east-1"


@mock_aws
def test_expiries_read_what_moto_keeps():
    dynamodb = boto3.client("dynamodb", region_name=REGION)
    create_table(dynamodb, "sessions")
    create_table(dynamodb, "no-ttl")
    dynamodb.update_time_to_live(TableName="sessions",
                                 TimeToLiveSpecification={"Enabled": True, "AttributeName": "expires"})
    for key, expires in {"a": {"N": "1700000000"}, "b": {"S": "1700000000"}}.items():
        dynamodb.put_item(TableName="sessions", Item={"pk": {"S": key}, "expires": expires})
    dynamodb.put_item(TableName="sessions", Item={"pk": {"S": "c"}})
    dynamodb.put_item(TableName="no-ttl", Item={"pk": {"S": "d"}, "expires": {"N": "1"}})
    tables = list(dynamodb_backends[ACCOUNT][REGION].tables.values())
    assert tables[0].ttl == {"TimeToLiveStatus": "ENABLED", "AttributeName": "expires"}
    found = [(table, item.keys, number) for table, item, number in moto_ttl.expiries()]
    assert found == [((ACCOUNT, REGION, "sessions"), {"pk": {"S": "a"}}, "1700000000")]  # a Number, where TTL is on
    expiring = next(moto_ttl.expiries())[1]
    assert (expiring.delete(), expiring.delete()) == (True, False)  # through moto's table, once
    assert sorted(item["pk"]["S"] for item in dynamodb.scan(TableName="sessions")["Items"]) == ["b", "c"]


def test_expiries_read_items_kept_as_text_without_decoding_them(emu):
    """Items Eddy's PutItem and BatchWriteItem stored as their image's text (speedups/dynamodb_text_items.py) are read
    from it: the same expiries as from moto's DynamoTypes, the items still undecoded; an item moto has read (an
    UpdateItem) is read from its attributes."""
    from moto.dynamodb.models.dynamo_type import DynamoType

    from eddy.emulator.moto_seam.speedups.dynamodb_text_items import undecoded

    dynamodb = boto3.client("dynamodb", region_name=REGION)
    create_table(dynamodb, "sessions")
    dynamodb.update_time_to_live(TableName="sessions",
                                 TimeToLiveSpecification={"Enabled": True, "AttributeName": "expires"})
    items = [{"pk": {"S": "a"}, "expires": {"N": "1700000000"}}, {"pk": {"S": "b"}, "expires": {"S": "1700000000"}},
             {"pk": {"S": "c"}, "m": {"M": {"expires": {"N": "5"}}}},  # only a map's member of that name
             {"pk": {"S": "d"}}, {"pk": {"S": "e"}, "expires": {"N": "1800000000"}, "n": {"N": "1"}}]
    dynamodb.put_item(TableName="sessions", Item=items[0])
    dynamodb.batch_write_item(RequestItems={"sessions": [{"PutRequest": {"Item": item}} for item in items[1:]]})
    dynamodb.update_item(TableName="sessions", Key={"pk": {"S": "e"}}, UpdateExpression="SET n = :two",
                         ExpressionAttributeValues={":two": {"N": "2"}})
    found = sorted(((table, item.keys, number) for table, item, number in moto_ttl.expiries()), key=repr)
    assert found == [((ACCOUNT, REGION, "sessions"), {"pk": {"S": "a"}}, "1700000000"),
                     ((ACCOUNT, REGION, "sessions"), {"pk": {"S": "e"}}, "1800000000")]
    table = dynamodb_backends[ACCOUNT][REGION].tables["sessions"]
    assert [undecoded(table.get_item(DynamoType({"S": key}), None)) for key in "abcde"] == [True] * 4 + [False]

"""The fast path's request as moto's own JSON parser shapes it (moto_seam/actions.py `shape_params`): the same
dict, item by item and member by member, for items of every attribute value type, nulls and members the model does
not know included."""

from __future__ import annotations

import base64
import json

import pytest
from moto.core.parse import JSONParser
from moto.core.responses import get_service_model

from eddy.emulator.moto_seam import actions

BLOB = base64.b64encode(b"\x00\xffbytes").decode()
ITEM = {"pk": {"S": "a"}, "n": {"N": "1.5"}, "t": {"BOOL": True}, "z": {"NULL": True}, "b": {"B": BLOB},
        "bs": {"BS": [BLOB]}, "ss": {"SS": ["x", "y"]}, "ns": {"NS": ["1", "2"]},
        "m": {"M": {"s": {"S": "x"}, "l": {"L": [{"N": "1"}, {"S": "y"}, {"M": {}}]}}}}
BODIES = [
    ("PutItem", {"TableName": "t1", "Item": {"pk": {"S": "a"}, "n": {"N": "1"}, "s": {"S": ""}}}),
    ("PutItem", {"TableName": "t1", "Item": ITEM, "ReturnValues": "ALL_OLD", "ReturnConsumedCapacity": "TOTAL"}),
    ("PutItem", {"TableName": "t1", "Item": {"pk": {"S": "a"}, "odd": {"S": "x", "N": None}, "n": {"N": 5},
                                             "s": {"S": 7}, "nul": None}, "Unknown": 1}),
    ("PutItem", {"TableName": "t1", "Item": {"pk": {"S": "a", "N": "1"}, "two": {"N": "1", "BOOL": False}}}),
    ("GetItem", {"TableName": "t1", "Key": {"pk": {"S": "a"}}, "ConsistentRead": True}),
    ("GetItem", {"TableName": "t1", "Key": {"pk": {"B": BLOB}, "sk": {"N": "2"}}, "ProjectionExpression": "n"}),
    ("Query", {"TableName": "t1", "KeyConditionExpression": "pk = :v", "ExpressionAttributeValues": {":v": {"S": "a"}},
               "ExclusiveStartKey": {"pk": {"S": "a"}, "sk": {"BS": [BLOB]}}, "Limit": 3}),
]


@pytest.mark.parametrize(("operation", "body"), BODIES)
def test_shaped_as_moto_s_parser_shapes_them(operation, body):
    parser = JSONParser(get_service_model("dynamodb").operation_model(operation))
    by_moto = parser.parse({"method": "POST", "values": {}, "headers": {}, "body": json.dumps(body).encode(),
                            "url_path": "/", "url_params": {}})
    assert actions.shape_params(operation, json.loads(json.dumps(body))) == by_moto

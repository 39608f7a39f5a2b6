"""The fast path answers exactly as moto's full path does: same statuses, bodies, error types, stream records.

The same script of requests (successes, moto's refusals, odd bodies) runs twice on a fresh emulator, once
with the fast path and once with it switched off (every request through moto's DynamoHandler dispatch);
the answers and the stream records must be equal, request by request.
"""

from __future__ import annotations

import base64
import json
from typing import Any

import boto3
import pytest

from eddy import emulate
from eddy.emulator.moto_seam import actions as moto_actions, all_or_nothing
from eddy.emulator.api import router
from eddy.emulator.dynamodb import fast_path as dynamodb_fast
from eddy.emulator.aws_requests import Request

URL = "https://dynamodb.us-east-1.amazonaws.com/"
AUTH = ("AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20260101/us-east-1/dynamodb/aws4_request, "
        "SignedHeaders=host, Signature=0")
BLOB = base64.b64encode(b"\x00\xffbytes").decode()


def _table(name: str, range_key: bool, extra: dict | None = None) -> tuple[str, dict]:
    schema = [{"AttributeName": "pk", "KeyType": "HASH"}]
    attributes = [{"AttributeName": "pk", "AttributeType": "S"}]
    if range_key:
        schema.append({"AttributeName": "sk", "KeyType": "RANGE"})
        attributes.append({"AttributeName": "sk", "AttributeType": "N"})
    params = {"TableName": name, "KeySchema": schema, "AttributeDefinitions": attributes,
              "BillingMode": "PAY_PER_REQUEST",
              "StreamSpecification": {"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"}}
    for key, value in (extra or {}).items():
        params[key] = params.get(key, []) + value
    return "CreateTable", params


def _row(pk: str, sk: int, **attributes: Any) -> dict:
    return {"pk": {"S": pk}, "sk": {"N": str(sk)}, **attributes}


#: an item of every attribute type, nested and in unicode, its numbers as DynamoDB stores them
EVERY_TYPE = {
    "pk": {"S": "every"}, "s": {"S": "caf\u00e9 \u2603 \U0001f600 \"quoted\" \\ /\n\t"}, "n": {"N": "-12.5"},
    "big": {"N": "12345678901234567890123456789012345678"}, "b": {"B": BLOB}, "t": {"BOOL": True}, "f": {"BOOL": False},
    "z": {"NULL": True}, "ss": {"SS": ["b", "a", "\u00e9"]}, "ns": {"NS": ["3", "-1.5", "100"]},
    "bs": {"BS": [BLOB, base64.b64encode(b"\x01").decode()]},
    "l": {"L": [{"S": "x"}, {"N": "1"}, {"B": BLOB}, {"NULL": True}, {"L": []}, {"M": {}}]},
    "m": {"M": {"l": {"L": [{"S": "x"}, {"BOOL": False}]}, "deep": {"M": {"bs": {"BS": [BLOB]}, "ns": {"NS": ["0"]}}},
               "\u00fc": {"SS": ["\u00fc"]}}},
    "\u65e5\u672c": {"S": ""},
}

GSI = {"AttributeDefinitions": [{"AttributeName": "city", "AttributeType": "S"}],
       "GlobalSecondaryIndexes": [{"IndexName": "by_city", "KeySchema": [{"AttributeName": "city", "KeyType": "HASH"}],
                                   "Projection": {"ProjectionType": "ALL"}}]}

SCRIPT: list[tuple[str, Any]] = [
    _table("plain", False),
    _table("ranged", True, GSI),
    # PutItem
    ("PutItem", {"TableName": "plain", "Item": {"pk": {"S": "a"}, "n": {"N": "1"}, "b": {"B": BLOB},
                                                "bs": {"BS": [BLOB]}, "m": {"M": {"l": {"L": [{"S": "x"}, {"NULL": True}]}}},
                                                "ss": {"SS": ["x", "y"]}, "t": {"BOOL": False}}}),
    ("PutItem", {"TableName": "plain", "Item": {"pk": {"S": "a"}, "n": {"N": "2"}}, "ReturnValues": "ALL_OLD",
                 "ReturnConsumedCapacity": "TOTAL"}),
    ("PutItem", {"TableName": "plain", "Item": {"pk": {"S": "new"}}, "ReturnValues": "ALL_OLD",
                 "ReturnConsumedCapacity": "INDEXES", "ReturnItemCollectionMetrics": "SIZE"}),
    ("PutItem", {"TableName": "plain", "Item": {"pk": {"S": "a"}}, "ConditionExpression": "attribute_not_exists(pk)"}),
    ("PutItem", {"TableName": "plain", "Item": {"pk": {"S": "a"}}, "ConditionExpression": "attribute_not_exists(pk)",
                 "ReturnValuesOnConditionCheckFailure": "ALL_OLD"}),
    ("PutItem", {"TableName": "plain", "Item": {"pk": {"S": "a"}, "v": {"S": "x"}}, "ConditionExpression": "#n = :v",
                 "ExpressionAttributeNames": {"#n": "n"}, "ExpressionAttributeValues": {":v": {"N": "2"}}}),
    ("PutItem", {"TableName": "plain", "Item": {"pk": {"S": "b"}}, "ReturnValues": "ALL_NEW"}),
    ("PutItem", {"TableName": "plain", "Item": {"pk": {"S": "b"}}, "ReturnConsumedCapacity": "SOME"}),
    ("PutItem", {"TableName": "plain", "Item": {"pk": {"S": ""}}}),
    ("PutItem", {"TableName": "plain", "Item": {"other": {"S": "x"}}}),
    ("PutItem", {"TableName": "missing", "Item": {"pk": {"S": "x"}}}),
    ("PutItem", {"TableName": "plain", "Item": {"pk": {"S": "c"}, "e": {"S": ""}}, "ReturnValues": None,
                 "Unknown": 1, "ExpressionAttributeNames": None}),
    ("PutItem", {"TableName": "plain", "Item": {"pk": {"S": "d"}}, "ExpressionAttributeNames": {"#x": "x"}}),
    ("PutItem", {"TableName": "plain", "Item": {"pk": {"S": "d"}, "s": {"SS": []}}}),
    ("PutItem", {"TableName": "plain", "Item": "not a map"}),
    ("PutItem", {"TableName": "plain", "Item": {"pk": {"B": "***"}}}),
    ("PutItem", {"TableName": "ranged", "Item": _row("p", 1, city={"S": "Lisbon"})}),
    ("PutItem", {"TableName": "ranged", "Item": _row("p", 2, city={"S": "Porto"})}),
    ("PutItem", {"TableName": "ranged", "Item": _row("p", 3, city={"S": "Lisbon"}, x={"N": "3"})}),
    ("PutItem", {"TableName": "ranged", "Item": _row("q", 1, city={"S": ""})}),
    # the plainest puts (moto_seam/tables/puts.py): a replacement with its capacity, the same item again, a null index key
    ("PutItem", {"TableName": "plain", "Item": {"pk": {"S": "a"}, "v": {"S": "again"}}, "ReturnValues": "NONE",
                 "ReturnConsumedCapacity": "INDEXES", "ReturnItemCollectionMetrics": "SIZE"}),
    ("PutItem", {"TableName": "ranged", "Item": _row("p", 3, city={"S": "Lisbon"}, x={"N": "3"}),
                 "ReturnConsumedCapacity": "TOTAL"}),
    ("PutItem", {"TableName": "ranged", "Item": _row("q", 2, city={"NULL": True})}),
    ("PutItem", {"TableName": "plain", "Item": {"pk": {"S": "e"}, "m": {"M": {"s": {"NS": []}}}}}),
    # GetItem
    ("GetItem", {"TableName": "plain", "Key": {"pk": {"S": "a"}}}),
    ("GetItem", {"TableName": "plain", "Key": {"pk": {"S": "zz"}}, "ReturnConsumedCapacity": "TOTAL"}),
    ("GetItem", {"TableName": "plain", "Key": {"pk": {"S": "a"}}, "ProjectionExpression": "#n, v",
                 "ExpressionAttributeNames": {"#n": "n"}, "ConsistentRead": True}),
    ("GetItem", {"TableName": "plain", "Key": {"pk": {"S": "a"}}, "AttributesToGet": ["v"]}),
    ("GetItem", {"TableName": "plain", "Key": {"pk": {"S": ""}}}),
    ("GetItem", {"TableName": "plain", "Key": {"nope": {"S": "a"}}}),
    ("GetItem", {"TableName": "plain", "Key": {"pk": {"S": "a"}}, "ExpressionAttributeNames": {"#n": "n"}}),
    ("GetItem", {"TableName": "ranged", "Key": {"pk": {"S": "p"}}}),
    ("GetItem", {"TableName": "missing", "Key": {"pk": {"S": "p"}}}),
    ("GetItem", {"TableName": "ranged", "Key": {"pk": {"S": "p"}, "sk": {"N": "1"}}, "ConsistentRead": True,
                 "ReturnConsumedCapacity": "INDEXES"}),
    ("GetItem", {"TableName": "ranged", "Key": {"pk": {"S": "p"}, "sk": {"N": "1"}, "city": {"S": "x"}}}),
    ("GetItem", {"TableName": "plain", "Key": {"pk": {"S": "a"}, "n": {"N": "1"}}}),
    ("GetItem", {"TableName": "ranged", "Key": {"pk": {"S": "p"}, "sk": {"S": ""}}}),
    # a whole item's get answered from the text of its image (moto_seam/tables/gets.py's item_text): every type
    ("PutItem", {"TableName": "plain", "Item": EVERY_TYPE}),
    ("GetItem", {"TableName": "plain", "Key": {"pk": {"S": "every"}}}),
    ("GetItem", {"TableName": "plain", "Key": {"pk": {"S": "every"}}, "ReturnConsumedCapacity": "INDEXES",
                 "ConsistentRead": True}),
    ("GetItem", {"TableName": "plain", "Key": {"pk": {"S": "every"}}, "ReturnConsumedCapacity": "NONE"}),
    ("GetItem", {"TableName": "plain", "Key": {"pk": {"S": "every"}}, "ReturnConsumedCapacity": "SOME"}),
    ("UpdateItem", {"TableName": "plain", "Key": {"pk": {"S": "every"}}, "UpdateExpression": "SET m.l[0] = :v, #u = :u "
                    "ADD ns :n REMOVE bs", "ExpressionAttributeNames": {"#u": "\u00e9"},
                    "ExpressionAttributeValues": {":v": {"S": "changed"}, ":u": {"S": "\u00fc"}, ":n": {"NS": ["7"]}}}),
    ("GetItem", {"TableName": "plain", "Key": {"pk": {"S": "every"}}}),
    ("GetItem", {"TableName": "missing", "Key": {"pk": {"S": "every"}}, "ReturnConsumedCapacity": "TOTAL"}),
    # UpdateItem / DeleteItem
    ("UpdateItem", {"TableName": "plain", "Key": {"pk": {"S": "a"}}, "UpdateExpression": "SET v = :v, w = :big",
                    "ExpressionAttributeValues": {":v": {"S": "lost"}, ":big": {"S": "x" * 405000}}}),  # changes nothing
    ("UpdateItem", {"TableName": "plain", "Key": {"pk": {"S": "u2"}}, "UpdateExpression": "SET v = :v, w = :big",
                    "ExpressionAttributeValues": {":v": {"S": "lost"}, ":big": {"S": "x" * 405000}}}),  # stores nothing
    ("UpdateItem", {"TableName": "plain", "Key": {"pk": {"S": "a"}}, "UpdateExpression": "SET v = :v ADD n :one",
                    "ExpressionAttributeValues": {":v": {"S": "y"}, ":one": {"N": "1"}}, "ReturnValues": "UPDATED_NEW"}),
    ("UpdateItem", {"TableName": "plain", "Key": {"pk": {"S": "u"}}, "UpdateExpression": "SET v = :v",
                    "ExpressionAttributeValues": {":v": {"S": "z"}}, "ReturnValues": "ALL_OLD"}),
    ("UpdateItem", {"TableName": "plain", "Key": {"pk": {"S": "a"}}, "UpdateExpression": "REMOVE b, bs",
                    "ReturnValues": "ALL_NEW", "ReturnConsumedCapacity": "TOTAL"}),
    ("UpdateItem", {"TableName": "plain", "Key": {"pk": {"S": "a"}}, "UpdateExpression": "SET = broken"}),
    ("UpdateItem", {"TableName": "plain", "Key": {"pk": {"S": "a"}}, "UpdateExpression": "SET v = :v",
                    "ConditionExpression": "v = :v", "ExpressionAttributeValues": {":v": {"S": "nope"}}}),
    ("DeleteItem", {"TableName": "plain", "Key": {"pk": {"S": "b"}}, "ReturnValues": "ALL_OLD"}),
    ("DeleteItem", {"TableName": "plain", "Key": {"pk": {"S": "b"}}, "ReturnValues": "ALL_OLD"}),
    ("DeleteItem", {"TableName": "plain", "Key": {"pk": {"S": "u"}}, "ConditionExpression": "attribute_exists(zzz)"}),
    # Query / Scan
    ("Query", {"TableName": "ranged", "KeyConditionExpression": "pk = :p", "ExpressionAttributeValues": {":p": {"S": "p"}}}),
    ("Query", {"TableName": "ranged", "KeyConditionExpression": "pk = :p AND sk > :s", "ScanIndexForward": False,
               "ExpressionAttributeValues": {":p": {"S": "p"}, ":s": {"N": "1"}}, "ReturnConsumedCapacity": "TOTAL"}),
    ("Query", {"TableName": "ranged", "KeyConditionExpression": "pk = :p", "Limit": 1,
               "ExpressionAttributeValues": {":p": {"S": "p"}}}),
    ("Query", {"TableName": "ranged", "KeyConditionExpression": "pk = :p", "Limit": 2,
               "ExclusiveStartKey": {"pk": {"S": "p"}, "sk": {"N": "1"}}, "ExpressionAttributeValues": {":p": {"S": "p"}}}),
    ("Query", {"TableName": "ranged", "KeyConditionExpression": "pk = :p", "Select": "COUNT",
               "FilterExpression": "attribute_exists(x)", "ExpressionAttributeValues": {":p": {"S": "p"}}}),
    ("Query", {"TableName": "ranged", "IndexName": "by_city", "KeyConditionExpression": "city = :c",
               "ExpressionAttributeValues": {":c": {"S": "Lisbon"}}, "ReturnConsumedCapacity": "INDEXES"}),
    ("Query", {"TableName": "ranged", "KeyConditions": {"pk": {"ComparisonOperator": "EQ",
                                                                "AttributeValueList": [{"S": "p"}]}}}),
    ("Query", {"TableName": "ranged", "IndexName": "nope", "KeyConditionExpression": "pk = :p",
               "ExpressionAttributeValues": {":p": {"S": "p"}}}),
    ("Query", {"TableName": "ranged", "KeyConditionExpression": "sk = :s", "ExpressionAttributeValues": {":s": {"N": "1"}}}),
    ("Query", {"TableName": "ranged"}),
    ("Query", {"TableName": "ranged", "KeyConditionExpression": "pk = :p", "Limit": "1",
               "ExpressionAttributeValues": {":p": {"S": "nobody"}}}),
    ("Scan", {"TableName": "ranged"}),
    ("Scan", {"TableName": "ranged", "FilterExpression": "city = :c", "ExpressionAttributeValues": {":c": {"S": "Porto"}},
              "Limit": 2, "ReturnConsumedCapacity": "TOTAL"}),
    ("Scan", {"TableName": "plain", "Segment": 0, "TotalSegments": 2, "ProjectionExpression": "pk"}),
    # BatchWriteItem / BatchGetItem
    ("BatchWriteItem", {"RequestItems": {
        "plain": [{"PutRequest": {"Item": {"pk": {"S": f"batch{i}"}, "i": {"N": str(i)}}}} for i in range(5)]
        + [{"DeleteRequest": {"Key": {"pk": {"S": "a"}}}}],
        "ranged": [{"PutRequest": {"Item": _row("r", 9)}}]}, "ReturnConsumedCapacity": "TOTAL"}),
    ("BatchWriteItem", {"RequestItems": {"plain": [{"PutRequest": {"Item": {"pk": {"S": "dup"}}}},
                                                   {"PutRequest": {"Item": {"pk": {"S": "dup"}}}}]}}),
    ("BatchWriteItem", {"RequestItems": {"plain": [{"PutRequest": {"Item": {"pk": {"S": ""}}}}]}}),
    ("BatchWriteItem", {"RequestItems": {"missing": [{"PutRequest": {"Item": {"pk": {"S": "x"}}}}]}}),
    # BatchWriteItem: Eddy's own rendering of moto's action (moto_seam/tables/batch_writes.py), step by step
    ("BatchWriteItem", {"RequestItems": {"ranged": [  # 25 puts, the bench's shape; then again, unchanged
        {"PutRequest": {"Item": _row(f"w{i // 10}", i % 10, n={"N": str(i)}, tags={"SS": ["a", "b"]},
                                     m={"M": {"c": {"S": "Lisbon"}, "a": {"N": "42"}}})}} for i in range(25)]}}),
    ("BatchWriteItem", {"RequestItems": {"ranged": [
        {"PutRequest": {"Item": _row(f"w{i // 10}", i % 10, n={"N": str(i)}, tags={"SS": ["a", "b"]},
                                     m={"M": {"c": {"S": "Lisbon"}, "a": {"N": "42"}}})}} for i in range(25)]}}),
    ("BatchWriteItem", {"RequestItems": {"ranged": [
        {"PutRequest": {"Item": _row("w0", 1, n={"N": "1.0"}, b={"B": BLOB})}},  # changed, with a blob
        {"PutRequest": {"Item": _row("w0", 2, n={"N": "2"}, x={"S": None, "N": "7"})}},  # a null member
        {"DeleteRequest": {"Key": _row("w0", 3)}}, {"DeleteRequest": {"Key": _row("nobody", 3)}}]},
        "ReturnConsumedCapacity": "INDEXES", "ReturnItemCollectionMetrics": "SIZE"}),
    ("BatchWriteItem", {"RequestItems": {"ranged": [  # moto allows a put and a delete of one key: puts go first
        {"PutRequest": {"Item": _row("w1", 1, v={"S": "put"})}}, {"DeleteRequest": {"Key": _row("w1", 1)}}]}}),
    ("BatchWriteItem", {"RequestItems": {"ranged": [  # two puts of one key, different items: moto allows them
        {"PutRequest": {"Item": _row("w1", 2, v={"S": "first"})}},
        {"PutRequest": {"Item": _row("w1", 2, v={"S": "second"})}}]}}),
    ("BatchWriteItem", {"RequestItems": {"ranged": [
        {"DeleteRequest": {"Key": _row("w1", 3)}}, {"DeleteRequest": {"Key": _row("w1", 3)}}]}}),
    ("BatchWriteItem", {"RequestItems": {"ranged": [  # one item, its members in another order: not moto's duplicates
        {"PutRequest": {"Item": {"pk": {"S": "w20"}, "sk": {"N": "1"}, "a": {"S": "x"}}}},
        {"PutRequest": {"Item": {"a": {"S": "x"}, "sk": {"N": "1"}, "pk": {"S": "w20"}}}}]}}),
    ("BatchWriteItem", {"RequestItems": {"ranged": [  # one key, other attributes the same as JSON: duplicates
        {"PutRequest": {"Item": _row("w21", 1, m={"M": {"a": {"L": [{"N": "1"}]}}})}},
        {"PutRequest": {"Item": _row("w21", 2)}},
        {"PutRequest": {"Item": _row("w21", 1, m={"M": {"a": {"L": [{"N": "1"}]}}})}}]}}),
    ("BatchWriteItem", {"RequestItems": {"plain": [{"PutRequest": {"Item": {"pk": {"S": "same"}}}}],
                                         "ranged": [{"PutRequest": {"Item": {"pk": {"S": "same"}}}}]}}),
    ("BatchWriteItem", {"RequestItems": {"ranged": [  # refused at the third put: moto wrote the two before it
        {"PutRequest": {"Item": _row("w2", 1)}}, {"PutRequest": {"Item": _row("w2", 2)}},
        {"PutRequest": {"Item": {"pk": {"N": "1"}, "sk": {"N": "3"}}}}, {"PutRequest": {"Item": _row("w2", 4)}}]}}),
    ("BatchWriteItem", {"RequestItems": {"ranged": [
        {"PutRequest": {"Item": _row("w3", 1)}}, {"PutRequest": {"Item": _row("w3", 2, big={"S": "x" * 405000})}}]}}),
    ("BatchWriteItem", {"RequestItems": {"ranged": [
        {"PutRequest": {"Item": _row("w4", 1)}}, {"PutRequest": {"Item": _row("w4", 2, n={"N": "one"})}}]}}),
    ("BatchWriteItem", {"RequestItems": {"ranged": [
        {"PutRequest": {"Item": _row("w5", 1)}}, {"PutRequest": {"Item": {"pk": {"S": "w5"}}}}]}}),
    ("BatchWriteItem", {"RequestItems": {"ranged": [
        {"PutRequest": {"Item": _row("w6", 1)}}, {"PutRequest": {"Item": _row("w6", 2, city={"S": ""})}}]}}),
    ("BatchWriteItem", {"RequestItems": {"ranged": [
        {"PutRequest": {"Item": _row("w12", 1)}}, {"DeleteRequest": {"Key": {"pk": {"S": "w12"}}}}]}}),
    ("BatchWriteItem", {"RequestItems": {"ranged": [{"PutRequest": {"Item": _row("", 1)}}]}}),
    ("BatchWriteItem", {"RequestItems": {"ranged": [{"PutRequest": {"Item": _row("w7", 1, e={"S": ""})}}]}}),
    ("BatchWriteItem", {"RequestItems": {"ranged": [{"PutRequest": {"Item": _row("w7", 2)}}],
                                         "missing": [{"PutRequest": {"Item": {"pk": {"S": "x"}}}}]}}),
    ("BatchWriteItem", {"RequestItems": {"ranged": [{"DeleteRequest": {"Key": {"pk": {"N": "1"}, "sk": {"N": "1"}}}}]}}),
    ("BatchWriteItem", {"RequestItems": {"ranged": [  # both members: moto reads the first
        {"PutRequest": {"Item": _row("w8", 1)}, "DeleteRequest": {"Key": _row("w8", 1)}}]}}),
    ("BatchWriteItem", {"RequestItems": {"arn:aws:dynamodb:us-east-1:123456789012:table/plain": [
        {"PutRequest": {"Item": {"pk": {"S": "by-arn"}}}}]}}),
    ("BatchWriteItem", {"RequestItems": {"ranged": [{"PutRequest": {"Item": _row("w9", i)}} for i in range(26)]}}),
    ("BatchWriteItem", {"RequestItems": {"ranged": [{"PutRequest": {"Item": _row("w11", 1)}}],
                                         "plain": [{"DeleteRequest": {"Key": {"pk": {"S": "by-arn"}}}}]}}),
    ("BatchWriteItem", {"RequestItems": {}}),
    ("BatchWriteItem", {"RequestItems": {"ranged": []}}),
    ("BatchWriteItem", {"RequestItems": {"ranged": [{"PutRequest": {"Item": _row("w10", 1, bad={"S": 5})}}]}}),
    ("BatchGetItem", {"RequestItems": {"plain": {"Keys": [{"pk": {"S": "batch1"}}, {"pk": {"S": "none"}}]},
                                       "ranged": {"Keys": [_row("p", 1)], "ProjectionExpression": "city"}}}),
    ("BatchGetItem", {"RequestItems": {"plain": {"Keys": [{"pk": {"S": "x"}}, {"pk": {"S": "x"}}]}}}),
    # bodies moto's parser cannot shape: the full path answers, whichever way the request came
    ("GetItem", b"[1, 2]"),
    ("GetItem", b"not json"),
    ("Query", {"TableName": "ranged", "KeyConditionExpression": "pk = :p", "Limit": 1.5,
               "ExpressionAttributeValues": {":p": {"S": "p"}}}),
]


def _request(operation: str, payload: Any) -> Request:
    body = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    headers = {"X-Amz-Target": f"DynamoDB_20120810.{operation}", "Content-Type": "application/x-amz-json-1.0",
               "Authorization": AUTH}
    return Request("POST", URL, headers, body)


def _answers_and_records(tmp_path, name: str) -> tuple[list[tuple], list[tuple]]:
    answers = []
    with emulate(state_dir=tmp_path / name, housekeeping_interval=None) as emu:
        for operation, payload in SCRIPT:
            response = router.route(emu, _request(operation, payload))
            headers = {k.lower(): v for k, v in response.headers.items()}
            try:
                body = json.loads(response.body)
            except ValueError:
                body = response.body
            if operation not in dynamodb_fast.OPERATIONS:  # set-up: its answer holds times and stream labels
                body = None
            answers.append((operation, response.status, headers.get("x-amzn-errortype"), body))
        records = []
        for table in ("plain", "ranged"):
            for stream in emu.streams.list("123456789012", "us-east-1", table):
                for shard in stream.shards.values():
                    records += [(table, record.event_name, record.keys, record.old_image, record.new_image)
                                for record in shard.records]
    return answers, records


#: what moto's own BatchWriteItem writes before it refuses a batch at a bad request: the puts before it (key-only)
#: (w2's two replace items of the 25-put batch; AWS refuses the whole batch; Eddy's action, on both paths, checks
#: every request before it writes any; w4's unreadable number is refused by validation, before either path)
WRITTEN_BY_REFUSED_BATCHES = [("ranged", event_name, _row(pk, sk), _row(pk, sk)) for event_name, pk, sk in
                              [("MODIFY", "w2", 1), ("MODIFY", "w2", 2), ("INSERT", "w3", 1), ("INSERT", "w5", 1),
                               ("INSERT", "w12", 1)]]


def test_the_fast_path_answers_as_moto_does(tmp_path, monkeypatch):
    fast_answers, fast_records = _answers_and_records(tmp_path, "fast")
    monkeypatch.setattr(dynamodb_fast, "answer", lambda operation, request, params, shape=None: None)
    # moto's full path with moto's own BatchWriteItem (an emulator routes it to Eddy's action, all_or_nothing.py)
    monkeypatch.setattr(all_or_nothing, "_batch_write_item", all_or_nothing.original_batch_write_item)
    moto_answers, moto_records = _answers_and_records(tmp_path, "moto")
    assert len(fast_answers) == len(SCRIPT)
    for step, (fast, moto) in enumerate(zip(fast_answers, moto_answers)):
        assert fast == moto, f"step {step}: {SCRIPT[step]}"
    partial = [record for record in moto_records if (*record[:3], record[4]) in WRITTEN_BY_REFUSED_BATCHES]
    assert [(*record[:3], record[4]) for record in partial] == WRITTEN_BY_REFUSED_BATCHES
    assert fast_records == [record for record in moto_records if record not in partial]
    statuses = {status for _, status, _, _ in fast_answers}
    assert statuses == {200, 400}  # the script covers refusals as well as answers
    assert len(fast_records) >= 15


@pytest.mark.parametrize("operation", sorted(dynamodb_fast.OPERATIONS))
def test_each_fast_operation_is_in_the_script(operation):
    assert any(step[0] == operation for step in SCRIPT)


def _as_botocore_parses(value: Any) -> Any:
    """An AttributeValue as botocore's parser hands it back: B and BS as bytes."""
    (kind, content), = value.items()
    if kind == "B":
        return {kind: base64.b64decode(content)}
    if kind == "BS":
        return {kind: [base64.b64decode(member) for member in content]}
    if kind == "L":
        return {kind: [_as_botocore_parses(element) for element in content]}
    if kind == "M":
        return {kind: {name: _as_botocore_parses(element) for name, element in content.items()}}
    return value


def _bodies(client: Any) -> list[bytes]:
    """The raw bodies of the client's GetItem answers, as they came (in both doors)."""
    bodies: list[bytes] = []
    client.meta.events.register(
        "after-call.dynamodb.GetItem", lambda http_response, **_: bodies.append(http_response.content)
    )
    return bodies


def _compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


def _whole_item_gets(client: Any) -> list[dict]:
    """The gets of a whole item (moto_seam/tables/gets.py's item_text), of an item put with every type, then changed by
    UpdateItem, with and without ConsumedCapacity, of no item; each answer as boto3 parses it."""
    client.create_table(TableName="whole", KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                        BillingMode="PAY_PER_REQUEST",
                        StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"})
    item = {name: _as_botocore_parses(value) for name, value in EVERY_TYPE.items()}
    client.put_item(TableName="whole", Item=item)
    answers = [client.get_item(TableName="whole", Key={"pk": {"S": "every"}}),
               client.get_item(TableName="whole", Key={"pk": {"S": "every"}}, ReturnConsumedCapacity="TOTAL")]
    client.update_item(TableName="whole", Key={"pk": {"S": "every"}}, UpdateExpression="SET m.l[0] = :v REMOVE bs",
                       ExpressionAttributeValues={":v": {"S": "changed"}})
    answers += [client.get_item(TableName="whole", Key={"pk": {"S": "every"}}),
                client.get_item(TableName="whole", Key={"pk": {"S": "nobody"}}),
                client.get_item(TableName="whole", Key={"pk": {"S": "nobody"}}, ReturnConsumedCapacity="TOTAL")]
    return [{name: value for name, value in answer.items() if name != "ResponseMetadata"} for answer in answers]


def test_a_whole_items_get_answers_the_text_of_its_image(door, monkeypatch):
    client = door.client("dynamodb")
    bodies = _bodies(client)
    answers = _whole_item_gets(client)
    changed = {name: value for name, value in EVERY_TYPE.items() if name != "bs"}
    changed["m"] = {"M": dict(EVERY_TYPE["m"]["M"], l={"L": [{"S": "changed"}, {"BOOL": False}]})}
    capacity = {"TableName": "whole", "CapacityUnits": 0.5}
    assert bodies == [  # byte for byte: the item's text, in the order it was put, as AWS writes JSON (compact)
        ('{"Item":' + _compact(EVERY_TYPE) + "}").encode(),
        ('{"Item":' + _compact(EVERY_TYPE) + ',"ConsumedCapacity":' + _compact(capacity) + "}").encode(),
        ('{"Item":' + _compact(changed) + "}").encode(),
        b"{}",
        ('{"ConsumedCapacity":' + _compact(capacity) + "}").encode(),
    ]
    parsed = {name: _as_botocore_parses(value) for name, value in EVERY_TYPE.items()}
    assert answers == [
        {"Item": parsed},
        {"Item": parsed, "ConsumedCapacity": capacity},
        {"Item": {name: _as_botocore_parses(value) for name, value in changed.items()}},
        {},
        {"ConsumedCapacity": capacity},
    ]
    if door.name == "inprocess":  # the same bytes as moto's answer made plain, written by Eddy's serializer
        monkeypatch.setattr(moto_actions, "plainest_get", lambda shaped: False)
        client.delete_table(TableName="whole")
        client = door.client("dynamodb")
        dict_bodies = _bodies(client)
        _whole_item_gets(client)
        assert dict_bodies == bodies


def test_a_restored_items_get_answers_its_image_made_again(tmp_path):
    """An item put back after a restart keeps no text of its image (moto_seam/bridge.py's restore_item): its get's
    answer is the text made from moto's item, the same bytes as before the restart."""
    key = {"pk": {"S": "every"}}
    with emulate(state_dir=tmp_path, housekeeping_interval=None):
        client = boto3.client("dynamodb", region_name="us-east-1")
        before = _bodies(client)
        _whole_item_gets(client)
    with emulate(state_dir=tmp_path, housekeeping_interval=None):
        client = boto3.client("dynamodb", region_name="us-east-1")
        after = _bodies(client)
        answer = client.get_item(TableName="whole", Key=key)
    assert after == [before[2]]
    assert answer["Item"]["m"]["M"]["l"] == {"L": [{"S": "changed"}, {"BOOL": False}]}

"""ConsumedCapacity of the item writes (PutItem, UpdateItem, DeleteItem, BatchWriteItem) with each secondary index's
share, of the item reads (GetItem, BatchGetItem: half a unit per 4 KB of the stored item, a whole one when consistent,
the minimum for an item not there: the developer guide's "Read/write capacity mode"), and of a Query on an index under
its own kind; TOTAL and INDEXES, both doors, every answer compared whole.

Sources: the DynamoDB developer guide ("Provisioned throughput considerations for Global Secondary Indexes": an item
written into an index costs a write there, one whose index key changes two, a delete one; "Read/write capacity mode":
one write unit per KB, rounded up); a code generator's snapshot tests of a DynamoDB endpoint's answers
(createUserLogin/updateUserLogin/deleteUserLogin: a PutItem of an item with a GSI's key {"CapacityUnits": 2,
"Table": {"CapacityUnits": 1}, "GlobalSecondaryIndexes": {"gsi1": {"CapacityUnits": 1}}}, CapacityUnits alone at each
level; its DeleteItem the same; an update moving the item in the index 3, the index's share 2). An index's entry is
what it projects (the developer guide, "Projections"; "an update that only changes projected attributes ... one
write"): an update of attributes it does not project writes nothing there."""

from __future__ import annotations

import pytest

TABLE = "scores"
KEY = {"pk": {"S": "a"}, "sk": {"S": "1"}}


def capacity(units: float) -> dict[str, float]:
    return {"CapacityUnits": units}


@pytest.fixture
def dynamodb(door):
    client = door.client("dynamodb")
    client.create_table(
        TableName=TABLE, BillingMode="PAY_PER_REQUEST",
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
        AttributeDefinitions=[{"AttributeName": name, "AttributeType": "S"} for name in ("pk", "sk", "g", "l", "k")],
        GlobalSecondaryIndexes=[{"IndexName": "by-g", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                                 "Projection": {"ProjectionType": "ALL"}},
                                {"IndexName": "by-k", "KeySchema": [{"AttributeName": "k", "KeyType": "HASH"}],
                                 "Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["note"]}}],
        LocalSecondaryIndexes=[{"IndexName": "by-l", "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"},
                                                                    {"AttributeName": "l", "KeyType": "RANGE"}],
                                "Projection": {"ProjectionType": "ALL"}}])
    return client


def test_a_put_costs_its_table_and_each_index_the_item_is_in(dynamodb):
    put = dynamodb.put_item(TableName=TABLE, Item={**KEY, "g": {"S": "x"}}, ReturnConsumedCapacity="INDEXES")
    assert put["ConsumedCapacity"] == {"TableName": TABLE, **capacity(2.0), "Table": capacity(1.0),
                                       "GlobalSecondaryIndexes": {"by-g": capacity(1.0)}}
    big = {**KEY, "g": {"S": "x"}, "l": {"S": "y"}, "text": {"S": "z" * 1500}}  # over 1 KB: two units everywhere
    assert dynamodb.put_item(TableName=TABLE, Item=big, ReturnConsumedCapacity="TOTAL")["ConsumedCapacity"] == {
        "TableName": TABLE, **capacity(6.0)}
    plain = dynamodb.put_item(TableName=TABLE, Item={"pk": {"S": "b"}, "sk": {"S": "1"}},
                              ReturnConsumedCapacity="INDEXES")
    assert plain["ConsumedCapacity"] == {"TableName": TABLE, **capacity(1.0), "Table": capacity(1.0)}


def test_an_update_that_moves_the_item_in_an_index_costs_it_two(dynamodb):
    dynamodb.put_item(TableName=TABLE, Item={**KEY, "g": {"S": "x"}})
    moved = dynamodb.update_item(TableName=TABLE, Key=KEY, UpdateExpression="SET g = :g",
                                 ExpressionAttributeValues={":g": {"S": "other"}}, ReturnConsumedCapacity="INDEXES")
    assert moved["ConsumedCapacity"] == {"TableName": TABLE, **capacity(3.0), "Table": capacity(1.0),
                                         "GlobalSecondaryIndexes": {"by-g": capacity(2.0)}}


def test_a_delete_costs_what_it_removes_and_one_unit_when_nothing_is_there(dynamodb):
    dynamodb.put_item(TableName=TABLE, Item={**KEY, "l": {"S": "y"}})
    gone = dynamodb.delete_item(TableName=TABLE, Key=KEY, ReturnConsumedCapacity="INDEXES")
    assert gone["ConsumedCapacity"] == {"TableName": TABLE, **capacity(2.0), "Table": capacity(1.0),
                                        "LocalSecondaryIndexes": {"by-l": capacity(1.0)}}
    assert dynamodb.delete_item(TableName=TABLE, Key=KEY, ReturnConsumedCapacity="TOTAL")["ConsumedCapacity"] == {
        "TableName": TABLE, **capacity(1.0)}


def test_a_batch_reports_each_table_with_its_indexes(dynamodb):
    requests = [{"PutRequest": {"Item": {"pk": {"S": str(n)}, "sk": {"S": "1"}, "g": {"S": "x"}}}} for n in range(3)]
    requests.append({"DeleteRequest": {"Key": {"pk": {"S": "none"}, "sk": {"S": "1"}}}})
    answer = dynamodb.batch_write_item(RequestItems={TABLE: requests}, ReturnConsumedCapacity="INDEXES")
    assert answer["ConsumedCapacity"] == [{"TableName": TABLE, **capacity(7.0), "Table": capacity(4.0),
                                           "GlobalSecondaryIndexes": {"by-g": capacity(3.0)}}]


def test_a_query_of_a_global_index_reports_it_as_a_global_index(dynamodb):
    dynamodb.put_item(TableName=TABLE, Item={**KEY, "g": {"S": "x"}, "l": {"S": "y"}})
    by_g = dynamodb.query(TableName=TABLE, IndexName="by-g", KeyConditionExpression="g = :g",
                          ExpressionAttributeValues={":g": {"S": "x"}}, ReturnConsumedCapacity="INDEXES")
    assert set(by_g["ConsumedCapacity"]) == {"TableName", "CapacityUnits", "Table", "GlobalSecondaryIndexes"}
    assert list(by_g["ConsumedCapacity"]["GlobalSecondaryIndexes"]) == ["by-g"]
    by_l = dynamodb.query(TableName=TABLE, IndexName="by-l", KeyConditionExpression="pk = :p",
                          ExpressionAttributeValues={":p": {"S": "a"}}, ReturnConsumedCapacity="INDEXES")
    assert list(by_l["ConsumedCapacity"]["LocalSecondaryIndexes"]) == ["by-l"]
    assert "GlobalSecondaryIndexes" not in by_l["ConsumedCapacity"]


def test_an_index_is_charged_for_what_it_projects(dynamodb):
    item = {**KEY, "k": {"S": "x"}, "note": {"S": "n"}, "text": {"S": "z" * 3000}}  # 3 KB, its entry in by-k small
    put = dynamodb.put_item(TableName=TABLE, Item=item, ReturnConsumedCapacity="INDEXES")
    assert put["ConsumedCapacity"] == {"TableName": TABLE, **capacity(4.0), "Table": capacity(3.0),
                                       "GlobalSecondaryIndexes": {"by-k": capacity(1.0)}}
    unprojected = dynamodb.update_item(TableName=TABLE, Key=KEY, UpdateExpression="SET extra = :v",
                                       ExpressionAttributeValues={":v": {"S": "v"}}, ReturnConsumedCapacity="INDEXES")
    assert unprojected["ConsumedCapacity"] == {"TableName": TABLE, **capacity(3.0), "Table": capacity(3.0)}
    projected = dynamodb.update_item(TableName=TABLE, Key=KEY, UpdateExpression="SET note = :v",
                                     ExpressionAttributeValues={":v": {"S": "changed"}}, ReturnConsumedCapacity="INDEXES")
    assert projected["ConsumedCapacity"] == {"TableName": TABLE, **capacity(4.0), "Table": capacity(3.0),
                                             "GlobalSecondaryIndexes": {"by-k": capacity(1.0)}}


def test_an_item_read_costs_half_a_unit_per_4_kb_of_the_stored_item_and_a_whole_one_consistent(dynamodb):
    dynamodb.put_item(TableName=TABLE, Item={**KEY, "text": {"S": "z" * 9000}})  # 3 x 4 KB
    get = dynamodb.get_item(TableName=TABLE, Key=KEY, ProjectionExpression="pk", ReturnConsumedCapacity="INDEXES")
    assert get["ConsumedCapacity"] == {"TableName": TABLE, **capacity(1.5), "Table": capacity(1.5)}
    consistent = dynamodb.get_item(TableName=TABLE, Key=KEY, ConsistentRead=True, ReturnConsumedCapacity="TOTAL")
    assert consistent["ConsumedCapacity"] == {"TableName": TABLE, **capacity(3.0)}
    missing = dynamodb.get_item(TableName=TABLE, Key={"pk": {"S": "none"}, "sk": {"S": "1"}},
                                ReturnConsumedCapacity="TOTAL")
    assert missing["ConsumedCapacity"] == {"TableName": TABLE, **capacity(0.5)}
    batch = dynamodb.batch_get_item(RequestItems={TABLE: {"Keys": [KEY, {"pk": {"S": "none"}, "sk": {"S": "1"}}]}},
                                    ReturnConsumedCapacity="TOTAL")
    assert batch["ConsumedCapacity"] == [{"TableName": TABLE, **capacity(2.0)}]

"""Legacy parameters and document paths as DynamoDB reads them, where moto read them otherwise: AttributesToGet on
GetItem, Query and Scan; Expected with ConditionalOperator OR and Exists with a Value; ADD's and SET's sums written as
DynamoDB stores numbers; a ProjectionExpression path indexing a name placeholder (`#l[0]`); PartiQL's nested paths
and the numbers written in its text. Both doors; whole answers.

Sources: the AWS-run conformance suite nubo-db/dynamodb-conformance (tests/tier3/legacy-api/attributesToGet.test.ts:
only the names given, keys not added; expected.test.ts: OR passes when either condition does, AND when both, Exists
false; tests/tier2/partiql/executeStatement.test.ts: `SELECT mymap.nested` answers {"nested": ...}); DynamoDB's
developer guide ("Legacy conditional parameters", "Document paths": `MyList[0]`-style elements, "Number": leading and
trailing zeroes trimmed) and the AWS-recorded numbers of issue 37 (api/dynamodb/rules/numbers.py).
"""

from __future__ import annotations

import pytest

from tests.emulator.api.dynamodb.rules.conftest import RANGE_TABLE, TABLE, refused

FAILED = (400, "ConditionalCheckFailedException", "The conditional request failed")
KEY = {"pk": {"S": "a"}}


def answer(response: dict) -> dict:
    return {key: value for key, value in response.items() if key != "ResponseMetadata"}


@pytest.fixture
def stored(dynamodb):
    dynamodb.put_item(TableName=TABLE, Item={"pk": {"S": "a"}, "name": {"S": "alice"}, "age": {"N": "30"},
                                             "role": {"S": "admin"}, "status": {"S": "active"},
                                             "l": {"L": [{"S": "e0"}, {"M": {"q": {"N": "5"}, "r": {"N": "6"}}}]}})
    for sk in ("1", "2"):
        dynamodb.put_item(TableName=RANGE_TABLE, Item={"pk": {"S": "p"}, "sk": {"S": sk}, "name": {"S": "n" + sk},
                                                       "data": {"S": "d"}})
    return dynamodb


def test_attributes_to_get_projects_get_item_query_and_scan(stored):
    assert answer(stored.get_item(TableName=TABLE, Key=KEY, AttributesToGet=["name", "age"])) == {
        "Item": {"name": {"S": "alice"}, "age": {"N": "30"}}}
    assert answer(stored.query(TableName=RANGE_TABLE, AttributesToGet=["sk", "name"], KeyConditions={
        "pk": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "p"}]}})) == {
        "Items": [{"sk": {"S": "1"}, "name": {"S": "n1"}}, {"sk": {"S": "2"}, "name": {"S": "n2"}}],
        "Count": 2, "ScannedCount": 2}
    assert answer(stored.scan(TableName=TABLE, AttributesToGet=["pk", "role"])) == {
        "Items": [{"pk": {"S": "a"}, "role": {"S": "admin"}}], "Count": 1, "ScannedCount": 1}


def expected(dynamodb, conditions: dict, operator: str | None = None) -> dict:
    extra = {"ConditionalOperator": operator} if operator else {}
    return answer(dynamodb.put_item(TableName=TABLE, Item={"pk": {"S": "a"}, "status": {"S": "updated"}},
                                    Expected=conditions, **extra))


def test_expected_joins_its_conditions_by_conditional_operator(stored):
    either = {"status": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "wrong"}]},
              "role": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "admin"}]}}
    assert refused(lambda: expected(stored, either, "AND")) == FAILED
    assert refused(lambda: expected(stored, either)) == FAILED  # AND unless OR
    assert expected(stored, either, "OR") == {}
    assert answer(stored.get_item(TableName=TABLE, Key=KEY)) == {"Item": {"pk": {"S": "a"}, "status": {"S": "updated"}}}
    neither = {"status": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "wrong"}]},
               "role": {"ComparisonOperator": "NOT_NULL"}}
    assert refused(lambda: expected(stored, neither, "OR")) == FAILED


def test_expected_exists_and_value(stored):
    assert refused(lambda: expected(stored, {"status": {"Exists": True, "Value": {"S": "other"}}})) == FAILED
    assert refused(lambda: expected(stored, {"role": {"Exists": False}})) == FAILED
    assert expected(stored, {"status": {"Exists": True, "Value": {"S": "active"}}, "absent": {"Exists": False},
                             "age": {"ComparisonOperator": "BETWEEN",
                                     "AttributeValueList": [{"N": "20"}, {"N": "40"}]}}) == {}


def test_sums_are_written_as_dynamodb_stores_numbers(dynamodb):
    dynamodb.put_item(TableName=TABLE, Item={"pk": {"S": "a"}, "n": {"N": "3.5"}, "m": {"N": "1"}})
    assert answer(dynamodb.update_item(TableName=TABLE, Key=KEY, UpdateExpression="ADD n :v SET m = m + :w",
                                       ExpressionAttributeValues={":v": {"N": "-3.5"}, ":w": {"N": "1.0"}},
                                       ReturnValues="UPDATED_NEW")) == {"Attributes": {"n": {"N": "0"}, "m": {"N": "2"}}}
    assert answer(dynamodb.update_item(TableName=TABLE, Key=KEY, UpdateExpression="SET m = m - :w",
                                       ExpressionAttributeValues={":w": {"N": "0.50"}},
                                       ReturnValues="UPDATED_NEW")) == {"Attributes": {"m": {"N": "1.5"}}}


def test_a_projection_indexes_a_name_placeholder(stored):
    assert answer(stored.get_item(TableName=TABLE, Key=KEY, ProjectionExpression="#l[0]",
                                  ExpressionAttributeNames={"#l": "l"})) == {"Item": {"l": {"L": [{"S": "e0"}]}}}
    assert answer(stored.get_item(TableName=TABLE, Key=KEY, ProjectionExpression="l[1].r, #l[0], l[1].q",
                                  ExpressionAttributeNames={"#l": "l"})) == {  # one list, every element named
        "Item": {"l": {"L": [{"S": "e0"}, {"M": {"q": {"N": "5"}, "r": {"N": "6"}}}]}}}
    assert answer(stored.get_item(TableName=TABLE, Key=KEY, ProjectionExpression="#l[1].#q, #n",
                                  ExpressionAttributeNames={"#l": "l", "#q": "q", "#n": "name"})) == {
        "Item": {"l": {"L": [{"M": {"q": {"N": "5"}}}]}, "name": {"S": "alice"}}}


def test_partiql_numbers_and_nested_paths(dynamodb):
    dynamodb.execute_statement(Statement=f"INSERT INTO {TABLE} VALUE {{'pk': 'q', 'n': 1.50, 'o': 0042, 'm': {{'b': -0.0}}}}")
    dynamodb.execute_statement(Statement=f"UPDATE {TABLE} SET p = 2.50 WHERE pk = 'q'")
    assert answer(dynamodb.get_item(TableName=TABLE, Key={"pk": {"S": "q"}})) == {"Item": {
        "pk": {"S": "q"}, "n": {"N": "1.5"}, "o": {"N": "42"}, "m": {"M": {"b": {"N": "0"}}}, "p": {"N": "2.5"}}}
    assert answer(dynamodb.execute_statement(Statement=f"SELECT m.b FROM {TABLE} WHERE pk = 'q'")) == {
        "Items": [{"b": {"N": "0"}}]}


def test_scan_and_query_filters_join_by_conditional_operator(stored):
    either = {"sk": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "1"}]},
              "name": {"ComparisonOperator": "BEGINS_WITH", "AttributeValueList": [{"S": "n2"}]}}
    scanned = stored.scan(TableName=RANGE_TABLE, ScanFilter=either, ConditionalOperator="OR")
    assert sorted(item["sk"]["S"] for item in scanned["Items"]) == ["1", "2"]
    assert answer(stored.scan(TableName=RANGE_TABLE, ScanFilter=either)) == {"Items": [], "Count": 0, "ScannedCount": 2}
    queried = stored.query(TableName=RANGE_TABLE, QueryFilter={
        "name": {"ComparisonOperator": "IN", "AttributeValueList": [{"S": "n2"}, {"S": "x"}]},
        "data": {"ComparisonOperator": "NULL"}}, ConditionalOperator="OR", AttributesToGet=["sk"],
        KeyConditions={"pk": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "p"}]}})
    assert answer(queried) == {"Items": [{"sk": {"S": "2"}}], "Count": 1, "ScannedCount": 2}

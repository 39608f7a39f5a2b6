"""The legacy (non-expression) parameters DynamoDB refuses, in its words (attribute_values.check_legacy): Expected,
AttributeUpdates, KeyConditions, QueryFilter and ScanFilter, and a request that mixes them with expressions. Both
doors (apart from test_attribute_values.py, whose module-wide emulator the door fixture cannot share)."""

from __future__ import annotations

from typing import Any, Callable

import pytest
from botocore.exceptions import ClientError

INVALID = "One or more parameter values were invalid: "
WHOLE = "1 validation error detected: "
KEY = {"pk": {"S": "a"}}


def refused(call: Callable[[], Any]) -> tuple[str, str]:
    with pytest.raises(ClientError) as error:
        call()
    return error.value.response["Error"]["Code"], error.value.response["Error"]["Message"]


#: what DynamoDB refuses, in its words (dynalite's validations, written against it): moto failed on most of them
#: with a Python error, and let the others through
LEGACY = {
    "Expected: an unknown ComparisonOperator": (
        "put_item", {"Expected": {"v": {"ComparisonOperator": "XX", "AttributeValueList": [{"S": "x"}]}}},
        WHOLE + "Value 'XX' at 'expected.v.member.comparisonOperator' failed to satisfy constraint: Member must "
                "satisfy enum value set: [IN, NULL, BETWEEN, LT, NOT_CONTAINS, EQ, GT, NOT_NULL, NE, LE, BEGINS_WITH, "
                "GE, CONTAINS]"),
    "Expected: EQ without a value": (
        "put_item", {"Expected": {"v": {"ComparisonOperator": "EQ"}}},
        INVALID + "Value or AttributeValueList must be used with ComparisonOperator: EQ for Attribute: v"),
    "Expected: EQ with no values": (
        "put_item", {"Expected": {"v": {"ComparisonOperator": "EQ", "AttributeValueList": []}}},
        INVALID + "Invalid number of argument(s) for the EQ ComparisonOperator"),
    "Expected: BETWEEN with one Value": (
        "delete_item", {"Expected": {"v": {"ComparisonOperator": "BETWEEN", "Value": {"S": "x"}}}},
        INVALID + "Invalid number of argument(s) for the BETWEEN ComparisonOperator"),
    "Expected: NULL with a value": (
        "put_item", {"Expected": {"v": {"ComparisonOperator": "NULL", "AttributeValueList": [{"S": "x"}]}}},
        INVALID + "Invalid number of argument(s) for the NULL ComparisonOperator"),
    "Expected: Value and AttributeValueList": (
        "put_item", {"Expected": {"v": {"ComparisonOperator": "EQ", "Value": {"S": "x"},
                                        "AttributeValueList": [{"S": "x"}]}}},
        INVALID + "Value and AttributeValueList cannot be used together for Attribute: v"),
    "Expected: Exists and ComparisonOperator": (
        "put_item", {"Expected": {"v": {"ComparisonOperator": "EQ", "Exists": True, "Value": {"S": "x"}}}},
        INVALID + "Exists and ComparisonOperator cannot be used together for Attribute: v"),
    "Expected: AttributeValueList without ComparisonOperator": (
        "put_item", {"Expected": {"v": {"AttributeValueList": [{"S": "x"}]}}},
        INVALID + "AttributeValueList can only be used with a ComparisonOperator for Attribute: v"),
    "Expected: nothing": (
        "put_item", {"Expected": {"v": {}}}, INVALID + "Value must be provided when Exists is null for Attribute: v"),
    "Expected: Exists without Value": (
        "put_item", {"Expected": {"v": {"Exists": True}}},
        INVALID + "Value must be provided when Exists is true for Attribute: v"),
    "Expected: a Value not to exist": (
        "put_item", {"Expected": {"v": {"Exists": False, "Value": {"S": "x"}}}},
        INVALID + "Value cannot be used when Exists is false for Attribute: v"),
    "AttributeUpdates: ADD a string": (
        "update_item", {"AttributeUpdates": {"v": {"Action": "ADD", "Value": {"S": "y"}}}},
        INVALID + "ADD action is not supported for the type S"),
    "AttributeUpdates: DELETE a string": (
        "update_item", {"AttributeUpdates": {"v": {"Action": "DELETE", "Value": {"S": "y"}}}},
        INVALID + "DELETE action with value is not supported for the type S"),
    "AttributeUpdates: PUT nothing": (
        "update_item", {"AttributeUpdates": {"v": {"Action": "PUT"}}},
        INVALID + "Only DELETE action is allowed when no attribute value is specified"),
    "AttributeUpdates: an unknown Action": (
        "update_item", {"AttributeUpdates": {"v": {"Action": "XX", "Value": {"S": "y"}}}},
        WHOLE + "Value 'XX' at 'attributeUpdates.v.member.action' failed to satisfy constraint: Member must satisfy "
                "enum value set: [ADD, PUT, DELETE]"),
    "KeyConditions: EQ without a value": (
        "query", {"KeyConditions": {"pk": {"ComparisonOperator": "EQ"}}},
        INVALID + "Invalid number of argument(s) for the EQ ComparisonOperator"),
    "QueryFilter: BETWEEN with one value": (
        "query", {"KeyConditions": {"pk": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "a"}]}},
                  "QueryFilter": {"v": {"ComparisonOperator": "BETWEEN", "AttributeValueList": [{"S": "a"}]}}},
        INVALID + "Invalid number of argument(s) for the BETWEEN ComparisonOperator"),
    "ScanFilter: IN without values": (
        "scan", {"ScanFilter": {"v": {"ComparisonOperator": "IN", "AttributeValueList": []}}},
        INVALID + "Invalid number of argument(s) for the IN ComparisonOperator"),
}


def test_legacy_parameters_dynamodb_refuses_are_refused_in_its_words(door):
    client = door.client("dynamodb", validate=False)
    client.create_table(TableName="orders", KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                        BillingMode="PAY_PER_REQUEST")
    client.put_item(TableName="orders", Item={**KEY, "v": {"S": "x"}})
    answers = {}
    for case, (operation, extra, _) in LEGACY.items():
        keyed = {"Item": {**KEY, "v": {"S": "new"}}} if operation == "put_item" else (
            {"Key": KEY} if operation in ("delete_item", "update_item") else {})
        answers[case] = refused(lambda: getattr(client, operation)(TableName="orders", **keyed, **extra))
    assert answers == {case: ("ValidationException", message) for case, (_, _, message) in LEGACY.items()}
    assert client.scan(TableName="orders")["Items"] == [{**KEY, "v": {"S": "x"}}]  # nothing written
    # what DynamoDB allows still runs
    client.put_item(TableName="orders", Item={**KEY, "v": {"S": "y"}}, Expected={"v": {"Value": {"S": "x"}}})
    client.update_item(TableName="orders", Key=KEY, AttributeUpdates={"n": {"Action": "ADD", "Value": {"N": "2"}},
                                                                      "v": {"Action": "DELETE"}})
    assert client.query(TableName="orders", KeyConditions={"pk": {"ComparisonOperator": "EQ", "AttributeValueList": [
        {"S": "a"}]}}, QueryFilter={"n": {"ComparisonOperator": "BETWEEN", "AttributeValueList": [
            {"N": "1"}, {"N": "3"}]}})["Items"] == [{**KEY, "n": {"N": "2"}}]
    assert client.scan(TableName="orders", ScanFilter={"v": {"ComparisonOperator": "NULL"}})["Count"] == 1
    mixed = "Can not use both expression and non-expression parameters in the same request: Non-expression parameters: "
    assert refused(lambda: client.put_item(TableName="orders", Item=KEY, ConditionExpression="attribute_exists(pk)",
                                           Expected={"v": {"ComparisonOperator": "EQ"}})) == (
        "ValidationException", mixed + "{Expected} Expression parameters: {ConditionExpression}")
    assert refused(lambda: client.scan(TableName="orders", FilterExpression="attribute_exists(pk)", AttributesToGet=["pk"],
                                       ScanFilter={"v": {"ComparisonOperator": "NULL", "AttributeValueList": [
                                           {"S": "x"}]}})) == (
        "ValidationException", mixed + "{AttributesToGet, ScanFilter} Expression parameters: {FilterExpression}")
    # a mix whose legacy parameters are sound is refused too (dynalite's test/updateItem.js, written against DynamoDB:
    # "should return ValidationException if expression and non-expression"; moto runs it: tools/peer/report.py)
    assert refused(lambda: client.update_item(
        TableName="orders", Key=KEY, UpdateExpression="SET n = :n", Expected={"n": {"Value": {"N": "2"}}},
        ExpressionAttributeValues={":n": {"N": "3"}})) == (
        "ValidationException", mixed + "{Expected} Expression parameters: {UpdateExpression}")
    assert client.get_item(TableName="orders", Key=KEY)["Item"]["n"] == {"N": "2"}
    assert client.query(TableName="orders", KeyConditions={"pk": {"ComparisonOperator": "EQ", "AttributeValueList": [
        {"S": "a"}]}}, FilterExpression="attribute_exists(n)")["Count"] == 1  # KeyConditions go with a filter

"""Expressions and their parameters, read as DynamoDB reads them before it runs any: each message whole, the unused
names and values of PutItem and DeleteItem in the "1 validation error detected: " envelope, those of UpdateItem, reads
and transactions without it (moto's AWS-verified test_put_item_unused_attributes, test_delete_unused_attribute_name,
test_get_item_unused_attribute_name, test_transact_write_item_put_unused_attribute_name; UpdateItem's as the AWS-run
conformance suite nubo-db/dynamodb-conformance recorded them in 2026, tests/tier3/error-messages/updateItem.test.ts,
which also pins a syntax error and an empty UpdateExpression answered first, and query.test.ts an empty
KeyConditionExpression; moto's older test_update_item_unused_attributes had the envelope).

Source: dynalite's tests, written against DynamoDB: test/putItem.js ("should return ValidationException if
expression and non-expression", "... if ExpressionAttributeNames but no ConditionExpression", "... if
ExpressionAttributeValues but no ConditionExpression"), test/updateItem.js ("... for extra ExpressionAttributeNames",
"... for extra ExpressionAttributeValues"), test/query.js and test/scan.js; ScyllaDB's AWS-run test_transact.py
(unused names and values in a transaction's actions are refused)."""

from __future__ import annotations

import pytest

from tests.emulator.api.dynamodb.rules.conftest import TABLE, invalid, items, refused

KEY = {"pk": {"S": "a"}}


def test_expression_and_legacy_parameters_are_not_mixed(dynamodb):
    assert refused(lambda: dynamodb.put_item(TableName=TABLE, Item=KEY, Expected={"x": {"Exists": False}},
                                             ConditionExpression="attribute_not_exists(pk)")) == invalid(
        "Can not use both expression and non-expression parameters in the same request: Non-expression parameters: "
        "{Expected} Expression parameters: {ConditionExpression}")
    assert refused(lambda: dynamodb.update_item(
        TableName=TABLE, Key=KEY, AttributeUpdates={"x": {"Value": {"S": "x"}}}, Expected={"x": {"Exists": False}},
        UpdateExpression="SET y = :y", ExpressionAttributeValues={":y": {"S": "y"}})) == invalid(
        "Can not use both expression and non-expression parameters in the same request: Non-expression parameters: "
        "{AttributeUpdates, Expected} Expression parameters: {UpdateExpression}")
    assert refused(lambda: dynamodb.scan(TableName=TABLE, ProjectionExpression="pk", AttributesToGet=["pk"])) == invalid(
        "Can not use both expression and non-expression parameters in the same request: Non-expression parameters: "
        "{AttributesToGet} Expression parameters: {ProjectionExpression}")
    assert items(dynamodb) == []


def test_a_query_may_give_key_conditions_with_a_filter_expression_but_not_with_a_key_condition_expression(dynamodb):
    conditions = {"pk": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "a"}]}}
    assert refused(lambda: dynamodb.query(TableName=TABLE, KeyConditions=conditions, KeyConditionExpression="pk = :a",
                                          ExpressionAttributeValues={":a": {"S": "a"}})) == invalid(
        "Can not use both expression and non-expression parameters in the same request: Non-expression parameters: "
        "{KeyConditions} Expression parameters: {KeyConditionExpression}")


@pytest.mark.parametrize("operation, params, message", [
    ("put_item", {"Item": KEY, "ExpressionAttributeNames": {"#a": "a"}},
     "ExpressionAttributeNames can only be specified when using expressions"),
    ("put_item", {"Item": KEY, "ExpressionAttributeValues": {":a": {"S": "a"}}},
     "ExpressionAttributeValues can only be specified when using expressions: ConditionExpression is null"),
    ("update_item", {"Key": KEY, "ExpressionAttributeValues": {":a": {"S": "a"}}},
     "ExpressionAttributeValues can only be specified when using expressions: UpdateExpression and ConditionExpression "
     "are null"),
    ("scan", {"ExpressionAttributeValues": {":a": {"S": "a"}}, "ProjectionExpression": "pk"},
     "ExpressionAttributeValues can only be specified when using expressions: FilterExpression is null"),
    ("get_item", {"Key": KEY, "ExpressionAttributeNames": {"#a": "a"}, "ProjectionExpression": "pk"},
     "Value provided in ExpressionAttributeNames unused in expressions: keys: {#a}"),
])
def test_names_and_values_only_with_an_expression_that_can_use_them(dynamodb, operation, params, message):
    assert refused(lambda: getattr(dynamodb, operation)(TableName=TABLE, **params)) == invalid(message)
    assert items(dynamodb) == []


def test_every_name_and_value_given_is_used_names_first(dynamodb):
    assert refused(lambda: dynamodb.update_item(
        TableName=TABLE, Key=KEY, UpdateExpression="REMOVE a", ConditionExpression="a = :b",
        ExpressionAttributeValues={":a": {"S": "a"}, ":b": {"S": "a"}, ":c": {"S": "a"}},
        ExpressionAttributeNames={"#a": "a", "#b": "b"})) == invalid(
        "Value provided in ExpressionAttributeNames unused in expressions: keys: {#a, #b}")
    assert refused(lambda: dynamodb.update_item(
        TableName=TABLE, Key=KEY, UpdateExpression="REMOVE a", ConditionExpression="a = :b",
        ExpressionAttributeValues={":a": {"S": "a"}, ":b": {"S": "a"}, ":c": {"S": "a"}})) == invalid(
        "Value provided in ExpressionAttributeValues unused in expressions: keys: {:a, :c}")
    assert refused(lambda: dynamodb.put_item(
        TableName=TABLE, Item=KEY, ConditionExpression="attribute_not_exists(pk)",
        ExpressionAttributeNames={"#a": "a"})) == invalid(
        "1 validation error detected: Value provided in ExpressionAttributeNames unused in expressions: keys: {#a}")
    assert items(dynamodb) == []


def test_an_update_expressions_syntax_error_or_emptiness_is_answered_before_its_unused_values(dynamodb):
    assert refused(lambda: dynamodb.update_item(
        TableName=TABLE, Key=KEY, UpdateExpression="INVALID SYNTAX HERE",
        ExpressionAttributeValues={":v": {"S": "val"}})) == invalid(
        'Invalid UpdateExpression: Syntax error; token: "INVALID", near: "INVALID SYNTAX"')
    assert refused(lambda: dynamodb.update_item(TableName=TABLE, Key=KEY, UpdateExpression="")) == invalid(
        "Invalid UpdateExpression: The expression can not be empty;")
    assert refused(lambda: dynamodb.query(TableName=TABLE, KeyConditionExpression="",
                                          ExpressionAttributeValues={":v": {"S": "val"}})) == invalid(
        "Invalid KeyConditionExpression: The expression can not be empty;")
    assert items(dynamodb) == []


def test_unused_names_and_values_in_a_transactions_action_are_refused(dynamodb):
    put = {"TableName": TABLE, "Item": KEY, "ConditionExpression": "attribute_not_exists(#p)",
           "ExpressionAttributeNames": {"#p": "pk", "#xyz": "xyz"}}
    assert refused(lambda: dynamodb.transact_write_items(TransactItems=[{"Put": put}])) == invalid(
        "Value provided in ExpressionAttributeNames unused in expressions: keys: {#xyz}")
    get = {"TableName": TABLE, "Key": KEY, "ProjectionExpression": "#p", "ExpressionAttributeNames": {"#p": "pk", "#q": "q"}}
    assert refused(lambda: dynamodb.transact_get_items(TransactItems=[{"Get": get}])) == invalid(
        "Value provided in ExpressionAttributeNames unused in expressions: keys: {#q}")
    assert items(dynamodb) == []


def test_a_name_an_expression_uses_but_the_request_does_not_define_is_worded_as_before(dynamodb):
    """The expression's reader answers first (its words are pinned in test_expression_mistakes.py)."""
    status, code, message = refused(lambda: dynamodb.put_item(
        TableName=TABLE, Item=KEY, ConditionExpression="attribute_not_exists(#nope)",
        ExpressionAttributeNames={"#unused": "u"}))
    assert (status, code) == (400, "ValidationException") and "#nope" in message

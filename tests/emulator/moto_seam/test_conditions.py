"""moto_seam/conditions.py: values of different types are not ordered, so the condition is false.

Source: the AWS-recorded suite of issue 37 (a ConditionExpression comparing a number attribute with a string value:
AWS answers ConditionalCheckFailedException, Eddy answered a ValidationException); AWS's developer guide,
"Comparison operator and function reference": a comparison of values of different data types evaluates to false."""

from __future__ import annotations

import pytest
from botocore.exceptions import ClientError
from moto.dynamodb import comparisons

from eddy import emulate
from eddy.emulator.moto_seam import conditions
from tests.emulator.helpers import N, S, create_table


def test_a_condition_comparing_a_number_with_a_string_fails_its_condition_and_changes_nothing(door):
    dynamodb = door.client("dynamodb")
    create_table(dynamodb, view_type=None)
    dynamodb.put_item(TableName="orders", Item={"pk": S("a"), "n": N("5")})
    for operator in ("<", "<=", ">", ">="):
        with pytest.raises(ClientError) as error:
            dynamodb.put_item(TableName="orders", Item={"pk": S("a"), "n": N("6")}, ConditionExpression=f"n {operator} :s",
                              ExpressionAttributeValues={":s": S("x")})
        assert (error.value.response["ResponseMetadata"]["HTTPStatusCode"], error.value.response["Error"]) == (
            400, {"Code": "ConditionalCheckFailedException", "Message": "The conditional request failed"})
    assert dynamodb.scan(TableName="orders", FilterExpression="n > :s", ExpressionAttributeValues={
        ":s": S("x")})["Items"] == []
    dynamodb.put_item(TableName="orders", Item={"pk": S("a"), "n": N("6")}, ConditionExpression="n <> :s",
                      ExpressionAttributeValues={":s": S("x")})  # different values: true
    assert dynamodb.get_item(TableName="orders", Key={"pk": S("a")})["Item"] == {"pk": S("a"), "n": N("6")}


def test_moto_orders_values_itself_without_the_seam_and_with_its_own_expr_after():
    assert all(op.expr is conditions.originals[op] for op in conditions.ORDERINGS)
    with emulate(housekeeping_interval=None):
        assert comparisons.OpGreaterThan.expr is not conditions.originals[comparisons.OpGreaterThan]
    assert all(op.expr is conditions.originals[op] for op in conditions.ORDERINGS)


def test_begins_with_compares_a_binary_attributes_bytes(door):
    """DynamoDB developer guide, "Comparison operator and function reference": begins_with's path may be a Binary."""
    dynamodb = door.client("dynamodb")
    create_table(dynamodb, view_type=None)
    dynamodb.put_item(TableName="orders", Item={"pk": S("a"), "b": {"B": b"\x01\x02\x03"}})
    dynamodb.put_item(TableName="orders", Item={"pk": S("c"), "b": {"B": b"\x02\x01"}})
    assert dynamodb.scan(TableName="orders", FilterExpression="begins_with(b, :p)", ExpressionAttributeValues={
        ":p": {"B": b"\x01\x02"}})["Items"] == [{"pk": S("a"), "b": {"B": b"\x01\x02\x03"}}]
    dynamodb.put_item(TableName="orders", Item={"pk": S("a"), "b": {"B": b"\x09"}}, ConditionExpression=
                      "begins_with(b, :p)", ExpressionAttributeValues={":p": {"B": b"\x01"}})

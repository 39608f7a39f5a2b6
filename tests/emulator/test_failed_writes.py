"""A refused write changes nothing and writes no stream record, as in AWS (emulator/moto_seam/all_or_nothing.py).

- BatchWriteItem: "DynamoDB rejects the entire batch write operation if one or more of the following is true:
  ... Primary key attributes specified on an item in the request do not match those in the corresponding
  table's primary key schema ... An individual item in a batch exceeds 400 KB ... keys exceeding the key length
  limits" (AWS's BatchWriteItem reference). moto wrote the puts before the bad one.
- UpdateItem (and PartiQL UPDATE, a transaction's Update): moto changed the stored item in place and kept what
  it did when the update expression failed midway, and on a new key kept the key-only item it stores first.

Each case, through both front doors: AWS's error (type and message), the tables hold exactly what they held,
and the stream has no new record.
"""

from __future__ import annotations

from typing import Any

import pytest
from botocore.exceptions import ClientError

from tests.emulator.helpers import N, S, create_table, events, read_stream

BIG = S("x" * 410_000)
TOO_BIG = ("ValidationException", "Item size has exceeded the maximum allowed size")
TOO_BIG_TO_UPDATE = ("ValidationException", "Item size to update has exceeded the maximum allowed size")
NO_ATTRIBUTE = ("ValidationException", "The provided expression refers to an attribute that does not exist in the item")
WRONG_OPERAND = ("ValidationException", "An operand in the update expression has an incorrect data type")
TYPE_MISMATCH = ("ValidationException", "Type mismatch for attribute to update")  # dynalite's words for AWS's answer


class Tables:
    """Two tables with streams ("orders": pk; "lines": pk and sk), each holding a few items."""

    def __init__(self, door: Any) -> None:
        self.dynamodb, self.streams = door.client("dynamodb"), door.client("dynamodbstreams")
        self.arns = {"orders": create_table(self.dynamodb, "orders")["LatestStreamArn"],
                     "lines": create_table(self.dynamodb, "lines", range_key=True)["LatestStreamArn"]}
        self.dynamodb.put_item(TableName="orders", Item={"pk": S("kept"), "x": S("old"), "s": S("text"),
                                                         "m": {"M": {"a": N("1")}}})
        self.dynamodb.put_item(TableName="orders", Item={"pk": S("gone?")})
        self.dynamodb.put_item(TableName="lines", Item={"pk": S("kept"), "sk": S("1"), "x": S("old")})

    def state(self) -> dict[str, Any]:
        """Every item of both tables and the number of records on each stream."""
        items = {name: sorted(self.dynamodb.scan(TableName=name)["Items"], key=repr) for name in self.arns}
        return {"items": items, "records": {name: len(read_stream(self.streams, arn))
                                            for name, arn in self.arns.items()}}

    def refused(self, expected: tuple[str, str], operation: str, **params: Any) -> None:
        """The request is refused with AWS's error, and nothing changed."""
        before = self.state()
        with pytest.raises(ClientError) as failed:
            getattr(self.dynamodb, operation)(**params)
        error = failed.value.response["Error"]
        assert (error["Code"], error["Message"]) == expected
        assert self.state() == before


@pytest.fixture
def tables(door):
    return Tables(door)


def put(item: dict) -> dict:
    return {"PutRequest": {"Item": item}}


def delete(key: dict) -> dict:
    return {"DeleteRequest": {"Key": key}}


GOOD = [put({"pk": S("new1")}), put({"pk": S("kept"), "x": S("replaced")}), delete({"pk": S("gone?")})]

BAD_BATCHES = {
    "an item over 400 KB": ({"orders": GOOD + [put({"pk": S("big"), "big": BIG})]}, TOO_BIG),
    "a key of the wrong type": (
        {"orders": GOOD + [put({"pk": N("1")})]},
        ("ValidationException", "One or more parameter values were invalid: Type mismatch for key pk expected: S "
                                "actual: N")),
    "a partition key over 2048 bytes": (
        {"orders": GOOD + [put({"pk": S("k" * 2049)})]},
        ("ValidationException", "One or more parameter values were invalid: Size of hashkey has exceeded the maximum "
                                "size limit of2048 bytes")),
    "a sort key over 1024 bytes": (
        {"orders": GOOD, "lines": [put({"pk": S("p"), "sk": S("1")}), put({"pk": S("p"), "sk": S("k" * 1025)})]},
        ("ValidationException", "One or more parameter values were invalid: Aggregated size of all range keys has "
                                "exceeded the size limit of 1024 bytes")),
    "an item without its key": (
        {"orders": GOOD + [put({"other": S("x")})]},
        ("ValidationException", "One or more parameter values were invalid: Missing the key pk in the item")),
    "an item without its sort key, in another table": (
        {"orders": GOOD, "lines": [put({"pk": S("p")})]},
        ("ValidationException", "One or more parameter values were invalid: Missing the key sk in the item")),
    # a key without its hash or sort key: AWS's words (dynalite's test/getItem.js, recorded against DynamoDB;
    # moto_seam/dynamodb_rules.py), where moto said "Validation Exception"
    "a delete without its key": ({"orders": GOOD + [delete({"other": S("x")})]},
                                 ("ValidationException", "The provided key element does not match the schema")),
    "a delete without its sort key": ({"orders": GOOD, "lines": [delete({"pk": S("kept")})]},
                                      ("ValidationException", "The provided key element does not match the schema")),
    "a bad put among deletes": ({"orders": [delete({"pk": S("kept")}), put({"pk": S("a")}), put({"pk": N("2")})]},
                                ("ValidationException", "One or more parameter values were invalid: Type mismatch for "
                                                        "key pk expected: S actual: N")),
}


@pytest.mark.parametrize("case", sorted(BAD_BATCHES))
def test_a_batch_with_one_bad_request_writes_nothing(tables, case):
    request_items, expected = BAD_BATCHES[case]
    tables.refused(expected, "batch_write_item", RequestItems=request_items)


def test_the_first_bad_request_gives_the_error(tables):
    """moto's order: every put (in the request's order), then every delete."""
    tables.refused(BAD_BATCHES["a key of the wrong type"][1], "batch_write_item", RequestItems={"orders": [
        delete({"other": S("x")}), put({"pk": S("ok")}), put({"pk": N("1")}), put({"pk": S("big"), "big": BIG})]})


def test_a_good_batch_is_written_and_recorded(tables):
    tables.dynamodb.batch_write_item(RequestItems={"orders": GOOD, "lines": [put({"pk": S("p"), "sk": S("2")})]})
    orders = read_stream(tables.streams, tables.arns["orders"])
    assert events(orders)[-3:] == [("INSERT", "new1"), ("MODIFY", "kept"), ("REMOVE", "gone?")]
    assert orders[-2]["dynamodb"]["NewImage"] == {"pk": S("kept"), "x": S("replaced")}
    assert events(read_stream(tables.streams, tables.arns["lines"]))[-1] == ("INSERT", "p")
    assert {item["pk"]["S"] for item in tables.dynamodb.scan(TableName="orders")["Items"]} == {"kept", "new1"}


def update(key: str, expression: str, values: dict) -> dict:
    return dict(TableName="orders", Key={"pk": S(key)}, UpdateExpression=expression,
                ExpressionAttributeValues=values)


BAD_UPDATES = {
    "an item grown over 400 KB": (update("kept", "SET x = :s, y = :big", {":s": S("new"), ":big": BIG}),
                                  TOO_BIG_TO_UPDATE),
    "a new item over 400 KB": (update("fresh", "SET x = :s, y = :big", {":s": S("new"), ":big": BIG}),
                               TOO_BIG_TO_UPDATE),
    "an ADD to a string after a SET": (update("kept", "SET x = :s ADD s :n", {":s": S("new"), ":n": N("1")}),
                                       WRONG_OPERAND),
    "a sum over a missing attribute, on a new key": (update("fresh", "SET y = y + :n", {":n": N("1")}), NO_ATTRIBUTE),
    "list_append of a missing list, on a new key": (
        update("fresh", "SET y = list_append(y, :l)", {":l": {"L": [N("1")]}}), NO_ATTRIBUTE),
    "a sum over a missing attribute": (update("kept", "SET x = :s, y = nope + :n", {":s": S("new"), ":n": N("1")}),
                                       NO_ATTRIBUTE),
    "AttributeUpdates: a number added to a string": (
        dict(TableName="orders", Key={"pk": S("kept")}, AttributeUpdates={
            "x": {"Action": "PUT", "Value": S("new")}, "s": {"Action": "ADD", "Value": N("1")}}), TYPE_MISMATCH),
    "AttributeUpdates: a string set added to a map": (
        dict(TableName="orders", Key={"pk": S("kept")}, AttributeUpdates={"m": {"Action": "ADD", "Value": {
            "SS": ["a"]}}}), TYPE_MISMATCH),
    "AttributeUpdates: a number set taken from a string": (
        dict(TableName="orders", Key={"pk": S("kept")}, AttributeUpdates={"s": {"Action": "DELETE", "Value": {
            "NS": ["1"]}}}), TYPE_MISMATCH),
}


@pytest.mark.parametrize("case", sorted(BAD_UPDATES))
def test_a_failed_update_changes_nothing(tables, case):
    params, expected = BAD_UPDATES[case]
    tables.refused(expected, "update_item", **params)


def test_a_failed_update_of_a_sort_keyed_item_changes_nothing(tables):
    for key in ("1", "2"):  # the item, and a new one in its partition
        tables.refused(TOO_BIG_TO_UPDATE, "update_item", TableName="lines", Key={"pk": S("kept"), "sk": S(key)},
                       UpdateExpression="SET x = :s, y = :big", ExpressionAttributeValues={":s": S("new"), ":big": BIG})


def test_a_failed_partiql_update_changes_nothing(tables):
    tables.refused(TOO_BIG_TO_UPDATE, "execute_statement", Statement="UPDATE orders SET x = ? SET y = ? WHERE pk = 'kept'",
                   Parameters=[S("new"), BIG])


def test_a_failed_transaction_changes_nothing(tables):
    tables.refused(TOO_BIG_TO_UPDATE, "transact_write_items", TransactItems=[
        {"Put": {"TableName": "orders", "Item": {"pk": S("t1")}}},
        {"Delete": {"TableName": "orders", "Key": {"pk": S("gone?")}}},
        {"Update": {"TableName": "orders", "Key": {"pk": S("kept")}, "UpdateExpression": "SET x = :s, y = :big",
                    "ExpressionAttributeValues": {":s": S("new"), ":big": BIG}}}])


def test_failed_conditions_change_nothing(tables):
    failed = ("ConditionalCheckFailedException", "The conditional request failed")
    tables.refused(failed, "put_item", TableName="orders", Item={"pk": S("kept")},
                   ConditionExpression="attribute_not_exists(pk)")
    tables.refused(failed, "delete_item", TableName="orders", Key={"pk": S("kept")},
                   ConditionExpression="attribute_not_exists(pk)")
    tables.refused(failed, "update_item", ConditionExpression="attribute_exists(pk)",
                   **update("fresh", "SET x = :s", {":s": S("new")}))


def test_good_updates_are_written_and_recorded(tables):
    tables.dynamodb.update_item(**update("kept", "SET x = :s, m.b = :n", {":s": S("new"), ":n": N("2")}))
    tables.dynamodb.update_item(**update("fresh", "SET x = :s", {":s": S("new")}))
    records = read_stream(tables.streams, tables.arns["orders"])
    assert events(records)[-2:] == [("MODIFY", "kept"), ("INSERT", "fresh")]
    assert records[-2]["dynamodb"]["OldImage"]["x"] == S("old")
    assert records[-2]["dynamodb"]["NewImage"]["m"] == {"M": {"a": N("1"), "b": N("2")}}
    assert records[-1]["dynamodb"]["NewImage"] == {"pk": S("fresh"), "x": S("new")}

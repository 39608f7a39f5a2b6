"""PartiQL UPDATE, INSERT and DELETE in the three PartiQL operations, through real boto3: the items they leave
and the stream records they write (the statement forms of AWS's PartiQL-for-DynamoDB reference)."""

from __future__ import annotations

import pytest
from botocore.exceptions import ClientError

from eddy.emulator.api.dynamodb.partiql.expressions import Expressions
from eddy.emulator.api.dynamodb.partiql.statements import Schema, plan
from eddy.emulator.api.dynamodb.partiql.syntax import parse
from eddy.emulator.api.dynamodb.partiql.tree import Arithmetic, Compare, Path, Update, Value
from tests.emulator.helpers import N, S, create_table, read_stream


@pytest.fixture
def orders(door):
    dynamodb, streams = door.client("dynamodb"), door.client("dynamodbstreams")
    arn = create_table(dynamodb, "orders")["LatestStreamArn"]
    return dynamodb, lambda: read_stream(streams, arn)


def item(dynamodb, pk: str) -> dict | None:
    return dynamodb.get_item(TableName="orders", Key={"pk": S(pk)}).get("Item")


def error_of(call, **params) -> tuple[str, str]:
    with pytest.raises(ClientError) as caught:
        call(**params)
    return caught.value.response["Error"]["Code"], caught.value.response["Error"]["Message"]


def test_the_docstring_examples():
    assert parse("UPDATE t SET v = v + 1 WHERE pk = ?", [{"S": "p1"}]) == Update(
        table="t", sets=((Path(("v",)), Arithmetic("+", Path(("v",)), Value({"N": "1"}))),), removes=(),
        where=Compare("=", Path(("pk",)), Value({"S": "p1"})), returning=None)
    assert plan(parse("UPDATE t SET v = v + 1 WHERE pk = 'p1'", None), Schema("t", ("pk",))).params == {
        "TableName": "t", "Key": {"pk": {"S": "p1"}}, "UpdateExpression": "SET #n1 = #n1 + :v1",
        "ConditionExpression": "attribute_exists(#n0) AND #n0 = :v0",
        "ExpressionAttributeNames": {"#n0": "pk", "#n1": "v"},
        "ExpressionAttributeValues": {":v0": {"S": "p1"}, ":v1": {"N": "1"}}}
    names = Expressions()
    assert names.condition(parse("SELECT * FROM t WHERE a = 1 AND begins_with(b, 'x')", None).where) == \
        "(#n0 = :v0 AND begins_with(#n1, :v1))"
    assert names.names == {"#n0": "a", "#n1": "b"} and names.values == {":v0": {"N": "1"}, ":v1": {"S": "x"}}


def test_updates_with_literals_of_every_type_run_in_every_partiql_operation_and_are_captured(orders):
    dynamodb, records = orders
    dynamodb.execute_statement(Statement="INSERT INTO orders VALUE {'pk': 'p1', 'v': 1}")
    dynamodb.execute_statement(Statement="UPDATE orders SET v = 2, b = true, n = null WHERE pk = 'p1'")
    dynamodb.batch_execute_statement(Statements=[
        {"Statement": "UPDATE orders SET l = [1, 'a'], m = {'k': 1.5} WHERE pk = ?", "Parameters": [S("p1")]}])
    dynamodb.execute_transaction(TransactStatements=[
        {"Statement": "UPDATE orders SET s = <<'x', 'y'>>, ns = <<1, -2.5>> WHERE pk = 'p1'"}])
    expected = {"pk": S("p1"), "v": N("2"), "b": {"BOOL": True}, "n": {"NULL": True},
                "l": {"L": [N("1"), S("a")]}, "m": {"M": {"k": N("1.5")}}, "s": {"SS": ["x", "y"]},
                "ns": {"NS": ["1", "-2.5"]}}
    assert item(dynamodb, "p1") == expected
    assert [r["eventName"] for r in records()] == ["INSERT", "MODIFY", "MODIFY", "MODIFY"]
    assert records()[-1]["dynamodb"]["NewImage"] == expected


def test_update_arithmetic_functions_nested_paths_and_remove(orders):
    dynamodb, records = orders
    dynamodb.execute_statement(Statement="INSERT INTO orders VALUE {'pk': 'p1', 'v': 10, 'l': [1, 2], "
                                         "'s': <<'a', 'b'>>, 'm': {'a': {'b': 1}, 'keep': 'k'}, 'x': 'gone'}")
    steps = [
        ("UPDATE orders SET v = v + 5, l = list_append(l, [3]), s = set_add(s, <<'c'>>) WHERE pk = 'p1'",
         {"v": N("15"), "l": {"L": [N("1"), N("2"), N("3")]}, "s": {"SS": ["a", "b", "c"]}}),
        ("UPDATE orders SET v = v - 1 SET s = set_delete(s, <<'a'>>) REMOVE x, l[0] WHERE pk = 'p1'",
         {"v": N("14"), "s": {"SS": ["b", "c"]}, "l": {"L": [N("2"), N("3")]}, "x": None}),
        ("UPDATE orders SET m.a.b = 2, m.c = 'new', l[1] = 'x' WHERE pk = 'p1'",
         {"m": {"M": {"a": {"M": {"b": N("2")}}, "keep": S("k"), "c": S("new")}}, "l": {"L": [N("2"), S("x")]}}),
        ("UPDATE orders REMOVE m.a SET v = 1 + v WHERE pk = 'p1'",
         {"m": {"M": {"keep": S("k"), "c": S("new")}}, "v": N("15")}),
    ]
    expected = item(dynamodb, "p1")
    for statement, changes in steps:
        dynamodb.execute_statement(Statement=statement)
        for name, value in changes.items():
            expected.pop(name) if value is None else expected.__setitem__(name, value)
        assert item(dynamodb, "p1") == expected, statement
    captured = records()
    assert [r["eventName"] for r in captured] == ["INSERT"] + ["MODIFY"] * len(steps)
    assert captured[-1]["dynamodb"]["NewImage"] == expected
    assert captured[-1]["dynamodb"]["OldImage"]["m"] == {"M": {"a": {"M": {"b": N("2")}}, "keep": S("k"), "c": S("new")}}


def test_update_with_parameters_returning_and_conditions(orders):
    dynamodb, records = orders
    dynamodb.execute_statement(Statement="INSERT INTO orders VALUE {'pk': ?, 'v': ?, 'tags': ?}",
                               Parameters=[S("p1"), N("1"), {"SS": ["a"]}])
    answer = dynamodb.execute_statement(
        Statement="UPDATE orders SET v = v + ?, w = ? WHERE pk = ? AND v = ? RETURNING ALL NEW *",
        Parameters=[N("2"), {"B": b"\x00\x01"}, S("p1"), N("1")])
    assert answer["Items"] == [{"pk": S("p1"), "v": N("3"), "w": {"B": b"\x00\x01"}, "tags": {"SS": ["a"]}}]
    answer = dynamodb.execute_statement(Statement="UPDATE orders SET v = 7 WHERE pk = 'p1' RETURNING MODIFIED OLD *")
    assert answer["Items"] == [{"v": N("3")}]
    # the WHERE beyond the key is the update's condition; the item must exist (no upsert)
    failed = "The conditional request failed"
    assert error_of(dynamodb.execute_statement, Statement="UPDATE orders SET v = 8 WHERE pk = 'p1' AND v = 1") == \
        ("ConditionalCheckFailedException", failed)
    assert error_of(dynamodb.execute_statement, Statement="UPDATE orders SET v = 8 WHERE pk = 'nobody'") == \
        ("ConditionalCheckFailedException", failed)
    with pytest.raises(ClientError) as caught:
        dynamodb.execute_statement(Statement="UPDATE orders SET v = 8 WHERE pk = 'p1' AND v = 1",
                                   ReturnValuesOnConditionCheckFailure="ALL_OLD")
    assert caught.value.response["Item"]["v"] == N("7")
    assert item(dynamodb, "nobody") is None and item(dynamodb, "p1")["v"] == N("7")
    assert [r["eventName"] for r in records()] == ["INSERT", "MODIFY", "MODIFY"]


def test_insert_of_every_literal_type_and_a_duplicate_key(orders):
    dynamodb, records = orders
    dynamodb.execute_statement(Statement="INSERT INTO \"orders\" VALUE {'pk': 'p1', 's': 'it''s', 'n': -1.5, "
                                         "'b': TRUE, 'f': false, 'z': NULL, 'l': [1, 'a', [true], {'k': <<'x'>>}], "
                                         "'m': {'n': {'deep': 2}}, 'ss': <<'a', 'b'>>, 'ns': <<1, 2.5>>, 'q': ?};",
                               Parameters=[{"BS": [b"1"]}])
    expected = {"pk": S("p1"), "s": S("it's"), "n": N("-1.5"), "b": {"BOOL": True}, "f": {"BOOL": False},
                "z": {"NULL": True}, "l": {"L": [N("1"), S("a"), {"L": [{"BOOL": True}]}, {"M": {"k": {"SS": ["x"]}}}]},
                "m": {"M": {"n": {"M": {"deep": N("2")}}}}, "ss": {"SS": ["a", "b"]}, "ns": {"NS": ["1", "2.5"]},
                "q": {"BS": [b"1"]}}
    stored = item(dynamodb, "p1")
    assert stored == expected
    assert error_of(dynamodb.execute_statement, Statement="INSERT INTO orders VALUE {'pk': 'p1'}") == \
        ("DuplicateItemException", "Duplicate primary key exists in table")
    assert item(dynamodb, "p1") == stored
    captured = records()
    assert [r["eventName"] for r in captured] == ["INSERT"]
    assert captured[0]["dynamodb"]["NewImage"] == stored


def test_delete_with_conditions_returning_and_a_missing_item(orders):
    dynamodb, records = orders
    for pk in ("p1", "p2"):
        dynamodb.execute_statement(Statement=f"INSERT INTO orders VALUE {{'pk': '{pk}', 'v': 1}}")
    assert error_of(dynamodb.execute_statement, Statement="DELETE FROM orders WHERE pk = 'p1' AND v > 1") == \
        ("ConditionalCheckFailedException", "The conditional request failed")
    answer = dynamodb.execute_statement(Statement="DELETE FROM orders WHERE pk = ? AND v = 1 RETURNING ALL OLD *",
                                        Parameters=[S("p1")])
    assert answer["Items"] == [{"pk": S("p1"), "v": N("1")}]
    assert dynamodb.execute_statement(Statement="DELETE FROM orders WHERE pk = 'nobody'")["Items"] == []
    assert item(dynamodb, "p1") is None and item(dynamodb, "p2") is not None
    captured = records()
    assert [r["eventName"] for r in captured] == ["INSERT", "INSERT", "REMOVE"]
    assert captured[-1]["dynamodb"]["OldImage"] == {"pk": S("p1"), "v": N("1")}


@pytest.mark.parametrize("statement, parameters, message", [
    ("UPDATE orders SET v = 1 WHERE v = 1", [], "Where clause does not contain a mandatory equality on all key attributes"),
    ("UPDATE orders SET pk = 'x' WHERE pk = 'p1'", [],
     "One or more parameter values were invalid: Cannot update attribute pk. This attribute is part of the key"),
    ("UPDATE orders SET v = v + 1 + 2 WHERE pk = 'p1'", [], "A SET value takes one + or - between two operands"),
    ("UPDATE orders SET s = set_add(t, <<'a'>>) WHERE pk = 'p1'", [],
     "SET_ADD takes the attribute being set and a set value"),
    ("UPDATE orders SET v = upper(v) WHERE pk = 'p1'", [], "Unsupported value in SET: upper"),
    ("UPDATE orders SET v = w + 1 WHERE pk = 'p1'", [],
     "The provided expression refers to an attribute that does not exist in the item"),
    ("UPDATE orders WHERE pk = 'p1'", [], "Statement wasn't well formed, can't be processed: Unexpected keyword: WHERE"),
    ("UPDATE orders SET v = ? WHERE pk = 'p1'", [], "Number of parameters in request and statement don't match."),
    ("UPDATE orders SET v = 1 WHERE pk = ?", [N("1")],
     "One or more parameter values were invalid: Type mismatch for key pk expected: S actual: N"),
    ("INSERT INTO orders VALUE 5", [],
     "Statement wasn't well formed, can't be processed: Unexpected type for VALUE: an item is a map {...}"),
    ("INSERT INTO orders VALUE {'v': 1}", [], "One or more parameter values were invalid: Missing the key pk in the item"),
    ("INSERT INTO orders VALUE {'pk': 'p9', 's': <<'a', 1>>}", [], "Statement wasn't well formed, can't be processed: "
     "A set holds one type, strings, numbers or binaries, and is not empty"),
    ("DELETE FROM orders WHERE pk = 'p1' RETURNING ALL NEW *", [],
     "Statement wasn't well formed, can't be processed: DELETE returns only ALL OLD *"),
    ("DELETE orders WHERE pk = 'p1'", [], "Statement wasn't well formed, can't be processed: Unexpected token: orders"),
    ("EXISTS(SELECT * FROM orders WHERE pk = 'p1')", [], "EXISTS is supported only in ExecuteTransaction"),
    ("DROP TABLE orders", [], "Statement wasn't well formed, can't be processed: Unexpected token: DROP"),
])
def test_bad_writes_are_aws_validation_errors_and_write_nothing(orders, statement, parameters, message):
    dynamodb, records = orders
    dynamodb.execute_statement(Statement="INSERT INTO orders VALUE {'pk': 'p1', 'v': 1}")
    assert error_of(dynamodb.execute_statement, Statement=statement,
                    **({"Parameters": parameters} if parameters else {})) == ("ValidationException", message)
    assert item(dynamodb, "p1") == {"pk": S("p1"), "v": N("1")}
    assert [r["eventName"] for r in records()] == ["INSERT"]

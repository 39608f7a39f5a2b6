"""A ProjectionExpression's syntax errors and reserved words, in DynamoDB's words, before any table is read.

Sources, written against DynamoDB: the AWS-run conformance suite nubo-db/dynamodb-conformance
(tests/tier3/error-messages/getItem.test.ts: '!!! INVALID !!!' -> token "!", near "!!"; transactGetItems.test.ts:
'!!!' in a Get, refused for the whole request); its rule for `near` (the token with its neighbours) is also
updateItem.test.ts's ('INVALID SYNTAX': token "INVALID", near "INVALID SYNTAX"); dynalite's test/getItem.js (which
expressions are syntax errors, and reserved words named as written: 'a.abORt')."""

from __future__ import annotations

import pytest

from tests.emulator.api.dynamodb.rules.conftest import RANGE_TABLE, TABLE, invalid, refused

KEY = {"pk": {"S": "a"}}


def syntax_error(token: str, near: str) -> tuple[int, str, str]:
    return invalid(f'Invalid ProjectionExpression: Syntax error; token: "{token}", near: "{near}"')


@pytest.mark.parametrize(
    "expression, token, near",
    [
        ("!!! INVALID !!!", "!", "!!"),  # the conformance suite's, recorded from DynamoDB
        ("a b", "b", "a b"),
        ("a,", "<EOF>", ","),
        ("a,,b", ",", ",,b"),
        ("a..b", ".", "..b"),
        ("a[b]", "b", "[b]"),
        ("(a)", "(", "(a"),
        ("a-b", "-", "a-b"),
        (":a", ":a", ":a"),
        ("_a", "_", "_a"),
        ("abort,", "<EOF>", ","),  # a syntax error before a reserved word
    ],
)
def test_a_projection_that_does_not_read_is_refused_by_its_token(dynamodb, expression, token, near):
    assert refused(
        lambda: dynamodb.get_item(TableName=TABLE, Key=KEY, ProjectionExpression=expression)
    ) == syntax_error(token, near)


def test_every_operation_that_projects_reads_it_first_even_without_the_table(dynamodb):
    expected = syntax_error("!", "!!")
    assert refused(lambda: dynamodb.get_item(TableName="nothere", Key=KEY, ProjectionExpression="!!!")) == expected
    assert (
        refused(
            lambda: dynamodb.query(
                TableName=TABLE,
                KeyConditionExpression="pk = :a",
                ProjectionExpression="!!!",
                ExpressionAttributeValues={":a": {"S": "a"}},
            )
        )
        == expected
    )
    assert refused(lambda: dynamodb.scan(TableName=TABLE, ProjectionExpression="!!!")) == expected
    assert (
        refused(lambda: dynamodb.batch_get_item(RequestItems={TABLE: {"Keys": [KEY], "ProjectionExpression": "!!!"}}))
        == expected
    )
    assert (
        refused(
            lambda: dynamodb.transact_get_items(
                TransactItems=[
                    {"Get": {"TableName": TABLE, "Key": KEY}},
                    {
                        "Get": {
                            "TableName": RANGE_TABLE,
                            "Key": {**KEY, "sk": {"S": "1"}},
                            "ProjectionExpression": "!!!",
                        }
                    },
                ]
            )
        )
        == expected
    )


def test_a_reserved_word_is_named_as_written_and_a_placeholder_reads_it(dynamodb):
    assert refused(lambda: dynamodb.get_item(TableName=TABLE, Key=KEY, ProjectionExpression="a.abORt")) == invalid(
        "Invalid ProjectionExpression: Attribute name is a reserved keyword; reserved keyword: abORt"
    )
    dynamodb.put_item(
        TableName=TABLE,
        Item={
            **KEY,
            "name": {"S": "n"},
            "l": {"L": [{"S": "x"}, {"S": "y"}]},
            "m": {"M": {"b": {"N": "1"}, "c": {"N": "2"}}},
        },
    )
    assert dynamodb.get_item(
        TableName=TABLE, Key=KEY, ProjectionExpression="#n, l[1], m.b", ExpressionAttributeNames={"#n": "name"}
    )["Item"] == {"name": {"S": "n"}, "l": {"L": [{"S": "y"}]}, "m": {"M": {"b": {"N": "1"}}}}

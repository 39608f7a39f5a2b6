"""BatchExecuteStatement and ExecuteTransaction through real boto3: every statement form, per-statement errors
in a batch, all-or-nothing transactions, and what each writes to the stream."""

from __future__ import annotations

import pytest
from botocore.exceptions import ClientError

from tests.emulator.helpers import N, S, create_table, read_stream


@pytest.fixture
def orders(door):
    dynamodb, streams = door.client("dynamodb"), door.client("dynamodbstreams")
    arn = create_table(dynamodb, "orders")["LatestStreamArn"]
    dynamodb.execute_statement(Statement="INSERT INTO orders VALUE {'pk': 'p1', 'v': 1, 'l': [1]}")
    return dynamodb, lambda: [(r["eventName"], r["dynamodb"]["Keys"]["pk"]["S"]) for r in read_stream(streams, arn)]


def items(dynamodb) -> dict[str, dict]:
    return {i["pk"]["S"]: i for i in dynamodb.scan(TableName="orders")["Items"]}


def test_a_batch_runs_each_statement_and_answers_each(orders):
    dynamodb, events = orders
    dynamodb.execute_statement(Statement="INSERT INTO orders VALUE {'pk': 'p9'}")
    answer = dynamodb.batch_execute_statement(Statements=[
        {"Statement": "INSERT INTO orders VALUE {'pk': ?, 'v': 2}", "Parameters": [S("p2")]},
        {"Statement": "INSERT INTO orders VALUE {'pk': 'p1'}"},  # a duplicate
        {"Statement": "UPDATE orders SET v = v + 10, l = list_append(l, [2]) WHERE pk = 'p1'"},
        {"Statement": "UPDATE orders SET v = 0 WHERE pk = 'nobody'"},  # no such item
        {"Statement": "DELETE FROM orders WHERE pk = 'p1' AND v = 0", "ReturnValuesOnConditionCheckFailure": "ALL_OLD"},
        {"Statement": "UPDATE orders SET v = 0 WHERE v = 1"},  # no key
        {"Statement": "DELETE FROM nowhere WHERE pk = 'p1'"},
        {"Statement": "INSERT INTO orders VALUE {'pk': 'p3', 's': <<'a'>>, 'n': null}"},
        {"Statement": "DELETE FROM orders WHERE pk = 'p9'"},
        {"Statement": "UPDATE orders SET"},
        {"Statement": "UPDATE orders SET v = 1 WHERE pk = 'p3'"},  # each statement is a write of its own
        {"Statement": "DELETE FROM orders WHERE pk = 'p3'"},
    ])["Responses"]
    assert answer == [
        {"TableName": "orders"},
        {"Error": {"Code": "DuplicateItem", "Message": "Duplicate primary key exists in table"}, "TableName": "orders"},
        {"TableName": "orders"},
        {"Error": {"Code": "ConditionalCheckFailed", "Message": "The conditional request failed"},
         "TableName": "orders"},
        {"Error": {"Code": "ConditionalCheckFailed", "Message": "The conditional request failed",
                   "Item": {"pk": S("p1"), "v": N("11"), "l": {"L": [N("1"), N("2")]}}}, "TableName": "orders"},
        {"Error": {"Code": "ValidationError",
                   "Message": "Where clause does not contain a mandatory equality on all key attributes"}},
        {"Error": {"Code": "ResourceNotFound", "Message": "Requested resource not found"}},
        {"TableName": "orders"},
        {"TableName": "orders"},
        {"Error": {"Code": "ValidationError",
                   "Message": "Statement wasn't well formed, can't be processed: Unexpected end of statement"}},
        {"TableName": "orders"},
        {"TableName": "orders"},
    ]
    assert items(dynamodb) == {"p1": {"pk": S("p1"), "v": N("11"), "l": {"L": [N("1"), N("2")]}},
                               "p2": {"pk": S("p2"), "v": N("2")}}
    assert events() == [("INSERT", "p1"), ("INSERT", "p9"), ("INSERT", "p2"), ("MODIFY", "p1"), ("INSERT", "p3"),
                        ("REMOVE", "p9"), ("MODIFY", "p3"), ("REMOVE", "p3")]


def test_a_batch_of_reads_needs_each_full_key(orders):
    dynamodb, events = orders
    answer = dynamodb.batch_execute_statement(Statements=[
        {"Statement": "SELECT v, l[0] FROM orders WHERE pk = 'p1'"},
        {"Statement": "SELECT * FROM orders WHERE pk = ?", "Parameters": [S("nobody")]},
        {"Statement": "SELECT * FROM orders WHERE pk = 'p1' AND v = 2"},
        {"Statement": "SELECT * FROM orders WHERE v = 1"},
    ])["Responses"]
    assert answer == [
        {"TableName": "orders", "Item": {"v": N("1"), "l": {"L": [N("1")]}}},
        {"TableName": "orders"},
        {"TableName": "orders"},
        {"Error": {"Code": "ValidationError", "Message": "Select statements within BatchExecuteStatement must "
                                                         "specify the primary key in the where clause."},
         "TableName": "orders"},
    ]
    with pytest.raises(ClientError) as caught:
        dynamodb.batch_execute_statement(Statements=[
            {"Statement": "SELECT * FROM orders WHERE pk = 'p1'"}, {"Statement": "DELETE FROM orders WHERE pk = 'p1'"}])
    assert caught.value.response["Error"] == {
        "Code": "ValidationException", "Message": "The entire batch must consist of either read statements or write "
                                                  "statements, you cannot mix both in one batch."}
    assert events() == [("INSERT", "p1")]


def test_a_transaction_of_writes_is_all_or_nothing(orders):
    dynamodb, events = orders
    dynamodb.execute_statement(Statement="INSERT INTO orders VALUE {'pk': 'p9', 'v': 1}")
    dynamodb.execute_transaction(TransactStatements=[
        {"Statement": "INSERT INTO orders VALUE {'pk': 'p2', 'tags': <<'a'>>}"},
        {"Statement": "UPDATE orders SET v = v - 1, m = {'k': [true]} REMOVE l WHERE pk = ?", "Parameters": [S("p1")]},
        {"Statement": "EXISTS(SELECT * FROM orders WHERE pk = 'p9' AND v = 1)"},
    ], ClientRequestToken="token-1")
    assert items(dynamodb) == {"p9": {"pk": S("p9"), "v": N("1")}, "p1": {"pk": S("p1"), "v": N("0"), "m": {"M": {"k": {"L": [{"BOOL": True}]}}}},
                               "p2": {"pk": S("p2"), "tags": {"SS": ["a"]}}}
    with pytest.raises(ClientError) as caught:
        dynamodb.execute_transaction(TransactStatements=[
            {"Statement": "UPDATE orders SET tags = set_add(tags, <<'b'>>) WHERE pk = 'p2'"},
            {"Statement": "INSERT INTO orders VALUE {'pk': 'p1'}"},
            {"Statement": "DELETE FROM orders WHERE pk = 'p3'"},
        ])
    error = caught.value.response
    assert error["Error"] == {"Code": "TransactionCanceledException", "Message": "Transaction cancelled, please refer "
                              "cancellation reasons for specific reasons [None, DuplicateItem, None]"}
    assert [r["Code"] for r in error["CancellationReasons"]] == ["None", "DuplicateItem", "None"]
    with pytest.raises(ClientError) as caught:
        dynamodb.execute_transaction(TransactStatements=[
            {"Statement": "DELETE FROM orders WHERE pk = 'p2'"},
            {"Statement": "EXISTS(SELECT * FROM orders WHERE pk = 'p9' AND v = 2)"},
        ])
    assert [r["Code"] for r in caught.value.response["CancellationReasons"]] == ["None", "ConditionalCheckFailed"]
    assert items(dynamodb)["p2"] == {"pk": S("p2"), "tags": {"SS": ["a"]}}  # neither cancelled transaction wrote
    assert events() == [("INSERT", "p1"), ("INSERT", "p9"), ("INSERT", "p2"), ("MODIFY", "p1")]


def test_a_transaction_of_reads(orders):
    dynamodb, events = orders
    dynamodb.execute_statement(Statement="INSERT INTO orders VALUE {'pk': 'p2', 'v': 1}")
    answer = dynamodb.execute_transaction(TransactStatements=[
        {"Statement": "SELECT l, v FROM orders WHERE pk = 'p1'"},
        {"Statement": "SELECT * FROM orders WHERE pk = ?", "Parameters": [S("nobody")]},
        {"Statement": "SELECT pk FROM orders WHERE v = 1"},  # AWS wants a whole key; moto (and Eddy) run it
    ])
    assert answer["Responses"][:2] == [{"Item": {"l": {"L": [N("1")]}, "v": N("1")}}, {}]
    assert sorted(r["Item"]["pk"]["S"] for r in answer["Responses"][2:]) == ["p1", "p2"]
    for statements, message in [
        (["SELECT * FROM orders WHERE pk = 'p1'", "DELETE FROM orders WHERE pk = 'p1'"],
         "The entire transaction must consist of either read statements or write statements, you cannot mix both "
         "in one transaction."),
        (["DELETE FROM orders WHERE pk = 'p1' RETURNING ALL OLD *"], "RETURNING is not supported in transactions"),
    ]:
        with pytest.raises(ClientError) as caught:
            dynamodb.execute_transaction(TransactStatements=[{"Statement": s} for s in statements])
        assert caught.value.response["Error"] == {"Code": "ValidationException", "Message": message}
    assert events() == [("INSERT", "p1"), ("INSERT", "p2")]


def test_moto_readings_kept_hyphenated_bare_names_and_a_delete_by_partition(door):
    """Code written against moto runs: a bare table name with hyphens, and a DELETE naming only the partition
    key of a table with a sort key (each matching item of the partition goes, each captured)."""
    dynamodb, streams = door.client("dynamodb"), door.client("dynamodbstreams")
    arn = create_table(dynamodb, "my-orders-2", range_key=True)["LatestStreamArn"]
    dynamodb.batch_execute_statement(Statements=[
        {"Statement": f"INSERT INTO my-orders-2 VALUE {{'pk': '{pk}', 'sk': '{sk}', 'v': {v}}}"}
        for pk, sk, v in (("a", "1", 1), ("a", "2", 2), ("a", "3", 2), ("b", "1", 2))])
    dynamodb.execute_statement(Statement="DELETE FROM my-orders-2 WHERE pk = 'a' AND v = 2")
    assert sorted((i["pk"]["S"], i["sk"]["S"]) for i in dynamodb.scan(TableName="my-orders-2")["Items"]) == \
        [("a", "1"), ("b", "1")]
    assert [(r["eventName"], r["dynamodb"]["Keys"]["sk"]["S"]) for r in read_stream(streams, arn)][4:] == \
        [("REMOVE", "2"), ("REMOVE", "3")]
    with pytest.raises(ClientError) as caught:
        dynamodb.execute_transaction(TransactStatements=[{"Statement": "DELETE FROM my-orders-2 WHERE pk = 'a'"}])
    assert caught.value.response["Error"]["Message"] == \
        "Where clause does not contain a mandatory equality on all key attributes"


def test_a_transaction_under_its_token_runs_once_and_another_under_it_is_refused(orders, door):
    """nubo-db/dynoxide pull request #125, characterised against DynamoDB: ExecuteTransaction honours its
    ClientRequestToken as TransactWriteItems does (the same statements again within 10 minutes are not run again,
    other statements are IdempotentParameterMismatchException), with tokens of its own; the message is DynamoDB's in a
    production log (aexhq/brain pull request #58)."""
    dynamodb, _ = orders
    dynamodb.put_item(TableName="orders", Item={"pk": S("c"), "n": N("0")})
    add_one = [{"Statement": "UPDATE orders SET n = n + 1 WHERE pk = 'c'"}]
    for _ in range(2):
        answer = dynamodb.execute_transaction(TransactStatements=add_one, ClientRequestToken="once")
        assert {key: value for key, value in answer.items() if key != "ResponseMetadata"} == {}
    assert items(dynamodb)["c"] == {"pk": S("c"), "n": N("1")}
    with pytest.raises(ClientError) as caught:
        dynamodb.execute_transaction(TransactStatements=[{"Statement": "UPDATE orders SET n = n + 2 WHERE pk = 'c'"}],
                                     ClientRequestToken="once")
    assert caught.value.response["Error"] == {
        "Code": "IdempotentParameterMismatchException",
        "Message": "Specified idempotent token was used with different request parameters within the idempotency "
                   "window"}
    dynamodb.transact_write_items(ClientRequestToken="once", TransactItems=[{"Update": {
        "TableName": "orders", "Key": {"pk": S("c")}, "UpdateExpression": "SET n = n + :one",
        "ExpressionAttributeValues": {":one": N("1")}}}])  # TransactWriteItems' tokens are its own
    door.advance(601)
    dynamodb.execute_transaction(TransactStatements=add_one, ClientRequestToken="once")
    assert items(dynamodb)["c"] == {"pk": S("c"), "n": N("3")}

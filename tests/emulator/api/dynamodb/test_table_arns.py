"""A table given by its ARN wherever DynamoDB takes a table's name or ARN: the same table, the same stream records."""

from __future__ import annotations

import pytest
from botocore.exceptions import ClientError

from eddy.emulator.api.dynamodb import table_arns
from eddy.emulator.errors import AccessDeniedException, ValidationException
from tests.emulator.helpers import S, events, read_stream

ARN = "arn:aws:dynamodb:us-east-1:123456789012:table/orders"
KEY = {"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}], "BillingMode": "PAY_PER_REQUEST",
       "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}]}


def refused(call) -> tuple[str, str]:
    with pytest.raises(ClientError) as error:
        call()
    return error.value.response["Error"]["Code"], error.value.response["Error"]["Message"]


def test_every_operation_takes_the_tables_arn_and_its_writes_reach_the_tables_stream(door):
    dynamodb, streams = door.client("dynamodb"), door.client("dynamodbstreams")
    created = dynamodb.create_table(TableName=ARN, **KEY)["TableDescription"]
    assert (created["TableName"], created["TableArn"]) == ("orders", ARN)
    assert dynamodb.list_tables()["TableNames"] == ["orders"]
    enabled = dynamodb.update_table(TableName=ARN, StreamSpecification={
        "StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"})["TableDescription"]
    stream_arn = enabled["LatestStreamArn"]
    assert dynamodb.describe_table(TableName=ARN)["Table"]["LatestStreamArn"] == stream_arn

    dynamodb.put_item(TableName=ARN, Item={"pk": S("a"), "v": S("1")})
    dynamodb.update_item(TableName=ARN, Key={"pk": S("a")}, UpdateExpression="SET v = :v",
                         ExpressionAttributeValues={":v": S("2")})
    written = dynamodb.batch_write_item(RequestItems={ARN: [{"PutRequest": {"Item": {"pk": S("b")}}}]},
                                        ReturnConsumedCapacity="TOTAL")
    assert written["UnprocessedItems"] == {} and written["ConsumedCapacity"][0]["TableName"] == "orders"
    dynamodb.transact_write_items(TransactItems=[{"Put": {"TableName": ARN, "Item": {"pk": S("c")}}},
                                                 {"Delete": {"TableName": ARN, "Key": {"pk": S("b")}}}])
    dynamodb.delete_item(TableName=ARN, Key={"pk": S("c")})

    assert dynamodb.get_item(TableName=ARN, Key={"pk": S("a")})["Item"] == {"pk": S("a"), "v": S("2")}
    assert dynamodb.batch_get_item(RequestItems={ARN: {"Keys": [{"pk": S("a")}]}})["Responses"] == {
        ARN: [{"pk": S("a"), "v": S("2")}]}  # keyed as the request keyed it (moto's AWS-verified test says so)
    [got] = dynamodb.transact_get_items(TransactItems=[{"Get": {"TableName": ARN, "Key": {"pk": S("a")}}}])["Responses"]
    assert got["Item"]["v"] == S("2")
    assert dynamodb.query(TableName=ARN, KeyConditionExpression="pk = :p",
                          ExpressionAttributeValues={":p": S("a")})["Count"] == 1
    assert dynamodb.scan(TableName=ARN)["Count"] == 1
    assert events(read_stream(streams, stream_arn)) == [
        ("INSERT", "a"), ("MODIFY", "a"), ("INSERT", "b"), ("INSERT", "c"), ("REMOVE", "b"), ("REMOVE", "c")]

    assert dynamodb.delete_table(TableName=ARN)["TableDescription"]["TableName"] == "orders"
    assert streams.describe_stream(StreamArn=stream_arn)["StreamDescription"]["StreamStatus"] == "DISABLED"
    assert dynamodb.list_tables()["TableNames"] == []


def test_partiql_statements_name_a_table_by_its_arn_and_their_writes_reach_its_stream(door):
    dynamodb, streams = door.client("dynamodb"), door.client("dynamodbstreams")
    stream_arn = dynamodb.create_table(TableName="orders", **KEY, StreamSpecification={
        "StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"})["TableDescription"]["LatestStreamArn"]
    dynamodb.execute_statement(Statement=f"INSERT INTO \"{ARN}\" VALUE {{'pk': 'a'}}")
    dynamodb.execute_statement(Statement=f"UPDATE \"{ARN}\" SET v = 1 WHERE pk = 'a'")
    dynamodb.execute_transaction(TransactStatements=[{"Statement": f"INSERT INTO \"{ARN}\" VALUE {{'pk': 'b'}}"}])
    dynamodb.batch_execute_statement(Statements=[{"Statement": f"DELETE FROM \"{ARN}\" WHERE pk = 'b'"}])
    assert dynamodb.execute_statement(Statement=f"SELECT * FROM \"{ARN}\" WHERE pk = 'a'")["Items"] == [
        {"pk": S("a"), "v": {"N": "1"}}]
    assert events(read_stream(streams, stream_arn)) == [("INSERT", "a"), ("MODIFY", "a"), ("INSERT", "b"),
                                                        ("REMOVE", "b")]


def test_an_arn_of_another_account_is_refused_as_iam_refuses_it(door):
    """The AWS-run conformance suite nubo-db/dynamodb-conformance (tests/tier2/tags/basic.test.ts): another account's
    table ARN is AccessDeniedException; the words are IAM's for a principal no resource-based policy lets in."""
    dynamodb = door.client("dynamodb")
    dynamodb.create_table(TableName="orders", **KEY)
    elsewhere = ARN.replace("123456789012", "210987654321")

    def denied(operation: str) -> tuple[str, str]:
        return ("AccessDeniedException", f"User: arn:aws:iam::123456789012:root is not authorized to perform: "
                f"dynamodb:{operation} on resource: {elsewhere} because no resource-based policy allows the "
                f"dynamodb:{operation} action")

    assert refused(lambda: dynamodb.get_item(TableName=elsewhere, Key={"pk": S("a")})) == denied("GetItem")
    assert refused(lambda: dynamodb.batch_write_item(RequestItems={"orders": [{"PutRequest": {"Item": {
        "pk": S("b")}}}], elsewhere: [{"PutRequest": {"Item": {"pk": S("a")}}}]})) == denied("BatchWriteItem")
    assert refused(lambda: dynamodb.transact_write_items(TransactItems=[
        {"Put": {"TableName": elsewhere, "Item": {"pk": S("a")}}}])) == denied("TransactWriteItems")
    assert refused(lambda: dynamodb.create_table(TableName=elsewhere, **KEY)) == ("ValidationException", (
        f"1 validation error detected: Value '{elsewhere}' at 'tableName' failed to satisfy constraint: Member must "
        "satisfy regular expression pattern: [a-zA-Z0-9_.-]+"))
    assert dynamodb.list_tables()["TableNames"] == ["orders"]
    assert dynamodb.scan(TableName="orders")["Items"] == []


def test_an_arn_of_another_region_is_refused_as_aws_refuses_it(door):
    """AWS's words: "1 validation error detected: Invalid AWS region in '<ARN>'" (DescribeContinuousBackups and
    UpdateContinuousBackups given a table ARN of another region, as terraform reported them)."""
    dynamodb = door.client("dynamodb")
    dynamodb.create_table(TableName="orders", **KEY)
    elsewhere = ARN.replace("us-east-1", "eu-west-1")
    expected = ("ValidationException", f"1 validation error detected: Invalid AWS region in '{elsewhere}'")
    calls = {
        "DescribeTable": lambda: dynamodb.describe_table(TableName=elsewhere),
        "DescribeContinuousBackups": lambda: dynamodb.describe_continuous_backups(TableName=elsewhere),
        "PutItem": lambda: dynamodb.put_item(TableName=elsewhere, Item={"pk": S("a")}),
        "BatchWriteItem": lambda: dynamodb.batch_write_item(RequestItems={
            "orders": [{"PutRequest": {"Item": {"pk": S("b")}}}],
            elsewhere: [{"PutRequest": {"Item": {"pk": S("a")}}}]}),
        "TransactWriteItems": lambda: dynamodb.transact_write_items(TransactItems=[
            {"Put": {"TableName": "orders", "Item": {"pk": S("b")}}},
            {"Put": {"TableName": elsewhere, "Item": {"pk": S("a")}}}]),
        "CreateTable": lambda: dynamodb.create_table(TableName=elsewhere, **KEY),
    }
    assert {operation: refused(call) for operation, call in calls.items()} == dict.fromkeys(calls, expected)
    assert dynamodb.scan(TableName="orders")["Items"] == []  # nothing written, nothing created
    assert dynamodb.list_tables()["TableNames"] == ["orders"]


@pytest.mark.parametrize("arn, message", [
    (ARN + "/index/by-owner", "Value '{arn}' at '{path}' failed to satisfy constraint: " + table_arns.ARN_FORMAT),
    (ARN + "/stream/2026-01-01T00:00:00.000", "Value '{arn}' at '{path}' failed to satisfy constraint: "
                                              + table_arns.ARN_FORMAT),
    ("arn:aws:dynamodb:us-east-1:123456789012:table/", "Value '{arn}' at '{path}' failed to satisfy constraint: "
                                                       + table_arns.ARN_FORMAT),
    ("arn:orders", "Value '{arn}' at '{path}' failed to satisfy constraint: " + table_arns.ARN_FORMAT),
    ("arn:aws:s3:::bucket/orders", "Invalid resource type in '{arn}'"),
    ("arn:aws:dynamodb:us-east-1:123456789012:backup/orders", "Invalid resource type in '{arn}'"),
    ("arn:xyz:dynamodb:us-east-1:123456789012:table/orders", "Invalid AWS partition in '{arn}'"),
])
def test_an_arn_that_is_not_a_tables_is_refused_where_a_table_belongs(door, arn, message):
    dynamodb = door.client("dynamodb")
    dynamodb.create_table(TableName="orders", **KEY)
    for path, call in [
        ("tableName", lambda: dynamodb.get_item(TableName=arn, Key={"pk": S("a")})),
        ("tableName", lambda: dynamodb.describe_table(TableName=arn)),
        ("tableName", lambda: dynamodb.create_table(TableName=arn, **KEY)),
        ("transactItems.1.member.put.tableName", lambda: dynamodb.transact_write_items(TransactItems=[
            {"Put": {"TableName": arn, "Item": {"pk": S("a")}}}])),
        (f"requestItems.{arn}.key", lambda: dynamodb.batch_write_item(RequestItems={arn: [
            {"PutRequest": {"Item": {"pk": S("a")}}}]})),
    ]:
        assert refused(call) == ("ValidationException",
                                 "1 validation error detected: " + message.format(arn=arn, path=path))
    assert dynamodb.list_tables()["TableNames"] == ["orders"]


def test_resolve_rewrites_only_this_accounts_table_arns():
    other = ARN.replace("123456789012", "210987654321")
    params = {"RequestItems": {ARN: [], "plain": []}}
    assert table_arns.given("BatchWriteItem", params)
    assert table_arns.resolve("BatchWriteItem", params, "123456789012", "us-east-1")
    assert list(params["RequestItems"]) == ["orders", "plain"]
    params = {"TransactItems": [{"Get": {"TableName": ARN}}, {"Get": {"TableName": "plain"}}, None]}
    assert table_arns.resolve("TransactGetItems", params, "123456789012", "us-east-1")
    assert [item and item["Get"]["TableName"] for item in params["TransactItems"]] == ["orders", "plain", None]
    assert not table_arns.given("PutItem", {"TableName": "orders"})
    assert not table_arns.given("PutItem", {"TableName": "orders", "RequestItems": {ARN: []}})  # not PutItem's
    with pytest.raises(AccessDeniedException, match="dynamodb:PutItem on resource: arn:aws:dynamodb:us-east-1:2109"):
        table_arns.resolve("PutItem", {"TableName": other}, "123456789012", "us-east-1")
    assert not table_arns.resolve("CreateTable", {"TableName": other}, "123456789012", "us-east-1")  # not a name
    assert table_arns.denied("PutItem", ARN, "123456789012") is None
    with pytest.raises(ValidationException, match="^1 validation error detected: Invalid AWS region in 'arn:"):
        table_arns.resolve("GetItem", {"TableName": ARN}, "123456789012", "eu-west-1")


def test_problem_names_what_is_not_a_table_arn():
    assert table_arns.problem(ARN, "tableName") is None
    assert table_arns.problem("arn:aws-cn:dynamodb:cn-north-1:123456789012:table/a.b_c-d", "tableName") is None
    assert table_arns.problem(ARN + "/index/i", "tableName").startswith(
        f"Value '{ARN}/index/i' at 'tableName' failed to satisfy constraint: Valid ARN format is 'arn:<awsPartition>:")
    assert table_arns.problem("arn:aws:dynamodb:us-east-1:123456789012:table/ab", "x").endswith(
        "Resource name must satisfy regular expression pattern: [a-zA-Z0-9_.-]+")
    assert table_arns.problem("arn:aws:lambda:us-east-1:123456789012:function/orders", "tableName") == (
        "Invalid resource type in 'arn:aws:lambda:us-east-1:123456789012:function/orders'")


def test_a_batchs_answer_keys_its_tables_as_the_request_did():
    answer = {"UnprocessedItems": {"orders": [1], "plain": [2]}, "ItemCollectionMetrics": {"orders": []},
              "ConsumedCapacity": [{"TableName": "orders"}]}
    assert table_arns.keyed_as_given("BatchWriteItem", answer, {"orders": ARN}) == {
        "UnprocessedItems": {ARN: [1], "plain": [2]}, "ItemCollectionMetrics": {ARN: []},
        "ConsumedCapacity": [{"TableName": "orders"}]}
    answer = {"Responses": {"orders": []}, "UnprocessedKeys": {"orders": {}}}
    assert table_arns.keyed_as_given("BatchGetItem", answer, {"orders": ARN}) == {
        "Responses": {ARN: []}, "UnprocessedKeys": {ARN: {}}}


def test_the_table_name_shape_is_the_model_s_made_once():
    from eddy.emulator.api import validation

    model = validation._service("dynamodb")
    shape = table_arns.name_shape(model)
    assert shape is table_arns.name_shape(model)
    fresh = model.shape_for("TableName")
    assert (shape.name, shape.type_name, shape.metadata, shape.enum) == (
        fresh.name, fresh.type_name, fresh.metadata, fresh.enum)

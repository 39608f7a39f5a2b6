"""moto_seam/dynamodb_rules.py: AWS's answers where moto keeps older or looser rules, and moto's own after.

Sources: AWS's announcement of 100 actions per transaction (September 2022); the AWS-recorded suite of issue 37
(ListTables in name order, a tag given again overwritten); the DynamoDB API reference, TagResource."""

from __future__ import annotations

from moto.dynamodb import responses
from moto.dynamodb.models import DynamoDBBackend

from eddy import emulate
from eddy.emulator.moto_seam import dynamodb_rules

TABLE, RANGE_TABLE = "orders", "lines"
from tests.emulator.api.dynamodb.rules.conftest import refused
from tests.emulator.helpers import create_table


def test_moto_keeps_its_own_rules_without_an_emulator():
    assert dynamodb_rules.original_transaction_max_items == 25  # moto's limit (AWS's before September 2022)
    with emulate(housekeeping_interval=None):
        assert responses.TRANSACTION_MAX_ITEMS == dynamodb_rules.TRANSACTION_MAX_ITEMS == 100
        assert DynamoDBBackend.list_tables is not dynamodb_rules.original_list_tables
    assert responses.TRANSACTION_MAX_ITEMS == 25
    assert DynamoDBBackend.list_tables is dynamodb_rules.original_list_tables
    assert DynamoDBBackend.tag_resource is dynamodb_rules.original_tag_resource


def test_list_tables_names_tables_in_name_order_page_by_page(door):
    dynamodb = door.client("dynamodb")
    for name in ("zeta", "alpha", "Mid", "beta"):
        create_table(dynamodb, name, view_type=None)
    assert dynamodb.list_tables()["TableNames"] == ["Mid", "alpha", "beta", "zeta"]
    first = dynamodb.list_tables(Limit=2)
    assert (first["TableNames"], first["LastEvaluatedTableName"]) == (["Mid", "alpha"], "alpha")
    rest = dynamodb.list_tables(ExclusiveStartTableName="alpha")
    assert (rest["TableNames"], "LastEvaluatedTableName" in rest) == (["beta", "zeta"], False)
    assert dynamodb.list_tables(ExclusiveStartTableName="bet")["TableNames"] == ["beta", "zeta"]  # names no table


def test_a_tag_given_again_replaces_its_value(door):
    dynamodb = door.client("dynamodb")
    arn = create_table(dynamodb, view_type=None)["TableArn"]
    dynamodb.tag_resource(ResourceArn=arn, Tags=[{"Key": "team", "Value": "a"}, {"Key": "cost", "Value": "1"}])
    dynamodb.tag_resource(ResourceArn=arn, Tags=[{"Key": "team", "Value": "b"}])
    assert sorted(dynamodb.list_tags_of_resource(ResourceArn=arn)["Tags"], key=lambda tag: tag["Key"]) == [
        {"Key": "cost", "Value": "1"}, {"Key": "team", "Value": "b"}]


def test_a_key_that_is_not_the_tables_is_refused_in_one_message(door):
    """dynalite's test/getItem.js, written against DynamoDB: "should return ValidationException if range key does not
    match schema" (moto answered "Validation Exception"), and a key with an attribute too many."""
    dynamodb = door.client("dynamodb", validate=False)
    create_table(dynamodb, TABLE, view_type=None)
    create_table(dynamodb, RANGE_TABLE, view_type=None, range_key=True)
    not_the_schema = (400, "ValidationException", "The provided key element does not match the schema")
    assert refused(lambda: dynamodb.get_item(TableName=RANGE_TABLE, Key={"pk": {"S": "a"}})) == not_the_schema
    assert refused(lambda: dynamodb.get_item(TableName=TABLE, Key={"pk": {"S": "a"}, "b": {"S": "a"}})) == not_the_schema
    assert refused(lambda: dynamodb.delete_item(TableName=RANGE_TABLE, Key={"pk": {"S": "a"}})) == not_the_schema
    assert refused(lambda: dynamodb.update_item(TableName=RANGE_TABLE, Key={"sk": {"S": "a"}})) == not_the_schema
    assert dynamodb.scan(TableName=RANGE_TABLE)["Items"] == []


def test_reserved_words_are_motos_list_read_in_any_case():
    """The developer guide's "Reserved words in DynamoDB", as moto keeps them (pinned: a moto upgrade that drops or
    moves the list fails here)."""
    from moto.dynamodb.parsing.reserved_keywords import ReservedKeywords

    assert len(ReservedKeywords.get_reserved_keywords()) > 500
    assert all(dynamodb_rules.reserved_word(word) for word in ("name", "abORt", "ABSOLUTE", "status", "data"))
    assert not any(dynamodb_rules.reserved_word(word) for word in ("pk", "orders", "abortx"))

"""CreateTable's definition held to DynamoDB's rules, in AWS's words; nothing created.

Source: dynalite's test/createTable.js, written against DynamoDB ("should return ValidationException if
ProvisionedThroughput set when BillingMode is PAY_PER_REQUEST", "should not allow ProvisionedThroughput with
PAY_PER_REQUEST and GlobalSecondaryIndexes", "should return ValidationException for no range key with
LocalSecondaryIndex", "... for duplicate index names in LocalSecondaryIndexes")."""

from __future__ import annotations

from tests.emulator.api.dynamodb.rules.conftest import invalid, refused

DEFINITIONS = [{"AttributeName": "a", "AttributeType": "S"}, {"AttributeName": "b", "AttributeType": "S"}]
HASH = [{"AttributeName": "a", "KeyType": "HASH"}]
HASH_RANGE = HASH + [{"AttributeName": "b", "KeyType": "RANGE"}]
THROUGHPUT = {"ReadCapacityUnits": 1, "WriteCapacityUnits": 1}


def index(name: str, **more) -> dict:
    return {"IndexName": name, "KeySchema": HASH_RANGE, "Projection": {"ProjectionType": "ALL"}, **more}


def test_pay_per_request_takes_no_throughput(door):
    dynamodb = door.client("dynamodb", validate=False)
    assert refused(lambda: dynamodb.create_table(
        TableName="abc", AttributeDefinitions=DEFINITIONS[:1], KeySchema=HASH, BillingMode="PAY_PER_REQUEST",
        ProvisionedThroughput=THROUGHPUT)) == invalid(
        "One or more parameter values were invalid: Neither ReadCapacityUnits nor WriteCapacityUnits can be specified "
        "when BillingMode is PAY_PER_REQUEST")
    assert refused(lambda: dynamodb.create_table(
        TableName="abc", AttributeDefinitions=DEFINITIONS, KeySchema=HASH, BillingMode="PAY_PER_REQUEST",
        GlobalSecondaryIndexes=[index("abc"), index("abd", ProvisionedThroughput=THROUGHPUT)])) == invalid(
        "One or more parameter values were invalid: ProvisionedThroughput should not be specified for index: abd when "
        "BillingMode is PAY_PER_REQUEST")
    assert dynamodb.list_tables()["TableNames"] == []


def test_a_local_secondary_index_needs_a_table_with_a_sort_key(door):
    dynamodb = door.client("dynamodb", validate=False)
    assert refused(lambda: dynamodb.create_table(
        TableName="abc", AttributeDefinitions=DEFINITIONS, KeySchema=HASH, ProvisionedThroughput=THROUGHPUT,
        LocalSecondaryIndexes=[index("abc")])) == invalid(
        "One or more parameter values were invalid: Table KeySchema does not have a range key, which is required when "
        "specifying a LocalSecondaryIndex")
    assert dynamodb.list_tables()["TableNames"] == []


def test_two_indexes_with_one_name_are_refused(door):
    dynamodb = door.client("dynamodb", validate=False)
    duplicate = invalid("One or more parameter values were invalid: Duplicate index name: abc")
    assert refused(lambda: dynamodb.create_table(
        TableName="abc", AttributeDefinitions=DEFINITIONS, KeySchema=HASH_RANGE, ProvisionedThroughput=THROUGHPUT,
        LocalSecondaryIndexes=[index("abc"), index("abc")])) == duplicate
    assert refused(lambda: dynamodb.create_table(
        TableName="abc", AttributeDefinitions=DEFINITIONS, KeySchema=HASH_RANGE, ProvisionedThroughput=THROUGHPUT,
        LocalSecondaryIndexes=[index("abc")], GlobalSecondaryIndexes=[index("abc", ProvisionedThroughput=THROUGHPUT)])
    ) == duplicate
    assert refused(lambda: dynamodb.create_table(
        TableName="abc", AttributeDefinitions=DEFINITIONS, KeySchema=HASH, BillingMode="PAY_PER_REQUEST",
        GlobalSecondaryIndexes=[index("abc"), index("abc")])) == duplicate
    assert dynamodb.list_tables()["TableNames"] == []


def test_a_local_secondary_index_has_the_tables_hash_key(door):
    """The AWS-run conformance suite nubo-db/dynamodb-conformance (tests/tier1/createTable/lsi.test.ts) refuses it;
    the words are dynalite's validations/createTable.js."""
    dynamodb = door.client("dynamodb", validate=False)
    definitions = DEFINITIONS + [{"AttributeName": "c", "AttributeType": "S"}]
    other = {"IndexName": "by_c", "Projection": {"ProjectionType": "ALL"},
             "KeySchema": [{"AttributeName": "c", "KeyType": "HASH"}, {"AttributeName": "b", "KeyType": "RANGE"}]}
    assert refused(lambda: dynamodb.create_table(
        TableName="abc", AttributeDefinitions=definitions, KeySchema=HASH_RANGE, BillingMode="PAY_PER_REQUEST",
        LocalSecondaryIndexes=[other])) == invalid(
        "One or more parameter values were invalid: Index KeySchema does not have the same leading hash key as table "
        "KeySchema for index: by_c. index hash key: c, table hash key: a")
    assert dynamodb.list_tables()["TableNames"] == []


def test_update_table_refuses_throughput_on_demand_and_the_throughput_a_table_has(door):
    """The AWS-run conformance suite's tests/tier1/updateTable/basic.test.ts refuses both; the words are CreateTable's
    for the first (AWS's for UpdateTable not recorded) and dynalite's actions/updateTable.js for the second."""
    dynamodb = door.client("dynamodb", validate=False)
    dynamodb.create_table(TableName="abc", AttributeDefinitions=DEFINITIONS[:1], KeySchema=HASH,
                          ProvisionedThroughput={"ReadCapacityUnits": 5, "WriteCapacityUnits": 5})
    assert refused(lambda: dynamodb.update_table(
        TableName="abc", BillingMode="PAY_PER_REQUEST",
        ProvisionedThroughput={"ReadCapacityUnits": 5, "WriteCapacityUnits": 5})) == invalid(
        "One or more parameter values were invalid: Neither ReadCapacityUnits nor WriteCapacityUnits can be specified "
        "when BillingMode is PAY_PER_REQUEST")
    assert refused(lambda: dynamodb.update_table(
        TableName="abc", BillingMode="PROVISIONED",
        ProvisionedThroughput={"ReadCapacityUnits": 5, "WriteCapacityUnits": 5})) == invalid(
        "The provisioned throughput for the table will not change. The requested value equals the current value. "
        "Current ReadCapacityUnits provisioned for the table: 5. Requested ReadCapacityUnits: 5. Current "
        "WriteCapacityUnits provisioned for the table: 5. Requested WriteCapacityUnits: 5. Refer to the Amazon DynamoDB "
        "Developer Guide for current limits and how to request higher limits.")
    table = dynamodb.describe_table(TableName="abc")["Table"]
    assert (table["ProvisionedThroughput"]["ReadCapacityUnits"], "BillingModeSummary" in table) == (5, False)
    changed = dynamodb.update_table(TableName="abc", ProvisionedThroughput={"ReadCapacityUnits": 6,
                                                                             "WriteCapacityUnits": 5})
    assert changed["TableDescription"]["ProvisionedThroughput"]["ReadCapacityUnits"] == 6

"""Members DynamoDB words its own way, before any table is read: Put/Update/DeleteItem's enums reported together, in
DynamoDB's order of the members and AWS's order of each enum's values, for a table that does not exist; Scan's Segment
against TotalSegments.

Sources: the AWS-run conformance suite nubo-db/dynamodb-conformance (2026): tests/tier3/validation-ordering/putItem,
deleteItem, updateItem.test.ts (every bad enum named, on a table that does not exist), tests/tier3/error-messages/
scan.test.ts (the Segment message); dynalite's validations/putItem.js, deleteItem.js, updateItem.js and test/putItem.js
"should return ValidationException for incorrect attributes" (written against DynamoDB: the order and the enum lists)."""

from __future__ import annotations

import pytest

from tests.emulator.api.dynamodb.rules.conftest import TABLE, invalid, items, refused

KEY = {"pk": {"S": "a"}}
CAPACITY = ("Value 'INVALID' at 'returnConsumedCapacity' failed to satisfy constraint: Member must satisfy enum value "
            "set: [INDEXES, TOTAL, NONE]")
VALUES = ("Value 'INVALID' at 'returnValues' failed to satisfy constraint: Member must satisfy enum value set: "
          "[ALL_NEW, UPDATED_OLD, ALL_OLD, NONE, UPDATED_NEW]")
METRICS = ("Value 'INVALID' at 'returnItemCollectionMetrics' failed to satisfy constraint: Member must satisfy enum "
           "value set: [SIZE, NONE]")
BAD = {"ReturnConsumedCapacity": "INVALID", "ReturnValues": "INVALID", "ReturnItemCollectionMetrics": "INVALID"}


@pytest.mark.parametrize("operation, params, listed", [
    ("put_item", {"Item": KEY}, [CAPACITY, VALUES, METRICS]),
    ("delete_item", {"Key": KEY}, [CAPACITY, VALUES, METRICS]),
    ("update_item", {"Key": KEY}, [CAPACITY, METRICS, VALUES]),
])
@pytest.mark.parametrize("table", [TABLE, "no_such_table"])
def test_every_bad_enum_is_named_in_one_message_before_the_table_is_read(dynamodb, operation, params, listed, table):
    assert refused(lambda: getattr(dynamodb, operation)(TableName=table, **params, **BAD)) == invalid(
        f"3 validation errors detected: {'; '.join(listed)}")
    assert refused(lambda: getattr(dynamodb, operation)(
        TableName=table, **params, ReturnValues="INVALID", ReturnConsumedCapacity="INVALID")) == invalid(
        f"2 validation errors detected: {CAPACITY}; {VALUES}")
    assert refused(lambda: getattr(dynamodb, operation)(TableName=table, **params, ReturnValues="INVALID")) == invalid(
        f"1 validation error detected: {VALUES}")
    assert items(dynamodb) == []


def test_a_segment_not_below_total_segments_is_refused_naming_both(dynamodb):
    assert refused(lambda: dynamodb.scan(TableName=TABLE, Segment=5, TotalSegments=5)) == invalid(
        "The Segment parameter is zero-based and must be less than parameter TotalSegments: Segment: 5 is not less "
        "than TotalSegments: 5")
    assert dynamodb.scan(TableName=TABLE, Segment=4, TotalSegments=5)["Items"] == []


@pytest.mark.parametrize("arn", ["not-a-valid-arn", "a:b:c:d:e:f/g", "arn:aws:dynamodb:us-east-1:123456789012:table/ab"])
def test_tagging_a_resource_arn_that_is_no_tables_is_refused(dynamodb, arn):
    """The AWS-run conformance suite's tests/tier2/tags/basic.test.ts refuses 'not-a-valid-arn'; the words are
    dynalite's test/tagResource.js (written against DynamoDB) for a malformed table ARN."""
    message = invalid(f"Invalid TableArn: Invalid ResourceArn provided as input {arn}")
    assert refused(lambda: dynamodb.tag_resource(ResourceArn=arn, Tags=[{"Key": "k", "Value": "v"}])) == message
    assert refused(lambda: dynamodb.untag_resource(ResourceArn=arn, TagKeys=["k"])) == message
    assert refused(lambda: dynamodb.list_tags_of_resource(ResourceArn=arn)) == message
    table_arn = dynamodb.describe_table(TableName=TABLE)["Table"]["TableArn"]
    assert dynamodb.list_tags_of_resource(ResourceArn=table_arn)["Tags"] == []


def test_another_accounts_table_is_refused_as_iam_refuses_it(dynamodb):
    """The AWS-run conformance suite's tests/tier2/tags/basic.test.ts: ListTagsOfResource of a table ARN of another
    account is AccessDeniedException (DynamoDB's JSON errors are HTTP 400); the words are IAM's for a principal no
    resource-based policy lets in (as Lambda's GetLayerVersion answers them across accounts)."""
    other = "arn:aws:dynamodb:us-east-1:000000000000:table/"

    def denied(operation: str, arn: str) -> tuple[int, str, str]:
        return (400, "AccessDeniedException", f"User: arn:aws:iam::123456789012:root is not authorized to perform: "
                f"dynamodb:{operation} on resource: {arn} because no resource-based policy allows the "
                f"dynamodb:{operation} action")

    assert refused(lambda: dynamodb.list_tags_of_resource(ResourceArn=other + "nonexistent_table_xyz")) == denied(
        "ListTagsOfResource", other + "nonexistent_table_xyz")
    assert refused(lambda: dynamodb.tag_resource(ResourceArn=other + TABLE, Tags=[{"Key": "k", "Value": "v"}])) == \
        denied("TagResource", other + TABLE)
    assert refused(lambda: dynamodb.put_item(TableName=other + TABLE, Item=KEY)) == denied("PutItem", other + TABLE)
    assert refused(lambda: dynamodb.batch_get_item(RequestItems={other + TABLE: {"Keys": [KEY]}})) == denied(
        "BatchGetItem", other + TABLE)
    own = dynamodb.describe_table(TableName=TABLE)["Table"]["TableArn"]
    dynamodb.put_item(TableName=own, Item=KEY)
    assert dynamodb.list_tags_of_resource(ResourceArn=own)["Tags"] == [] and items(dynamodb) == [KEY]


def test_what_aws_words_otherwise_than_the_models_constraints(dynamodb):
    """The AWS-run conformance suite's tier3/error-messages/createTable.test.ts, putItem.test.ts, query.test.ts and
    validation-ordering/query.test.ts (2026)."""
    key = {"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}], "BillingMode": "PAY_PER_REQUEST",
           "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}]}
    assert refused(lambda: dynamodb.create_table(**key)) == invalid(
        "The parameter 'TableName' is required but was not present in the request")
    assert refused(lambda: dynamodb.put_item(TableName="", Item=KEY)) == invalid(
        "1 validation error detected: Value '' at 'tableName' failed to satisfy constraint: Member must have length "
        "greater than or equal to 1")
    assert refused(lambda: dynamodb.query(TableName=TABLE, KeyConditionExpression="pk = :v", Limit=0,
                                          ExpressionAttributeValues={":v": {"S": "a"}})) == invalid(
        "1 validation error detected: Value at 'Limit' failed to satisfy constraint: Member must have value greater "
        "than or equal to 1")
    assert refused(lambda: dynamodb.scan(TableName=TABLE, Limit=0)) == invalid(
        "1 validation error detected: Value '0' at 'limit' failed to satisfy constraint: Member must have value greater "
        "than or equal to 1")
    assert refused(lambda: dynamodb.put_item(TableName="ab", Item=KEY)) == invalid(
        "1 validation error detected: Value 'ab' at 'tableName' failed to satisfy constraint: Member must have length "
        "greater than or equal to 3")
    assert dynamodb.list_tables()["TableNames"] == ["lines", TABLE]

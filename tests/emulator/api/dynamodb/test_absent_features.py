"""Operations on features Eddy does not have, through boto3 at both doors: AWS's answer when there are none
(empty lists, the not-found errors), and HTTP 501 NotImplemented for the operations Eddy does not emulate."""

from __future__ import annotations

import pytest
from botocore.exceptions import ClientError

from eddy.emulator.api.dynamodb.absent_features import NOT_EMULATED
from tests.emulator.helpers import create_table

ARN = "arn:aws:dynamodb:us-east-1:123456789012:table/orders"


def error_of(call, **params) -> tuple[str, str, int, int]:
    with pytest.raises(ClientError) as raised:
        call(**params)
    response = raised.value.response
    return (response["Error"]["Code"], response["Error"]["Message"], response["ResponseMetadata"]["HTTPStatusCode"],
            response["ResponseMetadata"]["RetryAttempts"])


def answer_of(call, **params) -> dict:
    answer = call(**params)
    answer.pop("ResponseMetadata")
    return answer


LEGACY = ("One or more parameter values were invalid: DynamoDB global tables version 2017.11.29 is not supported. We "
          "recommend using DynamoDB global tables version 2019.11.21, instead of version 2017.11.29 (Legacy).")


def test_there_are_no_legacy_global_tables(door):
    dynamodb = door.client("dynamodb")
    create_table(dynamodb, "orders", view_type=None)
    assert answer_of(dynamodb.list_global_tables) == {"GlobalTables": []}
    assert answer_of(dynamodb.list_global_tables, RegionName="us-east-1", Limit=1) == {"GlobalTables": []}
    found = "Global table not found: Global table with name: 'orders' does not exist."
    assert error_of(dynamodb.describe_global_table, GlobalTableName="orders") == (
        "GlobalTableNotFoundException", found, 400, 0)
    # AWS no longer makes version 2017.11.29 global tables (its answer recorded in 2026)
    assert error_of(dynamodb.update_global_table, GlobalTableName="orders",
                    ReplicaUpdates=[{"Delete": {"RegionName": "us-west-2"}}]) == ("ValidationException", LEGACY, 400, 0)
    assert error_of(dynamodb.create_global_table, GlobalTableName="orders",
                    ReplicationGroup=[{"RegionName": "us-east-1"}]) == ("ValidationException", LEGACY, 400, 0)
    settings = "Global table with name: 'nope' does not exist."
    assert error_of(dynamodb.describe_global_table_settings, GlobalTableName="nope")[:2] == (
        "GlobalTableNotFoundException", settings)
    assert error_of(dynamodb.update_global_table_settings, GlobalTableName="nope",
                    GlobalTableBillingMode="PAY_PER_REQUEST")[:2] == ("GlobalTableNotFoundException", settings)
    # AWS answers DescribeTableReplicaAutoScaling only for a table with replicas
    assert error_of(dynamodb.describe_table_replica_auto_scaling, TableName="orders")[:2] == (
        "ResourceNotFoundException", "Global table with name: orders does not exist.")


def test_contributor_insights_are_disabled_everywhere(door):
    dynamodb = door.client("dynamodb")
    dynamodb.create_table(
        TableName="orders", BillingMode="PAY_PER_REQUEST",
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "g", "AttributeType": "S"}],
        GlobalSecondaryIndexes=[{"IndexName": "by_g", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                                 "Projection": {"ProjectionType": "ALL"}}])
    assert answer_of(dynamodb.describe_contributor_insights, TableName="orders") == {
        "TableName": "orders", "ContributorInsightsStatus": "DISABLED"}
    assert answer_of(dynamodb.describe_contributor_insights, TableName="orders", IndexName="by_g") == {
        "TableName": "orders", "IndexName": "by_g", "ContributorInsightsStatus": "DISABLED"}
    assert error_of(dynamodb.describe_contributor_insights, TableName="orders", IndexName="nope")[:2] == (
        "ResourceNotFoundException", "Index: nope not found for table: orders")
    assert error_of(dynamodb.describe_contributor_insights, TableName="missing")[:2] == (
        "ResourceNotFoundException", "Requested resource not found: Table: missing not found")
    # only tables and indexes whose insights are not DISABLED are listed
    assert answer_of(dynamodb.list_contributor_insights) == {"ContributorInsightsSummaries": []}
    assert answer_of(dynamodb.list_contributor_insights, TableName="orders") == {"ContributorInsightsSummaries": []}
    assert error_of(dynamodb.list_contributor_insights, TableName="missing")[0] == "ResourceNotFoundException"


def test_there_are_no_bulk_operations_or_imports(door):
    dynamodb = door.client("dynamodb")
    assert answer_of(dynamodb.list_bulk_operations) == {"BulkOperationsSummaryList": []}
    assert answer_of(dynamodb.list_imports) == {"ImportSummaryList": []}
    assert answer_of(dynamodb.list_imports, TableArn=ARN, PageSize=10) == {"ImportSummaryList": []}
    bulk = ARN + "/bulk-operation/01700000000000-abcdefgh"
    for call in (dynamodb.describe_bulk_operation, dynamodb.cancel_bulk_operation):
        assert error_of(call, BulkOperationArn=bulk)[:3] == (
            "ResourceNotFoundException", f"Requested resource not found: BulkOperationArn: {bulk} not found", 400)
    import_arn = ARN + "/import/01700000000000-abcdefgh"
    assert error_of(dynamodb.describe_import, ImportArn=import_arn)[:2] == (
        "ImportNotFoundException", f"Import not found: {import_arn}")


def test_exports_are_moto_s_with_its_gaps_filled(door):
    dynamodb, s3 = door.client("dynamodb"), door.client("s3")
    table_arn = create_table(dynamodb, "orders", view_type=None)["TableArn"]
    dynamodb.put_item(TableName="orders", Item={"pk": {"S": "a"}})
    assert answer_of(dynamodb.list_exports) == {"ExportSummaries": []}  # moto needs a TableArn
    export_arn = ARN + "/export/01700000000000-abcdefgh"
    assert error_of(dynamodb.describe_export, ExportArn=export_arn)[:2] == (
        "ExportNotFoundException", f"Export not found: {export_arn}")
    s3.create_bucket(Bucket="exports")
    dynamodb.update_continuous_backups(TableName="orders",
                                       PointInTimeRecoverySpecification={"PointInTimeRecoveryEnabled": True})
    exported = dynamodb.export_table_to_point_in_time(TableArn=table_arn, S3Bucket="exports")  # no S3Prefix
    arn = exported["ExportDescription"]["ExportArn"]
    assert [summary["ExportArn"] for summary in dynamodb.list_exports()["ExportSummaries"]] == [arn]
    assert dynamodb.describe_export(ExportArn=arn)["ExportDescription"]["TableArn"] == table_arn


def test_time_to_live_of_a_missing_table_is_aws_s_error(door):
    dynamodb = door.client("dynamodb")
    message = "Requested resource not found: Table: missing not found"
    assert error_of(dynamodb.describe_time_to_live, TableName="missing")[:3] == (
        "ResourceNotFoundException", message, 400)
    assert error_of(dynamodb.update_time_to_live, TableName="missing",
                    TimeToLiveSpecification={"Enabled": True, "AttributeName": "expires"})[:3] == (
        "ResourceNotFoundException", message, 400)
    table_arn = create_table(dynamodb, "orders", view_type=None)["TableArn"]
    assert dynamodb.describe_time_to_live(TableName="orders")["TimeToLiveDescription"] == {"TimeToLiveStatus": "DISABLED"}
    dynamodb.update_time_to_live(TableName=table_arn, TimeToLiveSpecification={"Enabled": True, "AttributeName": "expires"})
    assert dynamodb.describe_time_to_live(TableName=table_arn)["TimeToLiveDescription"] == {
        "TimeToLiveStatus": "ENABLED", "AttributeName": "expires"}  # a table's ARN names it, as moto allows


NOT_EMULATED_CALLS = {
    "SearchVectors": ("search_vectors", dict(TableName="orders", IndexName="vectors", SearchVector=[{"N": "0.5"}], TopK=1)),
    "StartBulkPutItems": ("start_bulk_put_items", dict(
        TableName="orders", InputS3Configuration={"S3Bucket": "in", "InputFormat": "DYNAMODB_JSON"},
        OutputS3Configuration={"S3Bucket": "out", "OutputType": ["ERROR"]})),
    "UpdateContributorInsights": ("update_contributor_insights", dict(TableName="orders",
                                                                      ContributorInsightsAction="ENABLE")),
    "UpdateTableReplicaAutoScaling": ("update_table_replica_auto_scaling", dict(TableName="orders")),
}


@pytest.mark.parametrize("operation", NOT_EMULATED)
def test_what_eddy_does_not_emulate_is_a_501_not_retried(door, operation):
    dynamodb = door.client("dynamodb")
    create_table(dynamodb, "orders", view_type=None)
    method, params = NOT_EMULATED_CALLS[operation]
    assert error_of(getattr(dynamodb, method), **params) == (
        "NotImplemented", f"Eddy does not emulate DynamoDB's {operation}", 501, 0)


def test_a_request_to_what_eddy_does_not_emulate_is_still_validated_first(door):
    dynamodb = door.client("dynamodb", validate=False)
    code, message, status, _ = error_of(dynamodb.create_global_table, GlobalTableName="x", ReplicationGroup=[])
    assert (code, status) == ("ValidationException", 400)
    assert "globalTableName" in message

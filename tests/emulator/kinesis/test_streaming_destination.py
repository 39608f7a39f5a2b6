"""Kinesis Data Streams for DynamoDB: Enable/Disable/Describe/UpdateKinesisStreamingDestination and the records put."""

from __future__ import annotations

import json

import pytest
from botocore.exceptions import ClientError

from tests.emulator.helpers import create_table


def setup(door, shards: int = 1):
    dynamodb, kinesis = door.client("dynamodb"), door.client("kinesis")
    create_table(dynamodb, view_type=None, range_key=True)
    kinesis.create_stream(StreamName="changes", ShardCount=shards)
    arn = kinesis.describe_stream_summary(StreamName="changes")["StreamDescriptionSummary"]["StreamARN"]
    return dynamodb, kinesis, arn


def read_all(kinesis, arn) -> list[dict]:
    records = []
    name = arn.rsplit("/", 1)[1]  # moto's GetRecords finds a stream by the name its iterator carries
    for shard in kinesis.list_shards(StreamName=name)["Shards"]:
        iterator = kinesis.get_shard_iterator(StreamName=name, ShardId=shard["ShardId"],
                                              ShardIteratorType="TRIM_HORIZON")["ShardIterator"]
        response = kinesis.get_records(ShardIterator=iterator, Limit=10000)
        records += [dict(r, Data=json.loads(r["Data"])) for r in response["Records"]]
    return records


def test_enable_reports_enabling_then_active_and_every_write_path_is_put(door):
    dynamodb, kinesis, arn = setup(door)
    answer = dynamodb.enable_kinesis_streaming_destination(
        TableName="orders", StreamArn=arn,
        EnableKinesisStreamingConfiguration={"ApproximateCreationDateTimePrecision": "MICROSECOND"})
    assert (answer["TableName"], answer["StreamArn"], answer["DestinationStatus"]) == ("orders", arn, "ENABLING")
    assert answer["EnableKinesisStreamingConfiguration"] == {"ApproximateCreationDateTimePrecision": "MICROSECOND"}
    described = dynamodb.describe_kinesis_streaming_destination(TableName="orders")
    assert described["KinesisDataStreamDestinations"] == [
        {"StreamArn": arn, "DestinationStatus": "ACTIVE", "ApproximateCreationDateTimePrecision": "MICROSECOND"}]

    key = {"pk": {"S": "a"}, "sk": {"S": "1"}}
    dynamodb.put_item(TableName="orders", Item=dict(key, n={"N": "1"}))
    dynamodb.update_item(TableName="orders", Key=key, UpdateExpression="SET n = :n",
                         ExpressionAttributeValues={":n": {"N": "2"}})
    dynamodb.transact_write_items(TransactItems=[{"Put": {"TableName": "orders",
                                                          "Item": {"pk": {"S": "b"}, "sk": {"S": "1"}}}}])
    dynamodb.batch_write_item(RequestItems={"orders": [{"PutRequest": {"Item": {"pk": {"S": "c"}, "sk": {"S": "1"}}}}]})
    dynamodb.execute_statement(Statement="DELETE FROM orders WHERE pk = 'c' AND sk = '1'")
    dynamodb.delete_item(TableName="orders", Key=key)

    records = read_all(kinesis, arn)
    assert len(records) == 6
    by_key: dict[str, list[dict]] = {}
    for record in records:
        by_key.setdefault(record["PartitionKey"], []).append(record["Data"])
    item_a = next(events for events in by_key.values() if events[0]["dynamodb"]["Keys"] == key)
    assert [e["eventName"] for e in item_a] == ["INSERT", "MODIFY", "REMOVE"]
    modify = item_a[1]
    assert modify["dynamodb"]["OldImage"] == dict(key, n={"N": "1"})
    assert modify["dynamodb"]["NewImage"] == dict(key, n={"N": "2"})
    assert set(modify) == {"awsRegion", "eventID", "eventName", "userIdentity", "recordFormat", "tableName",
                           "dynamodb", "eventSource"}
    assert (modify["awsRegion"], modify["recordFormat"], modify["tableName"], modify["eventSource"],
            modify["userIdentity"]) == ("us-east-1", "application/json", "orders", "aws:dynamodb", None)
    assert modify["dynamodb"]["ApproximateCreationDateTimePrecision"] == "MICROSECOND"
    assert abs(modify["dynamodb"]["ApproximateCreationDateTime"] / 1e6 - door.now()) < 60
    assert modify["dynamodb"]["SizeBytes"] > 0
    assert sorted(len(events) for events in by_key.values()) == [1, 2, 3]  # b once; c put then deleted


def test_ttl_deletions_are_put_with_the_service_identity_and_disable_stops_the_flow(door):
    dynamodb, kinesis, arn = setup(door)
    dynamodb.update_time_to_live(TableName="orders", TimeToLiveSpecification={"Enabled": True, "AttributeName": "exp"})
    dynamodb.enable_kinesis_streaming_destination(TableName="orders", StreamArn=arn)
    dynamodb.put_item(TableName="orders", Item={"pk": {"S": "old"}, "sk": {"S": "1"}, "exp": {"N": str(int(door.now()) - 10)}})
    assert door.sweep_ttl() == 1
    removed = [r["Data"] for r in read_all(kinesis, arn) if r["Data"]["eventName"] == "REMOVE"]
    assert removed[0]["userIdentity"] == {"type": "Service", "principalId": "dynamodb.amazonaws.com"}
    assert removed[0]["dynamodb"]["ApproximateCreationDateTimePrecision"] == "MILLISECOND"

    answer = dynamodb.disable_kinesis_streaming_destination(TableName="orders", StreamArn=arn)
    assert answer["DestinationStatus"] == "DISABLING"
    assert dynamodb.describe_kinesis_streaming_destination(TableName="orders")["KinesisDataStreamDestinations"][0][
        "DestinationStatus"] == "DISABLED"
    dynamodb.put_item(TableName="orders", Item={"pk": {"S": "after"}, "sk": {"S": "1"}})
    assert len(read_all(kinesis, arn)) == 2
    dynamodb.enable_kinesis_streaming_destination(TableName="orders", StreamArn=arn)  # enabled again: flows again
    dynamodb.put_item(TableName="orders", Item={"pk": {"S": "again"}, "sk": {"S": "1"}})
    assert len(read_all(kinesis, arn)) == 3


def test_update_changes_the_precision(door):
    dynamodb, kinesis, arn = setup(door)
    dynamodb.enable_kinesis_streaming_destination(TableName="orders", StreamArn=arn)
    answer = dynamodb.update_kinesis_streaming_destination(
        TableName="orders", StreamArn=arn,
        UpdateKinesisStreamingConfiguration={"ApproximateCreationDateTimePrecision": "MICROSECOND"})
    assert answer["DestinationStatus"] == "UPDATING"
    assert answer["UpdateKinesisStreamingConfiguration"] == {"ApproximateCreationDateTimePrecision": "MICROSECOND"}
    destination = dynamodb.describe_kinesis_streaming_destination(TableName="orders")["KinesisDataStreamDestinations"][0]
    assert (destination["DestinationStatus"], destination["ApproximateCreationDateTimePrecision"]) == ("ACTIVE", "MICROSECOND")
    with pytest.raises(ClientError) as error:
        dynamodb.update_kinesis_streaming_destination(
            TableName="orders", StreamArn=arn,
            UpdateKinesisStreamingConfiguration={"ApproximateCreationDateTimePrecision": "MICROSECOND"})
    assert error.value.response["Error"]["Code"] == "ValidationException"
    assert "already set" in error.value.response["Error"]["Message"]


@pytest.mark.parametrize("case", ["no-table", "no-stream", "twice", "disable-unknown", "bad-arn"])
def test_errors(door, case):
    dynamodb, kinesis, arn = setup(door)
    missing = arn.replace("changes", "missing")
    calls = {
        "no-table": (lambda: dynamodb.enable_kinesis_streaming_destination(TableName="nope", StreamArn=arn),
                     "ResourceNotFoundException", "Table: nope not found"),
        "no-stream": (lambda: dynamodb.enable_kinesis_streaming_destination(TableName="orders", StreamArn=missing),
                      "ResourceNotFoundException", missing),
        "twice": (lambda: [dynamodb.enable_kinesis_streaming_destination(TableName="orders", StreamArn=arn)
                           for _ in range(2)], "ResourceInUseException", "already streaming"),
        "disable-unknown": (lambda: dynamodb.disable_kinesis_streaming_destination(TableName="orders", StreamArn=arn),
                            "ValidationException", "not streaming"),
        "bad-arn": (lambda: dynamodb.enable_kinesis_streaming_destination(
            TableName="orders", StreamArn="arn:aws:sqs:us-east-1:123456789012:not-a-kinesis-stream"),
            "ValidationException", "Invalid StreamArn"),
    }
    call, code, message = calls[case]
    with pytest.raises(ClientError) as error:
        call()
    assert error.value.response["Error"]["Code"] == code
    assert message in error.value.response["Error"]["Message"]


def test_one_items_changes_keep_their_order_on_a_many_shard_stream(door):
    dynamodb, kinesis, arn = setup(door, shards=4)
    dynamodb.enable_kinesis_streaming_destination(TableName="orders", StreamArn=arn)
    for n in range(20):
        for pk in "abcde":
            dynamodb.put_item(TableName="orders", Item={"pk": {"S": pk}, "sk": {"S": "1"}, "n": {"N": str(n)}})
    records = read_all(kinesis, arn)
    assert len(records) == 100
    seen: dict[str, list[int]] = {}
    for record in records:
        data = record["Data"]
        seen.setdefault(data["dynamodb"]["Keys"]["pk"]["S"], []).append(int(data["dynamodb"]["NewImage"]["n"]["N"]))
    assert seen == {pk: list(range(20)) for pk in "abcde"}
    assert len({r["PartitionKey"] for r in records}) == 5


def test_the_destination_crud_answers_as_aws(door):
    """AWS's answers as LocalStack's AWS-validated test_kinesis_streaming_destination_crud recorded them (2025): no
    precision named when none was set, and the Update refusals in AWS's words, naming the tableId and the kdsArn."""
    dynamodb, kinesis, arn = setup(door)
    unvalidated = door.client("dynamodb", validate=False)
    table_id = dynamodb.describe_table(TableName="orders")["Table"]["TableId"]
    strip = lambda answer: {k: v for k, v in answer.items() if k != "ResponseMetadata"}  # noqa: E731

    def refused(call, **params):
        with pytest.raises(ClientError) as error:
            call(TableName="orders", **params)
        return error.value.response["Error"]["Code"], error.value.response["Error"]["Message"]

    assert strip(dynamodb.enable_kinesis_streaming_destination(TableName="orders", StreamArn=arn)) == {
        "DestinationStatus": "ENABLING", "EnableKinesisStreamingConfiguration": {}, "StreamArn": arn,
        "TableName": "orders"}
    assert strip(dynamodb.describe_kinesis_streaming_destination(TableName="orders")) == {
        "KinesisDataStreamDestinations": [{"DestinationStatus": "ACTIVE", "StreamArn": arn}], "TableName": "orders"}
    update = unvalidated.update_kinesis_streaming_destination
    assert refused(update, StreamArn=arn) == (
        "ValidationException", "Streaming destination cannot be updated with given parameters: "
        "UpdateKinesisStreamingConfiguration cannot be null or contain only null values")
    assert refused(update, StreamArn=arn, UpdateKinesisStreamingConfiguration={
        "ApproximateCreationDateTimePrecision": "SECOND"}) == (
        "ValidationException", "1 validation error detected: Value 'SECOND' at "
        "'updateKinesisStreamingConfiguration.approximateCreationDateTimePrecision' failed to satisfy constraint: "
        "Member must satisfy enum value set: [MILLISECOND, MICROSECOND]")
    bad_stream = arn.replace("/changes", "/bad-stream")
    microseconds = {"ApproximateCreationDateTimePrecision": "MICROSECOND"}
    assert refused(update, StreamArn=bad_stream, UpdateKinesisStreamingConfiguration=microseconds) == (
        "ValidationException", "Table is not in a valid state to enable Kinesis Streaming Destination: No streaming "
        f"destination with streamArn: {bad_stream} found for table with tableName: orders")
    assert strip(update(TableName="orders", StreamArn=arn, UpdateKinesisStreamingConfiguration=microseconds)) == {
        "DestinationStatus": "UPDATING", "StreamArn": arn, "TableName": "orders",
        "UpdateKinesisStreamingConfiguration": microseconds}
    assert refused(update, StreamArn=arn, UpdateKinesisStreamingConfiguration=microseconds) == (
        "ValidationException", "Invalid Request: Precision is already set to the desired value of MICROSECOND for "
        f"tableId: {table_id}, kdsArn: {arn}")
    assert strip(dynamodb.disable_kinesis_streaming_destination(TableName="orders", StreamArn=arn)) == {
        "DestinationStatus": "DISABLING", "StreamArn": arn, "TableName": "orders"}


def test_a_kinesis_stream_created_without_a_shard_count_is_on_demand(door):
    """CreateStream needs no ShardCount: such a stream is on demand (4 shards to begin with), as on AWS."""
    kinesis = door.client("kinesis")
    assert "StreamDescription" not in kinesis.create_stream(StreamName="on-demand")
    described = kinesis.describe_stream(StreamName="on-demand")["StreamDescription"]
    assert described["StreamModeDetails"] == {"StreamMode": "ON_DEMAND"} and len(described["Shards"]) == 4
    summary = kinesis.describe_stream_summary(StreamName="on-demand")["StreamDescriptionSummary"]
    assert (summary["StreamModeDetails"], summary["OpenShardCount"]) == ({"StreamMode": "ON_DEMAND"}, 4)
    kinesis.create_stream(StreamName="sized", ShardCount=2)
    assert kinesis.describe_stream(StreamName="sized")["StreamDescription"]["StreamModeDetails"] == {
        "StreamMode": "PROVISIONED"}

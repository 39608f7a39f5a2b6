"""Event source mappings through the Lambda API: defaults, validation, states, conflicts, CRUD; delivery in both doors,
to a Python and to a Node.js zip function (every feature family with each runtime)."""

from __future__ import annotations

import pytest
from botocore.exceptions import ClientError

from tests.emulator.helpers import create_table
from tests.emulator.trigger_helpers import (create_zip_function, delivered_batches, put, stream_with_reporter, wait_for_figures,
                                           wait_idle)

RUNTIMES = pytest.mark.parametrize("runtime", ["python", "node"])


def code(excinfo) -> str:
    return excinfo.value.response["Error"]["Code"]


def test_create_with_defaults_then_get_list_update_delete(door):
    setup = stream_with_reporter(door)
    lam, arn = setup["lambda"], setup["stream_arn"]
    created = lam.create_event_source_mapping(EventSourceArn=arn, FunctionName="reporter", StartingPosition="LATEST")
    assert created["State"] == "Creating"
    assert (created["BatchSize"], created["MaximumBatchingWindowInSeconds"], created["ParallelizationFactor"],
            created["MaximumRetryAttempts"], created["MaximumRecordAgeInSeconds"], created["BisectBatchOnFunctionError"],
            created["TumblingWindowInSeconds"], created["FunctionResponseTypes"]) == (100, 0, 1, -1, -1, False, 0, [])
    assert created["FunctionArn"].endswith(":function:reporter") and created["EventSourceArn"] == arn
    uuid = created["UUID"]
    assert lam.get_event_source_mapping(UUID=uuid)["State"] == "Enabled"
    assert [m["UUID"] for m in lam.list_event_source_mappings(FunctionName="reporter")["EventSourceMappings"]] == [uuid]
    assert [m["UUID"] for m in lam.list_event_source_mappings(EventSourceArn=arn)["EventSourceMappings"]] == [uuid]
    updated = lam.update_event_source_mapping(UUID=uuid, BatchSize=5, Enabled=False)
    assert (updated["State"], updated["BatchSize"]) == ("Disabling", 5)  # AWS: Disabling when an update turns it off
    assert lam.get_event_source_mapping(UUID=uuid)["State"] == "Disabled"
    assert lam.delete_event_source_mapping(UUID=uuid)["State"] == "Deleting"
    with pytest.raises(ClientError) as gone:
        lam.get_event_source_mapping(UUID=uuid)
    assert code(gone) == "ResourceNotFoundException"


def test_one_mapping_per_function_and_stream(door):
    setup = stream_with_reporter(door)
    lam, arn = setup["lambda"], setup["stream_arn"]
    first = lam.create_event_source_mapping(EventSourceArn=arn, FunctionName="reporter", StartingPosition="LATEST")
    with pytest.raises(ClientError) as conflict:
        lam.create_event_source_mapping(EventSourceArn=arn, FunctionName="reporter", StartingPosition="LATEST")
    assert code(conflict) == "ResourceConflictException" and first["UUID"] in conflict.value.response["Error"]["Message"]
    assert conflict.value.response["ResponseMetadata"]["HTTPStatusCode"] == 409


@pytest.mark.parametrize("options, expected", [
    (dict(StartingPosition="AT_TIMESTAMP"), "InvalidParameterValueException"),
    (dict(MaximumRecordAgeInSeconds=30), "InvalidParameterValueException"),
    (dict(DestinationConfig={"OnFailure": {"Destination": "arn:aws:lambda:us-east-1:123456789012:function:x"}}),
     "InvalidParameterValueException"),
    (dict(FilterCriteria={"Filters": [{"Pattern": "not json"}]}), "InvalidParameterValueException"),
    (dict(FilterCriteria={"Filters": [{"Pattern": '{"eventName": ["INSERT"]}'}] * 6}), "InvalidParameterValueException"),
])
def test_invalid_parameters(door, options, expected):
    setup = stream_with_reporter(door)
    params = dict(EventSourceArn=setup["stream_arn"], FunctionName="reporter", StartingPosition="LATEST")
    params.update(options)
    with pytest.raises(ClientError) as invalid:
        setup["lambda"].create_event_source_mapping(**params)
    assert code(invalid) == expected


@pytest.mark.parametrize("name, value", [("BatchSize", 0), ("BatchSize", 10001), ("ParallelizationFactor", 11),
                                         ("MaximumBatchingWindowInSeconds", 301), ("TumblingWindowInSeconds", 901),
                                         ("MaximumRetryAttempts", -2)])
def test_ranges_are_validated_by_the_server(door, name, value):
    setup = stream_with_reporter(door)
    unvalidated = door.client("lambda", validate=False)
    with pytest.raises(ClientError) as invalid:
        unvalidated.create_event_source_mapping(EventSourceArn=setup["stream_arn"], FunctionName="reporter",
                                                StartingPosition="LATEST", **{name: value})
    assert code(invalid) == "ValidationException"


def test_a_table_arn_an_unknown_stream_and_an_unknown_function_are_clear_errors(door):
    setup = stream_with_reporter(door)
    lam = setup["lambda"]
    table_arn = setup["stream_arn"].split("/stream/")[0]
    with pytest.raises(ClientError) as table:
        lam.create_event_source_mapping(EventSourceArn=table_arn, FunctionName="reporter", StartingPosition="LATEST")
    assert code(table) == "InvalidParameterValueException" and "LatestStreamArn" in table.value.response["Error"]["Message"]
    with pytest.raises(ClientError) as stream:
        lam.create_event_source_mapping(EventSourceArn=table_arn + "/stream/2000-01-01T00:00:00.000",
                                        FunctionName="reporter", StartingPosition="LATEST")
    assert code(stream) == "InvalidParameterValueException"
    with pytest.raises(ClientError) as function:
        lam.create_event_source_mapping(EventSourceArn=setup["stream_arn"], FunctionName="nobody", StartingPosition="LATEST")
    assert code(function) == "ResourceNotFoundException"


def test_records_are_delivered_in_order_per_shard_batch(door):
    setup = stream_with_reporter(door)
    dynamodb, sqs = setup["dynamodb"], setup["sqs"]
    put(dynamodb, "before")
    setup["lambda"].create_event_source_mapping(EventSourceArn=setup["stream_arn"], FunctionName="reporter",
                                                StartingPosition="TRIM_HORIZON", BatchSize=3)
    for i in range(7):
        put(dynamodb, f"k{i}")
    assert wait_idle(door)["Idle"]
    batches = delivered_batches(sqs, setup["queue_url"])
    assert all(len(batch) <= 3 for batch in batches)
    keys = [pk for batch in batches for _, pk, _ in batch]
    assert keys == ["before"] + [f"k{i}" for i in range(7)]


def test_latest_skips_what_was_there(door):
    setup = stream_with_reporter(door)
    put(setup["dynamodb"], "old")
    setup["lambda"].create_event_source_mapping(EventSourceArn=setup["stream_arn"], FunctionName="reporter",
                                                StartingPosition="LATEST")
    put(setup["dynamodb"], "new")
    assert wait_idle(door)["Idle"]
    assert [pk for batch in delivered_batches(setup["sqs"], setup["queue_url"]) for _, pk, _ in batch] == ["new"]


@RUNTIMES
def test_a_refused_update_changes_nothing_and_the_mapping_keeps_running(door, runtime):
    setup = stream_with_reporter(door, runtime=runtime)
    lam, sqs = setup["lambda"], setup["sqs"]
    uuid = lam.create_event_source_mapping(EventSourceArn=setup["stream_arn"], FunctionName="reporter",
                                           StartingPosition="LATEST")["UUID"]
    before = lam.get_event_source_mapping(UUID=uuid)
    del before["ResponseMetadata"]
    with pytest.raises(ClientError) as refused:
        lam.update_event_source_mapping(UUID=uuid, MaximumRecordAgeInSeconds=30)
    assert code(refused) == "InvalidParameterValueException"
    with pytest.raises(ClientError) as missing:  # another function, which does not exist: refused as well
        lam.update_event_source_mapping(UUID=uuid, FunctionName="missing", BatchSize=5)
    assert code(missing) == "ResourceNotFoundException"
    after = lam.get_event_source_mapping(UUID=uuid)
    del after["ResponseMetadata"]
    assert after == before
    put(setup["dynamodb"], "after")  # AWS: a refused update leaves the mapping running as it was
    assert wait_idle(door)["Idle"]
    assert [pk for batch in delivered_batches(sqs, setup["queue_url"]) for _, pk, _ in batch] == ["after"]


def test_figures_over_http_and_idle_reports_a_stuck_mapping(door):
    setup = stream_with_reporter(door, fail_key="poison")
    uuid = setup["lambda"].create_event_source_mapping(EventSourceArn=setup["stream_arn"], FunctionName="reporter",
                                                       StartingPosition="TRIM_HORIZON")["UUID"]
    put(setup["dynamodb"], "poison")
    # however slow the machine: wait until it has failed twice (a zip function's worker may take seconds to start)
    mine = wait_for_figures(door, uuid, lambda figures: figures["Errors"] >= 2 and figures["Retries"] >= 1)
    assert mine["Invocations"] >= 2 and "failing on poison" in mine["LastError"]
    report = wait_idle(door, timeout=1)  # it retries forever (MaximumRetryAttempts -1): never idle
    assert report["Idle"] is False and report["Pending"][0]["UUID"] == uuid
    assert "failing on poison" in report["Pending"][0]["LastError"]


@RUNTIMES
def test_retries_bisect_and_destination_with_a_zip_function(door, runtime):
    setup = stream_with_reporter(door, fail_key="poison", runtime=runtime)
    sqs = setup["sqs"]
    failures_url = sqs.create_queue(QueueName="failures")["QueueUrl"]
    failures_arn = sqs.get_queue_attributes(QueueUrl=failures_url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    for key in ("a", "poison", "b"):
        put(setup["dynamodb"], key)
    setup["lambda"].create_event_source_mapping(
        EventSourceArn=setup["stream_arn"], FunctionName="reporter", StartingPosition="TRIM_HORIZON",
        MaximumRetryAttempts=1, BisectBatchOnFunctionError=True,
        DestinationConfig={"OnFailure": {"Destination": failures_arn}})
    assert wait_idle(door)["Idle"]
    batches = [[pk for _, pk, _ in batch] for batch in delivered_batches(sqs, setup["queue_url"])]
    # halves are tried in order, depth first, so nothing after the bad record runs before it is settled
    assert batches == [["a", "poison", "b"], ["a", "poison"], ["a"], ["poison"], ["poison"], ["b"]]
    [message] = sqs.receive_message(QueueUrl=failures_url)["Messages"]
    record = __import__("json").loads(message["Body"])
    assert record["requestContext"]["condition"] == "RetryAttemptsExhausted"
    assert record["requestContext"]["approximateInvokeCount"] == 2
    assert record["DDBStreamBatchInfo"]["batchSize"] == 1


@RUNTIMES
def test_filters_parallelization_and_windows_with_a_zip_function(door, runtime):
    setup = stream_with_reporter(door, runtime=runtime)
    dynamodb = setup["dynamodb"]
    setup["lambda"].create_event_source_mapping(
        EventSourceArn=setup["stream_arn"], FunctionName="reporter", StartingPosition="TRIM_HORIZON",
        ParallelizationFactor=3, TumblingWindowInSeconds=300,
        FilterCriteria={"Filters": [{"Pattern": '{"eventName": ["INSERT"]}'}]})
    for key in ("a", "b", "c"):
        put(dynamodb, key)
    put(dynamodb, "a", 1)  # a MODIFY: filtered out
    dynamodb.delete_item(TableName="orders", Key={"pk": {"S": "b"}})  # a REMOVE: filtered out
    assert wait_idle(door)["Idle"]
    door.advance(301)  # every window ends: each lane that saw records makes its final invocation
    assert wait_idle(door)["Idle"]
    batches = delivered_batches(setup["sqs"], setup["queue_url"])
    records = [record for batch in batches for record in batch]
    assert sorted(pk for _, pk, _ in records) == ["a", "b", "c"] and {event for event, _, _ in records} == {"INSERT"}
    assert [] in batches  # a final invocation of a window carries no records


PARTIAL = '''
import boto3
dynamodb = boto3.client("dynamodb")
def handler(event, context):
    failures = []
    for record in event["Records"]:
        key = record["dynamodb"]["Keys"]["pk"]["S"]
        seen = dynamodb.update_item(TableName="attempts", Key={"pk": {"S": key}}, UpdateExpression="ADD n :one",
                                    ExpressionAttributeValues={":one": {"N": "1"}}, ReturnValues="UPDATED_NEW")
        if key.startswith("flaky") and seen["Attributes"]["n"]["N"] == "1":
            failures.append({"itemIdentifier": record["dynamodb"]["SequenceNumber"]})
    return {"batchItemFailures": failures}
'''

NODE_PARTIAL = """
import { DynamoDBClient, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
const dynamodb = new DynamoDBClient({});
export const handler = async (event) => {
  const batchItemFailures = [];
  for (const record of event.Records) {
    const key = record.dynamodb.Keys.pk.S;
    const seen = await dynamodb.send(new UpdateItemCommand({ TableName: 'attempts', Key: { pk: { S: key } },
      UpdateExpression: 'ADD n :one', ExpressionAttributeValues: { ':one': { N: '1' } }, ReturnValues: 'UPDATED_NEW' }));
    if (key.startsWith('flaky') && seen.Attributes.n.N === '1') batchItemFailures.push({ itemIdentifier: record.dynamodb.SequenceNumber });
  }
  return { batchItemFailures };
};
"""


@RUNTIMES
def test_report_batch_item_failures_with_a_zip_function(door, runtime):
    dynamodb, lam = door.client("dynamodb"), door.client("lambda")
    arn = create_table(dynamodb, "orders")["LatestStreamArn"]
    create_table(dynamodb, "attempts", view_type=None)
    create_zip_function(lam, "partial", runtime, PARTIAL if runtime == "python" else NODE_PARTIAL, Timeout=10)
    for key in ("a", "flaky-b", "c"):
        put(dynamodb, key)
    lam.create_event_source_mapping(EventSourceArn=arn, FunctionName="partial", StartingPosition="TRIM_HORIZON",
                                    BatchSize=10, FunctionResponseTypes=["ReportBatchItemFailures"])
    assert wait_idle(door)["Idle"]
    attempts = {i["pk"]["S"]: i["n"]["N"] for i in dynamodb.scan(TableName="attempts")["Items"]}
    assert attempts == {"a": "1", "flaky-b": "2", "c": "2"}  # retried from the reported record onwards


@RUNTIMES
def test_batching_window_on_the_clock_with_a_zip_function(door, runtime):
    setup = stream_with_reporter(door, runtime=runtime)
    setup["lambda"].create_event_source_mapping(EventSourceArn=setup["stream_arn"], FunctionName="reporter",
                                                StartingPosition="TRIM_HORIZON", BatchSize=4,
                                                MaximumBatchingWindowInSeconds=60)
    for i in range(6):
        put(setup["dynamodb"], f"k{i}")
    assert wait_idle(door, timeout=1)["Idle"] is False  # two records wait for the window
    door.advance(61)
    assert wait_idle(door)["Idle"]
    batches = [[pk for _, pk, _ in batch] for batch in delivered_batches(setup["sqs"], setup["queue_url"])]
    assert batches == [["k0", "k1", "k2", "k3"], ["k4", "k5"]]


@RUNTIMES
def test_record_age_and_an_s3_destination_with_a_zip_function(door, runtime):
    import json as _json

    setup = stream_with_reporter(door, fail_key="poison", runtime=runtime)
    s3 = door.client("s3")
    s3.create_bucket(Bucket="failures")
    uuid = setup["lambda"].create_event_source_mapping(
        EventSourceArn=setup["stream_arn"], FunctionName="reporter", StartingPosition="TRIM_HORIZON",
        MaximumRecordAgeInSeconds=60, DestinationConfig={"OnFailure": {"Destination": "arn:aws:s3:::failures"}})["UUID"]
    put(setup["dynamodb"], "poison")
    assert wait_idle(door, timeout=1)["Idle"] is False
    door.advance(61)
    assert wait_idle(door)["Idle"]
    [key] = [o["Key"] for o in s3.list_objects_v2(Bucket="failures")["Contents"]]
    assert key.startswith(f"aws/lambda/{uuid}/shardId-")
    body = _json.loads(s3.get_object(Bucket="failures", Key=key)["Body"].read())
    assert body["requestContext"]["condition"] == "RecordAgeExceeded"
    assert [r["dynamodb"]["Keys"]["pk"]["S"] for r in body["payload"]["Records"]] == ["poison"]

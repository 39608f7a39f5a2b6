"""Event source mappings' answers compared whole with AWS's, as AWS recorded them.

The expected answers are the ones LocalStack's AWS-validated snapshot tests captured against AWS (2024-2025):
tests/aws/services/lambda_/event_source_mapping/test_lambda_integration_dynamodbstreams.snapshot.json and
test_lambda_integration_kinesis.snapshot.json. Values that differ from run to run (ids, ARNs, sequence numbers,
times) are placeholders there; here they are taken from the run itself and their format is checked. Both doors,
functions made through boto3 as zip packages.
"""

from __future__ import annotations

import base64
import json
import math
import re
from datetime import datetime

import pytest
from botocore.exceptions import ClientError

from eddy import NotDeliveredError
from tests.emulator.functions.test_functions import create_function
from tests.emulator.helpers import create_table
from tests.emulator.trigger_helpers import delivered_batches, settle

ACCOUNT = "123456789012"
ECHO = '''
import json, os, boto3
sqs = boto3.client("sqs")
def handler(event, context):
    sqs.send_message(QueueUrl=os.environ["QUEUE_URL"], MessageBody=json.dumps([event]))
    mode = os.environ.get("MODE", "")
    if mode == "raise":
        raise RuntimeError("always")
    if mode == "should_fail":  # the function of AWS's recorded test: report the records marked should_fail
        return {"batchItemFailures": [{"itemIdentifier": r["dynamodb"]["SequenceNumber"]} for r in event["Records"]
                                      if r["dynamodb"].get("NewImage", {}).get("should_fail", {}).get("BOOL")]}
    if mode == "respond":
        return json.loads(os.environ["RESPONSE"])
'''
#: CreateEventSourceMapping as AWS answered it (test_dynamodb_event_source_mapping), the varying values aside
AWS_CREATED = {
    "BatchSize": 1, "BisectBatchOnFunctionError": False, "DestinationConfig": {"OnFailure": {}},
    "FunctionResponseTypes": [], "LastProcessingResult": "No records processed", "MaximumBatchingWindowInSeconds": 1,
    "MaximumRecordAgeInSeconds": -1, "MaximumRetryAttempts": 1, "ParallelizationFactor": 1,
    "StartingPosition": "TRIM_HORIZON", "State": "Creating", "StateTransitionReason": "User action",
    "TumblingWindowInSeconds": 0,
}
#: UpdateEventSourceMapping(Enabled=False) after a record was processed (test_disabled_dynamodb_event_source_mapping)
AWS_DISABLING = dict(AWS_CREATED, BatchSize=100, MaximumRetryAttempts=-1, LastProcessingResult="OK", State="Disabling")
VARYING = {"UUID", "EventSourceArn", "EventSourceMappingArn", "FunctionArn", "LastModified"}
TIMESTAMP_MS = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")
TIMESTAMP_S = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")


def echo(door, name: str = "echo", **variables) -> tuple:
    lam, sqs = door.client("lambda"), door.client("sqs")
    queue_url = sqs.create_queue(QueueName=f"{name}-events")["QueueUrl"]
    create_function(lam, name, ECHO, Environment={"Variables": {"QUEUE_URL": queue_url, **variables}}, Timeout=10)
    return lam, sqs, queue_url


def failure_queue(sqs) -> tuple[str, str]:
    url = sqs.create_queue(QueueName="failures")["QueueUrl"]
    return url, sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]


def the_failure_record(sqs, queue_url: str) -> dict:
    [message] = sqs.receive_message(QueueUrl=queue_url, MaxNumberOfMessages=10)["Messages"]
    return json.loads(message["Body"])


def without_varying(answer: dict, stream_arn: str, function: str) -> dict:
    """The answer with its varying values checked and removed."""
    uuid = answer["UUID"]
    assert re.fullmatch(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", uuid)
    assert answer["EventSourceMappingArn"] == f"arn:aws:lambda:us-east-1:{ACCOUNT}:event-source-mapping:{uuid}"
    assert answer["FunctionArn"] == f"arn:aws:lambda:us-east-1:{ACCOUNT}:function:{function}"
    assert answer["EventSourceArn"] == stream_arn and isinstance(answer["LastModified"], datetime)
    assert answer["ResponseMetadata"]["HTTPStatusCode"] == 202
    return {name: value for name, value in answer.items() if name not in VARYING | {"ResponseMetadata"}}


def test_create_answers_user_action(door):
    lam, _, _ = echo(door)
    arn = create_table(door.client("dynamodb"), "orders", "NEW_IMAGE")["LatestStreamArn"]
    created = lam.create_event_source_mapping(EventSourceArn=arn, FunctionName="echo", StartingPosition="TRIM_HORIZON",
                                              BatchSize=1, MaximumBatchingWindowInSeconds=1, MaximumRetryAttempts=1)
    assert without_varying(created, arn, "echo") == AWS_CREATED


def test_disabling_answers_disabling(door):
    lam, _, _ = echo(door)
    dynamodb = door.client("dynamodb")
    arn = create_table(dynamodb, "orders", "NEW_IMAGE")["LatestStreamArn"]
    uuid = lam.create_event_source_mapping(EventSourceArn=arn, FunctionName="echo", StartingPosition="TRIM_HORIZON",
                                           MaximumBatchingWindowInSeconds=1)["UUID"]
    dynamodb.put_item(TableName="orders", Item={"pk": {"S": "a"}})
    door.assert_delivered()
    updated = lam.update_event_source_mapping(UUID=uuid, Enabled=False)
    assert without_varying(updated, arn, "echo") == AWS_DISABLING
    assert lam.get_event_source_mapping(UUID=uuid)["State"] == "Disabled"
    assert lam.update_event_source_mapping(UUID=uuid, Enabled=True)["State"] == "Enabling"


def test_a_duplicate_mapping_in_aws_words(door):
    lam, _, _ = echo(door)
    arn = create_table(door.client("dynamodb"), "orders", "NEW_IMAGE")["LatestStreamArn"]
    uuid = lam.create_event_source_mapping(EventSourceArn=arn, FunctionName="echo", StartingPosition="TRIM_HORIZON")["UUID"]
    with pytest.raises(ClientError) as raised:
        lam.create_event_source_mapping(EventSourceArn=arn, FunctionName="echo", StartingPosition="TRIM_HORIZON")
    assert raised.value.response["Error"] == {
        "Code": "ResourceConflictException",
        "Message": f'The event source arn (" {arn} ") and function (" echo ") provided mapping already exists. '
                   f"Please update or delete the existing mapping with UUID {uuid}"}
    assert raised.value.response["ResponseMetadata"]["HTTPStatusCode"] == 409


@pytest.mark.parametrize("pattern", ["single-string", '[{"eventName": ["INSERT"=123}]'])
def test_an_invalid_filter_pattern_in_aws_words(door, pattern):
    lam, _, _ = echo(door)
    arn = create_table(door.client("dynamodb"), "orders", "NEW_AND_OLD_IMAGES")["LatestStreamArn"]
    with pytest.raises(ClientError) as raised:
        lam.create_event_source_mapping(EventSourceArn=arn, FunctionName="echo", StartingPosition="TRIM_HORIZON",
                                        BatchSize=1, MaximumBatchingWindowInSeconds=1, MaximumRetryAttempts=1,
                                        FilterCriteria={"Filters": [{"Pattern": pattern}]})
    assert raised.value.response["Error"] == {"Code": "InvalidParameterValueException",
                                              "Message": "Invalid filter pattern definition."}
    assert raised.value.response["ResponseMetadata"]["HTTPStatusCode"] == 400


def test_approximate_creation_date_time_is_a_float_in_the_event(door):
    lam, sqs, queue_url = echo(door)
    dynamodb = door.client("dynamodb")
    arn = create_table(dynamodb, "orders", "NEW_IMAGE")["LatestStreamArn"]
    lam.create_event_source_mapping(EventSourceArn=arn, FunctionName="echo", StartingPosition="TRIM_HORIZON")
    dynamodb.put_item(TableName="orders", Item={"pk": {"S": "hello world"}, "binary_key": {"B": b"foobar"}})
    door.assert_delivered()
    [[event]] = delivered_batches(sqs, queue_url)
    [record] = event["Records"]
    created = record["dynamodb"]["ApproximateCreationDateTime"]
    assert isinstance(created, float) and int(math.log10(created)) == 9  # AWS's recorded test checks both
    assert {name: value for name, value in record["dynamodb"].items() if name not in ("ApproximateCreationDateTime",
                                                                                        "SequenceNumber")} == {
        "Keys": {"pk": {"S": "hello world"}}, "NewImage": {"binary_key": {"B": "Zm9vYmFy"}, "pk": {"S": "hello world"}},
        "SizeBytes": 42, "StreamViewType": "NEW_IMAGE"}


def ddb_failure_record(*, function: str, stream_arn: str, shard_id: str, sequence_number: str, record: dict,
                       invoke_count: int, function_error: str | None) -> dict:
    """AWS's recorded on-failure record of one DynamoDB stream record given up on after its retries."""
    info = record["DDBStreamBatchInfo"]
    assert shard_id.startswith("shardId-")
    assert TIMESTAMP_MS.match(record["timestamp"]) and TIMESTAMP_S.match(info["approximateArrivalOfFirstRecord"])
    return {
        "requestContext": {"requestId": record["requestContext"]["requestId"],
                           "functionArn": f"arn:aws:lambda:us-east-1:{ACCOUNT}:function:{function}",
                           "condition": "RetryAttemptsExhausted", "approximateInvokeCount": invoke_count},
        "responseContext": {"statusCode": 200, "executedVersion": "$LATEST", "functionError": function_error},
        "version": "1.0",
        "timestamp": record["timestamp"],
        "DDBStreamBatchInfo": {
            "shardId": shard_id, "startSequenceNumber": sequence_number, "endSequenceNumber": sequence_number,
            "approximateArrivalOfFirstRecord": info["approximateArrivalOfFirstRecord"],
            "approximateArrivalOfLastRecord": info["approximateArrivalOfFirstRecord"],
            "batchSize": 1, "streamArn": stream_arn},
    }


def test_report_batch_item_failures_delivers_a_failing_record_five_times(door):
    """test_dynamodb_report_batch_item_failures: BatchSize 3, MaximumRetryAttempts 3, testId5 fails: testId0-4 are
    delivered once, testId5 five times, and the on-failure record says approximateInvokeCount 4 and a null
    functionError (the function returned)."""
    lam, sqs, queue_url = echo(door, MODE="should_fail")
    dynamodb = door.client("dynamodb")
    arn = create_table(dynamodb, "orders", "NEW_IMAGE")["LatestStreamArn"]
    for i in range(6):
        dynamodb.put_item(TableName="orders", Item={"pk": {"S": f"testId{i}"}, "should_fail": {"BOOL": i == 5}})
    failures_url, failures_arn = failure_queue(sqs)
    lam.create_event_source_mapping(EventSourceArn=arn, FunctionName="echo", StartingPosition="TRIM_HORIZON",
                                    BatchSize=3, MaximumBatchingWindowInSeconds=1, MaximumRetryAttempts=3,
                                    DestinationConfig={"OnFailure": {"Destination": failures_arn}},
                                    FunctionResponseTypes=["ReportBatchItemFailures"])
    settle(door)
    records = [r for [event] in delivered_batches(sqs, queue_url) for r in event["Records"]]
    assert sorted(r["dynamodb"]["Keys"]["pk"]["S"] for r in records) == [
        "testId0", "testId1", "testId2", "testId3", "testId4"] + ["testId5"] * 5
    last = records[-1]
    record = the_failure_record(sqs, failures_url)
    assert record == ddb_failure_record(function="echo", stream_arn=arn, shard_id=record["DDBStreamBatchInfo"]["shardId"],
                                        sequence_number=last["dynamodb"]["SequenceNumber"], record=record,
                                        invoke_count=4, function_error=None)


@pytest.mark.parametrize("response, function_error", [
    ({"batchItemFailures": [{"itemIdentifier": 123}]}, None),
    ({"batchItemFailures": [{"itemIdentifier": ""}]}, None),
    ({"batchItemFailures": [{"itemIdentifier": None}]}, None),
    ({"batchItemFailures": [{"foo": 123}]}, None),
    ({"batchItemFailures": [{"foo": None}]}, None),
    ("raise", "Unhandled"),
], ids=["item_identifier_not_present", "empty_string_item_identifier", "null_item_identifier", "invalid_key_foo",
        "invalid_key_foo_null_value", "unhandled_exception_in_function"])
def test_batch_item_failure_scenarios(door, response, function_error):
    """test_dynamodb_report_batch_item_failure_scenarios: a malformed answer fails the whole batch, four
    invocations, then the on-failure record: functionError null when the function returned, Unhandled when it
    raised."""
    variables = {"MODE": "raise"} if response == "raise" else {"MODE": "respond", "RESPONSE": json.dumps(response)}
    lam, sqs, queue_url = echo(door, **variables)
    dynamodb = door.client("dynamodb")
    arn = create_table(dynamodb, "orders", "NEW_IMAGE")["LatestStreamArn"]
    failures_url, failures_arn = failure_queue(sqs)
    lam.create_event_source_mapping(EventSourceArn=arn, FunctionName="echo", StartingPosition="TRIM_HORIZON",
                                    BatchSize=1, MaximumBatchingWindowInSeconds=1, MaximumRetryAttempts=3,
                                    DestinationConfig={"OnFailure": {"Destination": failures_arn}},
                                    FunctionResponseTypes=["ReportBatchItemFailures"])
    dynamodb.put_item(TableName="orders", Item={"pk": {"S": "hello world"}, "binary_key": {"B": b"foobar"}})
    settle(door)
    events = delivered_batches(sqs, queue_url)
    assert len(events) == 4
    [sequence_number] = {e[0]["Records"][0]["dynamodb"]["SequenceNumber"] for e in events}
    record = the_failure_record(sqs, failures_url)
    assert record == ddb_failure_record(function="echo", stream_arn=arn, shard_id=record["DDBStreamBatchInfo"]["shardId"],
                                        sequence_number=sequence_number, record=record, invoke_count=4,
                                        function_error=function_error)


def kinesis_stream(door) -> str:
    kinesis = door.client("kinesis")
    kinesis.create_stream(StreamName="events", ShardCount=1)
    return kinesis.describe_stream_summary(StreamName="events")["StreamDescriptionSummary"]["StreamARN"]


def kinesis_failure_record(record: dict, *, stream_arn: str, sequence_number: str, condition: str,
                           invoke_count: int, response_context: bool) -> dict:
    """AWS's recorded on-failure record of one Kinesis record: arrival times with milliseconds."""
    info = record["KinesisBatchInfo"]
    assert TIMESTAMP_MS.match(record["timestamp"]) and TIMESTAMP_MS.match(info["approximateArrivalOfFirstRecord"])
    expected = {"requestContext": {"requestId": record["requestContext"]["requestId"],
                                   "functionArn": f"arn:aws:lambda:us-east-1:{ACCOUNT}:function:echo",
                                   "condition": condition, "approximateInvokeCount": invoke_count}}
    if response_context:
        expected["responseContext"] = {"statusCode": 200, "executedVersion": "$LATEST", "functionError": "Unhandled"}
    expected.update({"version": "1.0", "timestamp": record["timestamp"], "KinesisBatchInfo": {
        "shardId": "shardId-000000000000", "startSequenceNumber": sequence_number, "endSequenceNumber": sequence_number,
        "approximateArrivalOfFirstRecord": info["approximateArrivalOfFirstRecord"],
        "approximateArrivalOfLastRecord": info["approximateArrivalOfFirstRecord"], "batchSize": 1,
        "streamArn": stream_arn}})
    return expected


def test_kinesis_on_failure_record_has_milliseconds(door):
    """test_kinesis_event_source_mapping_with_on_failure_destination_config."""
    lam, sqs, queue_url = echo(door, MODE="raise")
    stream_arn = kinesis_stream(door)
    failures_url, failures_arn = failure_queue(sqs)
    lam.create_event_source_mapping(EventSourceArn=stream_arn, FunctionName="echo", StartingPosition="TRIM_HORIZON",
                                    BatchSize=1, MaximumBatchingWindowInSeconds=1, MaximumRetryAttempts=1,
                                    DestinationConfig={"OnFailure": {"Destination": failures_arn}})
    sequence_number = door.client("kinesis").put_record(StreamName="events", PartitionKey="test",
                                                        Data=b"stream-data")["SequenceNumber"]
    settle(door)
    assert len(delivered_batches(sqs, queue_url)) == 2
    record = the_failure_record(sqs, failures_url)
    assert record == kinesis_failure_record(record, stream_arn=stream_arn, sequence_number=sequence_number,
                                            condition="RetryAttemptsExhausted", invoke_count=2, response_context=True)


def test_a_record_retried_until_it_is_too_old_after_lambdas_back_off(door):
    """test_kinesis_maximum_record_age_exceeded[expire-while-retrying]: MaximumRetryAttempts -1 and
    MaximumRecordAgeInSeconds 60: AWS's on-failure record says approximateInvokeCount 8 and has no
    responseContext (Eddy invoked 67 times before the back-off)."""
    lam, sqs, queue_url = echo(door, MODE="raise")
    stream_arn = kinesis_stream(door)
    failures_url, failures_arn = failure_queue(sqs)
    sequence_number = door.client("kinesis").put_record(StreamName="events", PartitionKey="test",
                                                        Data=b"stream-data")["SequenceNumber"]
    lam.create_event_source_mapping(EventSourceArn=stream_arn, FunctionName="echo", StartingPosition="TRIM_HORIZON",
                                    BatchSize=1, MaximumBatchingWindowInSeconds=1, MaximumRetryAttempts=-1,
                                    MaximumRecordAgeInSeconds=60,
                                    DestinationConfig={"OnFailure": {"Destination": failures_arn}})
    settle(door)
    assert len(delivered_batches(sqs, queue_url)) == 7
    record = the_failure_record(sqs, failures_url)
    assert record == kinesis_failure_record(record, stream_arn=stream_arn, sequence_number=sequence_number,
                                            condition="RecordAgeExceeded", invoke_count=8, response_context=False)


def test_a_record_too_old_before_it_is_read_is_discarded_and_the_rest_delivered(door):
    """test_kinesis_maximum_record_age_exceeded_discard_records (and [expire-before-ingestion]): a record older than
    MaximumRecordAgeInSeconds when the mapping reads it goes to the destination with approximateInvokeCount 1 and
    no responseContext, without an invocation; the younger records of its batch are delivered."""
    lam, sqs, queue_url = echo(door)
    stream_arn = kinesis_stream(door)
    failures_url, failures_arn = failure_queue(sqs)
    kinesis = door.client("kinesis")
    sequence_number = kinesis.put_record(StreamName="events", PartitionKey="test", Data=b"stream-data")["SequenceNumber"]
    door.advance(61)
    kinesis.put_records(StreamName="events",
                        Records=[{"Data": f"stream-data-{i + 1}".encode(), "PartitionKey": "test"} for i in range(5)])
    lam.create_event_source_mapping(EventSourceArn=stream_arn, FunctionName="echo", StartingPosition="TRIM_HORIZON",
                                    BatchSize=10, MaximumBatchingWindowInSeconds=1, MaximumRetryAttempts=0,
                                    MaximumRecordAgeInSeconds=60,
                                    DestinationConfig={"OnFailure": {"Destination": failures_arn}})
    with pytest.raises(NotDeliveredError) as raised:  # the old record was not delivered, and is named
        door.assert_delivered()
    assert raised.value.report["Failures"][0]["Discarded"][0]["Records"] == [
        {"SequenceNumber": sequence_number, "PartitionKey": "test"}]
    [[event]] = delivered_batches(sqs, queue_url)
    assert [base64.b64decode(r["kinesis"]["data"]) for r in event["Records"]] == [
        f"stream-data-{i + 1}".encode() for i in range(5)]
    record = the_failure_record(sqs, failures_url)
    assert record == kinesis_failure_record(record, stream_arn=stream_arn, sequence_number=sequence_number,
                                            condition="RecordAgeExceeded", invoke_count=1, response_context=False)

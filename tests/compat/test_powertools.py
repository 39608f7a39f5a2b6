"""A handler written with aws-lambda-powertools works unchanged on Eddy, partial batch failures included."""

from __future__ import annotations

import json

import boto3
from aws_lambda_powertools.utilities.batch import BatchProcessor, EventType, process_partial_response
from aws_lambda_powertools.utilities.data_classes import DynamoDBStreamEvent
from aws_lambda_powertools.utilities.data_classes.dynamo_db_stream_event import DynamoDBRecord, DynamoDBRecordEventName

from tests.emulator.helpers import create_table

processor = BatchProcessor(event_type=EventType.DynamoDBStreams)
processed: list[tuple[str, str]] = []
failed_once: set[str] = set()


def record_handler(record: DynamoDBRecord) -> None:
    key = record.dynamodb.keys["pk"]
    if key.startswith("flaky") and key not in failed_once:
        failed_once.add(key)
        raise ValueError(f"{key} fails the first time")
    processed.append((record.event_name.name, key))


def handler(event, context):
    return process_partial_response(event=event, record_handler=record_handler, processor=processor, context=context)


data_class_view: list[dict] = []


def data_class_handler(event, context):
    stream_event = DynamoDBStreamEvent(event)
    for record in stream_event.records:
        data_class_view.append({
            "name": record.event_name, "keys": record.dynamodb.keys, "new": record.dynamodb.new_image,
            "old": record.dynamodb.old_image, "sequence": record.dynamodb.sequence_number,
            "size": record.dynamodb.size_bytes, "view": record.dynamodb.stream_view_type.name,
            "source": record.event_source_arn, "region": record.aws_region,
        })


def test_batch_processor_with_partial_failures(emu):
    dynamodb = boto3.client("dynamodb", region_name="us-east-1")
    lam = boto3.client("lambda", region_name="us-east-1")
    arn = create_table(dynamodb)["LatestStreamArn"]
    emu.register_function("powertools", handler)
    lam.create_event_source_mapping(EventSourceArn=arn, FunctionName="powertools", StartingPosition="TRIM_HORIZON",
                                    BatchSize=10, FunctionResponseTypes=["ReportBatchItemFailures"])
    for key in ("a", "flaky-b", "c", "flaky-d", "e"):
        dynamodb.put_item(TableName="orders", Item={"pk": {"S": key}})
    dynamodb.delete_item(TableName="orders", Key={"pk": {"S": "a"}})
    assert emu.wait_idle(120)["Idle"]
    keys = [key for _, key in processed]
    # every record was processed, in order per key, each flaky one after its retry
    assert set(keys) == {"a", "flaky-b", "c", "flaky-d", "e"}
    assert keys.index("flaky-b") < keys.index("flaky-d") and ("REMOVE", "a") in processed
    assert failed_once == {"flaky-b", "flaky-d"}


def test_the_data_class_reads_eddys_records(emu):
    dynamodb = boto3.client("dynamodb", region_name="eu-west-1")
    lam = boto3.client("lambda", region_name="eu-west-1")
    arn = create_table(dynamodb)["LatestStreamArn"]
    emu.register_function("data-class", data_class_handler, region="eu-west-1")
    lam.create_event_source_mapping(EventSourceArn=arn, FunctionName="data-class", StartingPosition="TRIM_HORIZON")
    dynamodb.put_item(TableName="orders", Item={"pk": {"S": "a"}, "n": {"N": "1"}, "tags": {"SS": ["x"]}})
    dynamodb.put_item(TableName="orders", Item={"pk": {"S": "a"}, "n": {"N": "2"}})
    assert emu.wait_idle(120)["Idle"]
    insert, modify = data_class_view
    assert insert["name"] == DynamoDBRecordEventName.INSERT and modify["name"] == DynamoDBRecordEventName.MODIFY
    assert insert["keys"] == {"pk": "a"} and insert["new"]["n"] == 1 and insert["new"]["tags"] == {"x"}
    assert modify["old"]["n"] == 1 and modify["new"]["n"] == 2
    assert insert["view"] == "NEW_AND_OLD_IMAGES" and insert["source"] == arn and insert["region"] == "eu-west-1"
    assert int(modify["sequence"]) > int(insert["sequence"]) and insert["size"] > 0
    json.dumps(data_class_view, default=str)

"""Pipes from a DynamoDB stream or a Kinesis data stream, through both doors: Lambda (Python and Node.js), SQS, SNS
and event-bus targets, order per key across a split, FilterCriteria, enrichment (Python and Node.js), retries and the
dead-letter queue."""

from __future__ import annotations

import base64
import json

import pytest

from tests.emulator.helpers import create_table
from tests.emulator.pipes.pipe_helpers import ROLE_ARN, messages, queue, reporter, stream_keys
from tests.emulator.trigger_helpers import create_zip_function, wait_idle

RUNTIMES = ["python", "node"]


def put(dynamodb, key: str, value: int) -> None:
    dynamodb.put_item(TableName="orders", Item={"pk": {"S": key}, "v": {"N": str(value)}})


def stream_pipe(door, target: str, **options) -> dict:
    """A table "orders" with a stream, and a pipe "orders-pipe" from it to `target`."""
    dynamodb = door.client("dynamodb")
    stream_arn = create_table(dynamodb)["LatestStreamArn"]
    parameters = {"StartingPosition": "TRIM_HORIZON", **options.pop("stream_parameters", {})}
    door.client("pipes").create_pipe(Name="orders-pipe", Source=stream_arn, Target=target, RoleArn=ROLE_ARN,
                                     SourceParameters={"DynamoDBStreamParameters": parameters,
                                                       **options.pop("source_parameters", {})}, **options)
    return {"dynamodb": dynamodb, "stream_arn": stream_arn, "sqs": door.client("sqs")}


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_a_pipe_from_a_dynamodb_stream_delivers_in_order_per_key_across_a_split(door, runtime):
    function_arn, deliveries = reporter(door, runtime)
    env = stream_pipe(door, function_arn, stream_parameters={"BatchSize": 10})
    dynamodb, stream_arn = env["dynamodb"], env["stream_arn"]
    keys = [f"k{n}" for n in range(6)]
    for value in range(3):
        for key in keys:
            put(dynamodb, key, value)
    [parent] = door.client("dynamodbstreams").describe_stream(StreamArn=stream_arn)["StreamDescription"]["Shards"]
    door.split(stream_arn, parent["ShardId"])
    for value in range(3, 6):
        for key in keys:
            put(dynamodb, key, value)
    assert wait_idle(door)["Idle"]
    batches = messages(env["sqs"], deliveries)
    first = batches[0][0]
    assert isinstance(batches[0], list)  # Pipes send Lambda the batch as a JSON array
    assert {name: first[name] for name in ("eventName", "eventSource", "eventSourceARN", "awsRegion")} == {
        "eventName": "INSERT", "eventSource": "aws:dynamodb", "eventSourceARN": stream_arn, "awsRegion": "us-east-1"}
    assert all(len(batch) <= 10 for batch in batches)
    seen: dict[str, list[str]] = {}
    for batch in batches:
        for key, value in stream_keys(batch):
            seen.setdefault(key, []).append(value)
    assert seen == {key: [str(v) for v in range(6)] for key in keys}


def test_a_pipe_to_an_sqs_queue_sends_each_record_as_a_message(door):
    sqs = door.client("sqs")
    target_url, target_arn = queue(sqs, "changes")
    env = stream_pipe(door, target_arn, stream_parameters={"BatchSize": 10})
    for value in range(3):
        put(env["dynamodb"], "a", value)
    assert wait_idle(door)["Idle"]
    records = messages(sqs, target_url)
    assert [(r["eventName"], r["dynamodb"]["NewImage"]["v"]["N"]) for r in records] == [
        ("INSERT", "0"), ("MODIFY", "1"), ("MODIFY", "2")]
    assert records[1]["dynamodb"]["OldImage"] == {"pk": {"S": "a"}, "v": {"N": "0"}}


ENRICH = {"python": ("def handler(event, context):\n"
                     "    return [{'key': r['dynamodb']['Keys']['pk']['S'], 'count': len(event)} for r in event]\n"),
          "node": "exports.handler = async (event) => event.map((r) => ({ key: r.dynamodb.Keys.pk.S, count: event.length }));\n"}


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_a_pipe_with_filter_criteria_and_a_lambda_enrichment(door, runtime):
    sqs = door.client("sqs")
    target_url, target_arn = queue(sqs, "enriched")
    enrich = create_zip_function(door.client("lambda"), "enrich", runtime, ENRICH[runtime])
    env = stream_pipe(door, target_arn, Enrichment=enrich["FunctionArn"], stream_parameters={"BatchSize": 10},
                      source_parameters={"FilterCriteria": {"Filters": [{"Pattern": json.dumps({"eventName": ["INSERT"]})}]}})
    dynamodb = env["dynamodb"]
    put(dynamodb, "a", 0)
    put(dynamodb, "a", 1)  # a MODIFY: filtered out before the enrichment
    put(dynamodb, "b", 0)
    assert wait_idle(door)["Idle"]
    delivered = messages(sqs, target_url)
    assert sorted(record["key"] for record in delivered) == ["a", "b"]  # the MODIFY never reached the enrichment
    assert {record["count"] for record in delivered} <= {1, 2}


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_a_failing_target_is_retried_then_its_records_go_to_the_dead_letter_queue(door, runtime):
    sqs = door.client("sqs")
    dlq_url, dlq_arn = queue(sqs, "pipe-dlq")
    function_arn, deliveries = reporter(door, runtime)
    env = stream_pipe(door, function_arn, stream_parameters={
        "BatchSize": 1, "MaximumRetryAttempts": 1, "DeadLetterConfig": {"Arn": dlq_arn}})
    put(env["dynamodb"], "fail-1", 0)
    put(env["dynamodb"], "ok", 0)
    assert wait_idle(door)["Idle"]
    batches = messages(sqs, deliveries)
    assert [stream_keys(batch) for batch in batches] == [[("fail-1", "0")], [("fail-1", "0")], [("ok", "0")]]
    [dead] = messages(sqs, dlq_url)
    assert dead["requestContext"]["condition"] == "RetryAttemptsExhausted"
    assert dead["DDBStreamBatchInfo"]["batchSize"] == 1


def test_a_lambda_targets_batch_item_failures_name_records_by_event_id(door):
    function_arn, deliveries = reporter(door, "python", mode="partial")
    sqs = door.client("sqs")
    dlq_url, dlq_arn = queue(sqs, "pipe-dlq")
    env = stream_pipe(door, function_arn, stream_parameters={
        "BatchSize": 10, "MaximumBatchingWindowInSeconds": 5, "MaximumRetryAttempts": 0,
        "DeadLetterConfig": {"Arn": dlq_arn}})
    for key in ("a", "fail-b", "c"):
        put(env["dynamodb"], key, 0)
    door.advance(5)  # the batching window closes on the emulator's clock
    assert wait_idle(door)["Idle"]
    batches = [[key for key, _ in stream_keys(batch)] for batch in messages(sqs, deliveries)]
    # the failed record and those after it form a new batch, whose tries count from zero (as Lambda's streams do)
    assert batches == [["a", "fail-b", "c"], ["fail-b", "c"]]
    [dead] = messages(sqs, dlq_url)
    assert dead["DDBStreamBatchInfo"]["batchSize"] == 2


def test_a_pipe_from_a_kinesis_stream_to_an_sns_topic(door):
    kinesis, sns, sqs = door.client("kinesis"), door.client("sns"), door.client("sqs")
    kinesis.create_stream(StreamName="clicks", ShardCount=1)
    stream_arn = kinesis.describe_stream(StreamName="clicks")["StreamDescription"]["StreamARN"]
    topic = sns.create_topic(Name="clicks-topic")["TopicArn"]
    url, arn = queue(sqs, "clicks-copy")
    sns.subscribe(TopicArn=topic, Protocol="sqs", Endpoint=arn, Attributes={"RawMessageDelivery": "true"})
    door.client("pipes").create_pipe(Name="clicks", Source=stream_arn, Target=topic, RoleArn=ROLE_ARN,
                                     SourceParameters={"KinesisStreamParameters": {"StartingPosition": "TRIM_HORIZON",
                                                                                   "BatchSize": 10}})
    for n in range(3):
        kinesis.put_record(StreamName="clicks", Data=f"click-{n}".encode(), PartitionKey="user-1")
    assert wait_idle(door)["Idle"]
    records = messages(sqs, url)
    assert [(r["eventSource"], r["kinesis"]["partitionKey"]) for r in records] == [("aws:kinesis", "user-1")] * 3
    assert [base64.b64decode(r["kinesis"]["data"]) for r in records] == [b"click-0", b"click-1", b"click-2"]


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_a_pipe_from_a_kinesis_stream_to_a_lambda_function(door, runtime):
    kinesis = door.client("kinesis")
    function_arn, deliveries = reporter(door, runtime)
    kinesis.create_stream(StreamName="clicks", ShardCount=1)
    stream_arn = kinesis.describe_stream(StreamName="clicks")["StreamDescription"]["StreamARN"]
    door.client("pipes").create_pipe(Name="clicks", Source=stream_arn, Target=function_arn, RoleArn=ROLE_ARN,
                                     SourceParameters={"KinesisStreamParameters": {"StartingPosition": "TRIM_HORIZON",
                                                                                   "BatchSize": 10}})
    put = [kinesis.put_record(StreamName="clicks", Data=f"click-{n}".encode(), PartitionKey="user-1")
           for n in range(3)]
    assert wait_idle(door)["Idle"]
    records = [record for batch in messages(door.client("sqs"), deliveries) for record in batch]
    assert [base64.b64decode(r["kinesis"]["data"]) for r in records] == [b"click-0", b"click-1", b"click-2"]
    assert [r["kinesis"]["sequenceNumber"] for r in records] == [answer["SequenceNumber"] for answer in put]
    assert {(r["eventSource"], r["eventSourceARN"], r["awsRegion"], r["kinesis"]["partitionKey"]) for r in records} == {
        ("aws:kinesis", stream_arn, "us-east-1", "user-1")}


def test_a_pipe_to_an_event_bus_puts_each_record_as_an_event(door):
    events, sqs = door.client("events"), door.client("sqs")
    bus_arn = events.create_event_bus(Name="changes")["EventBusArn"]
    url, arn = queue(sqs, "from-the-bus")
    events.put_rule(Name="all-pipes", EventBusName="changes", EventPattern=json.dumps({"source": [{"prefix": "Pipe "}]}))
    events.put_targets(Rule="all-pipes", EventBusName="changes", Targets=[{"Id": "queue", "Arn": arn}])
    env = stream_pipe(door, bus_arn)
    put(env["dynamodb"], "a", 0)
    assert wait_idle(door)["Idle"]
    [event] = messages(sqs, url)
    assert (event["source"], event["detail-type"]) == ("Pipe orders-pipe", "Event from aws:dynamodb")
    assert event["detail"]["dynamodb"]["Keys"] == {"pk": {"S": "a"}}


def test_fire_and_forget_invokes_the_target_asynchronously(door):
    function_arn, deliveries = reporter(door, "python")
    env = stream_pipe(door, function_arn, stream_parameters={"BatchSize": 10},
                      TargetParameters={"LambdaFunctionParameters": {"InvocationType": "FIRE_AND_FORGET"}})
    put(env["dynamodb"], "a", 0)
    assert wait_idle(door)["Idle"]  # waits for the asynchronous invocation too
    assert [stream_keys(batch) for batch in messages(env["sqs"], deliveries)] == [[("a", "0")]]


def test_a_fifo_queue_target_gets_the_message_group(door):
    sqs = door.client("sqs")
    url, arn = queue(sqs, "changes.fifo", FifoQueue="true", ContentBasedDeduplication="true")
    env = stream_pipe(door, arn, stream_parameters={"BatchSize": 10},
                      TargetParameters={"SqsQueueParameters": {"MessageGroupId": "orders"}})
    for value in range(3):
        put(env["dynamodb"], "a", value)
    assert wait_idle(door)["Idle"]
    received = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10, AttributeNames=["MessageGroupId"])["Messages"]
    assert [m["Attributes"]["MessageGroupId"] for m in received] == ["orders"] * 3
    assert [json.loads(m["Body"])["dynamodb"]["NewImage"]["v"]["N"] for m in received] == ["0", "1", "2"]


def test_wait_idle_and_assert_delivered_name_a_pipes_discarded_records(door):
    function_arn, _ = reporter(door, "python")
    env = stream_pipe(door, function_arn, stream_parameters={"MaximumRetryAttempts": 0})
    put(env["dynamodb"], "fail-1", 0)
    report = wait_idle(door)
    assert report["Idle"] and not report["Delivered"]
    [failure] = report["Failures"]
    assert (failure["Mapping"], failure["RecordsDiscarded"]) == ("pipe orders-pipe", 1)
    assert wait_idle(door)["Failures"] == []  # reported once, as mappings' failures are

"""EventBridge rules' Kinesis, Firehose and event-bus targets, in both doors, each delivery compared whole with what AWS
recorded: LocalStack's AWS-validated tests/aws/services/events/test_events_targets.py and its snapshot
(localstack/localstack at 8b9a79f05846: TestEventsTargetKinesis::test_put_events_with_target_kinesis, the record's
data the event; TestEventsTargetFirehose::test_put_events_with_target_firehose, each event in the bucket) and
test_events.py::TestEventBus::test_put_events_to_default_eventbus_for_custom_eventbus (S3's event forwarded from the
default bus to a custom one keeps its resources). moto failed PutEvents on a Kinesis or Firehose target, and forwarded
an event to another bus without its resources."""

from __future__ import annotations

import json

from tests.emulator.notifications.test_s3_eventbridge import delivered
from tests.emulator.triggers.sqs_helpers import queue
from tests.emulator.trigger_helpers import wait_idle

ACCOUNT, REGION = "123456789012", "us-east-1"
SOURCE = "core.update-account-command"
DETAIL = {"command": "update-account", "payload": {"acc_id": "0a787ecb-4015", "sf_id": "baz"}}
ENTRY = {"Source": SOURCE, "DetailType": SOURCE, "Detail": json.dumps(DETAIL)}


def recorded(event_id: str, time: str) -> dict:
    """The event as the recordings show it, with this event's id and time."""
    return {"version": "0", "id": event_id, "detail-type": SOURCE, "source": SOURCE, "account": ACCOUNT,
            "time": time, "region": REGION, "resources": [], "detail": DETAIL}


def rule_to(door, bus: str, target: dict) -> None:
    events = door.client("events")
    events.create_event_bus(Name=bus)
    events.put_rule(Name="updates", EventBusName=bus, EventPattern=json.dumps({"source": [SOURCE]}))
    events.put_targets(Rule="updates", EventBusName=bus, Targets=[target])


def test_a_kinesis_target_gets_the_event_keyed_by_its_partition_key_path(door):
    kinesis, events = door.client("kinesis"), door.client("events")
    kinesis.create_stream(StreamName="updates", ShardCount=1)
    stream_arn = kinesis.describe_stream(StreamName="updates")["StreamDescription"]["StreamARN"]
    rule_to(door, "bus-kinesis", {"Id": "stream", "Arn": stream_arn,
                                  "KinesisParameters": {"PartitionKeyPath": "$.detail-type"}})
    put = events.put_events(Entries=[dict(ENTRY, EventBusName="bus-kinesis")])
    assert wait_idle(door)["Idle"]
    shard = kinesis.describe_stream(StreamName="updates")["StreamDescription"]["Shards"][0]["ShardId"]
    iterator = kinesis.get_shard_iterator(StreamName="updates", ShardId=shard,
                                          ShardIteratorType="TRIM_HORIZON")["ShardIterator"]
    [record] = kinesis.get_records(ShardIterator=iterator)["Records"]
    data = json.loads(record["Data"])
    assert data == recorded(put["Entries"][0]["EventId"], data["time"])
    assert record["PartitionKey"] == SOURCE


def test_a_firehose_target_writes_each_event_to_its_destination(door):
    s3, firehose, events = door.client("s3"), door.client("firehose"), door.client("events")
    s3.create_bucket(Bucket="event-data")
    stream_arn = firehose.create_delivery_stream(
        DeliveryStreamName="to-s3", DeliveryStreamType="DirectPut",
        ExtendedS3DestinationConfiguration={"BucketARN": "arn:aws:s3:::event-data", "Prefix": "testeventdata",
                                            "RoleARN": f"arn:aws:iam::{ACCOUNT}:role/firehose",
                                            "BufferingHints": {"SizeInMBs": 1, "IntervalInSeconds": 1}},
    )["DeliveryStreamARN"]
    rule_to(door, "bus-firehose", {"Id": "stream", "Arn": stream_arn})
    ids = [events.put_events(Entries=[dict(ENTRY, EventBusName="bus-firehose")])["Entries"][0]["EventId"]
           for _ in range(3)]
    assert wait_idle(door)["Idle"]
    written = []
    for obj in s3.list_objects_v2(Bucket="event-data")["Contents"]:
        assert obj["Key"].startswith("testeventdata")
        text = s3.get_object(Bucket="event-data", Key=obj["Key"])["Body"].read().decode()
        written += json.loads("[" + text.replace("}{", "},{") + "]")  # the recording test's reading
    by_id = {event["id"]: event for event in written}
    assert len(written) == 3 and sorted(by_id) == sorted(ids)
    assert [by_id[i] for i in ids] == [recorded(i, by_id[i]["time"]) for i in ids]


def test_s3s_event_forwarded_to_a_custom_bus_keeps_its_resources(door):
    s3, sqs, events = door.client("s3"), door.client("sqs"), door.client("events")
    s3.create_bucket(Bucket="deliveries")
    s3.put_bucket_notification_configuration(Bucket="deliveries",
                                             NotificationConfiguration={"EventBridgeConfiguration": {}})
    url, queue_arn = queue(sqs, "custom-bus-events")
    bus_arn = events.create_event_bus(Name="custom-bus")["EventBusArn"]
    events.put_rule(Name="to-custom", EventPattern='{"detail-type":["Object Created"],"source":["aws.s3"]}')
    events.put_targets(Rule="to-custom", Targets=[{"Id": "bus", "Arn": bus_arn,
                                                    "RoleArn": f"arn:aws:iam::{ACCOUNT}:role/bus"}])
    events.put_rule(Name="on-custom", EventBusName="custom-bus", EventPattern=json.dumps({
        "detail": {"bucket": {"name": ["deliveries"]}, "object": {"key": [{"prefix": "delivery/"}]}},
        "detail-type": ["Object Created"], "source": ["aws.s3"]}))
    events.put_targets(Rule="on-custom", EventBusName="custom-bus", Targets=[{"Id": "queue", "Arn": queue_arn}])
    s3.put_object(Bucket="deliveries", Key="delivery/test.txt", Body=b"data")
    [event] = delivered(door, url)
    detail = event["detail"]
    assert event == {
        "version": "0", "id": event["id"], "detail-type": "Object Created", "source": "aws.s3", "account": ACCOUNT,
        "time": event["time"], "region": REGION, "resources": ["arn:aws:s3:::deliveries"],
        "detail": {"version": "0", "bucket": {"name": "deliveries"},
                   "object": {"key": "delivery/test.txt", "size": 4, "etag": "8d777f385d3dfec8815d20f7496026dc",
                              "sequencer": detail["object"]["sequencer"]},
                   "request-id": detail["request-id"], "requester": ACCOUNT, "source-ip-address": "127.0.0.1",
                   "reason": "PutObject"}}

"""A function with code (run in a worker subprocess) gets its event as JSON, so its batch's event is written as JSON
from the text the stream holds (issue 39: a WrittenEvent, the records' keys and images as their compact text, nothing
decoded), never made as the dicts a registered callable's copy is. The text is byte for byte the callable's event
encoded (json.dumps with compact separators), for every view type and event name, with a tumbling window's fields and
without; and what a worker receives is still the whole of Lambda's event: each record as GetRecords returns it, with
eventSourceARN and ApproximateCreationDateTime a float (AWS's recorded events: LocalStack's AWS-validated
test_dynamodb_event_filter asserts `isinstance(creation_time, float)`; AWS_BEHAVIOUR.md §4: "The event:
{"Records": [<stream record> + "eventSourceARN"]}"), for an INSERT, a MODIFY with both images and a REMOVE, and a
tumbling window's fields and state (AWS_BEHAVIOUR.md §4, TumblingWindowInSeconds)."""

from __future__ import annotations

import json
import threading
from types import SimpleNamespace

import pytest

from eddy.emulator.clock import Clock
from eddy.emulator.functions.invocation import Invoker
from eddy.emulator.functions.invocation_events import OwnEvent, WrittenEvent, request_line
from eddy.emulator.functions.registry import FunctionRegistry
from eddy.emulator.kernel import Kernel
from eddy.emulator.settings import Settings
from eddy.emulator.streams.records import ChangeRecord, EventName, StreamViewType
from eddy.emulator.triggers.event_source_mappings import EventSourceMapping
from eddy.emulator.triggers.failures import MappingFailures
from eddy.emulator.triggers.mapping_figures import MappingFigures
from eddy.emulator.triggers.pollers.batch_processor import BatchProcessor
from eddy.emulator.triggers.pollers.sources import DynamoDBStreamSource
from eddy.emulator.triggers.pollers.tumbling_windows import Window, iso
from tests.emulator.functions.test_functions import create_function
from tests.emulator.trigger_helpers import create_zip_function
from tests.emulator.helpers import create_table
from tests.emulator.notifications.test_s3_notifications import wait_for_messages

WRITER = '''
import json, os, boto3
sqs = boto3.client("sqs")
def handler(event, context):
    sqs.send_message(QueueUrl=os.environ["QUEUE_URL"], MessageBody=json.dumps(event))
'''


def test_a_worker_functions_event_is_lambdas_whole(door):
    dynamodb, lam, sqs = door.client("dynamodb"), door.client("lambda"), door.client("sqs")
    streams = door.client("dynamodbstreams")
    url = sqs.create_queue(QueueName="events")["QueueUrl"]
    create_function(lam, "writer", WRITER, Environment={"Variables": {"QUEUE_URL": url}})
    arn = create_table(dynamodb)["LatestStreamArn"]
    item = {"pk": {"S": "o1"}, "tags": {"SS": ["a", "b"]}, "m": {"M": {"n": {"N": "1.50"}, "l": {"L": [{"BOOL": True}]}}}}
    dynamodb.put_item(TableName="orders", Item=item)
    dynamodb.put_item(TableName="orders", Item=dict(item, total={"N": "7"}, text={"S": "héllo ☃"}))
    dynamodb.delete_item(TableName="orders", Key={"pk": {"S": "o1"}})
    lam.create_event_source_mapping(EventSourceArn=arn, FunctionName="writer", StartingPosition="TRIM_HORIZON",
                                    BatchSize=10)
    door.assert_delivered()
    (event,) = wait_for_messages(sqs, url, 1)

    shard = streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"][0]["ShardId"]
    iterator = streams.get_shard_iterator(StreamArn=arn, ShardId=shard, ShardIteratorType="TRIM_HORIZON")
    expected = []
    for record in streams.get_records(ShardIterator=iterator["ShardIterator"])["Records"]:
        record["dynamodb"]["ApproximateCreationDateTime"] = float(
            record["dynamodb"]["ApproximateCreationDateTime"].timestamp())
        expected.append(dict(record, eventSourceARN=arn))
    assert [r["eventName"] for r in expected] == ["INSERT", "MODIFY", "REMOVE"]
    assert event == {"Records": expected}


WINDOW_WRITERS = {
    "python": '''
import json, os, boto3
sqs = boto3.client("sqs")
def handler(event, context):
    sqs.send_message(QueueUrl=os.environ["QUEUE_URL"], MessageBody=json.dumps(event))
    return {"state": {"count": event["state"].get("count", 0) + len(event["Records"]), "text": "h\u00e9llo \u2603"}}
''',
    "node": """
const { SQSClient, SendMessageCommand } = require('@aws-sdk/client-sqs');
const sqs = new SQSClient({ useQueueUrlAsEndpoint: false });
exports.handler = async (event) => {
  await sqs.send(new SendMessageCommand({ QueueUrl: process.env.QUEUE_URL, MessageBody: JSON.stringify(event) }));
  return { state: { count: (event.state.count || 0) + event.Records.length, text: 'h\u00e9llo \u2603' } };
};
""",
}


@pytest.mark.parametrize("runtime", ["python", "node"])
def test_a_worker_functions_tumbling_window_events_are_lambdas_whole(door, runtime):
    """Each invocation of a window gets the records, the window, the state the last one returned (text to escape
    included), the shard and the stream; the final invocation no records (AWS_BEHAVIOUR.md §4, tumbling windows)."""
    dynamodb, lam, sqs = door.client("dynamodb"), door.client("lambda"), door.client("sqs")
    streams = door.client("dynamodbstreams")
    url = sqs.create_queue(QueueName="events")["QueueUrl"]
    create_zip_function(lam, "writer", runtime, WINDOW_WRITERS[runtime], Environment={"Variables": {"QUEUE_URL": url}},
                        Timeout=30)  # fmt: skip
    arn = create_table(dynamodb, view_type="NEW_IMAGE")["LatestStreamArn"]
    door.advance(120 - door.now() % 120 + 1)  # the start of a fresh window
    dynamodb.put_item(TableName="orders", Item={"pk": {"S": "o1"}, "text": {"S": 'a "quoted" h\u00e9llo'}})
    dynamodb.put_item(TableName="orders", Item={"pk": {"S": "o1"}, "n": {"N": "2"}})
    dynamodb.delete_item(TableName="orders", Key={"pk": {"S": "o1"}})
    lam.create_event_source_mapping(EventSourceArn=arn, FunctionName="writer", StartingPosition="TRIM_HORIZON",
                                    BatchSize=10, TumblingWindowInSeconds=120)  # fmt: skip
    door.assert_delivered()
    door.advance(120)  # the window ends: its final invocation
    door.assert_delivered()
    events = wait_for_messages(sqs, url, 2)

    shard = streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"][0]["ShardId"]
    iterator = streams.get_shard_iterator(StreamArn=arn, ShardId=shard, ShardIteratorType="TRIM_HORIZON")
    records = []
    for record in streams.get_records(ShardIterator=iterator["ShardIterator"])["Records"]:
        created = record["dynamodb"]["ApproximateCreationDateTime"].timestamp()
        record["dynamodb"]["ApproximateCreationDateTime"] = float(created)
        records.append(dict(record, eventSourceARN=arn))
    start = int(records[0]["dynamodb"]["ApproximateCreationDateTime"]) // 120 * 120
    window = {"start": iso(start), "end": iso(start + 120)}
    fields = {"window": window, "shardId": shard, "eventSourceARN": arn, "isWindowTerminatedEarly": False}
    assert events == [
        {"Records": records, "state": {}, "isFinalInvokeForWindow": False, **fields},
        {"Records": [], "state": {"count": 3, "text": "h\u00e9llo \u2603"}, "isFinalInvokeForWindow": True, **fields},
    ]


STREAM_ARN = "arn:aws:dynamodb:eu-west-1:123456789012:table/orders/stream/2026-01-01T00:00:00.000"


def change_records() -> list[ChangeRecord]:
    """An INSERT, a MODIFY, a REMOVE and a TTL's REMOVE, with text JSON escapes (quotes, non-ASCII), binary, sets,
    maps and lists; one record's SizeBytes kept at commit, the others' measured when asked."""
    first = {"pk": {"S": "a"}, "tags": {"SS": ["x"]}, "m": {"M": {"n": {"N": "1.50"}, "l": {"L": [{"BOOL": True}]}}}}
    second = dict(first, text={"S": 'héllo "☃"'}, b={"B": "AAE="}, none={"NULL": True})
    keys = {"pk": {"S": "a"}}
    made = [
        (EventName.INSERT, None, first, False),
        (EventName.MODIFY, first, second, False),
        (EventName.REMOVE, second, None, False),
        (EventName.REMOVE, first, None, True),
    ]
    records = [
        ChangeRecord(sequence_number=10**20 + n, event_id=f"e{n}", event_name=name, keys=keys, old_image=old,
                     new_image=new, created_at=1_700_000_000.75 + n, commit_version=n, by_ttl=by_ttl)
        for n, (name, old, new, by_ttl) in enumerate(made)
    ]  # fmt: skip
    records[1].sized(StreamViewType.NEW_AND_OLD_IMAGES, 3, 40, 30)  # as Stream.prepare keeps it at commit
    return records


class Sender:
    def __init__(self, serializes: bool) -> None:
        self._serializes = serializes

    def serializes(self) -> bool:
        return self._serializes


def processor(view_type: StreamViewType, serializes: bool, window_seconds: int) -> BatchProcessor:
    stream = SimpleNamespace(view_type=view_type, region="eu-west-1", arn=STREAM_ARN)
    mapping = EventSourceMapping(uuid="m-1", event_source_arn=STREAM_ARN, function_arn="arn:fn", account_id="123456789012",
                                 region="eu-west-1", starting_position="TRIM_HORIZON",
                                 tumbling_window_in_seconds=window_seconds)  # fmt: skip
    return BatchProcessor(Kernel(Settings(), Clock(source=lambda: 1_800_000_000.0)), mapping,
                          DynamoDBStreamSource(stream), Sender(serializes), figures=MappingFigures(),
                          failures=MappingFailures(mapping.label), stopping=threading.Event())  # fmt: skip


def compact(value) -> str:
    return json.dumps(value, separators=(",", ":"))


@pytest.mark.parametrize("view_type", list(StreamViewType))
@pytest.mark.parametrize("window", [None, {"n": ["é", 1.5, None, True], "nested": {"k": [1, {"x": "y"}]}}])
def test_a_workers_event_is_the_callables_event_encoded_byte_for_byte(view_type, window):
    """The WrittenEvent's text against json.dumps of the event a registered callable gets (an OwnEvent), and the
    worker's request line against the line the dict event made (compact): every view type, each event name, a TTL
    removal, a window's fields (a state with text to escape), a window's final invocation with no records."""
    records = change_records()
    lane = SimpleNamespace(shard=SimpleNamespace(shard_id="shardId-00000001"), window=None)
    if window is not None:
        lane.window = Window(1_700_000_000.0, 1_700_000_120.0, window)
    written_by, made_by = processor(view_type, True, 120 if window else 0), processor(view_type, False, 120 if window else 0)
    for batch, final in ((records, False), (records[1:2], False), ([], True)):
        written = written_by.sent_event(lane, batch, final=final, terminated_early=final)
        event = made_by.sent_event(lane, batch, final=final, terminated_early=final)
        assert type(written) is WrittenEvent and type(event) is OwnEvent
        assert written.text == compact(event) and written.records == len(batch)
        assert json.loads(written.text) == event  # the same event decoded
        context = {"aws_request_id": "r-1", "function_name": "f", "memory_limit_in_mb": "128"}
        sent = request_line({"event": written, "context": context, "timeout": 3})
        assert sent == compact({"event": event, "context": context, "timeout": 3}) + "\n"
    assert [r["eventName"] for r in made_by.event(lane, records)["Records"]] == ["INSERT", "MODIFY", "REMOVE", "REMOVE"]
    if window is not None:
        assert written_by.sent_event(lane, records).text.endswith(compact({"window": {"start": "2023-11-14T22:13:20Z", "end": "2023-11-14T22:15:20Z"}, "state": window, "shardId": "shardId-00000001", "eventSourceARN": STREAM_ARN, "isFinalInvokeForWindow": False, "isWindowTerminatedEarly": False})[1:])  # fmt: skip


def test_a_written_event_that_reaches_a_registered_callable_is_decoded_as_its_own(tmp_path):
    """An alias's weights may draw a registered callable's version for a batch written for a worker (FunctionSender
    asks before it draws again): the Invoker gives the callable the event decoded from the text, new dicts each time."""
    received = []

    def handler(event, context):
        received.append(event)
        event["Records"][0]["dynamodb"]["Keys"]["pk"]["S"] = "changed by the handler"
        return {"batchItemFailures": []}

    function = FunctionRegistry(tmp_path).register("on-order", handler, account_id="123456789012", region="eu-west-1",
                                                   now=1_800_000_000.0)  # fmt: skip
    batch = processor(StreamViewType.NEW_AND_OLD_IMAGES, True, 0)
    lane = SimpleNamespace(shard=SimpleNamespace(shard_id="shardId-00000001"), window=None)
    written = batch.sent_event(lane, change_records())
    invoker = Invoker()
    try:
        results = [invoker.invoke(function, written, source="m-1") for _ in range(2)]
    finally:
        invoker.close()
    assert [(r.ok, r.payload) for r in results] == [(True, {"batchItemFailures": []})] * 2
    expected = json.loads(written.text)
    expected["Records"][0]["dynamodb"]["Keys"]["pk"]["S"] = "changed by the handler"
    assert received == [expected, expected] and received[0] is not received[1]
    assert json.loads(written.text) == batch.event(lane, change_records())  # the text is as it was

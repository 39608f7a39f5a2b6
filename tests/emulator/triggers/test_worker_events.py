"""A function with code (run in a worker subprocess) gets its event as JSON, so its batch's event is made without the
copy a registered callable's is (issue 39: the records share the stream's images until they are written out, as
GetRecords' answers do). What it receives is still the whole of Lambda's event: each record as GetRecords returns it,
with eventSourceARN and ApproximateCreationDateTime a float (AWS's recorded events: LocalStack's AWS-validated
test_dynamodb_event_filter asserts `isinstance(creation_time, float)`; AWS_BEHAVIOUR.md §4: "The event:
{"Records": [<stream record> + "eventSourceARN"]}"), for an INSERT, a MODIFY with both images and a REMOVE."""

from __future__ import annotations

from tests.emulator.functions.test_functions import create_function
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

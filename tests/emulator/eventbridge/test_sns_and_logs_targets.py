"""EventBridge rules' SNS and CloudWatch Logs targets, in both doors: the topic publishes the minified event (or the
target's input) as its message, the log group gets it as one log event; a log group that does not exist sends the
event to the target's dead-letter queue (NO_RESOURCE). moto failed PutEvents on an SNS target and wrote its own
shape of the event to a log group.

Sources: LocalStack's AWS-validated tests/aws/services/events/test_events_targets.py and its snapshot
(TestEventsTargetSns::test_put_events_with_target_sns: the subscriber's Message
"{\\"version\\":\\"0\\",\\"id\\":...}"; TestEventsTargetCloudWatchLogs::test_put_events_with_target_cloudwatch_logs: the
log event's message is the event, EventBridge's fields in order); EventBridge User Guide, "Event retry policy and
using dead-letter queues" (a missing resource is not retried)."""

from __future__ import annotations

import json

from tests.emulator.triggers.sqs_helpers import queue
from tests.emulator.trigger_helpers import wait_idle

EVENT_FIELDS = ["version", "id", "detail-type", "source", "account", "time", "region", "resources", "detail"]
ENTRY = {"Source": "shop", "DetailType": "placed", "Detail": json.dumps({"order": "o-1"})}


def test_an_sns_target_publishes_the_minified_event_and_a_log_group_logs_it(door):
    events, sqs, sns, logs = (door.client(n) for n in ("events", "sqs", "sns", "logs"))
    url, queue_arn = queue(sqs, "subscriber")
    topic = sns.create_topic(Name="orders")["TopicArn"]
    sns.subscribe(TopicArn=topic, Protocol="sqs", Endpoint=queue_arn, Attributes={"RawMessageDelivery": "true"})
    logs.create_log_group(logGroupName="/aws/events/orders")
    group_arn = f"arn:aws:logs:us-east-1:123456789012:log-group:/aws/events/orders:*"
    events.put_rule(Name="placed", EventPattern=json.dumps({"source": ["shop"]}))
    events.put_targets(Rule="placed", Targets=[{"Id": "topic", "Arn": topic},
                                               {"Id": "log", "Arn": group_arn},
                                               {"Id": "order", "Arn": topic, "InputPath": "$.detail.order"}])
    put = events.put_events(Entries=[ENTRY])
    assert put["FailedEntryCount"] == 0
    assert wait_idle(door)["Idle"]
    published = sorted((m["Body"] for m in sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10)["Messages"]),
                       key=len)
    assert published[0] == '"o-1"'
    event = json.loads(published[1])
    assert list(event) == EVENT_FIELDS and event["id"] == put["Entries"][0]["EventId"]
    assert published[1] == json.dumps(event, separators=(",", ":"))
    [stream] = logs.describe_log_streams(logGroupName="/aws/events/orders")["logStreams"]
    [logged] = logs.get_log_events(logGroupName="/aws/events/orders", logStreamName=stream["logStreamName"])["events"]
    assert logged["message"] == published[1]
    assert abs(logged["timestamp"] / 1000 - door.now()) < 60  # on the emulator's clock


def test_a_missing_log_group_sends_the_event_to_the_dead_letter_queue(door):
    events, sqs = door.client("events"), door.client("sqs")
    dead_url, dead_arn = queue(sqs, "dead-letters")
    group_arn = "arn:aws:logs:us-east-1:123456789012:log-group:/aws/events/missing"
    events.put_rule(Name="placed", EventPattern=json.dumps({"source": ["shop"]}))
    events.put_targets(Rule="placed", Targets=[{"Id": "log", "Arn": group_arn,
                                                "DeadLetterConfig": {"Arn": dead_arn}}])
    events.put_events(Entries=[ENTRY])
    door.wait_idle(120)
    [message] = sqs.receive_message(QueueUrl=dead_url, MessageAttributeNames=["All"])["Messages"]
    assert json.loads(message["Body"])["detail"] == {"order": "o-1"}
    attributes = {name: value["StringValue"] for name, value in message["MessageAttributes"].items()}
    assert (attributes["ERROR_CODE"], attributes["TARGET_ARN"]) == ("NO_RESOURCE", group_arn)

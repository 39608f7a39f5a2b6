"""The dashboard's queues and pipeline triggers (dashboard/queues.py, dashboard/pipelines.py) through both doors,
with state made through boto3: a queue mapping whose handler fails until its message reaches the dead-letter queue,
that queue's message events (what `eddy tail --queue` prints), an SNS subscription, an S3 notification, a rule and a
pipe."""

from __future__ import annotations

import json
import urllib.error

import pytest

from eddy.emulator.dashboard.queues import queue_tail
from eddy.emulator.dashboard.view import dashboard
from eddy.emulator.errors import AWSError
from tests.conftest import ControlError, http_json
from tests.emulator.functions.test_functions import create_function
from tests.emulator.trigger_helpers import create_zip_function

FAILING = '''
def handler(event, context):
    raise RuntimeError("cannot do " + event["Records"][0]["body"])
'''
NOTHING = "def handler(event, context):\n    return None\n"
NO_DELIVERIES = {"NumberOfNotificationsDelivered": 0, "NumberOfNotificationsFailed": 0,
                 "NumberOfNotificationsFilteredOut": 0, "LastError": None, "LastErrorTime": None}


def model(door) -> dict:
    if door.name == "inprocess":
        return json.loads(json.dumps(dashboard(door.emu)))
    return http_json(door.url + "/_eddy/dashboard")


def queue_events(door, queue: str, after: int = 0) -> dict:
    try:
        if door.name == "inprocess":
            return queue_tail(door.emu, queue, after)
        return http_json(f"{door.url}/_eddy/dashboard/queue?Queue={queue}&After={after}")
    except AWSError as error:
        raise ControlError(error.code, error.message, error.status) from None
    except urllib.error.HTTPError as error:  # the control's answer in AWS's error shape
        body = json.loads(error.read())
        raise ControlError(body["__type"].rsplit("#", 1)[-1], body["message"], error.code) from None


def queue_arn(sqs, url: str) -> str:
    return sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]


def test_a_failing_queue_mapping_until_its_message_is_dead_lettered(door):
    sqs, lam = door.client("sqs"), door.client("lambda")
    dlq_url = sqs.create_queue(QueueName="jobs-dlq")["QueueUrl"]
    dlq_arn = queue_arn(sqs, dlq_url)
    url = sqs.create_queue(QueueName="jobs", Attributes={"VisibilityTimeout": "30", "RedrivePolicy": json.dumps(
        {"deadLetterTargetArn": dlq_arn, "maxReceiveCount": "2"})})["QueueUrl"]
    arn = queue_arn(sqs, url)
    create_function(lam, "jobs", FAILING)
    uuid = lam.create_event_source_mapping(EventSourceArn=arn, FunctionName="jobs", BatchSize=1)["UUID"]
    message_id = sqs.send_message(QueueUrl=url, MessageBody="first")["MessageId"]
    assert door.wait_idle(60)["Idle"]

    [mapping] = [m for m in model(door)["EventSourceMappings"] if m["UUID"] == uuid]
    assert (mapping["Invocations"], mapping["Errors"], mapping["LastError"]) == (1, 1, "RuntimeError: cannot do first")
    assert mapping["Queue"]["ApproximateNumberOfMessagesNotVisible"] == 1
    for _ in range(2):  # visible again after 30 s: received a second time, then moved to the DLQ (maxReceiveCount 2)
        door.advance(31)
        assert door.wait_idle(60)["Idle"]

    current = model(door)
    [mapping] = [m for m in current["EventSourceMappings"] if m["UUID"] == uuid]
    assert (mapping["Invocations"], mapping["Errors"], mapping["LastError"]) == (2, 2, "RuntimeError: cannot do first")
    assert mapping["Shards"] == []
    assert mapping["Queue"] == {"QueueArn": arn, "ApproximateNumberOfMessages": 0,
                                "ApproximateNumberOfMessagesNotVisible": 0, "ApproximateNumberOfMessagesDelayed": 0,
                                "DeadLetterQueue": {"QueueArn": dlq_arn, "Messages": 1}}
    assert current["Queues"] == [
        {"QueueName": "jobs", "QueueArn": arn, "Region": "us-east-1", "FifoQueue": False, "VisibilityTimeout": 30,
         "ApproximateNumberOfMessages": 0, "ApproximateNumberOfMessagesNotVisible": 0,
         "ApproximateNumberOfMessagesDelayed": 0,
         "DeadLetterQueue": {"QueueArn": dlq_arn, "Messages": 1, "maxReceiveCount": 2}},
        {"QueueName": "jobs-dlq", "QueueArn": dlq_arn, "Region": "us-east-1", "FifoQueue": False,
         "VisibilityTimeout": 30, "ApproximateNumberOfMessages": 1, "ApproximateNumberOfMessagesNotVisible": 0,
         "ApproximateNumberOfMessagesDelayed": 0}]

    tail = queue_events(door, "jobs")
    assert tail["QueueArn"] == arn
    assert [(e["Event"], e["MessageId"], e["ReceiveCount"]) for e in tail["Events"]] == [
        ("Sent", message_id, 0), ("Received", message_id, 1), ("Returned", message_id, 1),
        ("Received", message_id, 2), ("Returned", message_id, 2), ("DeadLettered", message_id, 2)]
    lines = [e["Line"].split("  ", 1)[1] for e in tail["Events"]]
    assert lines[0] == f"SENT           {message_id}  'first'"
    assert lines[1] == f"RECEIVED       {message_id}  receive count 1  by a poller (a mapping or a pipe)"
    assert lines[-1] == f"DEAD-LETTERED  {message_id}  receive count 2  to jobs-dlq"
    assert queue_events(door, "jobs", after=tail["LastSequence"])["Events"] == []
    [arrived] = queue_events(door, dlq_arn)["Events"]
    assert (arrived["Event"], arrived["MessageId"], arrived["SourceQueueArn"]) == ("ArrivedFromSourceQueue", message_id, arn)


def test_a_queues_events_without_a_mapping_and_asked_wrongly(door):
    sqs = door.client("sqs")
    url = sqs.create_queue(QueueName="plain", Attributes={"VisibilityTimeout": "10"})["QueueUrl"]
    sqs.send_message(QueueUrl=url, MessageBody="one")
    [received] = sqs.receive_message(QueueUrl=url)["Messages"]
    sqs.delete_message(QueueUrl=url, ReceiptHandle=received["ReceiptHandle"])
    events = queue_events(door, "plain")["Events"]
    assert [(e["Event"], e.get("By")) for e in events] == [("Sent", None), ("Received", "ReceiveMessage"), ("Deleted", None)]
    with pytest.raises(ControlError) as error:
        queue_events(door, "nothing")
    assert (error.value.code, error.value.message) == ("QueueDoesNotExist", "The specified queue does not exist: nothing")


def test_subscriptions_bucket_notifications_rules_and_pipes_appear(door):
    sqs, lam, sns, s3 = door.client("sqs"), door.client("lambda"), door.client("sns"), door.client("s3")
    events, pipes = door.client("events"), door.client("pipes")
    inbox_url = sqs.create_queue(QueueName="inbox")["QueueUrl"]
    inbox = queue_arn(sqs, inbox_url)
    function_arn = create_function(lam, "worker", NOTHING)["FunctionArn"]
    topic = sns.create_topic(Name="orders")["TopicArn"]
    to_function = sns.subscribe(TopicArn=topic, Protocol="lambda", Endpoint=function_arn, ReturnSubscriptionArn=True,
                                Attributes={"FilterPolicy": '{"kind": ["big"]}'})["SubscriptionArn"]
    sns.subscribe(TopicArn=topic, Protocol="sqs", Endpoint=inbox, Attributes={"RawMessageDelivery": "true"})
    sns.subscribe(TopicArn=topic, Protocol="email", Endpoint="someone@example.com")  # not a pipeline's hop
    s3.create_bucket(Bucket="uploads")
    s3.put_bucket_notification_configuration(Bucket="uploads", NotificationConfiguration={
        "QueueConfigurations": [{"Id": "to-inbox", "QueueArn": inbox, "Events": ["s3:ObjectCreated:*"],
                                 "Filter": {"Key": {"FilterRules": [{"Name": "prefix", "Value": "images/"}]}}}],
        "LambdaFunctionConfigurations": [{"Id": "to-worker", "LambdaFunctionArn": function_arn,
                                          "Events": ["s3:ObjectRemoved:*"]}]})
    rule_arn = events.put_rule(Name="big-orders", EventPattern='{"source": ["shop"]}')["RuleArn"]
    events.put_targets(Rule="big-orders", Targets=[{"Id": "worker", "Arn": function_arn}])
    source_url = sqs.create_queue(QueueName="pipe-source")["QueueUrl"]
    pipes.create_pipe(Name="forward", Source=queue_arn(sqs, source_url), Target=function_arn,
                      RoleArn="arn:aws:iam::123456789012:role/pipes")
    sqs.send_message(QueueUrl=source_url, MessageBody="through the pipe")
    assert door.wait_idle(60)["Idle"]

    current = model(door)
    subscriptions = current["Subscriptions"]
    assert [(s["Protocol"], s["Endpoint"]) for s in subscriptions] == [("lambda", function_arn), ("sqs", inbox)]
    assert subscriptions[0] == {"SubscriptionArn": to_function, "TopicArn": topic, "Protocol": "lambda",
                                "Endpoint": function_arn, "Region": "us-east-1", "RawMessageDelivery": False,
                                "FilterPolicy": '{"kind": ["big"]}', "FilterPolicyScope": "MessageAttributes",
                                **NO_DELIVERIES, "AsynchronousInvocation": {
                                    "EventsPending": 0, "Errors": 0, "EventsDropped": 0, "LastError": None}}
    assert subscriptions[1]["RawMessageDelivery"] is True and "FilterPolicy" not in subscriptions[1]
    inbox_figures = {"QueueArn": inbox, "ApproximateNumberOfMessages": 1, "ApproximateNumberOfMessagesNotVisible": 0,
                     "ApproximateNumberOfMessagesDelayed": 0}  # S3's test event
    assert current["BucketNotifications"] == [
        {"Bucket": "uploads", "Id": "to-inbox", "Configuration": "QueueConfiguration", "Events": ["s3:ObjectCreated:*"],
         "Destination": inbox, "Filter": {"Key": {"FilterRules": [{"Name": "prefix", "Value": "images/"}]}},
         **NO_DELIVERIES, "Queue": inbox_figures},
        {"Bucket": "uploads", "Id": "to-worker", "Configuration": "CloudFunctionConfiguration",
         "Events": ["s3:ObjectRemoved:*"], "Destination": function_arn, **NO_DELIVERIES,
         "AsynchronousInvocation": {"EventsPending": 0, "Errors": 0, "EventsDropped": 0, "LastError": None}}]
    [rule] = current["EventBridge"]["Rules"]
    assert rule == {"Name": "big-orders", "Arn": rule_arn, "EventBusName": "default", "Region": "us-east-1",
                    "State": "ENABLED", "Targets": [{"Id": "worker", "Arn": function_arn}],
                    "EventPattern": '{"source": ["shop"]}'}
    [pipe] = current["Pipes"]
    assert (pipe["Name"], pipe["CurrentState"], pipe["Target"]) == ("forward", "RUNNING", function_arn)
    assert (pipe["Invocations"], pipe["Errors"], pipe["RecordsDelivered"], pipe["LastError"]) == (1, 0, 1, None)
    assert current["AsynchronousInvocations"]["EventsPending"] == 0


def test_a_functions_asynchronous_invocation_queue(door):
    """An event whose function fails waits for its retry: the function's queue shows it, with its figures."""
    lam = door.client("lambda")
    function_arn = create_function(lam, "later", FAILING)["FunctionArn"]
    request_id = lam.invoke(FunctionName="later", InvocationType="Event",
                            Payload=b'{"Records": [{"body": "the report"}]}')["ResponseMetadata"]["RequestId"]
    report = door.wait_idle(60)  # answers once the first attempt failed: the retry is a minute away on the clock
    assert not report["Idle"] and [entry["State"] for entry in report["Pending"]] == ["WaitingForRetry"]

    queues = model(door)["AsynchronousInvocations"]
    assert queues["EventsPending"] == 1
    [queue] = queues["Functions"]
    assert (queue["FunctionArn"], queue["FunctionName"]) == (function_arn, "later")
    assert (queue["Invocations"], queue["Errors"], queue["Retries"], queue["EventsDropped"]) == (1, 1, 0, 0)
    assert queue["LastError"] == "RuntimeError: cannot do the report"
    [event] = queue["Events"]
    assert (event["RequestId"], event["State"], event["Attempts"]) == (request_id, "WaitingForRetry", 1)
    assert event["NextAttemptAt"] >= event["QueuedAt"] + 60

    door.advance(61)
    door.wait_idle(60)
    door.advance(121)
    door.wait_idle(60)  # the last retry failed too: the event is dropped
    current = model(door)
    [queue] = current["AsynchronousInvocations"]["Functions"]
    assert (queue["Invocations"], queue["Errors"], queue["Retries"], queue["EventsDropped"], queue["Events"]) == (
        3, 3, 2, 1, [])
    [function] = [f for f in current["Functions"] if f["FunctionName"] == "later"]
    # each attempt ran with the request id Invoke answered, as Lambda's retries do
    assert [i["RequestId"] for i in function["RecentInvocations"]] == [request_id] * 3


NODE_NOTHING = "exports.handler = async () => null;\n"


@pytest.mark.parametrize("runtime", ["python", "node"])
def test_each_subscription_and_notification_counts_its_deliveries(door, runtime):
    """Delivered, failed (a queue or function gone), filtered out, the last error and when it happened, and what the
    destination holds: a queue's messages, a function's asynchronous events."""
    sqs, lam, sns, s3 = door.client("sqs"), door.client("lambda"), door.client("sns"), door.client("s3")
    inbox_url = sqs.create_queue(QueueName="inbox")["QueueUrl"]
    inbox = queue_arn(sqs, inbox_url)
    gone_url = sqs.create_queue(QueueName="gone")["QueueUrl"]
    gone = queue_arn(sqs, gone_url)
    worker = create_zip_function(lam, "worker", runtime, NOTHING if runtime == "python" else NODE_NOTHING)["FunctionArn"]
    doomed = create_zip_function(lam, "doomed", runtime, NOTHING if runtime == "python" else NODE_NOTHING)["FunctionArn"]
    topic = sns.create_topic(Name="orders")["TopicArn"]
    subscribe = lambda protocol, endpoint, **attributes: sns.subscribe(
        TopicArn=topic, Protocol=protocol, Endpoint=endpoint, Attributes=attributes,
        ReturnSubscriptionArn=True)["SubscriptionArn"]
    to_worker = subscribe("lambda", worker, FilterPolicy='{"kind": ["big"]}')
    to_doomed = subscribe("lambda", doomed)
    to_inbox = subscribe("sqs", inbox, RawMessageDelivery="true")
    to_gone = subscribe("sqs", gone)
    s3.create_bucket(Bucket="uploads")
    s3.put_bucket_notification_configuration(Bucket="uploads", NotificationConfiguration={
        "QueueConfigurations": [{"Id": "to-inbox", "QueueArn": inbox, "Events": ["s3:ObjectCreated:*"],
                                 "Filter": {"Key": {"FilterRules": [{"Name": "prefix", "Value": "in/"}]}}},
                                {"Id": "to-gone", "QueueArn": gone, "Events": ["s3:ObjectCreated:*"],
                                 "Filter": {"Key": {"FilterRules": [{"Name": "prefix", "Value": "gone/"}]}}}],
        "TopicConfigurations": [{"Id": "to-topic", "TopicArn": topic, "Events": ["s3:ObjectRemoved:*"]}],
        "LambdaFunctionConfigurations": [{"Id": "to-worker", "LambdaFunctionArn": worker,
                                          "Events": ["s3:ObjectCreated:*"],
                                          "Filter": {"Key": {"FilterRules": [{"Name": "prefix", "Value": "fn/"}]}}}]})
    assert door.wait_idle(60)["Idle"]  # S3's test event through the topic has reached "doomed"
    sqs.delete_queue(QueueUrl=gone_url)
    lam.delete_function(FunctionName="doomed")
    door.advance(60)
    failed_at = door.now()
    sns.publish(TopicArn=topic, Message="a big one", MessageAttributes={"kind": {"DataType": "String", "StringValue": "big"}})
    sns.publish(TopicArn=topic, Message="a small one", MessageAttributes={"kind": {"DataType": "String", "StringValue": "small"}})
    for key in ("in/a.txt", "gone/b.txt", "fn/c.txt", "fn/d.txt"):
        s3.put_object(Bucket="uploads", Key=key, Body=b"x")
    s3.delete_object(Bucket="uploads", Key="in/a.txt")  # to the topic: one more message for each subscription
    assert door.wait_idle(60)["Idle"]

    current = model(door)
    figures = {s["SubscriptionArn"]: s for s in current["Subscriptions"]}
    counts = lambda view: (view["NumberOfNotificationsDelivered"], view["NumberOfNotificationsFailed"],
                           view["NumberOfNotificationsFilteredOut"])
    # the topic's messages: S3's s3:TestEvent (while "doomed" and "gone" were there), the big one, the small one and
    # S3's record of the delete; only the big one has kind "big"
    assert counts(figures[to_worker]) == (1, 0, 3)
    assert counts(figures[to_doomed]) == (1, 3, 0)
    assert counts(figures[to_inbox]) == (4, 0, 0)
    assert counts(figures[to_gone]) == (1, 3, 0)
    assert figures[to_gone]["LastError"] == f"The destination queue does not exist: {gone}"
    assert figures[to_doomed]["LastError"] == f"The function does not exist: {doomed}"
    assert figures[to_gone]["LastErrorTime"] >= failed_at and figures[to_inbox]["LastErrorTime"] is None
    # S3's test event to the queue, the topic's 4 messages, in/a.txt's record
    assert figures[to_inbox]["Queue"]["ApproximateNumberOfMessages"] == 1 + 4 + 1
    assert figures[to_worker]["AsynchronousInvocation"] == {"EventsPending": 0, "Errors": 0, "EventsDropped": 0,
                                                            "LastError": None}
    assert "Queue" not in figures[to_gone]  # nothing to show of a queue that is gone

    notifications = {n["Id"]: n for n in current["BucketNotifications"]}
    assert counts(notifications["to-inbox"]) == (1, 0, 0) and counts(notifications["to-worker"]) == (2, 0, 0)
    assert counts(notifications["to-topic"]) == (1, 0, 0)
    assert counts(notifications["to-gone"]) == (0, 1, 0)
    assert notifications["to-gone"]["LastError"] == f"The destination queue does not exist: {gone}"
    assert notifications["to-gone"]["LastErrorTime"] >= failed_at
    [invocations] = [f["RecentInvocations"] for f in current["Functions"] if f["FunctionName"] == "worker"]
    assert sorted(i["Source"] for i in invocations) == ["s3", "s3", "sns"]

"""SNS's delivery-status logs (notifications/delivery_status.py), read back through CloudWatch Logs in both doors.

AWS's recorded answers: LocalStack's AWS-validated tests/aws/services/sns/test_sns.snapshot.json at
github.com/localstack/localstack 8b9a79f05846835cf4dff63ab7eefdde9df83783, TestSNSPublishDelivery::test_delivery_lambda
("get-topic-attrs-with-success-feedback", "delivery-events"), compared whole; the test's own transformers are
applied as it applies them (dwellTimeMs "<time-ms>", every "timestamp" member "timestamp", providerResponse read as
JSON). An SQS failure's event as AWS wrote one (a public example's README, quoted in notifications/delivery_status.py):
the group's /Failure, statusCode, "attempts": 1, providerResponse {"ErrorCode", "ErrorMessage", "sqsRequestId":
"Unrecoverable"}. The log groups are named as the Developer Guide says ("Prerequisites for delivery status logging":
sns/<region>/<account-id>/<topic-name>).
"""

from __future__ import annotations

import json
import re
from datetime import datetime, timezone

import pytest

from tests.conftest import http_json
from tests.durability.service_listings import running
from tests.emulator.api.sns.http_endpoint import Endpoint
from tests.emulator.moto_seam.test_sns_fifo_topics import EMPTY
from tests.emulator.recorded_snapshots import ACCOUNT, REGION, assert_recorded, recorded_shape
from tests.emulator.trigger_helpers import create_zip_function, wait_idle

ECHO = "def handler(event, context):\n    return event\n"
ROLE = f"arn:aws:iam::{ACCOUNT}:role/SNSSuccessFeedback"
#: the notification's time as AWS's log writes it ("2021-06-19 16:01:44.845")
NOTIFICATION_TIME = re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}")
TOPIC = "arn:<partition>:sns:<region>:111111111111:<resource:1>"
DEFAULT_POLICY = {
    "Version": "2008-10-17", "Id": "__default_policy_ID",
    "Statement": [{"Sid": "__default_statement_ID", "Effect": "Allow", "Principal": {"AWS": "*"},
                   "Action": ["SNS:GetTopicAttributes", "SNS:SetTopicAttributes", "SNS:AddPermission",
                              "SNS:RemovePermission", "SNS:DeleteTopic", "SNS:Subscribe",
                              "SNS:ListSubscriptionsByTopic", "SNS:Publish"],
                   "Resource": TOPIC, "Condition": {"StringEquals": {"AWS:SourceOwner": "111111111111"}}}]}
EFFECTIVE_DELIVERY_POLICY = {"http": {
    "defaultHealthyRetryPolicy": {"minDelayTarget": 20, "maxDelayTarget": 20, "numRetries": 3, "numMaxDelayRetries": 0,
                                  "numNoDelayRetries": 0, "numMinDelayRetries": 0, "backoffFunction": "linear"},
    "disableSubscriptionOverrides": False, "defaultRequestPolicy": {"headerContentType": "text/plain; charset=UTF-8"}}}


def log_events(logs, group: str, provider_json: bool = True) -> list[dict]:
    """Every event of the group, each stream's in turn (GetLogEvents), its message read as JSON with the snapshot's
    transformers applied; the format of what they replace checked first (the notification's time read as epoch
    milliseconds, the form of a "timestamp")."""
    events = []
    for stream in logs.describe_log_streams(logGroupName=group)["logStreams"]:
        for event in logs.get_log_events(logGroupName=group, logStreamName=stream["logStreamName"])["events"]:
            events.append(transformed(event, provider_json))
    return events


def transformed(event: dict, provider_json: bool = True) -> dict:
    message = json.loads(event["message"])
    assert isinstance(message["delivery"]["dwellTimeMs"], int) and message["delivery"]["dwellTimeMs"] >= 0
    written = message["notification"]["timestamp"]
    assert NOTIFICATION_TIME.fullmatch(written), written
    published = datetime.strptime(written, "%Y-%m-%d %H:%M:%S.%f").replace(tzinfo=timezone.utc)
    assert int(published.timestamp() * 1000) <= event["timestamp"]  # published, then delivered and logged
    message["delivery"]["dwellTimeMs"] = "<time-ms>"
    message["notification"]["timestamp"] = int(published.timestamp() * 1000)  # the snapshot's "timestamp"
    if provider_json:  # an AWS service's answer, JSON text (an HTTP endpoint's is its own text)
        message["delivery"]["providerResponse"] = json.loads(message["delivery"]["providerResponse"])
    return {**event, "message": message}


def group_exists(logs, group: str) -> bool:
    return any(found["logGroupName"] == group
               for found in logs.describe_log_groups(logGroupNamePrefix=group)["logGroups"])


def test_a_lambda_delivery_is_logged_once_the_topic_asks_for_it(door):
    """test_delivery_lambda: no log before LambdaSuccessFeedbackRoleArn is set; "get-topic-attrs-with-success-feedback"
    (the attributes answered); "delivery-events" (GetLogEvents of the group's one stream: the one event, its
    notification's messageId the Publish's)."""
    sns, logs = door.client("sns"), door.client("logs")
    topic = sns.create_topic(Name="delivered")["TopicArn"]
    function = create_zip_function(door.client("lambda"), "echo", "python", ECHO)["FunctionArn"]
    sns.subscribe(TopicArn=topic, Protocol="lambda", Endpoint=function)
    sns.publish(TopicArn=topic, Subject="[Subject] Test subject", Message="Should not be received")
    group = f"sns/{REGION}/{ACCOUNT}/delivered"
    assert not group_exists(logs, group)

    sns.set_topic_attributes(TopicArn=topic, AttributeName="LambdaSuccessFeedbackRoleArn", AttributeValue=ROLE)
    sns.set_topic_attributes(TopicArn=topic, AttributeName="LambdaSuccessFeedbackSampleRate", AttributeValue="100")
    assert_recorded(recorded_shape(sns.get_topic_attributes(TopicArn=topic)), {"Attributes": {
        "DisplayName": "", "EffectiveDeliveryPolicy": EFFECTIVE_DELIVERY_POLICY,
        "LambdaSuccessFeedbackRoleArn": "arn:<partition>:iam::111111111111:role/<resource:2>",
        "LambdaSuccessFeedbackSampleRate": "100", "Owner": "111111111111", "Policy": DEFAULT_POLICY,
        "SubscriptionsConfirmed": "0", "SubscriptionsDeleted": "0", "SubscriptionsPending": "0", "TopicArn": TOPIC,
    }, **EMPTY})
    published = sns.publish(TopicArn=topic, Subject="[Subject] Test subject", Message="Should be received")
    [stream] = logs.describe_log_streams(logGroupName=group)["logStreams"]
    answer = logs.get_log_events(logGroupName=group, logStreamName=stream["logStreamName"])
    answer["events"] = [transformed(event) for event in answer["events"]]
    assert_recorded(recorded_shape(answer), {"events": [{
        "ingestionTime": "timestamp",
        "message": {
            "delivery": {"deliveryId": "<uuid:3>",
                         "destination": "arn:<partition>:lambda:<region>:111111111111:function:<resource:3>",
                         "dwellTimeMs": "<time-ms>", "providerResponse": {"lambdaRequestId": "<uuid:4>"},
                         "statusCode": 202},
            "notification": {"messageId": "<uuid:2>", "messageMD5Sum": "c1c7ff780647014d463e6801bf83c59d",
                             "timestamp": "timestamp", "topicArn": TOPIC},
            "status": "SUCCESS"},
        "timestamp": "timestamp"}],
        "nextBackwardToken": "<next-backward-token:1>", "nextForwardToken": "<next-forward-token:1>", **EMPTY})
    assert json.loads(logs.get_log_events(logGroupName=group, logStreamName=stream["logStreamName"])["events"][0][
        "message"])["notification"]["messageId"] == published["MessageId"]
    assert not group_exists(logs, group + "/Failure")
    wait_idle(door)


def queue_subscription(door, name: str, **topic_attributes: str) -> tuple[str, str, str]:
    """A topic `name` with the attributes and a queue subscribed to it: (topic ARN, queue URL, queue ARN)."""
    sns, sqs = door.client("sns"), door.client("sqs")
    topic = sns.create_topic(Name=name, Attributes=topic_attributes)["TopicArn"]
    url = sqs.create_queue(QueueName=f"{name}-subscriber")["QueueUrl"]
    arn = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    sns.subscribe(TopicArn=topic, Protocol="sqs", Endpoint=arn)
    return topic, url, arn


def test_an_sqs_delivery_and_a_failed_one_are_logged_to_their_groups(door):
    """A success to sns/<region>/<account>/<topic>, with SQS's request id and the message's id in the queue; once the
    queue is deleted, the failure to <that group>/Failure, as AWS writes an SQS failure (statusCode, "attempts": 1,
    the error with sqsRequestId "Unrecoverable"; SQS's NonExistentQueue for a queue gone)."""
    sns, sqs, logs = door.client("sns"), door.client("sqs"), door.client("logs")
    topic, url, arn = queue_subscription(door, "orders", SQSSuccessFeedbackRoleArn=ROLE,
                                         SQSFailureFeedbackRoleArn=ROLE)
    first = sns.publish(TopicArn=topic, Message="order 1")["MessageId"]
    [received] = sqs.receive_message(QueueUrl=url)["Messages"]
    sqs.delete_queue(QueueUrl=url)
    second = sns.publish(TopicArn=topic, Message="order 2")["MessageId"]
    group = f"sns/{REGION}/{ACCOUNT}/orders"

    def expected(message_id: str, md5: str, status: str, code: int, response: dict) -> dict:
        return {"notification": {"messageMD5Sum": md5, "messageId": message_id, "topicArn": topic,
                                 "timestamp": "timestamp"},
                "delivery": {"deliveryId": "<uuid:1>" if status == "SUCCESS" else "<uuid:2>", "destination": arn,
                             "providerResponse": response, "dwellTimeMs": "<time-ms>", "attempts": 1,
                             "statusCode": code},
                "status": status}

    [success] = log_events(logs, group)
    assert_recorded(success["message"], expected(first, "99a233e67156812c9681c22c78e91aaa", "SUCCESS", 200,
                                                 {"sqsRequestId": "<uuid:3>", "sqsMessageId": received["MessageId"]}))
    [failure] = log_events(logs, group + "/Failure")
    assert_recorded(failure["message"], expected(second, "54d36152c1d36b1eb017664610ec86b6", "FAILURE", 400, {
        "ErrorCode": "AWS.SimpleQueueService.NonExistentQueue",
        "ErrorMessage": "The specified queue does not exist or you do not have access to it.",
        "sqsRequestId": "Unrecoverable"}))


@pytest.mark.parametrize("rate, logged", [("30", [4, 7, 10]), ("0", []), ("100", list(range(1, 11)))])
def test_a_success_sample_rate_logs_that_share_of_successes(door, rate, logged):
    """SQSSuccessFeedbackSampleRate r logs, of the topic's successes to SQS, the n-th when floor(n*r/100) grows: of ten,
    r=30 the 4th, 7th and 10th (Eddy's deterministic choice; AWS samples at random, its share the rate)."""
    sns, logs = door.client("sns"), door.client("logs")
    topic, _, _ = queue_subscription(door, "sampled", SQSSuccessFeedbackRoleArn=ROLE,
                                     SQSSuccessFeedbackSampleRate=rate)
    published = {sns.publish(TopicArn=topic, Message=f"message {n}")["MessageId"]: n for n in range(1, 11)}
    group = f"sns/{REGION}/{ACCOUNT}/sampled"
    if not logged:
        assert not group_exists(logs, group)
        return
    events = log_events(logs, group)
    assert sorted(published[event["message"]["notification"]["messageId"]] for event in events) == logged
    assert {event["message"]["status"] for event in events} == {"SUCCESS"}


@pytest.mark.parametrize("kind", ["inprocess", "server"])
def test_a_restart_keeps_each_delivery_status_event_once(kind, tmp_path):
    """The event is written down when it is logged; the replayed Publish logs nothing again."""
    state = str(tmp_path / "state")
    with running(kind, state) as door:
        topic, _, _ = queue_subscription(door, "kept", SQSSuccessFeedbackRoleArn=ROLE)
        message_id = door.client("sns").publish(TopicArn=topic, Message="once")["MessageId"]
        before = log_events(door.client("logs"), f"sns/{REGION}/{ACCOUNT}/kept")
    with running(kind, state) as door:
        after = log_events(door.client("logs"), f"sns/{REGION}/{ACCOUNT}/kept")
    assert [event["message"]["notification"]["messageId"] for event in after] == [message_id]
    assert after == before


def confirmed_http_topic(sns, endpoint: Endpoint, name: str, retry_policy: dict) -> str:
    """A topic `name` logging its HTTP deliveries, the endpoint subscribed to it and confirmed (its first POST), the
    subscription's DeliveryPolicy with `retry_policy`: the topic's ARN."""
    topic = sns.create_topic(Name=name, Attributes={"HTTPSuccessFeedbackRoleArn": ROLE,
                                                    "HTTPFailureFeedbackRoleArn": ROLE})["TopicArn"]
    subscription = sns.subscribe(TopicArn=topic, Protocol="http", Endpoint=endpoint.url,
                                 ReturnSubscriptionArn=True)["SubscriptionArn"]
    [(_, confirmation)] = endpoint.wait_for(1)
    sns.confirm_subscription(TopicArn=topic, Token=json.loads(confirmation)["Token"])
    sns.set_subscription_attributes(SubscriptionArn=subscription, AttributeName="DeliveryPolicy",
                                    AttributeValue=json.dumps({"healthyRetryPolicy": retry_policy}))
    return topic


@pytest.mark.parametrize("answered", [200, 500])
def test_an_http_delivery_is_logged_once_its_last_attempt_is_made(door, answered):
    """An HTTP subscriber's notification: logged when its last attempt has been made (the delivery policy's retries,
    none here), with the endpoint's status, its answer's text (empty) and the attempts made; a 500 to the /Failure
    group. (No AWS recording of an HTTP delivery's event: its providerResponse is the endpoint's answer, as a push
    service's is in the Developer Guide's "Amazon SNS mobile app attributes" examples.)"""
    sns, logs = door.client("sns"), door.client("logs")
    with Endpoint(statuses=(200, answered)) as endpoint:  # the confirmation, then the notification
        topic = confirmed_http_topic(sns, endpoint, "hooks", {"numRetries": 0})
        message_id = sns.publish(TopicArn=topic, Message="hook 1")["MessageId"]
        endpoint.wait_for(2)
        assert wait_idle(door)["Idle"]
    success_group = f"sns/{REGION}/{ACCOUNT}/hooks"
    group = success_group if answered == 200 else success_group + "/Failure"
    [event] = log_events(logs, group, provider_json=False)
    assert_recorded(event["message"], {
        "notification": {"messageMD5Sum": "bc7152bf171d980f8b795843fb5c7f3b",
                         "messageId": message_id, "topicArn": topic, "timestamp": "timestamp"},
        "delivery": {"deliveryId": "<uuid:1>", "destination": endpoint.url, "providerResponse": "",
                     "dwellTimeMs": "<time-ms>", "attempts": 1, "statusCode": answered},
        "status": "SUCCESS" if answered == 200 else "FAILURE"})
    other = success_group + "/Failure" if answered == 200 else success_group
    assert not group_exists(logs, other)


def test_a_deleted_functions_failure_and_a_firehose_success_are_logged(door):
    """A notification to a deleted function, logged to the /Failure group (Eddy's words, unrecorded: 404,
    ResourceNotFoundException, lambdaRequestId "Unrecoverable", no attempts, as Lambda's success has none); one to a
    Firehose delivery stream, to the group with firehoseRequestId (unrecorded too). Both read back by FilterLogEvents
    as well as GetLogEvents."""
    sns, logs, firehose = door.client("sns"), door.client("logs"), door.client("firehose")
    door.client("s3").create_bucket(Bucket="archive")
    stream = firehose.create_delivery_stream(
        DeliveryStreamName="archive", DeliveryStreamType="DirectPut", S3DestinationConfiguration={
            "RoleARN": ROLE, "BucketARN": "arn:aws:s3:::archive"})["DeliveryStreamARN"]
    topic = sns.create_topic(Name="fanout", Attributes={"LambdaFailureFeedbackRoleArn": ROLE,
                                                         "FirehoseSuccessFeedbackRoleArn": ROLE})["TopicArn"]
    function = create_zip_function(door.client("lambda"), "gone", "python", ECHO)["FunctionArn"]
    sns.subscribe(TopicArn=topic, Protocol="lambda", Endpoint=function)
    sns.subscribe(TopicArn=topic, Protocol="firehose", Endpoint=stream, Attributes={"SubscriptionRoleArn": ROLE})
    door.client("lambda").delete_function(FunctionName="gone")
    message_id = sns.publish(TopicArn=topic, Message="fanned out")["MessageId"]  # MD5 below: md5(b"fanned out")
    group = f"sns/{REGION}/{ACCOUNT}/fanout"
    notification = {"messageMD5Sum": "3eef8a6b8d964c8761d93caf35fb5bdf", "messageId": message_id, "topicArn": topic,
                    "timestamp": "timestamp"}
    [failure] = log_events(logs, group + "/Failure")
    assert_recorded(failure["message"], {"notification": notification, "delivery": {
        "deliveryId": "<uuid:1>", "destination": function, "providerResponse": {
            "ErrorCode": "ResourceNotFoundException", "ErrorMessage": f"Function not found: {function}",
            "lambdaRequestId": "Unrecoverable"},
        "dwellTimeMs": "<time-ms>", "statusCode": 404}, "status": "FAILURE"})
    [success] = log_events(logs, group)
    assert_recorded(success["message"], {"notification": notification, "delivery": {
        "deliveryId": "<uuid:1>", "destination": stream, "providerResponse": {"firehoseRequestId": "<uuid:2>"},
        "dwellTimeMs": "<time-ms>", "attempts": 1, "statusCode": 200}, "status": "SUCCESS"})
    filtered = logs.filter_log_events(logGroupName=group)["events"]
    assert [transformed(event)["message"] for event in filtered] == [success["message"]]


def test_a_reset_starts_the_sample_rates_counts_again(door):
    """Everything is forgotten at a reset (POST /moto-api/reset, the in-process reset()), the successes counted for a
    sample rate too: at 50, the second success after the reset is logged, not the first."""
    sns = door.client("sns")
    topic, _, _ = queue_subscription(door, "sampled", SQSSuccessFeedbackRoleArn=ROLE, SQSSuccessFeedbackSampleRate="50")
    sns.publish(TopicArn=topic, Message="before the reset")  # the first success: not logged
    if door.name == "inprocess":
        door.emu.reset()
    else:
        http_json(door.url + "/moto-api/reset", {})
    topic, _, _ = queue_subscription(door, "sampled", SQSSuccessFeedbackRoleArn=ROLE, SQSSuccessFeedbackSampleRate="50")
    published = [sns.publish(TopicArn=topic, Message=f"after {n}")["MessageId"] for n in (1, 2)]
    events = log_events(door.client("logs"), f"sns/{REGION}/{ACCOUNT}/sampled")
    assert [event["message"]["notification"]["messageId"] for event in events] == published[1:]


def test_an_http_delivery_retried_is_logged_once_with_its_attempts(door):
    """A notification the endpoint first answers 500 and, retried a second later on the emulator's clock, 200: one
    SUCCESS event, its attempts 2, nothing in the /Failure group (the failed attempt is not an outcome)."""
    sns, logs = door.client("sns"), door.client("logs")
    with Endpoint(statuses=(200, 500, 200)) as endpoint:
        topic = confirmed_http_topic(sns, endpoint, "retried",
                                     {"numRetries": 1, "minDelayTarget": 1, "maxDelayTarget": 1})
        message_id = sns.publish(TopicArn=topic, Message="hook 1")["MessageId"]
        endpoint.wait_for(2)
        door.advance(1)
        endpoint.wait_for(3)
        assert door.wait_idle()["Idle"]
    group = f"sns/{REGION}/{ACCOUNT}/retried"
    [event] = log_events(logs, group, provider_json=False)
    assert_recorded(event["message"], {
        "notification": {"messageMD5Sum": "bc7152bf171d980f8b795843fb5c7f3b", "messageId": message_id,
                         "topicArn": topic, "timestamp": "timestamp"},
        "delivery": {"deliveryId": "<uuid:1>", "destination": endpoint.url, "providerResponse": "",
                     "dwellTimeMs": "<time-ms>", "attempts": 2, "statusCode": 200},
        "status": "SUCCESS"})
    assert not group_exists(logs, group + "/Failure")

"""SNS's retries of a notification its HTTP subscriber did not take, in both doors, on the emulator's clock.

Sources: the Amazon SNS Developer Guide, "Amazon SNS message delivery retries" (sns-message-delivery-retries.html:
the four phases, the HTTP/S policy's members and constraints, the dead-letter queue once the policy is exhausted),
"Step 4: Optional - Set the delivery policy" (SendMessageToHttp.retry.html: by default three retries 20 seconds
apart), "Step 1: Make sure your endpoint is ready" (SendMessageToHttp.prepare.html: a status outside 200-4xx, or no
answer, is a failed delivery and retried; a 4xx is not); LocalStack's AWS-validated test_sns.snapshot.json (the
topic's EffectiveDeliveryPolicy: numRetries 3, minDelayTarget = maxDelayTarget = 20, linear) and its
test_redrive_policy_http_subscription (the dead-letter queue holds the notification document); the Ballerina SNS
connector's setTopicAttributesNegativeTest, run against AWS ("Invalid parameter: DeliveryPolicy:
http.defaultHealthyRetryPolicy.numRetries must be less than or equal to 100").
"""

from __future__ import annotations

import json
import re

import boto3
import pytest
from botocore.exceptions import ClientError

from eddy import NotDeliveredError, Settings

from .http_endpoint import Endpoint

FAILED = "the endpoint answered 500"
#: the share of a retry's delay SNS's jitter may take off (Settings.sns_retry_jitter: the SNS Developer Guide, "SNS
#: applies jittering to delivery retries")
JITTER = Settings().sns_retry_jitter


def confirmed_subscription(door, endpoint: Endpoint, **attributes: str) -> tuple[str, str]:
    """A topic and the endpoint's confirmed subscription to it: (topic ARN, subscription ARN)."""
    sns = door.client("sns")
    topic_arn = sns.create_topic(Name="orders")["TopicArn"]
    arn = sns.subscribe(TopicArn=topic_arn, Protocol="http", Endpoint=endpoint.url, ReturnSubscriptionArn=True,
                        Attributes=attributes)["SubscriptionArn"]
    [(_, body)] = endpoint.wait_for(1)
    sns.confirm_subscription(TopicArn=topic_arn, Token=json.loads(body)["Token"])
    return topic_arn, arn


def retrying(endpoint: Endpoint, arn: str, attempts: int, next_at: float, error: str = FAILED) -> dict:
    return {"Mapping": f"SNS delivery to {endpoint.url}", "SubscriptionArn": arn, "LastError": error,
            "Retrying": [{"Attempts": attempts, "NextAttemptAt": next_at, "Records": []}]}


def test_a_failed_notification_is_retried_three_times_20_seconds_apart_then_moved_to_the_dead_letter_queue(door):
    sqs = door.client("sqs")
    dlq_url = sqs.create_queue(QueueName="orders-dlq")["QueueUrl"]
    dlq_arn = sqs.get_queue_attributes(QueueUrl=dlq_url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    with Endpoint(statuses=(200, 500, 503, 500, 500)) as endpoint:
        topic_arn, arn = confirmed_subscription(door, endpoint, RedrivePolicy=json.dumps({"deadLetterTargetArn": dlq_arn}))
        before = door.now()  # the clock before the attempt (the clock reads in seconds since the epoch)
        door.client("sns").publish(TopicArn=topic_arn, Message="order 1")
        for attempt in (1, 2, 3):
            report = door.wait_idle()  # the attempt is made before wait_idle answers; its retry is 20 s away
            [pending] = report["Pending"]
            assert before + 20 * (1 - JITTER) <= pending["Retrying"][0]["NextAttemptAt"] <= door.now() + 20
            assert (report["Idle"], report["Failures"], pending) == (
                False, [], retrying(endpoint, arn, attempt, pending["Retrying"][0]["NextAttemptAt"],
                                    "the endpoint answered 503" if attempt == 2 else FAILED))
            assert len(endpoint.received) == 1 + attempt
            before = door.now() + 20
            door.advance(20)
        report = door.wait_idle()  # the fourth attempt, the last: the policy is exhausted
        assert report == {"Idle": True, "Delivered": True, "Pending": [], "Failures": [{
            "Mapping": f"SNS delivery to {endpoint.url}", "SubscriptionArn": arn, "ApproximateInvokeCount": 4,
            "LastError": FAILED, "DeadLetterQueue": dlq_arn, "FailedBatches": 0, "RecordsDiscarded": 0,
            "Discarded": []}]}
        notifications = [body for _, body in endpoint.received[1:]]
    assert len(notifications) == 4 and len(set(notifications)) == 1  # the same message each time
    [moved] = sqs.receive_message(QueueUrl=dlq_url, WaitTimeSeconds=1)["Messages"]
    assert moved["Body"] == notifications[0].decode()
    assert (json.loads(moved["Body"])["Type"], json.loads(moved["Body"])["Message"]) == ("Notification", "order 1")


def another_accounts(door, *services: str) -> list:
    """Clients of `services` speaking for account 111111111111 (a role of it assumed through STS)."""
    credentials = door.client("sts").assume_role(
        RoleArn="arn:aws:iam::111111111111:role/subscriber", RoleSessionName="subscriber")["Credentials"]
    return [boto3.client(service, region_name="eu-west-1", endpoint_url=getattr(door, "url", None),
                         aws_access_key_id=credentials["AccessKeyId"],
                         aws_secret_access_key=credentials["SecretAccessKey"],
                         aws_session_token=credentials["SessionToken"]) for service in services]


def test_the_dead_letter_queue_is_found_in_its_own_account_and_region(door):
    # The queue the RedrivePolicy names is looked for in the account and region of its ARN (it was looked for in the
    # default account: the notification of another account's subscription was lost)
    sns, sqs = another_accounts(door, "sns", "sqs")
    dlq_url = sqs.create_queue(QueueName="orders-dlq")["QueueUrl"]
    dlq_arn = sqs.get_queue_attributes(QueueUrl=dlq_url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    assert dlq_arn == "arn:aws:sqs:eu-west-1:111111111111:orders-dlq"
    door.client("sqs").create_queue(QueueName="orders-dlq")  # the default account's queue of that name stays empty
    with Endpoint(statuses=(200, 500, 500)) as endpoint:
        topic_arn = sns.create_topic(Name="orders")["TopicArn"]
        arn = sns.subscribe(TopicArn=topic_arn, Protocol="http", Endpoint=endpoint.url, ReturnSubscriptionArn=True,
                            Attributes={"RedrivePolicy": json.dumps({"deadLetterTargetArn": dlq_arn}),
                                        "DeliveryPolicy": json.dumps({"healthyRetryPolicy": {
                                            "numRetries": 1, "minDelayTarget": 5, "maxDelayTarget": 5}})}
                            )["SubscriptionArn"]
        [(_, body)] = endpoint.wait_for(1)
        sns.confirm_subscription(TopicArn=topic_arn, Token=json.loads(body)["Token"])
        sns.publish(TopicArn=topic_arn, Message="order 1")
        door.wait_idle()
        door.advance(5)
        report = door.wait_idle()
        assert report["Failures"] == [{
            "Mapping": f"SNS delivery to {endpoint.url}", "SubscriptionArn": arn, "ApproximateInvokeCount": 2,
            "LastError": FAILED, "DeadLetterQueue": dlq_arn, "FailedBatches": 0, "RecordsDiscarded": 0,
            "Discarded": []}]
        notification = endpoint.received[-1][1].decode()
    [moved] = sqs.receive_message(QueueUrl=dlq_url, WaitTimeSeconds=1)["Messages"]
    assert (moved["Body"], json.loads(moved["Body"])["Message"]) == (notification, "order 1")
    default_url = door.client("sqs").get_queue_url(QueueName="orders-dlq")["QueueUrl"]
    assert door.client("sqs").receive_message(QueueUrl=default_url).get("Messages") is None


def test_a_subscriptions_delivery_policy_sets_its_phases(door):
    policy = {"healthyRetryPolicy": {"numRetries": 4, "numNoDelayRetries": 1, "numMinDelayRetries": 1,
                                     "numMaxDelayRetries": 1, "minDelayTarget": 5, "maxDelayTarget": 30,
                                     "backoffFunction": "linear"}}
    with Endpoint(statuses=(200, 500, 500, 500, 500)) as endpoint:
        topic_arn, arn = confirmed_subscription(door, endpoint, DeliveryPolicy=json.dumps(policy))
        door.client("sns").publish(TopicArn=topic_arn, Message="order 1")
        delays = []
        for attempts in (2, 3, 4):  # the first retry is immediate: two attempts before the first wait
            [pending] = door.wait_idle()["Pending"]
            assert pending["Retrying"][0]["Attempts"] == attempts
            next_at = pending["Retrying"][0]["NextAttemptAt"]
            delays.append(next_at - door.now())
            door.advance(next_at - door.now())
        report = door.wait_idle()
        assert (report["Idle"], report["Delivered"], report["Pending"], report["Failures"]) == (True, True, [], [])
        assert len(endpoint.received) == 6  # the confirmation, the first attempt and four retries
    # pre-backoff 5 s, the backoff phase (one retry) reaching 30 s, post-backoff 30 s, each up to JITTER sooner (each
    # read a moment after the attempt: the clock follows real time between the steps)
    assert [limit * (1 - JITTER) - 3 < delay <= limit for delay, limit in zip(delays, (5, 30, 30))] == [True] * 3


def test_assert_delivered_names_a_notification_being_retried_and_one_given_up_on(door):
    with Endpoint(statuses=(200, 500, 500)) as endpoint:
        topic_arn, arn = confirmed_subscription(door, endpoint, DeliveryPolicy=json.dumps(
            {"healthyRetryPolicy": {"numRetries": 1, "minDelayTarget": 5, "maxDelayTarget": 5}}))
        door.client("sns").publish(TopicArn=topic_arn, Message="order 1")
        with pytest.raises(NotDeliveredError) as retrying:
            door.assert_delivered()
        assert re.fullmatch(
            rf"not everything was delivered:\n  SNS delivery to {re.escape(endpoint.url)} \({re.escape(arn)}\): "
            r"retrying after 1 attempts, next at \d+\.\d{3} on the emulator's clock; "
            r"last error: the endpoint answered 500", str(retrying.value)), str(retrying.value)
        door.advance(5)
        with pytest.raises(NotDeliveredError) as given_up:
            door.assert_delivered()
        assert str(given_up.value) == (
            f"not everything was delivered:\n  SNS delivery to {endpoint.url} ({arn}): not delivered after 2 attempts "
            "(no dead-letter queue); error: the endpoint answered 500")


def test_a_4xx_answer_is_not_retried_and_a_2xx_delivers(door):
    with Endpoint(statuses=(200, 404)) as endpoint:
        topic_arn, arn = confirmed_subscription(door, endpoint)
        door.client("sns").publish(TopicArn=topic_arn, Message="order 1")
        door.client("sns").publish(TopicArn=topic_arn, Message="order 2")
        report = door.wait_idle()  # waits for the POSTs in flight: both are in before it answers
        assert report == {"Idle": True, "Delivered": True, "Pending": [], "Failures": []}
        assert [json.loads(body)["Message"] for _, body in endpoint.received[1:]] == ["order 1", "order 2"]


@pytest.mark.parametrize("where", ["topic", "subscription"])
def test_a_delivery_policy_sns_refuses_is_refused_in_its_words_and_changes_nothing(door, where):
    sns = door.client("sns")
    topic_arn = sns.create_topic(Name="orders")["TopicArn"]
    retries = {"minDelayTarget": 20, "maxDelayTarget": 20, "numRetries": 101}
    if where == "topic":
        before = sns.get_topic_attributes(TopicArn=topic_arn)["Attributes"]
        with pytest.raises(ClientError) as refused:
            sns.set_topic_attributes(TopicArn=topic_arn, AttributeName="DeliveryPolicy",
                                     AttributeValue=json.dumps({"http": {"defaultHealthyRetryPolicy": retries}}))
        after = sns.get_topic_attributes(TopicArn=topic_arn)["Attributes"]
        path = "http.defaultHealthyRetryPolicy"
    else:
        arn = sns.subscribe(TopicArn=topic_arn, Protocol="sqs", Endpoint="arn:aws:sqs:us-east-1:123456789012:q",
                            ReturnSubscriptionArn=True)["SubscriptionArn"]
        before = sns.get_subscription_attributes(SubscriptionArn=arn)["Attributes"]
        with pytest.raises(ClientError) as refused:
            sns.set_subscription_attributes(SubscriptionArn=arn, AttributeName="DeliveryPolicy",
                                            AttributeValue=json.dumps({"healthyRetryPolicy": retries}))
        after = sns.get_subscription_attributes(SubscriptionArn=arn)["Attributes"]
        path = "healthyRetryPolicy"
    assert refused.value.response["Error"] == {
        "Type": "Sender", "Code": "InvalidParameter",
        "Message": f"Invalid parameter: DeliveryPolicy: {path}.numRetries must be less than or equal to 100"}
    assert refused.value.response["ResponseMetadata"]["HTTPStatusCode"] == 400
    assert after == before


def test_create_topic_and_subscribe_refuse_such_a_policy_too_and_create_nothing(door):
    sns = door.client("sns")
    retries = {"minDelayTarget": 20, "maxDelayTarget": 20, "numRetries": 101}
    with pytest.raises(ClientError) as refused:
        sns.create_topic(Name="orders", Attributes={
            "DeliveryPolicy": json.dumps({"http": {"defaultHealthyRetryPolicy": retries}})})
    assert refused.value.response["Error"]["Message"] == (
        "Invalid parameter: DeliveryPolicy: http.defaultHealthyRetryPolicy.numRetries must be less than or equal to 100")
    assert sns.list_topics()["Topics"] == []
    topic_arn = sns.create_topic(Name="orders")["TopicArn"]
    with pytest.raises(ClientError) as refused:
        sns.subscribe(TopicArn=topic_arn, Protocol="http", Endpoint="http://127.0.0.1:9/never",
                      Attributes={"DeliveryPolicy": json.dumps({"healthyRetryPolicy": retries})})
    assert refused.value.response["Error"] == {
        "Type": "Sender", "Code": "InvalidParameter",
        "Message": "Invalid parameter: DeliveryPolicy: healthyRetryPolicy.numRetries must be less than or equal to 100"}
    assert sns.list_subscriptions()["Subscriptions"] == []


def test_without_jitter_each_retry_comes_exactly_its_delay_after_its_attempt(door_with):
    # Settings.sns_retry_jitter=0 (`eddy serve --sns-retry-jitter 0` on the server): each retry exactly on time,
    # 20 s after the attempt that failed (the default policy: SendMessageToHttp.retry.html)
    with door_with(sns_retry_jitter=0) as door, Endpoint(statuses=(200, 500, 500)) as endpoint:
        topic_arn, arn = confirmed_subscription(door, endpoint)
        before = door.now()
        door.client("sns").publish(TopicArn=topic_arn, Message="order 1")
        for attempt in (1, 2):
            report = door.wait_idle()
            [pending] = report["Pending"]
            next_at = pending["Retrying"][0]["NextAttemptAt"]
            assert pending == retrying(endpoint, arn, attempt, next_at)
            # the attempt was made between `before` and now: its retry is 20 s after it, none of that taken off
            assert before + 20 <= next_at <= door.now() + 20
            door.advance(next_at - door.now())
            before = next_at  # the retry is made once the clock reached it
        assert door.wait_idle()["Pending"] == []
        assert len(endpoint.received) == 4  # the confirmation, the attempt, two retries (the second taken)

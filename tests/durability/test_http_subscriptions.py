"""An SNS HTTP subscription across a restart with a state directory: still pending, its token still confirms it
(replaying the log draws the same token), and replaying Subscribe POSTs no second SubscriptionConfirmation."""

from __future__ import annotations

import json

import boto3
import pytest

from eddy import emulate
from tests.conftest import QUIET
from tests.durability.test_async_invocations import durable_door
from tests.emulator.api.sns.http_endpoint import Endpoint


def test_a_pending_http_subscription_and_its_token_survive_a_restart(tmp_path):
    state = str(tmp_path / "state")
    with Endpoint() as endpoint:
        with emulate(state_dir=state, **QUIET):
            sns = boto3.client("sns", region_name="us-east-1")
            topic = sns.create_topic(Name="orders")["TopicArn"]
            arn = sns.subscribe(TopicArn=topic, Protocol="http", Endpoint=endpoint.url,
                                ReturnSubscriptionArn=True)["SubscriptionArn"]
            [(_, body)] = endpoint.wait_for(1)
        token = json.loads(body)["Token"]
        with emulate(state_dir=state, **QUIET):
            sns = boto3.client("sns", region_name="us-east-1")
            attributes = sns.get_subscription_attributes(SubscriptionArn=arn)["Attributes"]
            assert attributes["PendingConfirmation"] == "true"
            assert sns.confirm_subscription(TopicArn=topic, Token=token)["SubscriptionArn"] == arn
            sns.publish(TopicArn=topic, Message="after the restart")
            notification = json.loads(endpoint.wait_for(2)[1][1])
            assert (notification["Type"], notification["Message"]) == ("Notification", "after the restart")
        with emulate(state_dir=state, **QUIET):
            sns = boto3.client("sns", region_name="us-east-1")
            assert sns.get_subscription_attributes(SubscriptionArn=arn)["Attributes"]["PendingConfirmation"] == "false"
        # each block's close sent what it had queued: a replayed Subscribe would have POSTed by now
        assert [json.loads(body)["Type"] for _, body in endpoint.received] == ["SubscriptionConfirmation", "Notification"]


@pytest.mark.parametrize("kind", ["inprocess", "server"])
def test_a_notification_waiting_for_its_retry_is_retried_after_a_restart(tmp_path, kind):
    # Kept like the other deliveries (asynchronous invocations, rules' deliveries): a notification whose POST failed
    # waits for its retry across a restart (in-process a clean stop, the server kill -9), is POSTed again when the
    # clock reaches it, the same document, and once delivered is not sent again by the next restart. It was lost.
    state = str(tmp_path / "state")
    policy = json.dumps({"healthyRetryPolicy": {"numRetries": 2, "minDelayTarget": 30, "maxDelayTarget": 30}})
    with Endpoint(statuses=(200, 500)) as endpoint:
        with durable_door(kind, state) as (door, stop):
            sns = door.client("sns")
            topic = sns.create_topic(Name="orders")["TopicArn"]
            arn = sns.subscribe(TopicArn=topic, Protocol="http", Endpoint=endpoint.url, ReturnSubscriptionArn=True,
                                Attributes={"DeliveryPolicy": policy})["SubscriptionArn"]
            [(_, body)] = endpoint.wait_for(1)
            sns.confirm_subscription(TopicArn=topic, Token=json.loads(body)["Token"])
            sns.publish(TopicArn=topic, Message="order 1")
            [waiting] = door.wait_idle()["Pending"]  # the first attempt failed: its retry is 30 s away
            stop()
        with durable_door(kind, state) as (door, stop):
            assert door.wait_idle()["Pending"] == [waiting]  # as it was: attempts, next attempt's moment, error
            assert len(endpoint.received) == 2
            door.advance(waiting["Retrying"][0]["NextAttemptAt"] - door.now())
            assert door.wait_idle() == {"Idle": True, "Delivered": True, "Pending": [], "Failures": []}
            stop()
        with durable_door(kind, state) as (door, stop):
            assert door.wait_idle() == {"Idle": True, "Delivered": True, "Pending": [], "Failures": []}
            stop()
    assert waiting == {"Mapping": f"SNS delivery to {endpoint.url}", "SubscriptionArn": arn,
                       "LastError": "the endpoint answered 500",
                       "Retrying": [{"Attempts": 1, "NextAttemptAt": waiting["Retrying"][0]["NextAttemptAt"],
                                     "Records": []}]}
    notifications = [body for _, body in endpoint.received[1:]]
    assert len(notifications) == 2 and notifications[0] == notifications[1]  # the same document, once more
    assert json.loads(notifications[0])["Message"] == "order 1"

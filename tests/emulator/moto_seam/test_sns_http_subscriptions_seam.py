"""moto_seam/notifications/http_subscriptions.py pinned against moto's SNS: the pieces it wraps and replaces are
still there and still behave as the seam assumes (moto confirms an HTTP subscription at once and answers
ConfirmSubscription with a made-up ARN, so the seam is still needed), and moto's own behaviour is back once no
emulator is open."""

from __future__ import annotations

import inspect

import boto3
from moto import mock_aws
from moto.sns.models import SNSBackend, Subscription
from moto.sns.responses import SNSResponse

from eddy import emulate
from tests.conftest import QUIET

REGION = "us-east-1"
ENDPOINT = "http://127.0.0.1:9/never-listened"  # the discard port: nothing answers, nothing is waited on


def test_the_moto_pieces_the_seam_wraps_are_there():
    assert list(inspect.signature(SNSBackend.subscribe).parameters) == ["self", "topic_arn", "endpoint", "protocol"]
    assert list(inspect.signature(SNSBackend.unsubscribe).parameters) == ["self", "subscription_arn"]
    assert list(inspect.signature(Subscription.publish).parameters)[:5] == [
        "self", "message", "message_id", "subject", "message_attributes"]
    assert 'result = {"SubscriptionArn": subscription.arn}' in inspect.getsource(SNSResponse.subscribe)
    assert '"Subscriptions": subscriptions' in inspect.getsource(SNSResponse.list_subscriptions)


def subscribed_then_confirmed() -> tuple[str, str, str]:
    sns = boto3.client("sns", region_name=REGION)
    topic = sns.create_topic(Name="orders")["TopicArn"]
    answered = sns.subscribe(TopicArn=topic, Protocol="http", Endpoint=ENDPOINT)["SubscriptionArn"]
    [listed] = sns.list_subscriptions()["Subscriptions"]
    return answered, listed["SubscriptionArn"], topic


def test_moto_alone_confirms_at_once_and_is_itself_again_after_an_emulator_closed():
    with mock_aws():
        answered, listed, topic = subscribed_then_confirmed()
        assert answered == listed and answered.startswith(topic + ":")  # moto: confirmed at once
        made_up = boto3.client("sns", region_name=REGION).confirm_subscription(TopicArn=topic, Token="t")
        assert made_up["SubscriptionArn"] == f"{topic}:68762e72-e9b1-410a-8b3b-903da69ee1d5"
    with emulate(**QUIET):
        answered, listed, _ = subscribed_then_confirmed()
        assert (answered, listed) == ("pending confirmation", "PendingConfirmation")
    with mock_aws():
        answered, listed, topic = subscribed_then_confirmed()
        assert answered == listed and answered.startswith(topic + ":")

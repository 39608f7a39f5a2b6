"""An SNS HTTP subscription across a restart with a state directory: still pending, its token still confirms it
(replaying the log draws the same token), and replaying Subscribe POSTs no second SubscriptionConfirmation."""

from __future__ import annotations

import json

import boto3

from eddy import emulate
from tests.conftest import QUIET
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

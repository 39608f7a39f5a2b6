"""SNS listings' NextToken as SNS gives them, base64 (moto_seam/notifications/sns_answers.py).

AWS's answers: LocalStack's AWS-validated tests/aws/services/sns/test_sns.py and its test_sns.snapshot.json at
8b9a79f05846835cf4dff63ab7eefdde9df83783, TestSNSSubscriptionCrud::test_list_subscriptions_by_topic_pagination
(recorded 06-10-2025): 101 subscriptions, a first page of 100 whose NextToken base64 decodes, a second page of the
one left ("list-sub-per-topic-page-2") without a NextToken.
"""

from __future__ import annotations

import base64
import inspect

import pytest
from botocore.exceptions import ClientError
from moto.sns.models import SNSBackend

from tests.emulator.recorded_snapshots import assert_recorded, recorded_shape


def test_subscriptions_are_paged_by_a_base64_next_token(door):
    sns = door.client("sns")
    topic = sns.create_topic(Name="paged")["TopicArn"]
    for suffix in range(101):
        sns.subscribe(TopicArn=topic, Protocol="sms", Endpoint=f"+12312312{suffix}")
    first = sns.list_subscriptions_by_topic(TopicArn=topic)
    assert base64.b64decode(first["NextToken"], validate=True)
    assert len(first["Subscriptions"]) == 100
    second = sns.list_subscriptions_by_topic(TopicArn=topic, NextToken=first["NextToken"])
    assert_recorded(recorded_shape(second), {"Subscriptions": [{
        "Endpoint": "<endpoint:1>", "Owner": "111111111111", "Protocol": "sms",
        "SubscriptionArn": "arn:<partition>:sns:<region>:111111111111:<resource:2>:<resource:1>",
        "TopicArn": "arn:<partition>:sns:<region>:111111111111:<resource:2>"}],
        "ResponseMetadata": {"HTTPHeaders": {}, "HTTPStatusCode": 200}})
    assert second["Subscriptions"][0]["SubscriptionArn"] not in {sub["SubscriptionArn"] for sub in first["Subscriptions"]}
    everyone = sns.list_subscriptions()
    assert len(everyone["Subscriptions"]) == 100
    rest = sns.list_subscriptions(NextToken=everyone["NextToken"])["Subscriptions"]
    assert {sub["SubscriptionArn"] for sub in everyone["Subscriptions"] + rest} == {
        sub["SubscriptionArn"] for sub in first["Subscriptions"] + second["Subscriptions"]}


@pytest.mark.parametrize("next_token", ["100", "not base64!", base64.b64encode(b"ten").decode()])
def test_a_next_token_sns_did_not_give_is_refused(door, next_token):
    """No recording of SNS's words: its InvalidParameter form; moto failed with a 500 for any text but a number."""
    sns = door.client("sns")
    sns.create_topic(Name="paged")
    with pytest.raises(ClientError) as raised:
        sns.list_topics(NextToken=next_token)
    assert raised.value.response["Error"] == {"Type": "Sender", "Code": "InvalidParameter",
                                              "Message": "Invalid parameter: NextToken"}


def test_moto_pages_by_an_offset():
    """The seam is still needed: moto's tokens are the next page's offset."""
    assert list(inspect.signature(SNSBackend._get_values_nexttoken).parameters) == ["self", "values_map", "next_token"]
    values, next_token = SNSBackend._get_values_nexttoken(None, {n: n for n in range(101)}, "0")
    assert (len(values), next_token) == (100, 100)

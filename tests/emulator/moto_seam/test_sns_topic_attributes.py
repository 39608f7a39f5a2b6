"""GetTopicAttributes as SNS answers it: DeliveryPolicy kept as SNS keeps it, EffectiveDeliveryPolicy, SignatureVersion.

AWS's recorded answers: LocalStack's AWS-validated tests/aws/services/sns/test_sns.snapshot.json (localstack/localstack
at 8b9a79f05846), TestSNSTopicCrud::test_topic_delivery_policy_crud (a FIFO topic with a DeliveryPolicy, the policy
updated, a member set to null, the policy deleted: "get-topic-attrs", "get-topic-attrs-after-update",
"get-topic-attrs-after-none", "get-topic-attrs-after-delete") and ::test_create_topic_test_arn ("get-topic-attrs": a
topic without one), TestSNSTopicCrudV2::test_data_protection_policy_crud. The whole answer is compared, the JSON
members read.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.durability.service_listings import running

ACCOUNT = "123456789012"
RETRY = {"minDelayTarget": 20, "maxDelayTarget": 20, "numRetries": 3, "numMaxDelayRetries": 0,
         "numNoDelayRetries": 0, "numMinDelayRetries": 0, "backoffFunction": "linear"}
PLAIN = {"headerContentType": "text/plain; charset=UTF-8"}


def attributes(sns, topic: str) -> dict:
    answer = sns.get_topic_attributes(TopicArn=topic)["Attributes"]
    return {name: json.loads(value) if name in ("DeliveryPolicy", "EffectiveDeliveryPolicy", "Policy") else value
            for name, value in answer.items()}


def default_policy(topic: str) -> dict:
    return {"Version": "2008-10-17", "Id": "__default_policy_ID", "Statement": [{
        "Sid": "__default_statement_ID", "Effect": "Allow", "Principal": {"AWS": "*"},
        "Action": ["SNS:GetTopicAttributes", "SNS:SetTopicAttributes", "SNS:AddPermission", "SNS:RemovePermission",
                   "SNS:DeleteTopic", "SNS:Subscribe", "SNS:ListSubscriptionsByTopic", "SNS:Publish"],
        "Resource": topic, "Condition": {"StringEquals": {"AWS:SourceOwner": ACCOUNT}}}]}


def test_a_topic_without_a_delivery_policy_answers_sns_s_effective_one(door):
    sns = door.client("sns")
    topic = sns.create_topic(Name="plain")["TopicArn"]
    assert attributes(sns, topic) == {
        "DisplayName": "", "EffectiveDeliveryPolicy": {"http": {
            "defaultHealthyRetryPolicy": RETRY, "disableSubscriptionOverrides": False, "defaultRequestPolicy": PLAIN}},
        "Owner": ACCOUNT, "Policy": default_policy(topic), "SubscriptionsConfirmed": "0", "SubscriptionsDeleted": "0",
        "SubscriptionsPending": "0", "TopicArn": topic,
    }


def test_a_delivery_policy_through_its_changes_as_aws_recorded_it(door):
    sns = door.client("sns")
    request_policy = {"headerContentType": "application/json"}
    topic = sns.create_topic(Name="topictest.fifo", Attributes={
        "DisplayName": "TestTopic", "SignatureVersion": "2", "FifoTopic": "true",
        "DeliveryPolicy": json.dumps({"http": {"defaultRequestPolicy": request_policy}})})["TopicArn"]
    fixed = {"ContentBasedDeduplication": "false", "DisplayName": "TestTopic", "FifoTopic": "true", "Owner": ACCOUNT,
             "Policy": default_policy(topic), "SignatureVersion": "2", "SubscriptionsConfirmed": "0",
             "SubscriptionsDeleted": "0", "SubscriptionsPending": "0", "TopicArn": topic}

    def effective(retry: dict, request: dict) -> dict:
        return {"http": {"defaultHealthyRetryPolicy": retry, "disableSubscriptionOverrides": False,
                         "defaultRequestPolicy": request}}

    assert attributes(sns, topic) == {  # get-topic-attrs
        **fixed, "DeliveryPolicy": {"http": {"defaultRequestPolicy": request_policy,
                                             "disableSubscriptionOverrides": False}},
        "EffectiveDeliveryPolicy": effective(RETRY, request_policy)}

    given = {"minDelayTarget": 5, "maxDelayTarget": 6, "numRetries": 1}
    sns.set_topic_attributes(TopicArn=topic, AttributeName="DeliveryPolicy",
                             AttributeValue=json.dumps({"http": {"defaultHealthyRetryPolicy": given}}))
    assert attributes(sns, topic) == {  # get-topic-attrs-after-update
        **fixed, "DeliveryPolicy": {"http": {"defaultHealthyRetryPolicy": given, "disableSubscriptionOverrides": False}},
        "EffectiveDeliveryPolicy": effective({**RETRY, **given}, PLAIN)}

    sns.set_topic_attributes(TopicArn=topic, AttributeName="DeliveryPolicy",
                             AttributeValue=json.dumps({"http": {"defaultHealthyRetryPolicy": None}}))
    assert attributes(sns, topic) == {  # get-topic-attrs-after-none
        **fixed, "DeliveryPolicy": {"http": {"disableSubscriptionOverrides": False}},
        "EffectiveDeliveryPolicy": effective(RETRY, PLAIN)}

    sns.set_topic_attributes(TopicArn=topic, AttributeName="DeliveryPolicy", AttributeValue="")
    assert attributes(sns, topic) == {**fixed, "EffectiveDeliveryPolicy": effective(RETRY, PLAIN)}  # after-delete


def test_a_data_protection_policy_is_kept_apart_from_the_attributes(door):
    """TestSNSTopicCrudV2::test_data_protection_policy_crud (recorded 18-12-2025): "put-data-protection-policy" answers
    nothing, "get-data-protection-policy" the policy, and GetTopicAttributes is the same before and after
    ("get-topic-attributes-before-policy", "-after-policy": no member for it). moto had no such operations."""
    sns = door.client("sns")
    topic = sns.create_topic(Name="guarded")["TopicArn"]
    before = attributes(sns, topic)
    policy = {"Name": "data_protection_policy", "Description": "Test Policy", "Version": "2021-06-01", "Statement": [{
        "Sid": "test-statement", "DataDirection": "Inbound", "Principal": ["*"],
        "DataIdentifier": ["arn:aws:dataprotection:us-east-1::data-identifier/EmailAddress"],
        "Operation": {"Deny": {}}}]}
    put = sns.put_data_protection_policy(ResourceArn=topic, DataProtectionPolicy=json.dumps(policy))
    assert set(put) == {"ResponseMetadata"} and put["ResponseMetadata"]["HTTPStatusCode"] == 200
    got = sns.get_data_protection_policy(ResourceArn=topic)
    assert {**got, "ResponseMetadata": None} == {"DataProtectionPolicy": json.dumps(policy), "ResponseMetadata": None}
    assert attributes(sns, topic) == before


@pytest.mark.parametrize("kind", ["inprocess", "server"])
def test_a_restart_keeps_the_data_protection_policy(kind, tmp_path):
    state = str(tmp_path / "state")
    with running(kind, state) as door:
        sns = door.client("sns")
        topic = sns.create_topic(Name="guarded")["TopicArn"]
        sns.put_data_protection_policy(ResourceArn=topic, DataProtectionPolicy='{"Name": "kept"}')
    with running(kind, state) as door:
        assert door.client("sns").get_data_protection_policy(ResourceArn=topic)["DataProtectionPolicy"] == (
            '{"Name": "kept"}')


def test_moto_still_has_no_data_protection_policy():
    """The seam is still needed (asked of a fresh interpreter: no emulator's patches on)."""
    probe = "from moto.sns.responses import SNSResponse as R; print(hasattr(R, 'put_data_protection_policy'))"
    assert subprocess.run([sys.executable, "-c", probe], check=True, capture_output=True, text=True).stdout == "False\n"

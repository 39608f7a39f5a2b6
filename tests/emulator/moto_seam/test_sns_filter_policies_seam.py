"""moto_seam/notifications/filter_policies.py pinned against moto's SNS: the pieces it replaces are still where it
replaces them, moto's own check and matcher still disagree with SNS (so the seam is still needed), moto's own run
again while no emulator is open, and Eddy's matcher survives a snapshot (moto's state is pickled)."""

from __future__ import annotations

import inspect
import json
import pickle

import boto3
from moto import mock_aws
from moto.sns import models as sns_models
from moto.sns.models import SNSBackend, Subscription

from eddy import emulate
from eddy.emulator.moto_seam.notifications import filter_policies
from tests.conftest import QUIET

REGION = "us-east-1"


def test_the_moto_pieces_the_seam_replaces_are_there():
    assert list(inspect.signature(filter_policies.original_validate).parameters) == ["self", "value", "scope"]
    assert list(inspect.signature(filter_policies.original_set_attributes).parameters) == ["self", "arn", "name",
                                                                                              "value"]
    publish = inspect.getsource(Subscription.publish)
    assert "if not self._filter_policy_matcher.matches(message_attributes, message):" in publish
    setting = inspect.getsource(filter_policies.original_set_attributes)
    assert "FilterPolicyMatcher(" in setting and "self._validate_filter_policy(" in setting


def _subscribe(sns, sqs, policy: dict) -> str:
    topic = sns.create_topic(Name="t")["TopicArn"]
    url = sqs.create_queue(QueueName="q")["QueueUrl"]
    arn = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    sns.subscribe(TopicArn=topic, Protocol="sqs", Endpoint=arn,
                  Attributes={"RawMessageDelivery": "true", "FilterPolicy": json.dumps(policy)})
    return topic


def test_moto_alone_still_differs_from_sns_and_runs_again_after_the_emulator_closes():
    """moto's own check takes a policy SNS refuses (anything-but of a suffix: error-condition-anything-but-suffix),
    and its own matcher runs once the emulator is closed."""
    with emulate(**QUIET):
        pass
    assert sns_models.FilterPolicyMatcher is filter_policies.original_matcher  # moto's own again
    with mock_aws():
        sns, sqs = boto3.client("sns", region_name=REGION), boto3.client("sqs", region_name=REGION)
        topic = _subscribe(sns, sqs, {"k": [{"anything-but": {"suffix": "x"}}]})
        [subscription] = [s for backend in sns_models.sns_backends.values() for regional in backend.values()
                          for s in regional.subscriptions.values()]
        assert type(subscription._filter_policy_matcher) is filter_policies.original_matcher
        sns.publish(TopicArn=topic, Message="m", MessageAttributes={"k": {"DataType": "String", "StringValue": "a"}})
        url = sqs.get_queue_url(QueueName="q")["QueueUrl"]
        assert sqs.receive_message(QueueUrl=url).get("Messages", []) == []  # moto's matcher: "a" does not pass


def test_eddys_matcher_is_kept_as_its_policy_and_scope():
    matcher = filter_policies.PolicyMatcher({"total": [{"numeric": [">", 100]}]}, "MessageBody")
    assert matcher.matches(None, json.dumps({"total": 250}))
    restored = pickle.loads(pickle.dumps(matcher))
    assert vars(restored) == {"source": '{"total": [{"numeric": [">", 100]}]}', "scope": "MessageBody",
                              "_policy": None}
    assert (restored.matches(None, json.dumps({"total": 250})), restored.matches(None, json.dumps({"total": 5}))) == (
        True, False)


def test_while_an_emulator_is_open_subscriptions_get_eddys_matcher():
    with emulate(**QUIET):
        sns, sqs = boto3.client("sns", region_name=REGION), boto3.client("sqs", region_name=REGION)
        _subscribe(sns, sqs, {"store": ["value1"]})
        [subscription] = [s for backend in sns_models.sns_backends.values() for regional in backend.values()
                          for s in regional.subscriptions.values()]
        assert isinstance(subscription._filter_policy_matcher, filter_policies.PolicyMatcher)
        assert SNSBackend._validate_filter_policy is not filter_policies.original_validate
    assert SNSBackend._validate_filter_policy is filter_policies.original_validate  # moto's own once it closed

"""moto's SNS errors answered in SNS's words (moto_seam/notifications/sns_errors.py).

AWS's recorded answers: LocalStack's AWS-validated tests/aws/services/sns/test_sns.snapshot.json (localstack/localstack
at 8b9a79f05846), named per check as `<test>/<snapshot key>`; each error compared whole with its status.
"""

from __future__ import annotations

import json

import pytest
from botocore.exceptions import ClientError


def refused(call) -> tuple[dict, int]:
    with pytest.raises(ClientError) as raised:
        call()
    response = dict(raised.value.response)
    status = response.pop("ResponseMetadata")["HTTPStatusCode"]
    error = response.pop("Error")
    assert response == {}  # nothing beside the Error (no second, lowercase message)
    return error, status


def test_unknown_topics_targets_and_subscriptions_answer_as_sns_does(door):
    sns = door.client("sns")
    topic = sns.create_topic(Name="orders")["TopicArn"]
    assert refused(lambda: sns.publish(TopicArn=f"{topic}-fake", Message="This is a test message")) == (
        {"Type": "Sender", "Code": "NotFound", "Message": "Topic does not exist"}, 404)  # test_unknown_topic_publish/error
    target = f"arn:aws:sns:us-east-1:123456789012:endpoint/APNS/platform/{'0' * 36}"
    assert refused(lambda: sns.publish(TargetArn=target, Message="m")) == (  # test_publish_non_existent_target
        {"Type": "Sender", "Code": "InvalidParameter",
         "Message": "Invalid parameter: TargetArn Reason: No endpoint found for the target arn specified"}, 400)
    subscription = f"{topic}:{'a' * 8}-{'b' * 4}-{'c' * 4}-{'d' * 4}-{'e' * 12}"
    gone = {"Type": "Sender", "Code": "NotFound", "Message": "Subscription does not exist"}
    assert refused(lambda: sns.set_subscription_attributes(  # test_not_found_error_on_set_subscription_attributes
        SubscriptionArn=subscription, AttributeName="RawMessageDelivery", AttributeValue="true")) == (gone, 404)
    assert refused(lambda: sns.get_subscription_attributes(SubscriptionArn=subscription)) == (gone, 404)
    assert sns.publish(TopicArn=topic, Message="This is a test message")["MessageId"]  # the topic itself takes it


def test_a_target_arn_that_names_a_topic_publishes_to_the_topic(door):
    """Publish's TargetArn is "Either TopicArn or EndpointArn, but not both" (the SNS API model's documentation of the
    member, as SDKs generated from it carry it: paws.application.integration 0.1.0's sns_publish); only a TargetArn
    neither a topic nor an endpoint has is refused. Before, a topic's ARN given as TargetArn was refused "No endpoint
    found for the target arn specified" (moto publishes it to the topic)."""
    sns, sqs = door.client("sns"), door.client("sqs")
    topic = sns.create_topic(Name="orders")["TopicArn"]
    queue_url = sqs.create_queue(QueueName="subscriber")["QueueUrl"]
    queue = sqs.get_queue_attributes(QueueUrl=queue_url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    sns.subscribe(TopicArn=topic, Protocol="sqs", Endpoint=queue, Attributes={"RawMessageDelivery": "true"})
    answer = sns.publish(TargetArn=topic, Message="hello")
    assert sorted(answer) == ["MessageId", "ResponseMetadata"]
    assert [message["Body"] for message in sqs.receive_message(QueueUrl=queue_url)["Messages"]] == ["hello"]


def test_add_permission_s_refusals_have_sns_s_prefix(door):
    """test_add_permission_errors/duplicate-label and /invalid-action."""
    sns = door.client("sns")
    topic = sns.create_topic(Name="orders")["TopicArn"]
    sns.add_permission(TopicArn=topic, Label="label", AWSAccountId=["111111111111"], ActionName=["Publish"])
    policy = sns.get_topic_attributes(TopicArn=topic)["Attributes"]["Policy"]
    for label, action, message in (("label", "Publish", "Statement already exists"),
                                   ("other", "NotAnAction", "Policy statement action out of service scope!")):
        assert refused(lambda: sns.add_permission(TopicArn=topic, Label=label, AWSAccountId=["111111111111"],
                                                  ActionName=[action])) == (
            {"Type": "Sender", "Code": "InvalidParameter", "Message": f"Invalid parameter: {message}"}, 400)
    assert sns.get_topic_attributes(TopicArn=topic)["Attributes"]["Policy"] == policy


DIFFERENT_ATTRIBUTES = {"Type": "Sender", "Code": "InvalidParameter",
                        "Message": "Invalid parameter: Attributes Reason: Topic already exists with different attributes"}


def test_creating_a_topic_that_exists_takes_its_own_attributes_and_refuses_others(door):
    """test_create_topic_different_attrs (each step) and test_create_duplicate_topic_with_more_tags."""
    sns = door.client("sns")
    topic = sns.create_topic(Name="idempotent", Attributes={"DisplayName": "Value1"})["TopicArn"]
    for attributes in ({}, {"DisplayName": "Value1"}, {"FifoTopic": "false"}):
        assert sns.create_topic(Name="idempotent", Attributes=attributes)["TopicArn"] == topic
    for attributes in ({"DisplayName": "Value2"}, {"SignatureVersion": "2"},
                       {"SignatureVersion": "2", "DisplayName": "Value1"}):
        assert refused(lambda: sns.create_topic(Name="idempotent", Attributes=attributes)) == (
            DIFFERENT_ATTRIBUTES, 400)
    assert refused(lambda: sns.create_topic(Name="idempotent", Tags=[{"Key": "key1", "Value": "value1"}])) == (
        {"Type": "Sender", "Code": "InvalidParameter",
         "Message": "Invalid parameter: Tags Reason: Topic already exists with different tags"}, 400)
    attributes = sns.get_topic_attributes(TopicArn=topic)["Attributes"]
    assert (attributes["DisplayName"], "SignatureVersion" in attributes) == ("Value1", False)
    assert sns.list_tags_for_resource(ResourceArn=topic)["Tags"] == []


def test_creating_a_topic_again_with_some_of_its_tags_answers_the_topic(door):
    """test_create_duplicate_topic_check_idempotency (recorded 13-10-2025): created with two tags, the same name again
    with both, one of them or none answers the topic (its tags unchanged); a tag it does not have, or one of its keys
    with another value, is refused (test_create_duplicate_topic_with_more_tags' words)."""
    sns = door.client("sns")
    tags = [{"Key": "a", "Value": "1"}, {"Key": "b", "Value": "2"}]
    topic = sns.create_topic(Name="tagged", Tags=tags)["TopicArn"]
    for given in (tags, [tags[0]], []):
        assert sns.create_topic(Name="tagged", Tags=given)["TopicArn"] == topic
    for given in ([{"Key": "c", "Value": "3"}], [{"Key": "a", "Value": "2"}], [*tags, {"Key": "c", "Value": "3"}]):
        assert refused(lambda: sns.create_topic(Name="tagged", Tags=given)) == (
            {"Type": "Sender", "Code": "InvalidParameter",
             "Message": "Invalid parameter: Tags Reason: Topic already exists with different tags"}, 400)
    assert sorted(sns.list_tags_for_resource(ResourceArn=topic)["Tags"], key=lambda tag: tag["Key"]) == tags


def test_creating_a_topic_again_with_its_own_policy_answers_the_topic(door):
    """CreateTopic "is idempotent, so if the requester already owns a topic with the specified name, that topic's ARN
    is returned without creating a new topic" (the SNS API Reference, CreateTopic): given again with the Policy it was
    made with, the topic is answered; with another Policy, refused as other attributes are. Before, the topic's own
    Policy was refused too (compared as text with the policy moto answers, written anew)."""
    sns = door.client("sns")
    statement = {"Sid": "publishers", "Effect": "Allow", "Principal": {"AWS": "*"}, "Action": "SNS:Publish",
                 "Resource": "arn:aws:sns:us-east-1:123456789012:guarded"}
    policy = json.dumps({"Version": "2012-10-17", "Statement": [statement]})
    topic = sns.create_topic(Name="guarded", Attributes={"Policy": policy})["TopicArn"]
    assert sns.create_topic(Name="guarded", Attributes={"Policy": policy})["TopicArn"] == topic
    other = json.dumps({"Version": "2012-10-17", "Statement": [{**statement, "Sid": "others"}]})
    assert refused(lambda: sns.create_topic(Name="guarded", Attributes={"Policy": other})) == (
        DIFFERENT_ATTRIBUTES, 400)
    assert json.loads(sns.get_topic_attributes(TopicArn=topic)["Attributes"]["Policy"]) == json.loads(policy)


def test_subscribing_an_endpoint_again_takes_its_own_attributes_and_refuses_others(door):
    """test_subscribe_idempotency: each repeated Subscribe answers the same subscription; the last is refused."""
    sns, sqs = door.client("sns"), door.client("sqs")
    topic = sns.create_topic(Name="orders")["TopicArn"]
    queue_url = sqs.create_queue(QueueName="subscriber")["QueueUrl"]
    queue = sqs.get_queue_attributes(QueueUrl=queue_url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]

    def subscribe(**attributes):
        return sns.subscribe(TopicArn=topic, Protocol="sqs", Endpoint=queue, ReturnSubscriptionArn=True,
                             **({"Attributes": attributes} if attributes else {}))

    subscription = subscribe(RawMessageDelivery="True")["SubscriptionArn"]
    for attributes in ({"RawMessageDelivery": "true"},
                       {"RawMessageDelivery": "true", "FilterPolicyScope": "MessageAttributes"}, {},
                       {"FilterPolicyScope": "MessageAttributes"}):
        assert subscribe(**attributes)["SubscriptionArn"] == subscription
    assert refused(lambda: subscribe(RawMessageDelivery="false", FilterPolicyScope="MessageBody")) == (
        {"Type": "Sender", "Code": "InvalidParameter",
         "Message": "Invalid parameter: Attributes Reason: Subscription already exists with different attributes"},
        400)
    assert sns.get_subscription_attributes(SubscriptionArn=subscription)["Attributes"]["RawMessageDelivery"] == "true"

"""AWS::SNS::Subscription's Region (both doors). What CloudFormation does with it:
- the type's registry schema (cfn-lint's copy of CloudFormation's published schemas,
  src/cfnlint/data/schemas/providers/us_east_1/aws-sns-subscription.json) lists createOnlyProperties Endpoint,
  Protocol and TopicArn, not Region, and the type's reference says of Region "Update requires: No interruption"
  (the resource specification: UpdateType Mutable): a Region change does not replace the subscription;
- the same reference: "If you perform an update operation that only updates the Region property of a
  AWS::SNS::Subscription resource, that operation will fail unless you are either: Updating the Region from NULL to
  the caller region. Updating the Region from the caller region to NULL." The resource handler's check
  (aws-cloudformation-resource-providers-sns pull request #78, UpdateHandler.validateRegionUpdate) compares the old
  and new Region, each defaulting to the request's region, and throws CfnNotUpdatableException(type, new Region):
  the handler's words "Resource of type '%s' with identifier '%s' is not updatable with parameters provided."
  with HandlerErrorCode NotUpdatable;
- "If no region is specified, CloudFormation uses the region of the caller as the default": a cross-region
  subscription (Region naming the topic's region) is made in the topic's region."""

from __future__ import annotations

import re

from tests.emulator.cloudformation.helpers import events, outputs

TEMPLATE = """
Parameters:
  TopicArn: {Type: String}
  Region: {Type: String, Default: ''}
Conditions:
  HasRegion: !Not [!Equals [!Ref Region, '']]
Resources:
  Inbox: {Type: AWS::SQS::Queue}
  Subscription:
    Type: AWS::SNS::Subscription
    Properties:
      TopicArn: !Ref TopicArn
      Protocol: sqs
      Endpoint: !GetAtt Inbox.Arn
      RawMessageDelivery: true
      Region: !If [HasRegion, !Ref Region, !Ref AWS::NoValue]
Outputs:
  Subscription: {Value: !Ref Subscription}
  Inbox: {Value: !Ref Inbox}
"""


def _deploy(cloudformation, verb: str, topic_arn: str, region: str = "") -> str:
    getattr(cloudformation, f"{verb}_stack")(StackName="subscribed", TemplateBody=TEMPLATE, Parameters=[
        {"ParameterKey": "TopicArn", "ParameterValue": topic_arn},
        {"ParameterKey": "Region", "ParameterValue": region}])
    return cloudformation.describe_stacks(StackName="subscribed")["Stacks"][0]["StackStatus"]


def _subscription_events(cloudformation) -> list[tuple[str, str | None]]:
    return [(status, reason) for logical_id, _, status, reason in events(cloudformation, "subscribed")
            if logical_id == "Subscription"]


def test_a_region_change_from_none_to_the_stacks_region_is_in_place_and_to_another_fails(door):
    cloudformation, sns = door.client("cloudformation"), door.client("sns")
    topic = sns.create_topic(Name="notes")["TopicArn"]
    assert _deploy(cloudformation, "create", topic) == "CREATE_COMPLETE"
    first = outputs(cloudformation, "subscribed")["Subscription"]

    assert _deploy(cloudformation, "update", topic, "us-east-1") == "UPDATE_COMPLETE"  # none -> the stack's region
    assert outputs(cloudformation, "subscribed")["Subscription"] == first  # in place, not replaced
    assert _subscription_events(cloudformation)[-2:] == [("UPDATE_IN_PROGRESS", None), ("UPDATE_COMPLETE", None)]
    assert _deploy(cloudformation, "update", topic) == "UPDATE_COMPLETE"  # and back to none
    assert outputs(cloudformation, "subscribed")["Subscription"] == first

    assert _deploy(cloudformation, "update", topic, "eu-west-1") == "UPDATE_ROLLBACK_COMPLETE"
    (failed, reason), = [entry for entry in _subscription_events(cloudformation) if entry[0] == "UPDATE_FAILED"]
    assert re.fullmatch(
        re.escape("Resource handler returned message: \"Resource of type 'AWS::SNS::Subscription' with identifier "
                  "'eu-west-1' is not updatable with parameters provided.\" (RequestToken: ") + r"[0-9a-f-]{36}"
        + re.escape(", HandlerErrorCode: NotUpdatable)"), reason), reason
    # nothing changed: the one subscription, still delivering raw messages to the stack's queue
    assert [entry["SubscriptionArn"] for entry in sns.list_subscriptions()["Subscriptions"]] == [first]
    sns.publish(TopicArn=topic, Message="still here")
    sqs = door.client("sqs")
    received = sqs.receive_message(QueueUrl=outputs(cloudformation, "subscribed")["Inbox"], WaitTimeSeconds=20)
    assert [message["Body"] for message in received["Messages"]] == ["still here"]


def test_a_cross_region_subscription_is_made_and_deleted_in_its_topics_region(door):
    cloudformation = door.client("cloudformation")
    abroad = door.client("sns", region="eu-west-1")
    topic = abroad.create_topic(Name="abroad")["TopicArn"]
    assert _deploy(cloudformation, "create", topic, "eu-west-1") == "CREATE_COMPLETE"
    arn = outputs(cloudformation, "subscribed")["Subscription"]
    assert arn.startswith(f"{topic}:")
    assert abroad.get_subscription_attributes(SubscriptionArn=arn)["Attributes"]["RawMessageDelivery"] == "true"
    assert [(entry["SubscriptionArn"], entry["Protocol"]) for entry in
            abroad.list_subscriptions_by_topic(TopicArn=topic)["Subscriptions"]] == [(arn, "sqs")]
    assert door.client("sns").list_subscriptions()["Subscriptions"] == []  # none in the stack's region
    cloudformation.delete_stack(StackName="subscribed")
    assert abroad.list_subscriptions_by_topic(TopicArn=topic)["Subscriptions"] == []

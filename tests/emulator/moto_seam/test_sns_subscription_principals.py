"""A subscription's attributes name who subscribed: SubscriptionPrincipal, as AWS answers GetSubscriptionAttributes.

AWS's recorded answer: LocalStack's AWS-validated tests/aws/services/sns/test_sns.snapshot.json (commit
8b9a79f05846835cf4dff63ab7eefdde9df83783), TestSNSSubscriptionSQS::test_subscribe_sqs_queue, "subscription-attributes":
every attribute below, SubscriptionPrincipal "arn:<partition>:iam::111111111111:user/<resource:3>" (the subscribing
user, in IAM's form). Eddy's subscriber with keys IAM does not know is moto's STS user `moto`.
"""

from __future__ import annotations

import json

import boto3

ACCOUNT = "123456789012"


def test_a_subscriptions_attributes_are_aws_recorded_ones_with_its_principal(door):
    sns, sqs = door.client("sns"), door.client("sqs")
    topic = sns.create_topic(Name="principal-topic")["TopicArn"]
    queue_url = sqs.create_queue(QueueName="principal-queue")["QueueUrl"]
    queue = sqs.get_queue_attributes(QueueUrl=queue_url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    subscription = sns.subscribe(TopicArn=topic, Protocol="sqs", Endpoint=queue)["SubscriptionArn"]
    policy = {"attr1": [{"numeric": [">", 0, "<=", 100]}]}
    sns.set_subscription_attributes(
        SubscriptionArn=subscription, AttributeName="FilterPolicy", AttributeValue=json.dumps(policy)
    )

    attributes = sns.get_subscription_attributes(SubscriptionArn=subscription)["Attributes"]
    assert json.loads(attributes.pop("FilterPolicy")) == policy
    assert attributes == {
        "ConfirmationWasAuthenticated": "true",
        "Endpoint": queue,
        "FilterPolicyScope": "MessageAttributes",
        "Owner": ACCOUNT,
        "PendingConfirmation": "false",
        "Protocol": "sqs",
        "RawMessageDelivery": "false",
        "SubscriptionArn": subscription,
        "SubscriptionPrincipal": f"arn:aws:iam::{ACCOUNT}:user/moto",
        "TopicArn": topic,
    }


def test_an_http_subscription_pending_confirmation_has_its_principal_too(door):
    sns = door.client("sns")
    topic = sns.create_topic(Name="principal-http")["TopicArn"]
    answer = sns.subscribe(TopicArn=topic, Protocol="http", Endpoint="http://127.0.0.1:9/nowhere",
                           ReturnSubscriptionArn=True)
    attributes = sns.get_subscription_attributes(SubscriptionArn=answer["SubscriptionArn"])["Attributes"]
    assert (attributes["PendingConfirmation"], attributes["SubscriptionPrincipal"]) == (
        "true", f"arn:aws:iam::{ACCOUNT}:user/moto",
    )


def test_the_principal_of_a_role_is_the_assumed_roles_as_sts_names_it(door):
    sts = door.client("sts")
    role = door.client("iam").create_role(RoleName="subscriber", AssumeRolePolicyDocument="{}")["Role"]["Arn"]
    credentials = sts.assume_role(RoleArn=role, RoleSessionName="s1")["Credentials"]
    as_role = boto3.client("sns", region_name="us-east-1", aws_access_key_id=credentials["AccessKeyId"],
                           aws_secret_access_key=credentials["SecretAccessKey"],
                           aws_session_token=credentials["SessionToken"],
                           **({"endpoint_url": door.url} if door.name == "server" else {}))
    topic = as_role.create_topic(Name="principal-role")["TopicArn"]
    subscription = as_role.subscribe(TopicArn=topic, Protocol="sqs",
                                     Endpoint=f"arn:aws:sqs:us-east-1:{ACCOUNT}:gone")["SubscriptionArn"]
    attributes = as_role.get_subscription_attributes(SubscriptionArn=subscription)["Attributes"]
    assert attributes["SubscriptionPrincipal"] == f"arn:aws:sts::{ACCOUNT}:assumed-role/subscriber/s1"

"""The links in an SNS notification are on the endpoint the client used, and following them works.

AWS's notification names SigningCertURL and UnsubscribeURL on the SNS endpoint the topic is in (LocalStack's
AWS-recorded snapshots, tests/aws/services/sns/test_sns.snapshot.json, test_publish_sqs_from_sns:
"SigningCertURL": "https://sns.<region>.amazonaws.com/SimpleNotificationService-<signing-cert-file>",
"UnsubscribeURL": "https://sns.<region>.amazonaws.com/?Action=Unsubscribe&SubscriptionArn=<subscription-arn>");
the Developer Guide ("Parsing message formats"): UnsubscribeURL is "the URL that you can use to unsubscribe the
endpoint from this topic. If you visit this URL, Amazon SNS unsubscribes the endpoint". On `eddy serve` both are on
the server's URL; in-process on AWS's host, which the mock answers.
"""

from __future__ import annotations

import json

import requests
from cryptography import x509

REGION = "us-east-1"


def endpoint(door) -> str:
    return door.url if door.name == "server" else f"https://sns.{REGION}.amazonaws.com"


def subscribed_queue(door) -> tuple[str, str, str]:
    sns, sqs = door.client("sns"), door.client("sqs")
    topic_arn = sns.create_topic(Name="orders")["TopicArn"]
    queue_url = sqs.create_queue(QueueName="subscriber")["QueueUrl"]
    queue_arn = sqs.get_queue_attributes(QueueUrl=queue_url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    subscription = sns.subscribe(TopicArn=topic_arn, Protocol="sqs", Endpoint=queue_arn)["SubscriptionArn"]
    return topic_arn, queue_url, subscription


def published(door, topic_arn: str, queue_url: str) -> dict:
    door.client("sns").publish(TopicArn=topic_arn, Message="test message")
    messages = door.client("sqs").receive_message(QueueUrl=queue_url)["Messages"]  # moto delivers within Publish
    return json.loads(messages[0]["Body"])


def test_a_notifications_links_are_on_the_endpoint(door):
    topic_arn, queue_url, subscription = subscribed_queue(door)
    body = published(door, topic_arn, queue_url)
    certificate = body["SigningCertURL"][len(endpoint(door)) + 1:]
    assert body["SigningCertURL"] == f"{endpoint(door)}/{certificate}"
    assert certificate.startswith("SimpleNotificationService-") and certificate.endswith(".pem")
    assert body["UnsubscribeURL"] == f"{endpoint(door)}/?Action=Unsubscribe&SubscriptionArn={subscription}"


def test_the_signing_certificate_is_served_at_its_url(door):
    body = published(door, *subscribed_queue(door)[:2])
    answer = requests.get(body["SigningCertURL"], timeout=60)
    assert answer.status_code == 200
    x509.load_pem_x509_certificate(answer.content)  # raises if it is not a PEM certificate


def test_following_the_unsubscribe_url_unsubscribes(door):
    topic_arn, queue_url, subscription = subscribed_queue(door)
    sns = door.client("sns")
    kept = sns.subscribe(TopicArn=topic_arn, Protocol="sqs", Endpoint=door.client("sqs").get_queue_attributes(
        QueueUrl=door.client("sqs").create_queue(QueueName="other")["QueueUrl"],
        AttributeNames=["QueueArn"])["Attributes"]["QueueArn"])["SubscriptionArn"]
    body = published(door, topic_arn, queue_url)
    answer = requests.get(body["UnsubscribeURL"], timeout=60)
    assert answer.status_code == 200
    assert b"<UnsubscribeResponse" in answer.content
    assert [entry["SubscriptionArn"] for entry in sns.list_subscriptions()["Subscriptions"]] == [kept]
    sns.publish(TopicArn=topic_arn, Message="after")
    assert door.client("sqs").receive_message(QueueUrl=queue_url, WaitTimeSeconds=0).get("Messages", []) == []

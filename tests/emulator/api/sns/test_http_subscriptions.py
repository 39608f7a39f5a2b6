"""An HTTP subscription as SNS runs it, in both doors: pending until its endpoint confirms it, then notified.

Sources: LocalStack's AWS-validated tests/aws/services/sns/test_sns.py and its snapshot (test_sns.snapshot.json):
TestSNSSubscriptionHttp::test_subscribe_external_http_endpoint[True|False] (the SubscriptionConfirmation's members
and headers, the SubscribeURL's form, its refusals, the notification's headers raw and not, the
UnsubscribeConfirmation), ::test_http_subscription_response ("pending confirmation" unless ReturnSubscriptionArn),
::test_subscribe_external_http_endpoint_content_type (PendingConfirmation "true", ConfirmationWasAuthenticated
"false", the delivery policy's Content-Type), TestSNSSubscriptionCrud::test_sns_confirm_subscription_wrong_token;
Amazon SNS Developer Guide, "HTTP/HTTPS subscription confirmation JSON format" (the document and its layout) and
the API reference's ListSubscriptions ("PendingConfirmation" for a pending subscription's ARN).
"""

from __future__ import annotations

import json
import re
from typing import Iterator

import pytest
import requests
from botocore.exceptions import ClientError

from tests.emulator.notifications.test_s3_notifications import FORWARDER, wait_for_messages
from tests.emulator.trigger_helpers import create_zip_function, wait_idle

from .http_endpoint import Endpoint

REGION = "us-east-1"
CONFIRMATION_MEMBERS = ["Type", "MessageId", "Token", "TopicArn", "Message", "SubscribeURL", "Timestamp",
                        "SignatureVersion", "Signature", "SigningCertURL"]
AGENT = {"Content-Type": "text/plain; charset=UTF-8", "User-Agent": "Amazon Simple Notification Service Agent",
         "Accept-Encoding": "gzip,deflate"}


@pytest.fixture
def endpoint() -> Iterator[Endpoint]:
    with Endpoint() as served:
        yield served


def links(door) -> str:
    return door.url if door.name == "server" else f"https://sns.{REGION}.amazonaws.com"


def sns_headers(headers: dict[str, str]) -> dict[str, str]:
    """The headers SNS sets (the HTTP client's own, Host, Content-Length and Connection, left out)."""
    kept = ("x-amz-sns-", "content-type", "user-agent", "accept-encoding")
    return {name: value for name, value in headers.items() if name.startswith(kept)}


def subscribe(door, endpoint: Endpoint) -> tuple[str, str, dict]:
    """A topic, the endpoint subscribed to it: (topic ARN, subscription ARN, the confirmation's headers and body)."""
    sns = door.client("sns")
    topic_arn = sns.create_topic(Name="orders")["TopicArn"]
    assert sns.subscribe(TopicArn=topic_arn, Protocol="http", Endpoint=endpoint.url)["SubscriptionArn"] == (
        "pending confirmation")
    arn = sns.subscribe(TopicArn=topic_arn, Protocol="http", Endpoint=endpoint.url,
                        ReturnSubscriptionArn=True)["SubscriptionArn"]
    [(headers, body)] = endpoint.wait_for(1)
    return topic_arn, arn, {"headers": headers, "body": body}


def test_an_http_subscription_is_pending_until_confirmed_and_then_notified(door, endpoint):
    sns = door.client("sns")
    topic_arn, arn, confirmation = subscribe(door, endpoint)
    assert re.fullmatch(rf"{topic_arn}:[0-9a-f-]{{36}}", arn)
    document = json.loads(confirmation["body"])
    token = document["Token"]
    assert re.fullmatch(r"[0-9a-f]{288}", token)
    assert list(document) == CONFIRMATION_MEMBERS
    assert document == {
        "Type": "SubscriptionConfirmation", "MessageId": document["MessageId"], "Token": token, "TopicArn": topic_arn,
        "Message": f"You have chosen to subscribe to the topic {topic_arn}.\n"
                   "To confirm the subscription, visit the SubscribeURL included in this message.",
        "SubscribeURL": f"{links(door)}/?Action=ConfirmSubscription&TopicArn={topic_arn}&Token={token}",
        "Timestamp": document["Timestamp"], "SignatureVersion": "1", "Signature": document["Signature"],
        "SigningCertURL": document["SigningCertURL"]}
    assert document["SigningCertURL"].startswith(f"{links(door)}/SimpleNotificationService-")
    assert confirmation["body"].decode().startswith('{\n  "Type" : "SubscriptionConfirmation",\n')
    assert sns_headers(confirmation["headers"]) == {
        "x-amz-sns-message-type": "SubscriptionConfirmation", "x-amz-sns-message-id": document["MessageId"],
        "x-amz-sns-topic-arn": topic_arn, **{name.lower(): value for name, value in AGENT.items()}}

    attributes = sns.get_subscription_attributes(SubscriptionArn=arn)["Attributes"]
    assert (attributes["PendingConfirmation"], attributes["ConfirmationWasAuthenticated"]) == ("true", "false")
    assert sns.list_subscriptions()["Subscriptions"] == [{
        "SubscriptionArn": "PendingConfirmation", "Owner": attributes["Owner"], "Protocol": "http",
        "Endpoint": endpoint.url, "TopicArn": topic_arn}]
    sns.publish(TopicArn=topic_arn, Message="before confirmation")  # a pending subscription gets nothing

    assert sns.confirm_subscription(TopicArn=topic_arn, Token=token)["SubscriptionArn"] == arn
    assert sns.confirm_subscription(TopicArn=topic_arn, Token=token)["SubscriptionArn"] == arn  # again: the same
    attributes = sns.get_subscription_attributes(SubscriptionArn=arn)["Attributes"]
    assert (attributes["PendingConfirmation"], attributes["ConfirmationWasAuthenticated"]) == ("false", "true")
    assert [s["SubscriptionArn"] for s in sns.list_subscriptions_by_topic(TopicArn=topic_arn)["Subscriptions"]] == [arn]

    sns.publish(TopicArn=topic_arn, Message="test_external_http_endpoint")
    headers, body = endpoint.wait_for(2)[1]
    notification = json.loads(body)
    assert (notification["Type"], notification["Message"]) == ("Notification", "test_external_http_endpoint")
    assert notification["UnsubscribeURL"] == f"{links(door)}/?Action=Unsubscribe&SubscriptionArn={arn}"
    assert sns_headers(headers) == {
        "x-amz-sns-message-type": "Notification", "x-amz-sns-message-id": notification["MessageId"],
        "x-amz-sns-topic-arn": topic_arn, "x-amz-sns-subscription-arn": arn,
        **{name.lower(): value for name, value in AGENT.items()}}

    sns.unsubscribe(SubscriptionArn=arn)
    headers, body = endpoint.wait_for(3)[2]
    farewell = json.loads(body)
    assert list(farewell) == CONFIRMATION_MEMBERS
    assert (farewell["Type"], farewell["TopicArn"], farewell["Message"]) == (
        "UnsubscribeConfirmation", topic_arn,
        f"You have chosen to deactivate subscription {arn}.\n"
        "To cancel this operation and restore the subscription, visit the SubscribeURL included in this message.")
    assert farewell["SubscribeURL"] == (
        f"{links(door)}/?Action=ConfirmSubscription&TopicArn={topic_arn}&Token={farewell['Token']}")
    assert sns_headers(headers) == {
        "x-amz-sns-message-type": "UnsubscribeConfirmation", "x-amz-sns-message-id": farewell["MessageId"],
        "x-amz-sns-topic-arn": topic_arn, "x-amz-sns-subscription-arn": arn,
        **{name.lower(): value for name, value in AGENT.items()}}
    assert len(endpoint.received) == 3  # the notification published while pending never came


def test_confirm_subscription_refuses_as_sns_does_and_confirms_nothing(door, endpoint):
    sns = door.client("sns")
    topic_arn, arn, confirmation = subscribe(door, endpoint)
    token = json.loads(confirmation["body"])["Token"]
    elsewhere = topic_arn.replace(f":{REGION}:", ":eu-central-1:")
    for topic, given, message in [("not-an-arn", token, "Invalid parameter: Topic"),
                                  (elsewhere, token, "Invalid parameter: Topic"),
                                  (topic_arn, "randomtoken", "Invalid token"),
                                  (topic_arn, "abc123", "Invalid parameter: Token")]:
        with pytest.raises(ClientError) as refused:
            sns.confirm_subscription(TopicArn=topic, Token=given)
        assert (refused.value.response["Error"], refused.value.response["ResponseMetadata"]["HTTPStatusCode"]) == (
            {"Type": "Sender", "Code": "InvalidParameter", "Message": message}, 400)
    assert sns.get_subscription_attributes(SubscriptionArn=arn)["Attributes"]["PendingConfirmation"] == "true"
    # a topic of the region that does not exist: the token's own subscription is confirmed (recorded on AWS)
    assert sns.confirm_subscription(TopicArn=topic_arn + "x", Token=token)["SubscriptionArn"] == arn
    assert sns.get_subscription_attributes(SubscriptionArn=arn)["Attributes"]["PendingConfirmation"] == "false"


def test_visiting_the_subscribe_url_confirms_and_raw_delivery_posts_the_message_itself(door, endpoint):
    sns = door.client("sns")
    topic_arn, arn, confirmation = subscribe(door, endpoint)
    document = json.loads(confirmation["body"])
    broken = document["SubscribeURL"].replace(f"Token={document['Token']}", "Token=abc123")
    refused = requests.get(broken, timeout=60)
    assert (refused.status_code, re.search(rb"<Message>(.*)</Message>", refused.content).group(1)) == (
        400, b"Invalid parameter: Token")
    answer = requests.get(document["SubscribeURL"], timeout=60)
    assert answer.status_code == 200
    assert re.search(rb"<ConfirmSubscriptionResult><SubscriptionArn>(.*)</SubscriptionArn>", answer.content).group(1) == (
        arn.encode())
    sns.set_subscription_attributes(SubscriptionArn=arn, AttributeName="RawMessageDelivery", AttributeValue="true")
    sns.set_subscription_attributes(SubscriptionArn=arn, AttributeName="DeliveryPolicy", AttributeValue=json.dumps(
        {"requestPolicy": {"headerContentType": "text/csv"}}))
    published = sns.publish(TopicArn=topic_arn, Message="a,b,c")
    headers, body = endpoint.wait_for(2)[1]
    assert body == b"a,b,c"
    assert sns_headers(headers) == {
        "x-amz-sns-message-type": "Notification", "x-amz-sns-message-id": published["MessageId"],
        "x-amz-sns-topic-arn": topic_arn, "x-amz-sns-subscription-arn": arn, "x-amz-sns-rawdelivery": "true",
        "content-type": "text/csv", "user-agent": AGENT["User-Agent"], "accept-encoding": AGENT["Accept-Encoding"]}


@pytest.mark.parametrize("protocol", ["email", "email-json"])
def test_an_email_subscription_stays_pending_as_one_nobody_confirms(door, protocol):
    """LocalStack's AWS-validated test_sns.py at 8b9a79f05846, TestSNSPublishCrud::test_publish_no_confirm_subscription:
    an email subscription not confirmed is listed with "PendingConfirmation" for its ARN (as AWS answered it); Subscribe
    answers "pending confirmation" (test_sns.snapshot.json, TestSNSSubscriptionCrudV2::test_creating_subscription, an
    HTTP one's), and Publish to its topic is still answered. Before, moto confirmed it at once."""
    sns = door.client("sns")
    topic = sns.create_topic(Name="mailing")["TopicArn"]
    assert sns.subscribe(TopicArn=topic, Protocol=protocol, Endpoint="someone@example.com")["SubscriptionArn"] == (
        "pending confirmation")
    arn = sns.subscribe(TopicArn=topic, Protocol=protocol, Endpoint="someone@example.com",
                        ReturnSubscriptionArn=True)["SubscriptionArn"]
    assert [(entry["SubscriptionArn"], entry["Protocol"]) for entry in sns.list_subscriptions()["Subscriptions"]] == [
        ("PendingConfirmation", protocol)]
    assert [entry["SubscriptionArn"] for entry in sns.list_subscriptions_by_topic(TopicArn=topic)["Subscriptions"]] == [
        "PendingConfirmation"]
    attributes = sns.get_subscription_attributes(SubscriptionArn=arn)["Attributes"]
    assert (attributes["PendingConfirmation"], attributes["ConfirmationWasAuthenticated"]) == ("true", "false")
    assert "MessageId" in sns.publish(TopicArn=topic, Message="to nobody")


def test_a_public_function_url_subscribed_over_http_gets_snss_confirmation(door):
    """A function URL as an HTTP subscriber (LocalStack's AWS-validated
    TestSNSSubscriptionHttp::test_subscribe_external_http_endpoint_lambda_url_sig_validation, recorded 24-01-2025): its
    AuthType NONE URL answers SNS's POSTs only once its policy allows everyone both lambda:InvokeFunctionUrl and
    lambda:InvokeFunction ("Starting in October 2025, new function URLs will require both", Lambda Developer Guide,
    urls-auth.html; that test grants the first only, so its URL now refuses SNS with 403, which SNS counts as
    delivered and does not retry). With both, the SubscriptionConfirmation reaches the function as a function URL
    event with SNS's headers and document."""
    sns, sqs, lam = door.client("sns"), door.client("sqs"), door.client("lambda")
    inbox = sqs.create_queue(QueueName="inbox")["QueueUrl"]
    create_zip_function(lam, "endpoint", "python", FORWARDER, Environment={"Variables": {"QUEUE_URL": inbox}})
    url = lam.create_function_url_config(FunctionName="endpoint", AuthType="NONE")["FunctionUrl"]
    lam.add_permission(FunctionName="endpoint", StatementId="url", Action="lambda:InvokeFunctionUrl", Principal="*",
                       FunctionUrlAuthType="NONE")
    refused = sns.create_topic(Name="refused")["TopicArn"]
    sns.subscribe(TopicArn=refused, Protocol="http", Endpoint=url)
    assert wait_idle(door)["Idle"]
    assert sqs.receive_message(QueueUrl=inbox).get("Messages", []) == []  # the function did not run

    lam.add_permission(FunctionName="endpoint", StatementId="invoke", Action="lambda:InvokeFunction", Principal="*",
                       InvokedViaFunctionUrl=True)
    topic = sns.create_topic(Name="hooks")["TopicArn"]
    sns.subscribe(TopicArn=topic, Protocol="http", Endpoint=url)
    [event] = wait_for_messages(sqs, inbox, 1)
    document = json.loads(event["body"])
    assert (event["requestContext"]["http"]["method"], document["Type"], document["TopicArn"]) == (
        "POST", "SubscriptionConfirmation", topic)
    assert sns_headers(event["headers"]) == {
        "x-amz-sns-message-type": "SubscriptionConfirmation", "x-amz-sns-message-id": document["MessageId"],
        "x-amz-sns-topic-arn": topic, **{name.lower(): value for name, value in AGENT.items()}}
    sns.confirm_subscription(TopicArn=topic, Token=document["Token"])
    message_id = sns.publish(TopicArn=topic, Message="test_external_http_endpoint")["MessageId"]
    [notification] = wait_for_messages(sqs, inbox, 1)
    assert (json.loads(notification["body"])["Message"], notification["headers"]["x-amz-sns-message-id"]) == (
        "test_external_http_endpoint", message_id)

"""SNS subscriptions through both doors: a function subscribed to a topic gets Lambda's SNS event (Python and
Node.js), filter policies on message attributes and on the body, and a queue subscription (raw or enveloped)
feeding a function through a queue mapping."""

from __future__ import annotations

import json

import pytest

from tests.emulator.notifications.test_s3_notifications import FORWARDER, wait_for_messages
from tests.emulator.trigger_helpers import create_zip_function, wait_idle
from tests.emulator.triggers.sqs_helpers import delivered, queue, queue_with_reporter

NODE_FORWARDER = """
const { SQSClient, SendMessageCommand } = require('@aws-sdk/client-sqs');
const sqs = new SQSClient({ useQueueUrlAsEndpoint: false });
exports.handler = async (event) => {
  await sqs.send(new SendMessageCommand({ QueueUrl: process.env.QUEUE_URL, MessageBody: JSON.stringify(event) }));
};
"""


@pytest.mark.parametrize("runtime", ["python", "node"])
def test_a_subscribed_function_gets_lambdas_sns_event_for_what_its_filter_policy_matches(door, runtime):
    sns, sqs, lam = door.client("sns"), door.client("sqs"), door.client("lambda")
    inbox, _ = queue(sqs, "inbox")
    function_arn = create_zip_function(lam, "forwarder", runtime, FORWARDER if runtime == "python" else NODE_FORWARDER,
                                       Environment={"Variables": {"QUEUE_URL": inbox}})["FunctionArn"]
    topic = sns.create_topic(Name="orders")["TopicArn"]
    by_attribute = sns.subscribe(TopicArn=topic, Protocol="lambda", Endpoint=function_arn, ReturnSubscriptionArn=True,
                                 Attributes={"FilterPolicy": json.dumps({"kind": ["placed"]})})["SubscriptionArn"]
    sns.publish(TopicArn=topic, Message="order 1", Subject="new order",
                MessageAttributes={"kind": {"DataType": "String", "StringValue": "placed"}})
    sns.publish(TopicArn=topic, Message="order 2", MessageAttributes={"kind": {"DataType": "String", "StringValue": "void"}})
    [event] = wait_for_messages(sqs, inbox, 1)
    [record] = event["Records"]
    assert (record["EventVersion"], record["EventSource"], record["EventSubscriptionArn"]) == ("1.0", "aws:sns", by_attribute)
    message = record["Sns"]
    assert set(message) == {"SignatureVersion", "Timestamp", "Signature", "SigningCertUrl", "MessageId", "Message",
                            "MessageAttributes", "Type", "UnsubscribeUrl", "TopicArn", "Subject"}
    assert (message["Type"], message["TopicArn"], message["Message"], message["Subject"]) == (
        "Notification", topic, "order 1", "new order")
    assert message["MessageAttributes"] == {"kind": {"Type": "String", "Value": "placed"}}
    assert message["UnsubscribeUrl"].endswith(f"SubscriptionArn={by_attribute}")

    sns.unsubscribe(SubscriptionArn=by_attribute)
    sns.subscribe(TopicArn=topic, Protocol="lambda", Endpoint=function_arn,
                  Attributes={"FilterPolicyScope": "MessageBody", "FilterPolicy": json.dumps({"total": [{"numeric": [">", 100]}]})})
    sns.publish(TopicArn=topic, Message=json.dumps({"total": 20}))
    sns.publish(TopicArn=topic, Message=json.dumps({"total": 250}))
    [event] = wait_for_messages(sqs, inbox, 1)
    assert json.loads(event["Records"][0]["Sns"]["Message"]) == {"total": 250}
    assert event["Records"][0]["Sns"]["Subject"] is None and event["Records"][0]["Sns"]["MessageAttributes"] == {}


def test_a_topic_fans_out_to_a_queue_that_feeds_a_function(door):
    env = queue_with_reporter(door, name="fanout")
    sns = door.client("sns")
    topic = sns.create_topic(Name="events")["TopicArn"]
    sns.subscribe(TopicArn=topic, Protocol="sqs", Endpoint=env["arn"], Attributes={"RawMessageDelivery": "true"})
    _, enveloped_arn = queue(env["sqs"], "enveloped")
    sns.subscribe(TopicArn=topic, Protocol="sqs", Endpoint=enveloped_arn)
    env["lambda"].create_event_source_mapping(EventSourceArn=env["arn"], FunctionName="reporter")
    sns.publish(TopicArn=topic, Message="raw body")
    assert wait_idle(door)["Idle"]
    assert [r["body"] for batch in delivered(env["sqs"], env["deliveries"]) for r in batch] == ["raw body"]
    enveloped = env["sqs"].get_queue_url(QueueName="enveloped")["QueueUrl"]
    [envelope] = wait_for_messages(env["sqs"], enveloped, 1)
    assert (envelope["Type"], envelope["Message"], envelope["TopicArn"]) == ("Notification", "raw body", topic)

"""SNS filter policies in both doors: Subscribe and SetSubscriptionAttributes refuse invalid policies in SNS's
recorded words and change nothing; deliveries to queues (moto's) and to functions (Eddy's) are filtered by the same
engine as SNS filters them.

Sources: LocalStack's AWS-validated tests/aws/services/sns/test_sns_filter_policy.py and its snapshot (the keys
named per case; the pure table of every recorded refusal is tests/emulator/event_patterns/test_sns_policies.py);
the Amazon SNS Developer Guide's filtering examples.
"""

from __future__ import annotations

import json

import pytest
from botocore.exceptions import ClientError

from tests.emulator.notifications.test_s3_notifications import FORWARDER, wait_for_messages
from tests.emulator.trigger_helpers import create_zip_function, wait_idle
from tests.emulator.triggers.sqs_helpers import queue


def refused(raised: pytest.ExceptionInfo[ClientError]) -> tuple[dict, int]:
    """The error as botocore reads it (less the lower-case "message" moto's SNS errors carry beside "Message", an SNS
    error shape that is not this file's subject)."""
    error = {key: value for key, value in raised.value.response["Error"].items() if key != "message"}
    return error, raised.value.response["ResponseMetadata"]["HTTPStatusCode"]


def invalid(message: str) -> tuple[dict, int]:
    return {"Type": "Sender", "Code": "InvalidParameter", "Message": message}, 400


@pytest.mark.parametrize(("policy", "message"), [
    ({"key": [{"suffix": 100}]},  # error-condition-is-numeric
     'Invalid parameter: Attributes Reason: FilterPolicy: suffix match pattern must be a string\n at [Source: '
     '(String)"{"key":[{"suffix":100}]}"; line: 1, column: 22]'),
    ({"key": [{"anything-but": {"suffix": "test"}}]},  # error-condition-anything-but-suffix
     'Invalid parameter: Attributes Reason: FilterPolicy: Unsupported anything-but pattern: suffix\n at [Source: '
     '(String)"{"key":[{"anything-but":{"suffix":"test"}}]}"; line: 1, column: 36]'),
    ({"key": [f"value{i}" for i in range(151)]},  # error-complexity-in-one-condition
     "Invalid parameter: Attributes Reason: FilterPolicy: Filter policy is too complex"),
    ({f"key{n}": [f"value{n}"] for n in range(1, 7)},  # error-complexity-too-many-fields
     "Invalid parameter: Attributes Reason: FilterPolicy: Filter policy can not have more than 5 keys"),
], ids=["suffix a number", "anything-but suffix", "151 values", "6 keys"])
def test_subscribe_refuses_an_invalid_policy_and_makes_nothing(door, policy, message):
    sns, sqs = door.client("sns"), door.client("sqs")
    topic = sns.create_topic(Name="orders")["TopicArn"]
    _, arn = queue(sqs, "orders")
    with pytest.raises(ClientError) as raised:
        sns.subscribe(TopicArn=topic, Protocol="sqs", Endpoint=arn, Attributes={"FilterPolicy": json.dumps(policy)})
    assert refused(raised) == invalid(message)
    assert sns.list_subscriptions_by_topic(TopicArn=topic)["Subscriptions"] == []


def test_set_subscription_attributes_refuses_as_sns_does(door):
    """TestSNSFilterPolicyCrud: test_set_subscription_filter_policy_scope, test_sub_filter_policy_nested_property,
    test_sub_filter_policy_nested_property_constraints."""
    sns, sqs = door.client("sns"), door.client("sqs")
    topic = sns.create_topic(Name="orders")["TopicArn"]
    _, arn = queue(sqs, "orders")
    subscription = sns.subscribe(TopicArn=topic, Protocol="sqs", Endpoint=arn,
                                 ReturnSubscriptionArn=True)["SubscriptionArn"]

    def set_attribute(name: str, value: str) -> tuple[dict, int]:
        with pytest.raises(ClientError) as raised:
            sns.set_subscription_attributes(SubscriptionArn=subscription, AttributeName=name, AttributeValue=value)
        return refused(raised)

    assert set_attribute("FilterPolicyScope", "RandomValue") == invalid(
        "Invalid parameter: FilterPolicyScope: Invalid value [RandomValue]. Please use either MessageBody or "
        "MessageAttributes")
    nested = json.dumps({"object": {"key": [{"prefix": "auto-"}]}})
    assert set_attribute("FilterPolicy", nested) == invalid(
        "Invalid parameter: Filter policy scope MessageAttributes does not support nested filter policy")
    sns.set_subscription_attributes(SubscriptionArn=subscription, AttributeName="FilterPolicyScope",
                                    AttributeValue="MessageBody")
    sns.set_subscription_attributes(SubscriptionArn=subscription, AttributeName="FilterPolicy", AttributeValue=nested)
    too_deep = {"key_a": {"key_b": {"key_c": ["value_one", "value_two", "value_three", "value_four"]}},
                "key_d": {"key_e": ["value_one", "value_two", "value_three"]},
                "key_f": ["value_one", "value_two", "value_three"]}
    assert set_attribute("FilterPolicy", json.dumps(too_deep)) == invalid(
        "Invalid parameter: FilterPolicy: Filter policy is too complex")
    assert set_attribute("FilterPolicy", json.dumps({"key_a": "value_one"})) == invalid(
        'Invalid parameter: FilterPolicy: "key_a" must be an object or an array\n at [Source: (String)"{"key_a":'
        '"value_one"}"; line: 1, column: 11]')
    attributes = sns.get_subscription_attributes(SubscriptionArn=subscription)["Attributes"]
    assert (json.loads(attributes["FilterPolicy"]), attributes["FilterPolicyScope"]) == (
        json.loads(nested), "MessageBody")


def test_queue_deliveries_filtered_by_message_attributes(door):
    """Recorded: TestSNSFilterPolicyAttributes (test_filter_policy: [null, anything-but] takes no message without
    the attribute; test_exists_filter_policy_attributes_array: a String.Array by any element); the Developer Guide:
    a Number attribute as a number (3.015e2 is 301.5), anything-but of a prefix."""
    sns, sqs = door.client("sns"), door.client("sqs")
    topic = sns.create_topic(Name="orders")["TopicArn"]
    policies = {
        "null-or-anything-but": {"attr1": [None, {"anything-but": "whatever"}]},
        "array": {"store": ["value1"]},
        "price": {"price_usd": [{"numeric": ["=", 301.5]}]},
        "not-test": {"kind": [{"anything-but": {"prefix": "test-"}}]},
    }
    urls = {}
    for name, policy in policies.items():
        urls[name], arn = queue(sqs, name)
        sns.subscribe(TopicArn=topic, Protocol="sqs", Endpoint=arn,
                      Attributes={"RawMessageDelivery": "true", "FilterPolicy": json.dumps(policy)})
    published = [
        ("no attributes", {}),
        ("store 1 and 2", {"store": {"DataType": "String.Array", "StringValue": json.dumps(["value1", "value2"])}}),
        ("store 2 and 3", {"store": {"DataType": "String.Array", "StringValue": json.dumps(["value2", "value3"])}}),
        ("price", {"price_usd": {"DataType": "Number", "StringValue": "3.015e2"}}),
        ("a test kind", {"kind": {"DataType": "String", "StringValue": "test-1"}, "attr1": {
            "DataType": "String", "StringValue": "whatever"}}),
        ("a real kind", {"kind": {"DataType": "String", "StringValue": "real"}, "attr1": {
            "DataType": "String", "StringValue": "something"}}),
    ]
    for message, message_attributes in published:
        sns.publish(TopicArn=topic, Message=message, MessageAttributes=message_attributes)
    assert wait_idle(door)["Idle"]
    received = {name: sorted(m["Body"] for m in sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10).get(
        "Messages", [])) for name, url in urls.items()}
    assert received == {"null-or-anything-but": ["a real kind"], "array": ["store 1 and 2"], "price": ["price"],
                        "not-test": ["a real kind"]}


def test_a_function_gets_what_its_body_policy_matches(door):
    """TestSNSFilterPolicyBody: test_filter_policy_on_message_body_or_attribute and
    test_filter_policy_ip_address_condition's policies, to a function (Eddy's delivery)."""
    sns, sqs, lam = door.client("sns"), door.client("sqs"), door.client("lambda")
    inbox, _ = queue(sqs, "inbox")
    function_arn = create_zip_function(lam, "forwarder", "python", FORWARDER,
                                       Environment={"Variables": {"QUEUE_URL": inbox}})["FunctionArn"]
    topic = sns.create_topic(Name="alarms")["TopicArn"]
    policy = {"$or": [{"metricName": ["CPUUtilization", "ReadLatency"]}, {"namespace": ["AWS/EC2", "AWS/ES"]}],
              "detail": {"scope": ["Service"],
                         "$or": [{"source": ["aws.cloudwatch"]}, {"sourceIPAddress": [{"cidr": "10.0.0.0/24"}]}]}}
    sns.subscribe(TopicArn=topic, Protocol="lambda", Endpoint=function_arn,
                  Attributes={"FilterPolicyScope": "MessageBody", "FilterPolicy": json.dumps(policy)})
    bodies = [
        {"metricName": "CPUUtilization", "detail": {"scope": "Service", "source": "aws.cloudwatch"}},
        {"namespace": "AWS/EC2", "detail": {"scope": "Service", "sourceIPAddress": "10.0.0.255"}},
        {"namespace": "AWS/EC2", "detail": {"scope": "Service", "sourceIPAddress": "10.0.1.1"}},
        {"namespace": "AWS/RDS", "detail": {"scope": "Service", "source": "aws.cloudwatch"}},
        {"metricName": "CPUUtilization", "detail": {"scope": "Other", "source": "aws.cloudwatch"}},
    ]
    for body in bodies:
        sns.publish(TopicArn=topic, Message=json.dumps(body))
    sns.publish(TopicArn=topic, Message="not JSON: no body policy matches it")
    events = wait_for_messages(sqs, inbox, 2)
    assert wait_idle(door)["Idle"]
    assert sorted((json.loads(e["Records"][0]["Sns"]["Message"]) for e in events), key=json.dumps) == sorted(
        bodies[:2], key=json.dumps)
    assert sqs.receive_message(QueueUrl=inbox).get("Messages", []) == []

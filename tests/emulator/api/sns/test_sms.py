"""SMS requests AWS refuses, refused in AWS's words and changing nothing (emulator/api/sns/sms.py).

Every expected answer is AWS's, recorded in LocalStack's AWS-validated snapshots: github.com/localstack/localstack
at 8b9a79f05846835cf4dff63ab7eefdde9df83783, tests/aws/services/sns/test_sns.snapshot.json, TestSNSSMS (named per
case as `<test>[<id>]/<snapshot key>`).
"""

from __future__ import annotations

import pytest
from botocore.exceptions import ClientError

#: (source, operation, its request, AWS's Code and Message)
CASES = [
    ("test_publish_wrong_phone_format/invalid-number", "publish", {"Message": "Good news", "PhoneNumber": "+1a234"},
     "Invalid parameter: PhoneNumber Reason: +1a234 is not valid to publish to"),
    ("test_publish_wrong_phone_format/wrong-format", "publish",
     {"Message": "Good news", "PhoneNumber": "NAA+15551234567"},
     "Invalid parameter: PhoneNumber Reason: NAA+15551234567 is not valid to publish to"),
    ("test_publish_wrong_phone_format/wrong-endpoint", "subscribe",
     {"TopicArn": "TOPIC", "Protocol": "sms", "Endpoint": "NAA+15551234567"}, "Invalid SMS endpoint: NAA+15551234567"),
    ("test_set_invalid_sms_attributes[InvalidAttributeName]/invalid-attribute", "set_sms_attributes",
     {"attributes": {"InvalidAttribute": "invalid"}}, "InvalidAttribute is not a valid attribute"),
    ("test_set_invalid_sms_attributes[TooLongID]/invalid-attribute", "set_sms_attributes",
     {"attributes": {"DefaultSendID": "a" * 12}}, "DefaultSendID is not a valid attribute"),
    ("test_set_invalid_sms_attributes[NoLetterID]/invalid-attribute", "set_sms_attributes",
     {"attributes": {"DefaultSendID": "123456789"}}, "DefaultSendID is not a valid attribute"),
    ("test_set_invalid_sms_attributes[InvalidSMSType]/invalid-attribute", "set_sms_attributes",
     {"attributes": {"DefaultSMSType": "invalid"}}, "DefaultSMSType is invalid"),
    ("test_opt_in_invalid_number/opt-in-non-existing-number", "opt_in_phone_number", {"phoneNumber": "invalid"},
     "Invalid parameter: PhoneNumber Reason: input incorrectly formatted"),
]


def state(sns) -> tuple:
    return (sns.get_sms_attributes()["attributes"], sns.list_subscriptions()["Subscriptions"],
            sns.list_phone_numbers_opted_out()["phoneNumbers"])


@pytest.mark.parametrize("source, operation, request_, message", CASES, ids=[case[0].split("/")[0] for case in CASES])
def test_aws_refuses_and_nothing_changes(door, source, operation, request_, message):
    sns = door.client("sns")
    topic = sns.create_topic(Name="alerts")["TopicArn"]
    sns.subscribe(TopicArn=topic, Protocol="sms", Endpoint="+123123123")
    sns.set_sms_attributes(attributes={"DefaultSMSType": "Transactional", "DefaultSenderID": "Eddy"})
    before = state(sns)
    with pytest.raises(ClientError) as raised:
        getattr(sns, operation)(**{name: topic if value == "TOPIC" else value for name, value in request_.items()})
    answer = raised.value.response
    assert (answer["Error"], answer["ResponseMetadata"]["HTTPStatusCode"]) == (
        {"Type": "Sender", "Code": "InvalidParameter", "Message": message}, 400)
    assert state(sns) == before


def test_what_aws_accepts_goes_through(door):
    """test_subscribe_sms_endpoint ("+123123123" subscribed), test_opt_in_non_existing_phone_number (a number never
    opted out is opted in, 200), a number in E.164 published to."""
    sns = door.client("sns")
    assert "MessageId" in sns.publish(Message="Good news", PhoneNumber="+15551234567")
    sns.opt_in_phone_number(phoneNumber="+15551234567")
    topic = sns.create_topic(Name="alerts")["TopicArn"]
    sns.subscribe(TopicArn=topic, Protocol="sms", Endpoint="+123123123")
    assert [(sub["Protocol"], sub["Endpoint"]) for sub in sns.list_subscriptions()["Subscriptions"]] == [
        ("sms", "+123123123")]


def test_sms_attributes_answered_as_sns_answers_them(door):
    """test_get_sms_attributes_from_unmodified_region/get-sms-attributes_unmodified_region (an account that set none:
    its MonthlySpendLimit), test_set_get_sms_attributes/get-sms-all-attributes and /get-sms-some-attributes (two asked
    for by name: both answered; moto answered the first)."""
    sns = door.client("sns")
    assert sns.get_sms_attributes()["attributes"] == {"MonthlySpendLimit": "1"}
    sns.set_sms_attributes(attributes={"DeliveryStatusSuccessSamplingRate": "100", "DefaultSenderID": "LSTest",
                                       "DefaultSMSType": "Promotional"})
    assert sns.get_sms_attributes()["attributes"] == {
        "DefaultSMSType": "Promotional", "DefaultSenderID": "LSTest", "DeliveryStatusSuccessSamplingRate": "100",
        "MonthlySpendLimit": "1"}
    assert sns.get_sms_attributes(attributes=["DefaultSenderID", "DefaultSMSType"])["attributes"] == {
        "DefaultSMSType": "Promotional", "DefaultSenderID": "LSTest"}

"""SNS notifications signed as AWS signs them: SignatureVersion "1" (SHA1withRSA) unless the topic asks for "2".

AWS's notification, as an SQS subscriber receives it (LocalStack's AWS-recorded test_sns snapshots, e.g.
test_publish_sqs_from_sns: Type, MessageId, TopicArn, Message, Timestamp, SignatureVersion "1", Signature,
SigningCertURL, UnsubscribeURL naming the subscription).
"""

from __future__ import annotations

import base64
import json

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import padding
from moto.core import DEFAULT_ACCOUNT_ID
from moto.sns.models import sns_backends

from eddy.emulator.moto_seam import sns_signatures

REGION = "us-east-1"


def notification(door, topic_attributes: dict | None = None, subject: str | None = None) -> tuple[dict, str]:
    sns, sqs = door.client("sns"), door.client("sqs")
    topic_arn = sns.create_topic(Name="orders", Attributes=topic_attributes or {})["TopicArn"]
    queue_url = sqs.create_queue(QueueName="subscriber")["QueueUrl"]
    queue_arn = sqs.get_queue_attributes(QueueUrl=queue_url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    subscription = sns.subscribe(TopicArn=topic_arn, Protocol="sqs", Endpoint=queue_arn)["SubscriptionArn"]
    sns.publish(TopicArn=topic_arn, Message="test message", **({"Subject": subject} if subject else {}))
    messages = sqs.receive_message(QueueUrl=queue_url)["Messages"]  # moto delivers within Publish
    return json.loads(messages[0]["Body"]), subscription


@pytest.mark.parametrize("asked, version", [(None, "1"), ("1", "1"), ("2", "2")])
def test_a_notification_is_signed_with_the_topics_signature_version(door, asked, version):
    body, subscription = notification(door, {"SignatureVersion": asked} if asked else None)
    assert sorted(body) == ["Message", "MessageId", "Signature", "SignatureVersion", "SigningCertURL", "Timestamp",
                            "TopicArn", "Type", "UnsubscribeURL"]
    assert (body["Type"], body["Message"], body["SignatureVersion"]) == ("Notification", "test message", version)
    assert body["TopicArn"] == f"arn:aws:sns:{REGION}:123456789012:orders"
    endpoint = door.url if door.name == "server" else f"https://sns.{REGION}.amazonaws.com"  # tests/emulator/api/sns
    assert body["SigningCertURL"].startswith(f"{endpoint}/SimpleNotificationService-")
    assert body["UnsubscribeURL"] == f"{endpoint}/?Action=Unsubscribe&SubscriptionArn={subscription}"


@pytest.mark.parametrize("asked, algorithm", [(None, hashes.SHA1), ("2", hashes.SHA256)])
@pytest.mark.parametrize("subject", [None, "a subject"])
def test_the_signature_verifies_with_the_signing_certificate(emu, asked, algorithm, subject):
    """What a subscriber checks: the signature over the Developer Guide's string to sign, with the certificate's key
    (read where moto serves it from, at SigningCertURL)."""
    from tests.conftest import InProcessDoor
    body, _ = notification(InProcessDoor(emu), {"SignatureVersion": asked} if asked else None, subject)
    assert ("Subject" in body) == (subject is not None)
    pem = sns_backends[DEFAULT_ACCOUNT_ID][REGION]._message_public_keys[body["SigningCertURL"].rsplit("/", 1)[1]]
    expected = "".join(f"{name}\n{body[name]}\n" for name in
                       ("Message", "MessageId", "Subject", "Timestamp", "TopicArn", "Type") if name in body)
    assert sns_signatures.string_to_sign(body) == expected
    x509.load_pem_x509_certificate(pem).public_key().verify(  # raises InvalidSignature if it does not verify
        base64.b64decode(body["Signature"]), expected.encode(), padding.PKCS1v15(), algorithm())


def test_a_regions_notifications_are_signed_with_one_certificate_that_verifies_them_all(door):
    """AWS signs a region's notifications with one certificate: LocalStack's AWS-validated
    test_sns_filter_policy.snapshot.json (commit 8b9a79f05846), TestSNSFilterPolicyAttributes::test_exists_filter_policy,
    "messages-1" and "messages-3": the same SigningCertURL (`<signing-cert-file:1>`) in each of its messages. moto
    made a certificate per message (and a key per subscription)."""
    import urllib.request

    sns, sqs = door.client("sns"), door.client("sqs")
    bodies = []
    for name in ("first", "second"):
        topic = sns.create_topic(Name=f"orders-{name}", Attributes={"SignatureVersion": "2"})["TopicArn"]
        queue_url = sqs.create_queue(QueueName=f"subscriber-{name}")["QueueUrl"]
        queue = sqs.get_queue_attributes(QueueUrl=queue_url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
        sns.subscribe(TopicArn=topic, Protocol="sqs", Endpoint=queue)
        for number in range(2):
            sns.publish(TopicArn=topic, Message=f"message {number}")
            bodies.append(json.loads(sqs.receive_message(QueueUrl=queue_url)["Messages"][0]["Body"]))  # in flight
    assert len({body["SigningCertURL"] for body in bodies}) == 1
    if door.name == "server":  # the certificate as a subscriber fetches it
        with urllib.request.urlopen(bodies[0]["SigningCertURL"]) as answer:
            pem = answer.read()
    else:
        pem = sns_signatures.signing_certificate(bodies[0]["SigningCertURL"].rsplit("/", 1)[1])
    key = x509.load_pem_x509_certificate(pem).public_key()
    for body in bodies:  # raises InvalidSignature if one does not verify
        key.verify(base64.b64decode(body["Signature"]), sns_signatures.string_to_sign(body).encode(),
                   padding.PKCS1v15(), hashes.SHA256())

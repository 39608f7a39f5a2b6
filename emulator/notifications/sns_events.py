"""The SNS event Lambda gets from a topic subscription (Lambda Developer Guide, "Using Lambda with Amazon SNS",
example event), as a pure function of the notification SNS signs for HTTP(S) subscribers.

    {"Records": [{"EventVersion": "1.0", "EventSubscriptionArn", "EventSource": "aws:sns",
                  "Sns": {"SignatureVersion", "Timestamp", "Signature", "SigningCertUrl", "MessageId", "Message",
                          "MessageAttributes": {name: {"Type", "Value"}}, "Type": "Notification",
                          "UnsubscribeUrl", "TopicArn", "Subject" (null when the publisher gave none)}}]}

The names differ from the HTTP body's: SigningCertUrl and UnsubscribeUrl, not ...URL (the same links: on the
endpoint's host, moto_seam/sns_signatures.py). SignatureVersion is "1" even where the topic's SignatureVersion "2"
had it signed with SHA256 (LocalStack's AWS-validated test_sns.snapshot.json at 8b9a79f05846,
TestSNSSubscriptionLambda::test_publish_lambda_verify_signature[2], recorded 04-01-2024: "SignatureVersion": "1", the
signature verified as version 2's).
"""

from __future__ import annotations

from typing import Any


def lambda_event(notification: dict[str, Any], subscription_arn: str) -> dict[str, Any]:
    attributes = {
        name: {"Type": value.get("Type", value.get("DataType")), "Value": value.get("Value")}
        for name, value in (notification.get("MessageAttributes") or {}).items()
    }
    sns = {
        "SignatureVersion": "1",  # whatever the topic's: signed as it asks, named "1" (see above)
        "Timestamp": notification["Timestamp"],
        "Signature": notification["Signature"],
        "SigningCertUrl": notification["SigningCertURL"],
        "MessageId": notification["MessageId"],
        "Message": notification["Message"],
        "MessageAttributes": attributes,
        "Type": "Notification",
        "UnsubscribeUrl": notification["UnsubscribeURL"],
        "TopicArn": notification["TopicArn"],
        "Subject": notification.get("Subject"),
    }
    return {
        "Records": [
            {"EventVersion": "1.0", "EventSubscriptionArn": subscription_arn, "EventSource": "aws:sns", "Sns": sns}
        ]
    }

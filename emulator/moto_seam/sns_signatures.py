"""moto's SNS notifications signed as AWS signs them.

An SNS notification (the JSON body an SQS, HTTP or email-json subscriber receives) names its SignatureVersion:
AWS signs with SHA1withRSA, "1", unless the topic's SignatureVersion attribute asks for "2" (SHA256withRSA)
(Amazon SNS Developer Guide, "Verifying the signatures of Amazon SNS messages"; LocalStack's AWS-recorded
test_sns snapshots: an SQS subscriber's body says "SignatureVersion": "1" for a topic created without the attribute).
moto always signs with "2" (its certificate cannot be SHA1-signed), and its UnsubscribeURL names us-east-1 and a
fixed subscription, and it leaves a notification's Subject out of the string it signs. Here, after moto's
`Subscription.get_post_data`, the notification is signed again by the same key over the Developer Guide's string
to sign (Subject included), with SHA1 unless the topic asked for "2" (the certificate at SigningCertURL verifies
either: its own signature algorithm does not matter to a subscriber), and the UnsubscribeURL names the
subscription in its own region, as AWS's does. SigningCertURL and UnsubscribeURL are on the endpoint the clients
use: AWS's host in-process (the mock answers it), the server's own URL on `eddy serve` (`activate`), where
api/sns_links.py answers a GET of either.

A FIFO topic's notification is not signed (notifications/fifo_topics.py).

Installed with all_or_nothing.py while an emulator is active; plain moto in the same process keeps its own.
Pinned by tests/emulator/moto_seam/test_sns_signatures.py.
"""

from __future__ import annotations

import base64
import functools
from typing import Any

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding, rsa
from moto.core import DEFAULT_ACCOUNT_ID
from moto.sns.models import Subscription, sns_backends

from eddy.emulator.moto_seam import Patches
from eddy.emulator.moto_seam.notifications import fifo_topics

original_get_post_data = Subscription.get_post_data

#: the endpoint a notification's links are on (the server's URL), None for AWS's own host (in-process)
_links_endpoint: str | None = None

#: kept on the default account's SNS backend of a region (where moto keeps the certificates): the PEM of the key the
#: region's messages are signed with, and the name of its one certificate. AWS signs a region's notifications with
#: one certificate (LocalStack's AWS-validated test_sns_filter_policy.snapshot.json, test_exists_filter_policy: the
#: same SigningCertURL in each message); moto made a key per subscription and a certificate per message.
SIGNING_KEY, CERTIFICATE = "_eddy_signing_key", "_eddy_signing_certificate"

#: the members of a message that are signed, in the order AWS's string to sign lists them (a Notification's: Subject
#: when it has one; a SubscriptionConfirmation's and an UnsubscribeConfirmation's: SubscribeURL and Token)
SIGNED = ("Message", "MessageId", "Subject", "SubscribeURL", "Timestamp", "Token", "TopicArn", "Type")


def string_to_sign(notification: dict[str, Any]) -> str:
    """A message's string to sign (the Developer Guide's: each signed member's name and value, a line each)."""
    return "".join(f"{name}\n{notification[name]}\n" for name in SIGNED if name in notification)


def links_endpoint(region: str) -> str:
    """Where a message's links (SigningCertURL, UnsubscribeURL, SubscribeURL) point: the server's URL on `eddy serve`,
    SNS's own host of the region in-process (the mock answers it)."""
    return _links_endpoint or f"https://sns.{region}.amazonaws.com"


def sign(subscription: Subscription, message: dict[str, Any]) -> None:
    """Sign `message` in place with the subscription's key, as its topic's SignatureVersion asks."""
    version = "2" if str(getattr(subscription.topic, "signature_version", "1")) == "2" else "1"
    algorithm = hashes.SHA256() if version == "2" else hashes.SHA1()
    signature = subscription.private_key().sign(string_to_sign(message).encode(), padding.PKCS1v15(), algorithm)
    message["SignatureVersion"], message["Signature"] = version, base64.b64encode(signature).decode()


def _get_post_data(
    self: Subscription,
    message: str,
    message_id: str,
    subject: str | None,
    message_attributes: dict[str, Any] | None = None,
) -> dict[str, Any]:
    notification = original_get_post_data(self, message, message_id, subject, message_attributes=message_attributes)
    region = self.topic.sns_backend.region_name
    endpoint = links_endpoint(region)
    unsubscribe_url = f"{endpoint}/?Action=Unsubscribe&SubscriptionArn={self.arn}"
    certificate = _regions_certificate(region, notification["SigningCertURL"])
    sequence_number = fifo_topics.sequence_number()
    if sequence_number is not None:  # a FIFO topic's notification: numbered, not signed
        return fifo_notification(notification, sequence_number, unsubscribe_url)
    notification["SigningCertURL"] = f"{endpoint}/{certificate}"
    notification["UnsubscribeURL"] = unsubscribe_url
    sign(self, notification)
    return notification


def fifo_notification(notification: dict[str, Any], sequence_number: str, unsubscribe_url: str) -> dict[str, Any]:
    """A FIFO topic's notification, in the order AWS writes its members: no Signature, SignatureVersion or
    SigningCertURL, its SequenceNumber after the MessageId (notifications/fifo_topics.py)."""
    fifo = {"Type": notification["Type"], "MessageId": notification["MessageId"], "SequenceNumber": sequence_number,
            "TopicArn": notification["TopicArn"]}
    for name in ("Subject", "Message", "Timestamp"):
        if name in notification:
            fifo[name] = notification[name]
    fifo["UnsubscribeURL"] = unsubscribe_url
    if "MessageAttributes" in notification:
        fifo["MessageAttributes"] = notification["MessageAttributes"]
    return fifo


def activate(endpoint: str) -> None:
    """Put notifications' SigningCertURL and UnsubscribeURL on `endpoint` (moto_seam.activate, by the server)."""
    global _links_endpoint
    _links_endpoint = endpoint.rstrip("/")


def deactivate() -> None:
    global _links_endpoint
    _links_endpoint = None


def signing_certificate(name: str) -> bytes | None:
    """The PEM of the certificate a SigningCertURL ending in `name` names (moto keeps them in its default account's
    backend of the topic's region), or None."""
    for backend in sns_backends[DEFAULT_ACCOUNT_ID].values():
        if name in backend._message_public_keys:
            return backend._message_public_keys[name]
    return None


def _regions_certificate(region: str, made_url: str) -> str:
    """The name of the region's certificate: the first one moto made there (the one it just made for this message is
    let go), or the one it just made."""
    backend = sns_backends[DEFAULT_ACCOUNT_ID][region]
    made = made_url.rsplit("/", 1)[1]
    kept = getattr(backend, CERTIFICATE, None)
    if kept is None or kept not in backend._message_public_keys:
        setattr(backend, CERTIFICATE, made)
        return made
    backend._message_public_keys.pop(made, None)
    return kept


def _private_key(self: Subscription) -> rsa.RSAPrivateKey:
    """The region's signing key (made with the region's first message), in moto's Subscription.private_key's place."""
    backend = sns_backends[DEFAULT_ACCOUNT_ID][self.topic.sns_backend.region_name]
    pem = getattr(backend, SIGNING_KEY, None)
    if pem is None:
        key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                serialization.NoEncryption())
        setattr(backend, SIGNING_KEY, pem)
    return _loaded(pem)


@functools.lru_cache(maxsize=32)
def _loaded(pem: bytes) -> rsa.RSAPrivateKey:
    return serialization.load_pem_private_key(pem, password=None)  # type: ignore[return-value]


_patches = Patches()


def install() -> None:
    _patches.set(Subscription, "get_post_data", _get_post_data)
    _patches.set(Subscription, "private_key", _private_key)


def uninstall() -> None:
    _patches.restore()

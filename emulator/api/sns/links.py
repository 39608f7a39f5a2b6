"""The links in an SNS message, followed: a GET of its UnsubscribeURL (`/?Action=Unsubscribe&
SubscriptionArn=...`, unsigned, as a subscriber's HTTP client or a browser sends it) unsubscribes, a GET of a
confirmation's SubscribeURL (`/?Action=ConfirmSubscription&TopicArn=...&Token=...`) confirms the subscription
(moto_seam/notifications/http_subscriptions.py: in the region that sent the token, so another region's TopicArn is
refused as AWS refuses it), and a GET of its SigningCertURL (`/SimpleNotificationService-<id>.pem`) answers the
certificate the message is signed with.

AWS serves both on the SNS endpoint (Amazon SNS Developer Guide, "Parsing message formats": UnsubscribeURL "the URL
that you can use to unsubscribe the endpoint from this topic", SigningCertURL "the URL to the certificate that was
used to sign the message"). On `eddy serve` the notifications name the server's own URL (moto_seam/sns_signatures.py)
and an unsigned GET there carries no mark of SNS for moto, so this module claims it. The unsubscription is made as a
client makes it (through the door, so it is journaled like any Unsubscribe), and answered with SNS's own answer.
"""

from __future__ import annotations

import uuid
from typing import TYPE_CHECKING
from urllib.parse import parse_qs, urlsplit

from botocore.exceptions import ClientError

from eddy.emulator.api.sns import XMLNS, error_answer, xml_answer
from eddy.emulator.aws_requests import Request, Response
from eddy.emulator.moto_seam import sns_signatures

if TYPE_CHECKING:
    from eddy.emulator.engine import Emulator

CERTIFICATE_PREFIX = "/SimpleNotificationService-"


def _action(request: Request) -> tuple[str, dict[str, str]] | None:
    query = parse_qs(urlsplit(request.url).query)
    action = (query.get("Action") or [""])[0]
    if request.path == "/" and action in ("Unsubscribe", "ConfirmSubscription"):
        return action, {name: values[0] for name, values in query.items()}
    return None


def claims(request: Request) -> bool:
    """An unsigned GET of a message's link."""
    if request.method.upper() != "GET" or request.header("Authorization"):
        return False
    return _action(request) is not None or (
        request.path.startswith(CERTIFICATE_PREFIX) and request.path.endswith(".pem")
    )


def handle(emulator: "Emulator", request: Request) -> Response:
    found = _action(request)
    if found is None:
        return _certificate(request.path[1:])
    action, query = found
    if action == "ConfirmSubscription":
        return _confirm(emulator, query.get("TopicArn", ""), query.get("Token", ""))
    arn = query.get("SubscriptionArn", "")
    region = arn.split(":")[3] if arn.count(":") >= 5 else "us-east-1"
    try:
        emulator.aws_client("sns", region).unsubscribe(SubscriptionArn=arn)
    except ClientError as error:
        details = error.response["Error"]
        return error_answer(details["Code"], details["Message"], error.response["ResponseMetadata"]["HTTPStatusCode"])
    return xml_answer(
        200,
        f'<UnsubscribeResponse xmlns="{XMLNS}"><ResponseMetadata><RequestId>{uuid.uuid4()}'
        f"</RequestId></ResponseMetadata></UnsubscribeResponse>",
    )


def _confirm(emulator: "Emulator", topic_arn: str, token: str) -> Response:
    from eddy.emulator.moto_seam.notifications.http_subscriptions import token_region  # moto's SNS: loaded here

    parts = topic_arn.split(":")
    region = token_region(token) or (parts[3] if len(parts) >= 6 else "us-east-1")
    try:
        arn = emulator.aws_client("sns", region).confirm_subscription(TopicArn=topic_arn, Token=token)[
            "SubscriptionArn"
        ]
    except ClientError as error:
        details = error.response["Error"]
        return error_answer(details["Code"], details["Message"], error.response["ResponseMetadata"]["HTTPStatusCode"])
    return xml_answer(
        200,
        f'<ConfirmSubscriptionResponse xmlns="{XMLNS}"><ConfirmSubscriptionResult><SubscriptionArn>{arn}'
        f"</SubscriptionArn></ConfirmSubscriptionResult><ResponseMetadata><RequestId>{uuid.uuid4()}"
        f"</RequestId></ResponseMetadata></ConfirmSubscriptionResponse>",
    )


def _certificate(name: str) -> Response:
    pem = sns_signatures.signing_certificate(name)
    if pem is None:
        return xml_answer(
            404,
            f"<Error><Code>NoSuchKey</Code><Message>The specified key does not exist.</Message>"
            f"<Key>{name}</Key></Error>",
        )
    return Response(200, {"Content-Type": "application/x-x509-ca-cert", "Content-Length": str(len(pem))}, pem)

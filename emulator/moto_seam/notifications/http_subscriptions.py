"""SNS's HTTP and HTTPS subscriptions as SNS runs them: confirmed before anything is delivered.

moto confirms every subscription at once, answers ConfirmSubscription with a made-up ARN and POSTs notifications
within Publish (its JSON whatever RawMessageDelivery says). While an emulator is open, here, as the Amazon SNS
Developer Guide ("HTTP/HTTPS subscription confirmation JSON format", "... notification JSON format", "...
unsubscribe confirmation JSON format", "Verifying the signatures of Amazon SNS messages") and LocalStack's
AWS-validated test_sns.snapshot.json (TestSNSSubscriptionHttp, test_sns_confirm_subscription_wrong_token) show:

- Subscribe of an HTTP or HTTPS endpoint leaves the subscription pending (PendingConfirmation "true",
  ConfirmationWasAuthenticated "false"; Subscribe answers "pending confirmation" unless ReturnSubscriptionArn, the
  listings "PendingConfirmation" for its ARN) and POSTs a signed SubscriptionConfirmation with a Token and a
  SubscribeURL on the endpoint the clients use (moto_seam/sns_signatures.py: never AWS's host on `eddy serve`).
- ConfirmSubscription with that token (or a GET of the SubscribeURL, api/sns/links.py) confirms it and answers its
  ARN, again and again; a TopicArn that is not an ARN of the request's region is "Invalid parameter: Topic", a token
  that is not hexadecimal "Invalid token", an unknown one "Invalid parameter: Token" (a token's own subscription is
  confirmed whatever topic of the region is named, as AWS was recorded to do).
- A pending subscription gets no notification; a confirmed one gets the signed notification (or, with
  RawMessageDelivery, the message itself) with SNS's headers and its delivery policy's Content-Type.
- Unsubscribe of a confirmed one POSTs an UnsubscribeConfirmation.
- An email or email-json subscription is pending as well (its confirmation would be an email's link; Eddy sends no
  email, so it stays pending, as AWS leaves one nobody confirms: test_publish_no_confirm_subscription, the listing's
  "PendingConfirmation"); ConfirmSubscription with its token (kept like an HTTP one's) confirms it.

Tokens live on moto's SNS backend (so a snapshot keeps them) and are drawn from moto's random, which a request's
moment seeds: a replayed Subscribe makes the same token, and sends nothing (moments.replaying()). The POSTs go out
after the request has answered (notifications/http_endpoints.py).
"""

from __future__ import annotations

import functools
import json
import re
from typing import Any

from moto.moto_api._internal import mock_random
from moto.sns.exceptions import SNSInvalidParameter
from moto.sns.models import SNSBackend, Subscription
from moto.sns.responses import SNSResponse

from eddy.emulator.moto_seam import Patches, sns_signatures
from eddy.emulator.moto_seam.notifications.destinations import dead_letter_arn, delivery_of
from eddy.emulator.moto_seam.notifications.target import active
from eddy.emulator.moto_seam.services import moments

HTTP = ("http", "https")
#: confirmed by a link in an email SNS sends (Eddy sends no email: they stay pending, as an unread one leaves them)
EMAIL = ("email", "email-json")
#: the tokens of a backend's confirmation messages, token -> subscription ARN (kept on moto's backend)
TOKENS = "_eddy_confirmation_tokens"
TOKEN_LENGTH = 288  # hexadecimal digits, as AWS's tokens (test_sns_confirm_subscription_wrong_token)
PLAIN_TEXT = "text/plain; charset=UTF-8"
AGENT = {"User-Agent": "Amazon Simple Notification Service Agent", "Accept-Encoding": "gzip,deflate"}
SUBSCRIBE_MESSAGE = (
    "You have chosen to subscribe to the topic {topic}.\n"
    "To confirm the subscription, visit the SubscribeURL included in this message."
)
UNSUBSCRIBE_MESSAGE = (
    "You have chosen to deactivate subscription {subscription}.\n"
    "To cancel this operation and restore the subscription, visit the SubscribeURL included in this message."
)

_patches = Patches()


def install() -> None:
    _patches.set(SNSBackend, "subscribe", _wrap_subscribe(SNSBackend.subscribe))
    _patches.set(SNSBackend, "unsubscribe", _wrap_unsubscribe(SNSBackend.unsubscribe))
    _patches.set(Subscription, "publish", _wrap_publish(Subscription.publish))
    _patches.set(SNSResponse, "subscribe", _wrap_subscribe_answer(SNSResponse.subscribe))
    _patches.set(SNSResponse, "list_subscriptions", _wrap_listing(SNSResponse.list_subscriptions))
    _patches.set(SNSResponse, "list_subscriptions_by_topic", _wrap_listing(SNSResponse.list_subscriptions_by_topic))
    _patches.set(SNSResponse, "confirm_subscription", _confirm_subscription)


def uninstall() -> None:
    _patches.restore()


def pending(subscription: Subscription) -> bool:
    return subscription.attributes.get("PendingConfirmation") in (True, "true")


def _wrap_subscribe(subscribe: Any) -> Any:
    @functools.wraps(subscribe)
    def subscribed(self: SNSBackend, topic_arn: str, endpoint: str, protocol: str) -> Subscription:
        existing = self._find_subscription(topic_arn, endpoint, protocol)
        subscription = subscribe(self, topic_arn, endpoint, protocol)
        if active.target is not None and protocol in HTTP + EMAIL and existing is None:
            subscription.attributes["PendingConfirmation"] = True
            subscription.attributes["ConfirmationWasAuthenticated"] = False
            token = _new_token(self, subscription)
            if protocol in HTTP:
                _send_confirmation(subscription, "SubscriptionConfirmation", token)
        return subscription

    return subscribed


def _wrap_unsubscribe(unsubscribe: Any) -> Any:
    @functools.wraps(unsubscribe)
    def unsubscribed(self: SNSBackend, subscription_arn: str) -> None:
        subscription = self.subscriptions.get(subscription_arn)
        if active.target is not None and subscription is not None and subscription.protocol in HTTP:
            if not pending(subscription):
                _send_confirmation(subscription, "UnsubscribeConfirmation", _new_token(self, subscription))
        unsubscribe(self, subscription_arn)

    return unsubscribed


def _wrap_publish(publish: Any) -> Any:
    @functools.wraps(publish)
    def published(
        self: Subscription,
        message: str,
        message_id: str,
        subject: str | None = None,
        message_attributes: dict[str, Any] | None = None,
        **options: Any,
    ) -> None:
        target = active.target
        if target is None or self.protocol not in HTTP:
            return publish(self, message, message_id, subject, message_attributes, **options)
        if pending(self) or moments.replaying():  # nothing before confirmation; a replay sent it before
            return None
        trigger = ("sns", self.arn)
        if self._filter_policy_matcher is not None and not self._filter_policy_matcher.matches(
            message_attributes, message
        ):
            target.filtered_out(trigger)
            return None
        if options.get("message_structure") == "json":
            message = self._parse_message_structure(message, self.protocol)
        headers = _headers("Notification", message_id, self, content_type=_content_type(self))
        if str(self.attributes.get("RawMessageDelivery")).lower() == "true":
            headers["x-amz-sns-rawdelivery"] = "true"
            body = message
        else:
            body = _document(self.get_post_data(message, message_id, subject, message_attributes=message_attributes))
        policies = (self.attributes.get("DeliveryPolicy"), getattr(self.topic, "delivery_policy", None))
        target.post_to_endpoint(self.endpoint, headers, body.encode(), trigger, policies, dead_letter_arn(self),
                                delivery_of(self, lambda: message, message_id))
        return None

    return published


def _wrap_subscribe_answer(answer: Any) -> Any:
    @functools.wraps(answer)
    def subscribe_answer(self: SNSResponse) -> Any:
        result = answer(self)
        subscription = self.backend.subscriptions.get(result.result["SubscriptionArn"])
        returns_arn = str(self._get_param("ReturnSubscriptionArn")).lower() == "true"
        if subscription is not None and pending(subscription) and not returns_arn:
            result.result["SubscriptionArn"] = "pending confirmation"
        return result

    return subscribe_answer


def _wrap_listing(answer: Any) -> Any:
    @functools.wraps(answer)
    def listing(self: SNSResponse) -> Any:
        result = answer(self)
        result.result["Subscriptions"] = [
            {
                "SubscriptionArn": "PendingConfirmation" if pending(subscription) else subscription.arn,
                "Owner": subscription.owner,
                "Protocol": subscription.protocol,
                "Endpoint": subscription.endpoint,
                "TopicArn": subscription.topic_arn,
            }
            for subscription in result.result["Subscriptions"]
        ]
        return result

    return listing


def confirmation_refusal(region: str, topic_arn: str, token: str) -> str | None:
    """ConfirmSubscription's refusal in a region, in SNS's words (InvalidParameter), or None: a TopicArn that is not an
    SNS ARN of the region, then a token that is not hexadecimal, then one the region did not send."""
    parts = topic_arn.split(":")
    if len(parts) < 6 or parts[0] != "arn" or parts[2] != "sns" or parts[3] != region:
        return "Invalid parameter: Topic"
    if not re.fullmatch(r"[0-9a-fA-F]+", token):
        return "Invalid token"
    if token_region(token) != region:
        return "Invalid parameter: Token"
    return None


def _confirm_subscription(self: SNSResponse) -> Any:
    from moto.core.responses import ActionResult

    topic_arn, token = self._get_param("TopicArn") or "", self._get_param("Token") or ""
    refusal = confirmation_refusal(self.backend.region_name, topic_arn, token)
    subscription = self.backend.subscriptions.get(getattr(self.backend, TOKENS, {}).get(token, ""))
    if refusal or subscription is None:
        raise SNSInvalidParameter(refusal or "Invalid parameter: Token")
    if pending(subscription):
        subscription.attributes["PendingConfirmation"] = False
        subscription.attributes["ConfirmationWasAuthenticated"] = bool(self.headers.get("Authorization"))
    return ActionResult({"SubscriptionArn": subscription.arn})


def token_region(token: str) -> str | None:
    """The region whose SNS sent `token` (a GET of a SubscribeURL names no region but its host's), or None."""
    from moto.sns.models import sns_backends

    for account in list(sns_backends):
        for region, backend in list(sns_backends[account].items()):
            if token in getattr(backend, TOKENS, {}):
                return region
    return None


def _new_token(backend: SNSBackend, subscription: Subscription) -> str:
    token = mock_random.get_random_hex(TOKEN_LENGTH)
    backend.__dict__.setdefault(TOKENS, {})[token] = subscription.arn
    return token


def _send_confirmation(subscription: Subscription, kind: str, token: str) -> None:
    """A SubscriptionConfirmation or UnsubscribeConfirmation POSTed to the subscription's endpoint (never while the
    log is replayed: it was sent then)."""
    target = active.target
    if target is None or moments.replaying():
        return
    topic = subscription.topic.arn
    message_id = str(mock_random.uuid4())
    signed = subscription.get_post_data("", message_id, None)  # a certificate, the moment's timestamp
    endpoint = sns_signatures.links_endpoint(subscription.topic.sns_backend.region_name)
    text = SUBSCRIBE_MESSAGE if kind == "SubscriptionConfirmation" else UNSUBSCRIBE_MESSAGE
    message = {
        "Type": kind,
        "MessageId": message_id,
        "Token": token,
        "TopicArn": topic,
        "Message": text.format(topic=topic, subscription=subscription.arn),
        "SubscribeURL": f"{endpoint}/?Action=ConfirmSubscription&TopicArn={topic}&Token={token}",
        "Timestamp": signed["Timestamp"],
        "SignatureVersion": "1",
        "Signature": "",
        "SigningCertURL": signed["SigningCertURL"],
    }
    sns_signatures.sign(subscription, message)
    headers = _headers(kind, message_id, subscription if kind == "UnsubscribeConfirmation" else None, PLAIN_TEXT)
    headers["x-amz-sns-topic-arn"] = topic
    target.post_to_endpoint(subscription.endpoint, headers, _document(message).encode(), None)


def _headers(kind: str, message_id: str, subscription: Subscription | None, content_type: str) -> dict[str, str]:
    """SNS's headers on a POST (the Developer Guide's examples; LocalStack's recorded http-*-headers)."""
    headers = {"x-amz-sns-message-type": kind, "x-amz-sns-message-id": message_id}
    if subscription is not None:
        headers["x-amz-sns-topic-arn"] = subscription.topic.arn
        headers["x-amz-sns-subscription-arn"] = subscription.arn
    return {**headers, "Content-Type": content_type, **AGENT}


def _content_type(subscription: Subscription) -> str:
    """A notification's Content-Type: the subscription's DeliveryPolicy requestPolicy, else the topic's http
    defaultRequestPolicy, else text/plain (test_subscribe_external_http_endpoint_content_type)."""
    for policy, path in (
        (subscription.attributes.get("DeliveryPolicy"), ("requestPolicy",)),
        (getattr(subscription.topic, "delivery_policy", ""), ("http", "defaultRequestPolicy")),
    ):
        try:
            found: Any = json.loads(policy) if isinstance(policy, str) and policy else policy or {}
            for name in path:
                found = (found or {}).get(name)
            if isinstance(found, dict) and found.get("headerContentType"):
                return str(found["headerContentType"])
        except (ValueError, AttributeError):
            continue
    return PLAIN_TEXT


def _document(message: dict[str, Any]) -> str:
    """The JSON document SNS POSTs, laid out as the Developer Guide's examples show it."""
    return json.dumps(message, indent=2, separators=(",", " : "), ensure_ascii=False)

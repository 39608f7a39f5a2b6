"""SNS's delivery policy for HTTP and HTTPS subscriptions: how often, and how far apart, a failed POST is tried again,
and how many POSTs a subscription takes a second (pure: no moto, no HTTP).

The Amazon SNS Developer Guide, "Amazon SNS message delivery retries" (sns-message-delivery-retries.html): a POST
that fails (the endpoint unreachable, a status outside 200-499, no answer within 15 seconds; SendMessageToHttp.prepare)
is retried in four phases, `numRetries` retries in all: `numNoDelayRetries` at once, `numMinDelayRetries`
`minDelayTarget` seconds apart, the backoff phase (the retries left) from `minDelayTarget` to `maxDelayTarget` by
`backoffFunction`, then `numMaxDelayRetries` `maxDelayTarget` seconds apart. Without a policy: 3 retries 20 seconds
apart (SendMessageToHttp.retry.html; the topic's EffectiveDeliveryPolicy in LocalStack's AWS-validated
test_sns.snapshot.json). A subscription's DeliveryPolicy (`healthyRetryPolicy`, `throttlePolicy`, `requestPolicy`)
overrides its topic's (`{"http": {"defaultHealthyRetryPolicy", "defaultThrottlePolicy", "defaultRequestPolicy",
"disableSubscriptionOverrides"}}`) unless the topic disables subscription overrides.

A policy AWS refuses is refused in its words: "Invalid parameter: DeliveryPolicy: <path>.<member> must be less than or
equal to <limit>" (recorded against AWS by the Ballerina SNS connector's setTopicAttributesNegativeTest), the lower
bounds and the other rules in the same form, the constraints being the Developer Guide's table (numRetries 0-100,
minDelayTarget 1-maxDelayTarget, maxDelayTarget minDelayTarget-3,600, the phases' counts 0 or more, the backoff
function one of four, maxReceivesPerSecond 1 or more, the retries' total time at most 3,600 seconds).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Callable

from eddy.emulator.event_patterns.json_source import JsonPatternError, read_document

DEFAULT_RETRY_POLICY: dict[str, Any] = {
    "minDelayTarget": 20,
    "maxDelayTarget": 20,
    "numRetries": 3,
    "numMaxDelayRetries": 0,
    "numNoDelayRetries": 0,
    "numMinDelayRetries": 0,
    "backoffFunction": "linear",
}
BACKOFF_FUNCTIONS = ("arithmetic", "exponential", "geometric", "linear")
MAX_RETRIES = 100
MAX_DELAY = 3600  # seconds: a delay's, and the whole policy's retry time's, hard limit
COUNTS = ("numRetries", "numNoDelayRetries", "numMinDelayRetries", "numMaxDelayRetries")
#: a subscription's members, and a topic's "http" members (what else a policy names is refused)
SUBSCRIPTION_MEMBERS = ("healthyRetryPolicy", "sicklyRetryPolicy", "throttlePolicy", "requestPolicy", "guaranteed")
TOPIC_MEMBERS = (
    "defaultHealthyRetryPolicy",
    "defaultSicklyRetryPolicy",
    "defaultThrottlePolicy",
    "defaultRequestPolicy",
    "disableSubscriptionOverrides",
)


class InvalidDeliveryPolicy(ValueError):
    """The policy AWS refuses; the message is AWS's after "Invalid parameter: DeliveryPolicy: "."""


@dataclass(frozen=True)
class DeliveryPolicy:
    """What a subscription's deliveries follow: the delay before each retry, and the POSTs a second (None: no limit)."""

    retry_delays: tuple[float, ...]
    max_receives_per_second: int | None


def check_subscription_policy(text: str) -> None:
    """Refuse (InvalidDeliveryPolicy) a subscription's DeliveryPolicy that AWS refuses."""
    policy = _document(text)
    _members(policy, SUBSCRIPTION_MEMBERS, "")
    _retry(policy.get("healthyRetryPolicy"), "healthyRetryPolicy")
    _throttle(policy.get("throttlePolicy"), "throttlePolicy")


def check_topic_policy(text: str) -> None:
    """Refuse (InvalidDeliveryPolicy) a topic's DeliveryPolicy that AWS refuses (only its "http" is checked here:
    the other protocols' policies cannot be changed and are kept as given)."""
    policy = _document(text)
    http = policy.get("http")
    if http is None:
        return
    if not isinstance(http, dict):
        raise InvalidDeliveryPolicy("http must be an object")
    _members(http, TOPIC_MEMBERS, "http.")
    _retry(http.get("defaultHealthyRetryPolicy"), "http.defaultHealthyRetryPolicy")
    _throttle(http.get("defaultThrottlePolicy"), "http.defaultThrottlePolicy")


def effective(subscription_policy: str | None, topic_policy: str | None) -> DeliveryPolicy:
    """The policy a subscription's POSTs follow: its own where its topic allows overrides, else its topic's "http"
    defaults, else SNS's default; what a policy leaves out is SNS's default."""
    topic = _loaded(topic_policy).get("http") or {}
    subscription = {} if topic.get("disableSubscriptionOverrides") is True else _loaded(subscription_policy)
    retry = subscription.get("healthyRetryPolicy") or topic.get("defaultHealthyRetryPolicy") or {}
    throttle = subscription.get("throttlePolicy") or topic.get("defaultThrottlePolicy") or {}
    rate = throttle.get("maxReceivesPerSecond") if isinstance(throttle, dict) else None
    return DeliveryPolicy(retry_delays(retry), int(rate) if isinstance(rate, int) and rate > 0 else None)


def retry_delays(retry_policy: dict[str, Any]) -> tuple[float, ...]:
    """The delay before each retry, in seconds, phase by phase (a retry policy's missing members SNS's defaults)."""
    policy = {**DEFAULT_RETRY_POLICY, **{k: v for k, v in retry_policy.items() if v is not None}}
    low, high = float(policy["minDelayTarget"]), float(policy["maxDelayTarget"])
    retries = int(policy["numRetries"])
    immediate, before, after = (int(policy[name]) for name in COUNTS[1:])
    backoff = max(0, retries - immediate - before - after)
    delays = [0.0] * immediate + [low] * before + _backoff(backoff, low, high, policy["backoffFunction"])
    return tuple((delays + [high] * after)[:retries])


#: each backoff function's share of the way from minDelayTarget to maxDelayTarget at x, the retry's place in the
#: backoff phase (0: its first retry, 1: its last). The SNS Developer Guide draws them (sns-message-delivery-retries,
#: the backoff graph: 10 retries from 5 to 260 seconds): every curve starts at the minimum delay and reaches the
#: maximum by the last retry; linear rises steadily, arithmetic and geometric faster early on (steeper than linear,
#: less than exponential), exponential fastest, reaching the maximum soonest. The curves are Eddy's, with that order.
BACKOFF_CURVES: dict[str, Callable[[float], float]] = {
    "linear": lambda x: x,
    "arithmetic": lambda x: 1 - (1 - x) ** 2,
    "geometric": lambda x: 1 - (1 - x) ** 3,
    "exponential": lambda x: (1 - 2 ** (-10 * x)) / (1 - 2**-10),
}


def _backoff(count: int, low: float, high: float, function: str) -> list[float]:
    """The backoff phase's `count` delays, from `low` at its first retry to `high` at its last, along the function's
    curve (BACKOFF_CURVES)."""
    curve = BACKOFF_CURVES.get(function, BACKOFF_CURVES["linear"])
    if count == 1:
        return [high]
    return [round(low + (high - low) * curve(step / (count - 1)), 3) for step in range(count)]


def _document(text: str) -> dict[str, Any]:
    try:
        policy = read_document(text)
    except JsonPatternError as refusal:  # Jackson's words, as SNS words its other policies' (test_sns.snapshot.json)
        raise InvalidDeliveryPolicy(f"failed to parse JSON. {refusal}") from None
    except ValueError:
        raise InvalidDeliveryPolicy("failed to parse JSON") from None
    if not isinstance(policy, dict):
        raise InvalidDeliveryPolicy("failed to parse JSON")
    return policy


def _loaded(text: str | None) -> dict[str, Any]:
    try:
        policy = json.loads(text) if text else {}
    except ValueError:
        return {}
    return policy if isinstance(policy, dict) else {}


def _members(policy: dict[str, Any], allowed: tuple[str, ...], path: str) -> None:
    for name in policy:
        if name not in allowed:
            raise InvalidDeliveryPolicy(f"Unexpected JSON member: {path}{name}")


def _retry(policy: Any, path: str) -> None:
    if policy is None:
        return
    if not isinstance(policy, dict):
        raise InvalidDeliveryPolicy(f"{path} must be an object")
    _members(policy, tuple(DEFAULT_RETRY_POLICY), f"{path}.")
    merged = {**DEFAULT_RETRY_POLICY, **policy}
    for name in ("minDelayTarget", "maxDelayTarget", *COUNTS):
        if not isinstance(merged[name], int) or isinstance(merged[name], bool):
            raise InvalidDeliveryPolicy(f"{path}.{name} must be an integer")
    if merged["numRetries"] > MAX_RETRIES:
        raise InvalidDeliveryPolicy(f"{path}.numRetries must be less than or equal to {MAX_RETRIES}")
    for name in COUNTS:
        if merged[name] < 0:
            raise InvalidDeliveryPolicy(f"{path}.{name} must be greater than or equal to 0")
    if merged["minDelayTarget"] < 1:
        raise InvalidDeliveryPolicy(f"{path}.minDelayTarget must be greater than or equal to 1")
    if merged["maxDelayTarget"] > MAX_DELAY:
        raise InvalidDeliveryPolicy(f"{path}.maxDelayTarget must be less than or equal to {MAX_DELAY}")
    if merged["minDelayTarget"] > merged["maxDelayTarget"]:
        raise InvalidDeliveryPolicy(f"{path}.minDelayTarget must be less than or equal to maxDelayTarget")
    phases = sum(merged[name] for name in COUNTS[1:])
    if phases > merged["numRetries"]:
        raise InvalidDeliveryPolicy(
            f"{path}.numRetries must be greater than or equal to the sum of numNoDelayRetries, numMinDelayRetries "
            "and numMaxDelayRetries"
        )
    if merged["backoffFunction"] not in BACKOFF_FUNCTIONS:
        raise InvalidDeliveryPolicy(f"{path}.backoffFunction must be one of: {', '.join(BACKOFF_FUNCTIONS)}")
    if sum(retry_delays(merged)) > MAX_DELAY:
        raise InvalidDeliveryPolicy(f"{path}: the total retry time must be less than or equal to {MAX_DELAY} seconds")


def _throttle(policy: Any, path: str) -> None:
    if policy is None:
        return
    if not isinstance(policy, dict):
        raise InvalidDeliveryPolicy(f"{path} must be an object")
    _members(policy, ("maxReceivesPerSecond",), f"{path}.")
    rate = policy.get("maxReceivesPerSecond")
    if rate is not None and (not isinstance(rate, int) or isinstance(rate, bool) or rate < 1):
        raise InvalidDeliveryPolicy(f"{path}.maxReceivesPerSecond must be greater than or equal to 1")

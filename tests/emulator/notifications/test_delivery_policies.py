"""notifications/delivery_policies.py alone: the policy a subscription's POSTs follow and its retries' delays.

Sources: the Amazon SNS Developer Guide, "Amazon SNS message delivery retries" (the four phases; a subscription's
policy overrides its topic's unless the topic's http.disableSubscriptionOverrides; the constraints' table) and
"Step 4: Optional - Set the delivery policy" (by default three retries 20 seconds apart). Through boto3 in both
doors: tests/emulator/api/sns/test_http_delivery_retries.py."""

from __future__ import annotations

import json

import pytest

from eddy.emulator.notifications.delivery_policies import (
    DeliveryPolicy,
    InvalidDeliveryPolicy,
    check_subscription_policy,
    check_topic_policy,
    effective,
    retry_delays,
)


def test_without_a_policy_three_retries_20_seconds_apart():
    assert effective(None, None) == DeliveryPolicy((20.0, 20.0, 20.0), None)
    assert effective("", json.dumps({"http": {"disableSubscriptionOverrides": False}})) == DeliveryPolicy(
        (20.0, 20.0, 20.0), None)


def test_the_phases_in_order_and_each_backoff_function_rises_from_the_minimum_to_the_maximum_delay():
    phases = {"numRetries": 8, "numNoDelayRetries": 2, "numMinDelayRetries": 1, "numMaxDelayRetries": 1,
              "minDelayTarget": 2, "maxDelayTarget": 32}
    assert {function: retry_delays({**phases, "backoffFunction": function}) for function in (
        "linear", "exponential", "geometric", "arithmetic")} == {
        "linear": (0.0, 0.0, 2.0, 2.0, 12.0, 22.0, 32.0, 32.0),
        "exponential": (0.0, 0.0, 2.0, 2.0, 29.05, 31.734, 32.0, 32.0),
        "geometric": (0.0, 0.0, 2.0, 2.0, 23.111, 30.889, 32.0, 32.0),
        "arithmetic": (0.0, 0.0, 2.0, 2.0, 18.667, 28.667, 32.0, 32.0)}


def test_the_backoff_functions_as_the_developer_guide_draws_them():
    # The Developer Guide's backoff graph (sns-message-delivery-retries: 10 retries, minimum delay 5 s, maximum 260 s):
    # "All lines start near the minimum delay of 5 seconds and approach the maximum delay of 260 seconds by the tenth
    # retry"; exponential "increases rapidly, reaching the maximum delay the quickest", linear "increases steadily",
    # arithmetic and geometric "steeper than linear but less rapid than exponential"
    policy = {"numRetries": 10, "minDelayTarget": 5, "maxDelayTarget": 260}
    curves = {function: retry_delays({**policy, "backoffFunction": function})
              for function in ("linear", "arithmetic", "geometric", "exponential")}
    assert {function: (delays[0], delays[-1], len(delays)) for function, delays in curves.items()} == {
        function: (5.0, 260.0, 10) for function in curves}
    steps = {function: [later - earlier for earlier, later in zip(delays, delays[1:])]
             for function, delays in curves.items()}
    assert len(set(steps["linear"])) <= 2  # steadily (up to rounding)
    for retry in range(1, 9):  # between the first and the last, in the graph's order
        assert (curves["linear"][retry] < curves["arithmetic"][retry] < curves["geometric"][retry]
                < curves["exponential"][retry]), retry
    assert curves["exponential"][3] > 0.9 * 260  # the maximum soonest


def test_a_subscriptions_policy_overrides_its_topics_unless_the_topic_disables_overrides():
    topic = {"http": {"defaultHealthyRetryPolicy": {"numRetries": 1, "minDelayTarget": 7, "maxDelayTarget": 7},
                      "defaultThrottlePolicy": {"maxReceivesPerSecond": 5}}}
    subscription = json.dumps({"healthyRetryPolicy": {"numRetries": 2, "minDelayTarget": 3, "maxDelayTarget": 3},
                               "throttlePolicy": {"maxReceivesPerSecond": 1}})
    locked = {"http": {**topic["http"], "disableSubscriptionOverrides": True}}
    assert [effective(subscription, json.dumps(topic)), effective(None, json.dumps(topic)),
            effective(subscription, json.dumps(locked))] == [
        DeliveryPolicy((3.0, 3.0), 1), DeliveryPolicy((7.0,), 5), DeliveryPolicy((7.0,), 5)]


@pytest.mark.parametrize("policy, message", [
    ({"healthyRetryPolicy": {"numRetries": 101}}, "healthyRetryPolicy.numRetries must be less than or equal to 100"),
    ({"healthyRetryPolicy": {"minDelayTarget": 0}}, "healthyRetryPolicy.minDelayTarget must be greater than or equal to 1"),
    ({"healthyRetryPolicy": {"minDelayTarget": 30, "maxDelayTarget": 20}},
     "healthyRetryPolicy.minDelayTarget must be less than or equal to maxDelayTarget"),
    ({"healthyRetryPolicy": {"maxDelayTarget": 3601}},
     "healthyRetryPolicy.maxDelayTarget must be less than or equal to 3600"),
    ({"healthyRetryPolicy": {"numRetries": 2, "numNoDelayRetries": 3}},
     "healthyRetryPolicy.numRetries must be greater than or equal to the sum of numNoDelayRetries, "
     "numMinDelayRetries and numMaxDelayRetries"),
    ({"healthyRetryPolicy": {"backoffFunction": "cubic"}},
     "healthyRetryPolicy.backoffFunction must be one of: arithmetic, exponential, geometric, linear"),
    ({"healthyRetryPolicy": {"numRetries": 100, "minDelayTarget": 60, "maxDelayTarget": 60}},
     "healthyRetryPolicy: the total retry time must be less than or equal to 3600 seconds"),
    ({"throttlePolicy": {"maxReceivesPerSecond": 0}},
     "throttlePolicy.maxReceivesPerSecond must be greater than or equal to 1"),
    ({"retryPolicy": {}}, "Unexpected JSON member: retryPolicy"),
])
def test_a_subscription_policy_sns_refuses(policy, message):
    with pytest.raises(InvalidDeliveryPolicy) as refused:
        check_subscription_policy(json.dumps(policy))
    assert str(refused.value) == message


def test_a_topic_policy_is_checked_under_http_and_a_valid_one_passes():
    with pytest.raises(InvalidDeliveryPolicy) as refused:
        check_topic_policy(json.dumps({"http": {"throttlePolicy": {}}}))
    assert str(refused.value) == "Unexpected JSON member: http.throttlePolicy"
    valid = {"http": {"defaultHealthyRetryPolicy": {"minDelayTarget": 20, "maxDelayTarget": 20, "numRetries": 3,
                                                    "numMaxDelayRetries": 0, "numNoDelayRetries": 0,
                                                    "numMinDelayRetries": 0, "backoffFunction": "linear"},
                      "disableSubscriptionOverrides": False,
                      "defaultRequestPolicy": {"headerContentType": "text/plain; charset=UTF-8"}}}
    assert (check_topic_policy(json.dumps(valid)), check_subscription_policy(json.dumps(
        {"healthyRetryPolicy": valid["http"]["defaultHealthyRetryPolicy"]}))) == (None, None)

"""notifications/http_endpoints.py alone, on a clock the test moves (issue 35's rule: built with a clock, a condition
and an outcome callback, never the Emulator): a subscription's throttlePolicy spaces its POSTs on the clock, a failed
POST waits for its retry until the clock reaches it, and wait_idle waits only for what is due.

Source: the Amazon SNS Developer Guide, "Amazon SNS message delivery retries" (throttlePolicy.maxReceivesPerSecond:
"the maximum number of deliveries per second, per subscription"; the retry phases). Through boto3 in both doors:
tests/emulator/api/sns/test_http_delivery_retries.py."""

from __future__ import annotations

import errno
import threading
from pathlib import Path

from eddy.emulator.notifications.delivery_policies import DeliveryPolicy
from eddy.emulator.notifications.http_endpoints import HttpEndpoints
from eddy.emulator.storage.disk import WriteFailed
from tests.emulator.api.sns.http_endpoint import Endpoint

TRIGGER = ("sns", "arn:aws:sns:us-east-1:123456789012:orders:1")


def endpoints(now: list[float], outcomes: list) -> tuple[HttpEndpoints, threading.Condition]:
    activity = threading.Condition(threading.RLock())
    return HttpEndpoints(lambda: now[0], activity, lambda trigger, error: outcomes.append(error)), activity


def move(now: list[float], activity: threading.Condition, seconds: float) -> None:
    with activity:
        now[0] += seconds
        activity.notify_all()


def test_a_throttled_subscription_gets_one_post_a_second_of_the_clock():
    now, outcomes = [1000.0], []
    http, activity = endpoints(now, outcomes)
    with Endpoint() as endpoint:
        for number in range(3):
            http.post(endpoint.url, {}, f"message {number}".encode(), TRIGGER, DeliveryPolicy((), 1))
        endpoint.wait_for(1)
        assert http.wait_idle(0.5) is False  # the second waits for the next second of the clock
        assert len(endpoint.received) == 1
        move(now, activity, 1.0)
        endpoint.wait_for(2)
        assert http.wait_idle(0.5) is False and len(endpoint.received) == 2
        move(now, activity, 1.0)
        assert http.wait_idle(30) is True
        assert [body for _, body in endpoint.received] == [b"message 0", b"message 1", b"message 2"]
    http.close()
    assert outcomes == [None, None, None]


def test_a_failed_post_waits_for_its_retry_on_the_clock_and_is_not_waited_for():
    now, outcomes = [1000.0], []
    http, activity = endpoints(now, outcomes)
    with Endpoint(statuses=(500,)) as endpoint:
        http.post(endpoint.url, {}, b"message", TRIGGER, DeliveryPolicy((20.0,), None))
        endpoint.wait_for(1)
        assert http.wait_idle(30) is True  # nothing due: the retry is 20 s away on the clock
        with activity:
            assert http.pending_entries() == [{
                "Mapping": f"SNS delivery to {endpoint.url}", "SubscriptionArn": TRIGGER[1],
                "LastError": "the endpoint answered 500",
                "Retrying": [{"Attempts": 1, "NextAttemptAt": 1020.0, "Records": []}]}]
        move(now, activity, 20.0)
        endpoint.wait_for(2)
        assert http.wait_idle(30) is True
        with activity:
            assert (http.pending_entries(), http.take_failures()) == ([], [])
    http.close()
    assert outcomes == [None]


def test_a_post_queued_while_the_sender_closes_is_sent_and_close_returns():
    """close() waits for the POST being sent; one queued meanwhile (a destination publishing as the emulator closes)
    must not start a second sender that leaves the first waiting forever (close() hung)."""
    now, outcomes = [1000.0], []
    http, activity = endpoints(now, outcomes)
    answer = threading.Event()
    with Endpoint(hold=answer) as endpoint:
        http.post(endpoint.url, {}, b"first", TRIGGER)
        endpoint.wait_for(1)  # the sender is in the middle of the first POST
        closing = threading.Thread(target=http.close)
        closing.start()
        with activity:  # close() has told the sender to stop and waits for it
            assert activity.wait_for(lambda: http._stopping, timeout=60)
        http.post(endpoint.url, {}, b"second", TRIGGER)
        answer.set()
        closing.join(timeout=120)
        assert not closing.is_alive()
        assert [body for _, body in endpoint.received] == [b"first", b"second"]
    assert outcomes == [None, None]


def test_the_throttle_forgets_a_subscription_a_second_after_its_last_post():
    # A throttled subscription's record of its last POSTs is kept only while it can hold the next one back: one
    # second of the clock. It was kept for ever, one per subscription ever sent to (unsubscribed or deleted too).
    now, outcomes = [1000.0], []
    http, activity = endpoints(now, outcomes)
    gone = [("sns", f"arn:aws:sns:us-east-1:123456789012:orders:{number}") for number in range(50)]
    with Endpoint() as endpoint:
        for trigger in gone:
            http.post(endpoint.url, {}, b"message", trigger, DeliveryPolicy((), 1))
        assert http.wait_idle(30) is True and len(endpoint.received) == 50
        with activity:
            assert set(http._sent) == set(gone)  # each can take no second POST within this second of the clock
        move(now, activity, 1.0)
        http.post(endpoint.url, {}, b"message", TRIGGER, DeliveryPolicy((), 1))
        assert http.wait_idle(30) is True and len(endpoint.received) == 51
        with activity:
            assert list(http._sent) == [TRIGGER]
    http.close()
    assert outcomes == [None] * 51


def test_each_retry_comes_up_to_its_jitter_sooner_drawn_for_each_retry():
    # SNS "applies jittering to delivery retries" (the Developer Guide, "Amazon SNS message delivery retries"): each
    # retry's delay is its policy's less a share drawn at random, at most `jitter` of it
    now, outcomes, draws = [1000.0], [], iter([0.5, 1.0])
    activity = threading.Condition(threading.RLock())
    http = HttpEndpoints(lambda: now[0], activity, lambda trigger, error: outcomes.append(error), jitter=0.1,
                         draw=lambda: next(draws))
    with Endpoint(statuses=(500, 500)) as endpoint:
        http.post(endpoint.url, {}, b"message", TRIGGER, DeliveryPolicy((20.0, 20.0), None))
        next_at = []
        for attempts in (1, 2):
            endpoint.wait_for(attempts)
            assert http.wait_idle(30) is True
            with activity:
                [entry] = http.pending_entries()
            next_at.append(entry["Retrying"][0]["NextAttemptAt"])
            move(now, activity, next_at[-1] - now[0])
        endpoint.wait_for(3)
        assert http.wait_idle(30) is True
    http.close()
    assert (next_at, outcomes) == ([1000.0 + 20 * 0.95, 1019.0 + 20 * 0.9], [None])


class RefusingDone:
    """A durable log whose disk refuses every notification's `done` entry (WriteFailed)."""

    durable = True

    def log(self, entry: dict) -> None:
        if entry["op"].endswith("_done"):
            raise WriteFailed(Path("/state/wal"), OSError(errno.EIO, "Input/output error"))

    def after_commit(self, action) -> None:
        action()


def test_a_refused_entry_does_not_stop_the_sender():
    # the sender thread wrote the delivered notification's `done` unguarded: a disk refusing it ended the thread, with
    # the POST still counted as sending (wait_idle never idle) and nothing sent again
    now, outcomes = [1000.0], []
    activity = threading.Condition(threading.RLock())
    http = HttpEndpoints(lambda: now[0], activity, lambda trigger, error: outcomes.append(error),
                         persistence=RefusingDone())
    with Endpoint() as endpoint:
        http.post(endpoint.url, {}, b"first", TRIGGER)
        endpoint.wait_for(1)
        http.post(endpoint.url, {}, b"second", TRIGGER)
        endpoint.wait_for(2)
        assert http.wait_idle(30) is True
        assert [body for _, body in endpoint.received] == [b"first", b"second"]
    http.close()
    assert outcomes == [None, None]

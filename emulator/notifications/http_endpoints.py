"""SNS's POSTs to HTTP and HTTPS subscribers' endpoints, sent off the request's thread, retried on the emulator's clock.

SNS delivers to an HTTP endpoint after Subscribe, Publish or Unsubscribe has answered (a subscription confirmation,
a notification, an unsubscribe confirmation), so an endpoint that calls SNS back (visits the SubscribeURL, say)
never waits on the request that made the POST. One thread sends them, each when its time on the emulator's clock
has come, in that order. A POST fails when the endpoint cannot be reached, answers a status outside 200-499 or does
not answer within 15 seconds (the Developer Guide, SendMessageToHttp.prepare.html); a failed notification is tried
again after each of its delivery policy's delays (delivery_policies.py), then handed to `given_up` (its
subscription's dead-letter queue). Its outcome is told to `outcome(trigger, error)` (None: delivered), where the
deliveries are counted. wait_idle waits while a POST is being sent or due, and names one waiting for its retry.
"""

from __future__ import annotations

import collections
import dataclasses
import heapq
import itertools
import logging
import random
import threading
import urllib.error
import uuid
import urllib.request
from dataclasses import dataclass, field
from typing import Any, Callable

from eddy.emulator.notifications.delivery_policies import DeliveryPolicy
from eddy.emulator.notifications.delivery_status import Delivery, Outcome
from eddy.emulator.storage.async_queue import QueueChannel
from eddy.emulator.storage.channels import NOT_KEPT, DurableLog

log = logging.getLogger("eddy.notifications")

TIMEOUT_SECONDS = 15.0
#: how much of an endpoint's answer its delivery-status log keeps (Eddy's bound)
RESPONSE_KEPT = 2048
#: a POST that is not a notification (a confirmation) is sent once
ONCE = DeliveryPolicy((), None)


@dataclass
class Post:
    url: str
    headers: dict[str, str]
    body: bytes
    trigger: tuple[str, ...] | None  # what the delivery is counted for (a notification's subscription), or None
    policy: DeliveryPolicy = ONCE
    #: where the notification goes once every retry has failed (the subscription's dead-letter queue), or None
    dead_letter_arn: str | None = None
    attempts: int = 0
    due: float = 0.0
    last_error: str | None = field(default=None)
    #: a notification's id in the durable channel ("": a confirmation, sent once and not kept)
    id: str = ""
    #: the notification for its delivery-status log (delivery_status.py), or None
    delivery: Delivery | None = None
    #: the last attempt's answer: its status (None: none came) and its text, or why it failed
    last_status: int | None = None
    last_response: str = ""

    def state(self) -> dict[str, Any]:
        """The notification as written down (its channel's entry): enough to send it, and retry it, again."""
        return {
            "id": self.id,
            "url": self.url,
            "headers": self.headers,
            "body": self.body.decode("utf-8", "surrogateescape"),
            "trigger": list(self.trigger or ()),
            "delays": list(self.policy.retry_delays),
            "rate": self.policy.max_receives_per_second,
            "deadLetter": self.dead_letter_arn,
            "attempts": self.attempts,
            "due": self.due,
            "lastError": self.last_error,
            "delivery": dataclasses.asdict(self.delivery) if self.delivery is not None else None,
        }

    @classmethod
    def restored(cls, state: dict[str, Any]) -> Post:
        return cls(
            state["url"],
            state["headers"],
            state["body"].encode("utf-8", "surrogateescape"),
            tuple(state["trigger"]) or None,
            DeliveryPolicy(tuple(state["delays"]), state["rate"]),
            state["deadLetter"],
            state["attempts"],
            state["due"],
            state["lastError"],
            state["id"],
            Delivery(**state["delivery"]) if state.get("delivery") else None,  # written before 2026-11-29: none
        )


class HttpEndpoints:
    """Built with the emulator's clock (`now`), the condition notified when it moves (`activity`), and where each
    POST's outcome goes."""

    def __init__(
        self,
        now: Callable[[], float],
        activity: threading.Condition,
        outcome: Callable[[tuple[str, ...], str | None], None],
        dead_letter: Callable[[str, bytes], str] | None = None,
        persistence: DurableLog = NOT_KEPT,
        jitter: float = 0.0,
        draw: Callable[[], float] = random.random,
        status_log: Callable[[Delivery, Outcome], Any] | None = None,
    ) -> None:
        self._now = now
        self._activity = activity
        self._outcome = outcome
        #: moves a notification no retry delivered to a queue (its ARN, the body): the queue's ARN
        self._dead_letter = dead_letter
        #: a notification's outcome, for its delivery-status log (its last attempt's answer)
        self._status_log = status_log
        #: each retry's delay is its policy's, less up to this share of it, drawn by `draw` (SNS's jitter)
        self._jitter, self._draw = jitter, draw
        self._schedule: list[tuple[float, int, Post]] = []
        self._order = itertools.count()
        self._sending: Post | None = None
        #: each throttled subscription's last POSTs, while they may still hold its next one back (a second of the clock)
        self._sent: dict[tuple[str, ...], collections.deque[float]] = {}
        self._failures: list[dict[str, Any]] = []
        self._worker: threading.Thread | None = None
        self._stopping = False
        #: the notifications not yet delivered nor given up on, by id: kept in the durable channel (registered with
        #: storage by the composition root), so a retry waiting at a stop is made after the restart
        self._kept: dict[str, Post] = {}
        self.channel = QueueChannel("sns_http_delivery", persistence, self)

    def post(
        self,
        url: str,
        headers: dict[str, str],
        body: bytes,
        trigger: tuple[str, ...] | None = None,
        policy: DeliveryPolicy = ONCE,
        dead_letter_arn: str | None = None,
        delivery: Delivery | None = None,
    ) -> None:
        """Queue a POST (sent after the caller's request has answered, and retried as `policy` says); a notification
        (one with a `trigger`) is written down first. Either is queued only once its request's entries are written
        (storage/units_of_work.py): a Publish or Subscribe the disk refused POSTs nothing."""
        with self._activity:
            post = Post(url, headers, body, trigger, policy, dead_letter_arn, due=self._now(), delivery=delivery)
            if trigger is None:  # a confirmation: sent once, not kept
                self.channel.log.after_commit(lambda: self._keep(post))
            else:
                post.id = uuid.uuid4().hex
                self.channel.queued(post.state(), lambda: self._keep(post))

    def _keep(self, post: Post) -> None:
        with self._activity:
            if post.id:
                self._kept[post.id] = post
            self._queue(post, post.due)
            self._start_sender()
            self._activity.notify_all()

    def start(self) -> None:
        """Send what recovery restored (each when its time comes)."""
        with self._activity:
            if self._schedule:
                self._start_sender()

    def _start_sender(self) -> None:
        if self._worker is None:
            self._stopping = False
            self._worker = threading.Thread(target=self._run, name="eddy-sns-http", daemon=True)
            self._worker.start()

    # -- the durable channel's queue (storage/async_queue.py Restorable) -------------------------------------

    def restore(self, state: dict[str, Any]) -> None:
        """A notification as written down (recovery): queued for its next attempt, as it was."""
        post = Post.restored(state)
        self.forget(post.id)
        self._kept[post.id] = post
        self._queue(post, post.due)

    def forget(self, key: str) -> None:
        if self._kept.pop(key, None) is not None:
            self._schedule = [entry for entry in self._schedule if entry[2].id != key]
            heapq.heapify(self._schedule)

    def states(self) -> list[dict[str, Any]]:
        return [post.state() for post in self._kept.values()]

    # -- what wait_idle reads (the emulator's lock held) ---------------------------------------------------

    def busy(self) -> bool:
        """A POST is being sent, one's time has come, or one not yet tried waits (its subscription's throttle)."""
        now = self._now()
        return self._sending is not None or any(due <= now or not post.attempts for due, _, post in self._schedule)

    def pending_entries(self) -> list[dict[str, Any]]:
        """One entry per notification waiting for its retry later on the clock (NextAttemptAt says when)."""
        return [
            {
                "Mapping": f"SNS delivery to {post.url}",
                "SubscriptionArn": post.trigger[1] if post.trigger else None,
                "LastError": post.last_error,
                "Retrying": [{"Attempts": post.attempts, "NextAttemptAt": due, "Records": []}],
            }
            for due, _, post in sorted(self._schedule, key=lambda entry: entry[:2])
            if post.attempts
        ]

    def take_failures(self) -> list[dict[str, Any]]:
        """The notifications given up on since the last take, each once."""
        failures, self._failures = self._failures, []
        return failures

    def wait_idle(self, timeout: float) -> bool:
        """Wait until no POST is being sent or due (True), or `timeout` seconds."""
        with self._activity:
            return self._activity.wait_for(lambda: not self.busy(), timeout)

    def close(self) -> None:
        """Send what is due now, then stop (a retry later on the clock is not made)."""
        with self._activity:
            worker = self._worker
            self._stopping = True
            self._activity.notify_all()
        if worker is not None:  # still the sender while it stops: a POST queued meanwhile starts no second one
            worker.join()
        with self._activity:
            self._worker = None
            for _, _, post in self._schedule:
                log.warning("SNS's retry of a POST to %s not made: the emulator closed", post.url)
            self._schedule.clear()

    # -- the sender ----------------------------------------------------------------------------------------

    def _queue(self, post: Post, due: float) -> None:
        post.due = due
        heapq.heappush(self._schedule, (due, next(self._order), post))

    def _throttled_until(self, post: Post, now: float) -> float | None:
        """When the post's subscription may take another POST, if not now: no more than its throttlePolicy's
        maxReceivesPerSecond in any second of the clock."""
        rate = post.policy.max_receives_per_second
        sent = self._sent.get(post.trigger) if post.trigger and rate else None
        if rate and sent is not None and len(sent) >= rate and sent[-rate] + 1.0 > now:
            return sent[-rate] + 1.0
        return None

    def _remember_sent(self, post: Post, now: float) -> None:
        """The POST's time kept for its subscription's throttle; the records of subscriptions sent nothing in the last
        second of the clock are dropped (they no longer hold anything back: an unsubscribed or deleted topic's
        subscription is forgotten a second after its last POST)."""
        self._sent = {trigger: times for trigger, times in self._sent.items() if times[-1] + 1.0 > now}
        if post.trigger and post.policy.max_receives_per_second:
            self._sent.setdefault(post.trigger, collections.deque(maxlen=post.policy.max_receives_per_second)).append(
                now
            )

    def _next(self) -> Post | None:
        """The next POST whose time has come, waiting on the clock (the lock held); None once stopping and none is
        due."""
        while True:
            now = self._now()
            if self._schedule and self._schedule[0][0] <= now:
                post = heapq.heappop(self._schedule)[2]
                later = self._throttled_until(post, now)
                if later is not None:
                    self._queue(post, later)
                    continue
                self._sending = post
                self._remember_sent(post, now)
                return post
            if self._stopping:
                return None
            wait = min(1.0, max(0.001, self._schedule[0][0] - now)) if self._schedule else 1.0
            self._activity.wait(wait)

    def _run(self) -> None:
        while True:
            with self._activity:
                post = self._next()
            if post is None:
                return
            error, post.last_status, post.last_response = _send(post)
            try:
                self._attempted(post, error)
            except Exception:  # Eddy's own fault (the disk refused the POST's entry): reported, the sender goes on
                log.exception("SNS could not write down its POST to %s", post.url)
            finally:
                with self._activity:  # wait_idle's answer holds the outcome from here on
                    self._sending = None
                    self._activity.notify_all()

    def _attempted(self, post: Post, error: str | None) -> None:
        """A POST's attempt made: its retry queued and written down, or its end."""
        with self._activity:
            post.attempts += 1
            retries = post.policy.retry_delays
            retry_left = bool(error) and post.attempts <= len(retries)
            closing = self._stopping
            if retry_left:  # written down as it waits (a stop now leaves it for the restart to make)
                post.last_error = error
                post.due = self._now() + self._jittered(retries[post.attempts - 1])
                if not closing:
                    self._queue(post, post.due)
                if post.id:
                    self.channel.saved(post.state())
        if retry_left and closing:  # as for the retries close() finds waiting: not made, nor given up on
            log.warning("SNS's retry of a POST to %s not made: the emulator closed", post.url)
        elif not retry_left:
            self._ended(post, error)

    def _jittered(self, delay: float) -> float:
        return round(delay * (1.0 - self._jitter * self._draw()), 3)

    def _ended(self, post: Post, error: str | None) -> None:
        """A POST's last attempt: delivered, or given up on (its dead-letter queue, wait_idle's Failures)."""
        if error:
            log.warning("SNS could not deliver to %s after %d attempts: %s", post.url, post.attempts, error)
        if post.trigger is not None:
            self._outcome(post.trigger, error)
        if post.delivery is not None and self._status_log is not None:
            outcome = Outcome(post.last_status, post.last_response, post.attempts, delivered=not error)
            try:
                self._status_log(post.delivery, outcome)
            except Exception:  # Eddy's own fault (the disk refused the event): reported, the sender goes on
                log.exception("SNS could not log its delivery to %s", post.url)
        dead_letter = None
        if error and post.trigger is not None and post.dead_letter_arn and self._dead_letter is not None:
            dead_letter = _safely(self._dead_letter, post.dead_letter_arn, post.body)
        if post.id:
            with self._activity:
                self._kept.pop(post.id, None)
                self.channel.done(post.id)
        if error and post.trigger is not None:
            with self._activity:
                self._failures.append(
                    {
                        "Mapping": f"SNS delivery to {post.url}",
                        "SubscriptionArn": post.trigger[1],
                        "ApproximateInvokeCount": post.attempts,
                        "LastError": error,
                        "DeadLetterQueue": dead_letter,
                        "FailedBatches": 0,
                        "RecordsDiscarded": 0 if dead_letter else 1,
                        "Discarded": [],
                    }
                )


def _safely(dead_letter: Callable[[str, bytes], str], arn: str, body: bytes) -> str | None:
    try:
        return dead_letter(arn, body)
    except Exception as failure:  # the dead-letter queue cannot take it: the message is lost, as on AWS
        log.warning("SNS could not move a message to its dead-letter queue: %s", failure)
        return None


def _send(post: Post) -> tuple[str | None, int | None, str]:
    """(None when the endpoint took the POST (any status from 200 to 499), else why it failed; the status it answered,
    None for none; its answer's text, or the failure's words)."""
    request = urllib.request.Request(post.url, data=post.body, headers=post.headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT_SECONDS) as answer:
            return None, answer.status, _text(answer.read())
    except urllib.error.HTTPError as error:
        text = _text(error.read())
        if error.code < 500:
            return None, error.code, text  # SNS counts 4xx as delivered, not retried (SendMessageToHttp.prepare.html)
        return f"the endpoint answered {error.code}", error.code, text
    except (OSError, ValueError) as error:  # refused, unreachable, timed out, not a URL
        return f"{type(error).__name__}: {error}", None, f"{type(error).__name__}: {error}"


def _text(body: bytes) -> str:
    return body[:RESPONSE_KEPT].decode("utf-8", "replace")

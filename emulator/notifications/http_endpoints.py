"""SNS's POSTs to HTTP and HTTPS subscribers' endpoints, sent off the request's thread, one at a time in order.

SNS delivers to an HTTP endpoint after Subscribe, Publish or Unsubscribe has answered (a subscription confirmation,
a notification, an unsubscribe confirmation), so an endpoint that calls SNS back (visits the SubscribeURL, say)
never waits on the request that made the POST. Each POST is sent once, with a 15-second timeout; its outcome is
told to `outcome(trigger, error)` (None: the endpoint answered 2xx), where the deliveries are counted.
"""

from __future__ import annotations

import logging
import queue
import threading
import urllib.error
import urllib.request
from dataclasses import dataclass
from typing import Callable

log = logging.getLogger("eddy.notifications")

TIMEOUT_SECONDS = 15.0


@dataclass(frozen=True)
class Post:
    url: str
    headers: dict[str, str]
    body: bytes
    trigger: tuple[str, ...] | None  # what the delivery is counted for (a notification's subscription), or None


class HttpEndpoints:
    """Built with where each POST's outcome goes."""

    def __init__(self, outcome: Callable[[tuple[str, ...], str | None], None]) -> None:
        self._outcome = outcome
        self._queue: queue.Queue[Post | None] = queue.Queue()
        self._worker: threading.Thread | None = None
        self._lock = threading.Lock()
        self._sending = 0
        self._idle = threading.Condition(self._lock)

    def post(self, url: str, headers: dict[str, str], body: bytes, trigger: tuple[str, ...] | None = None) -> None:
        """Queue a POST (sent after the caller's request has answered)."""
        with self._lock:
            self._sending += 1
            if self._worker is None:
                self._worker = threading.Thread(target=self._run, name="eddy-sns-http", daemon=True)
                self._worker.start()
        self._queue.put(Post(url, headers, body, trigger))

    def wait_idle(self, timeout: float) -> bool:
        """Wait until every queued POST has been sent (True), or `timeout` seconds."""
        with self._idle:
            return self._idle.wait_for(lambda: self._sending == 0, timeout)

    def close(self) -> None:
        """Send what is queued, then stop."""
        with self._lock:
            worker, self._worker = self._worker, None
        if worker is not None:
            self._queue.put(None)
            worker.join()

    def _run(self) -> None:
        while (post := self._queue.get()) is not None:
            error = _send(post)
            if error:
                log.warning("SNS could not deliver to %s: %s", post.url, error)
            if post.trigger is not None:
                self._outcome(post.trigger, error)
            with self._idle:
                self._sending -= 1
                self._idle.notify_all()


def _send(post: Post) -> str | None:
    request = urllib.request.Request(post.url, data=post.body, headers=post.headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT_SECONDS) as answer:
            answer.read()
    except urllib.error.HTTPError as error:
        return f"the endpoint answered {error.code}"
    except (OSError, ValueError) as error:  # refused, unreachable, timed out, not a URL
        return f"{type(error).__name__}: {error}"
    return None

"""Asynchronous invocation, as Lambda does it (InvocationType Event; S3 and SNS pushes; EventBridge rules' Lambda
targets and FIRE_AND_FORGET pipes): every function's event queue, its retries on the emulator's clock, and each
event's invocation record sent where the function's event invoke config says.

An event is queued (and written down, storage/async_queue.py) before Invoke answers 202; a dispatcher thread
starts an attempt for each event whose time has come (at most MAX_RUNNING at once), on a thread of its own; a
failed attempt waits for its retry (events.after_failure) and that is written down too; an event that is
done sends its invocation record to the OnSuccess or OnFailure destination (SQS, SNS, Lambda, EventBridge):

    {"version": "1.0", "timestamp", "requestContext": {"requestId", "functionArn" (":$LATEST"), "condition"
     ("Success", "RetriesExhausted", "EventAgeExceeded"), "approximateInvokeCount"}, "requestPayload",
     "responseContext": {"statusCode": 200, "executedVersion": "$LATEST", "functionError" (on failure)},
     "responsePayload"}

and a failed event also goes to the function's DeadLetterConfig target (SQS or SNS) as its own payload, with the
message attributes RequestID, ErrorCode and ErrorMessage; then it is forgotten (written down as done). A restart
resumes every event with its attempts, its next attempt's moment and its age; an attempt running at a kill -9 is
tried again (at least once).

wait_idle (triggers/delivery_waits.py) waits while an event is running or its time has come; an event waiting for a
retry later on the emulator's clock is pending (not idle) but not waited for: its entry says NextAttemptAt, for a
test to advance the clock to.
"""

from __future__ import annotations

import heapq
import itertools
import json
import logging
import threading
import uuid
from typing import TYPE_CHECKING, Any

from eddy.emulator.storage.async_queue import QueueChannel
from eddy.emulator.functions.async_invocation.destinations import send
from eddy.emulator.functions.async_invocation.events import (
    EVENT_AGE_EXCEEDED,
    RETRY_DELAYS,
    SUCCESS,
    ZERO_RESERVED_CONCURRENCY,
    AsyncEvent,
    AsyncFigures,
    after_failure,
    after_throttle,
    dead_letter_attributes,
    failure_report,
    invocation_record,
    limits,
)

if TYPE_CHECKING:
    from eddy.emulator.functions.invocation import Invoker
    from eddy.emulator.functions.function import Function
    from eddy.emulator.functions.registry import FunctionRegistry
    from eddy.emulator.kernel import Kernel
    from eddy.emulator.storage.channels import DurableLog

log = logging.getLogger("eddy.functions")

#: attempts running at once, over every function (the rest wait in their queues)
MAX_RUNNING = 64


class AsyncInvocations:
    """The functions' event queues: each event is tried, retried on the clock, reported where configured, and
    kept in the state directory until it is done. Built with the kernel (activity, clock, Eddy's boto3 clients for
    the destinations), the persistence that writes each event down, the functions and their invoker."""

    def __init__(self, kernel: Kernel, persistence: DurableLog, functions: FunctionRegistry, invoker: Invoker) -> None:
        self._activity = kernel.activity
        self._now = kernel.clock.now
        self._aws_client = kernel.aws_client
        #: the queue's durable channel (registered with storage by the composition root)
        self.channel = QueueChannel("async_event", persistence, self)
        self._functions = functions
        self._invoker = invoker
        #: every event not yet done, by request id, in the order they were queued
        self.events: dict[str, AsyncEvent] = {}
        #: per function ARN
        self.figures: dict[str, AsyncFigures] = {}
        #: events that ended in failure since the last wait (wait_idle's Failures)
        self._failures: list[dict[str, Any]] = []
        #: (next_attempt_at, order, request id) of each event waiting for its attempt: the dispatcher's schedule
        self._schedule: list[tuple[float, int, str]] = []
        self._order = itertools.count()
        self._running = 0
        #: per function (its unqualified ARN), the events a throttle sent back to the queue since one of its
        #: executions last ended (request ids; one done since is skipped)
        self._throttled: dict[str, set[str]] = {}
        #: per function (its unqualified ARN), how many of its executions have ended: a try throttled while one
        #: ended (after its admission was refused, before it joined `_throttled`) is tried again at once
        self._ended: dict[str, int] = {}
        self._stopping = threading.Event()
        self._dispatcher: threading.Thread | None = None

    @property
    def pending(self) -> int:
        """How many events are not done (being tried, or waiting in their queue)."""
        return len(self.events)

    # -- queueing ---------------------------------------------------------------------------------------

    def submit(self, function: "Function", payload: Any, source: str, invoked_arn: str | None = None) -> str:
        """Queue an event for `function` (InvocationType Event); returns its request id once it is written down.
        `invoked_arn`: the ARN invoked (an alias's or a version's), whose version each attempt runs (an alias's
        weights pick one per attempt) and whose event invoke config applies."""
        with self._activity:
            now = self._now()
            invoked = (invoked_arn or function.arn).removesuffix(":$LATEST")  # $LATEST's is the function's
            event = AsyncEvent(str(uuid.uuid4()), invoked, payload, source, queued_at=now, next_attempt_at=now)
            self.channel.queued(event.to_state(), lambda: self._keep(event))  # kept once written down
        return event.request_id

    def _keep(self, event: AsyncEvent) -> None:
        with self._activity:
            self.events[event.request_id] = event
            self._schedule_attempt(event)
            self._start_dispatcher()
            self._activity.notify_all()

    def restore(self, state: dict[str, Any]) -> None:
        """An event as it was written down (recovery; its attempts begin when the emulator starts)."""
        event = AsyncEvent.from_state(state)
        self.events[event.request_id] = event
        self._schedule_attempt(event)

    def forget(self, request_id: str) -> None:
        """An event written down as done (recovery)."""
        self.events.pop(request_id, None)

    def states(self) -> list[dict[str, Any]]:
        """Every event not yet done, as written down (a snapshot's; the emulator's lock held)."""
        return [event.to_state() for event in self.events.values()]

    def start(self) -> None:
        """Begin the attempts of the events recovery restored (Emulator.start)."""
        with self._activity:
            self._stopping.clear()
            if self.events:
                self._start_dispatcher()

    def _start_dispatcher(self) -> None:
        if self._dispatcher is None and not self._stopping.is_set():
            self._dispatcher = threading.Thread(target=self._dispatch, name="eddy-async-dispatcher", daemon=True)
            self._dispatcher.start()

    def execution_freed(self, function: "Function") -> None:
        """One of `function`'s executions ended (the Invoker says so): its events a throttle sent back to the queue
        are tried now, not at the end of their back-off (events.py: Lambda reads a function's queue as its
        concurrency allows)."""
        root = function.root.arn
        self._ended[root] = self._ended.get(root, 0) + 1  # before the look below (see _try's throttled branch)
        if not self._throttled.get(root):  # the common case, without the lock
            return
        with self._activity:
            now, woken = self._now(), False
            held = [self.events[i] for i in self._throttled.pop(root, set()) if i in self.events]
            for event in sorted(held, key=lambda event: event.queued_at):
                if not event.running and not event.expires and event.next_attempt_at > now:
                    event.next_attempt_at, woken = now, True
                    self._schedule_attempt(event)
            if woken:
                self._activity.notify_all()

    def _schedule_attempt(self, event: AsyncEvent) -> None:
        heapq.heappush(self._schedule, (event.next_attempt_at, next(self._order), event.request_id))

    def _dispatch(self) -> None:
        """Start an attempt for every event whose time has come; wait for the clock or a new event otherwise."""
        schedule = self._schedule
        with self._activity:
            while not self._stopping.is_set():
                now = self._now()
                while schedule and self._running < MAX_RUNNING and schedule[0][0] <= now:
                    moment, _, request_id = heapq.heappop(schedule)
                    event = self.events.get(request_id)
                    if event is None or event.running or event.next_attempt_at != moment:
                        continue  # done, forgotten (reset) or rescheduled since
                    event.running = True
                    self._running += 1
                    threading.Thread(
                        target=self._attempt, args=(event,), daemon=True, name=f"eddy-async-{event.function_name}"
                    ).start()
                if schedule and self._running < MAX_RUNNING:
                    self._activity.wait(min(1.0, max(0.001, schedule[0][0] - now)))
                else:  # nothing to wait for but a new event, or as many attempts running as may: one ending
                    self._activity.wait(1.0)

    # -- attempts -----------------------------------------------------------------------------------------

    def _attempt(self, event: AsyncEvent) -> None:
        try:
            self._try(event)
        except Exception:  # an event must never vanish silently: it stays queued, tried again a minute later
            log.exception("asynchronous invocation %s of %s failed", event.request_id, event.function_name)
            with self._activity:
                event.running = False
                self._running -= 1
                if event.request_id in self.events:
                    event.next_attempt_at = self._now() + RETRY_DELAYS[0]
                    self._schedule_attempt(event)
                self._activity.notify_all()

    def _try(self, event: AsyncEvent) -> None:
        function = self._functions.runnable(event.function_arn)  # an alias's: by its weights, each attempt
        settings = self._functions.invoke_settings(event.function_arn)
        if function is None:  # deleted while its event waited: Lambda's queue goes with it
            log.warning(
                "asynchronous invocation %s dropped: the function %s no longer exists",
                event.request_id,
                event.function_arn,
            )
            return self._end(event, None, "FunctionDeleted", None)
        retries, maximum_age = limits(settings)
        if event.expires or self._now() - event.queued_at >= maximum_age:
            return self._end(event, function, EVENT_AGE_EXCEEDED, event.error_payload, settings)
        if function.root.reserved_concurrency == 0:  # it can never run: Lambda gives up on it at once
            return self._end(event, function, ZERO_RESERVED_CONCURRENCY, None, settings)
        started, ended = self._now(), self._ended.get(root := function.root.arn, 0)
        result = self._invoker.invoke(
            function, event.payload, source=event.source, request_id=event.request_id, invoked_arn=event.function_arn
        )
        with self._activity:
            figures = self.figures.setdefault(event.function_arn, AsyncFigures())
            if result.throttled:  # not an attempt: back to the queue, tried again after a back-off
                now = self._now()
                after_throttle(event, now, maximum_age)  # or once an execution of the function is free
                self._throttled.setdefault(root, set()).add(event.request_id)
                # joined before the count is read: an execution that ends from here on finds it in `_throttled`
                # (execution_freed); one that ended since this try began, after its admission was refused, has
                # looked already: its turn is now, not at the end of the back-off
                if self._ended.get(root, 0) != ended and not event.expires:
                    event.next_attempt_at = now
                event.last_error = f"{result.error.error_type}: {result.error.message}"
                figures.last_error = event.last_error
                return self._wait_for_next(event)
            event.attempts += 1
            event.throttles = 0
            figures.invocations += 1
            figures.retries += event.attempts > 1
            if result.ok:
                condition: str | None = SUCCESS
            else:
                event.last_error = f"{result.error.error_type}: {result.error.message}"
                event.error_payload, event.error_message = result.error_payload(), result.error.message
                figures.errors += 1
                figures.last_error = event.last_error
                condition = after_failure(event, started, retries, maximum_age)
            if condition is None:  # it waits for its retry
                return self._wait_for_next(event)
        return self._end(event, function, condition, result.payload if result.ok else event.error_payload, settings)

    def _wait_for_next(self, event: AsyncEvent) -> None:
        """The event waits for its next try (the lock held): written down, scheduled."""
        event.running = False
        self._running -= 1
        self.channel.saved(event.to_state())
        self._schedule_attempt(event)
        self._activity.notify_all()

    def _end(
        self,
        event: AsyncEvent,
        function: "Function | None",
        condition: str,
        response: Any,
        settings: dict[str, Any] | None = None,
    ) -> None:
        """Send the event's records (by the invoked qualifier's event invoke config `settings`), then forget it
        (written down as done)."""
        destination = dead_letter = None
        if function is not None:
            destinations = (settings or {}).get("DestinationConfig") or {}
            destination = (destinations.get("OnSuccess" if condition == SUCCESS else "OnFailure") or {}).get(
                "Destination"
            )
            if destination:
                record = invocation_record(event, function, condition, self._now(), response)
                send(
                    self._aws_client,
                    destination,
                    json.dumps(record),
                    None,
                    function,
                    "Success" if condition == SUCCESS else "Failure",
                )
            if condition != SUCCESS and function.dead_letter_target:
                dead_letter = function.dead_letter_target
                send(
                    self._aws_client,
                    dead_letter,
                    json.dumps(event.payload),
                    dead_letter_attributes(event),
                    function,
                    "Failure",
                )
        with self._activity:
            self.events.pop(event.request_id, None)
            self._running -= 1
            self.channel.done(event.request_id)
            if condition != SUCCESS:
                figures = self.figures.setdefault(event.function_arn, AsyncFigures())
                figures.events_dropped += 1
                self._failures.append(self._failure(event, condition, destination, dead_letter))
            self._activity.notify_all()

    @staticmethod
    def _failure(event: AsyncEvent, condition: str, destination: str | None, dead_letter: str | None) -> dict[str, Any]:
        """wait_idle's Failures entry for an event given up on (logged, but for a deleted function's)."""
        if condition != "FunctionDeleted":
            log.warning(
                "asynchronous invocation %s of %s given up on (%s after %d attempts): %s",
                event.request_id,
                event.function_name,
                condition,
                event.attempts,
                event.last_error,
            )
        return failure_report(event, condition, destination, dead_letter)

    # -- what a user can read (the emulator's lock held or taken) ------------------------------------------

    def busy(self) -> bool:
        """An attempt is running, or an event's time has come (wait_idle waits for these)."""
        now = self._now()
        return any(event.running or event.due(now) for event in self.events.values())

    def pending_entries(self) -> list[dict[str, Any]]:
        """wait_idle's Pending entries: one per event not done; one waiting for its retry names it in Retrying
        (as a mapping's lane does), so a test knows where to advance the clock."""
        entries = []
        for event in self.events.values():
            entry = dict(event.describe(), Mapping=f"asynchronous invocation of {event.function_name}", Retrying=[])
            if event.attempts and not event.running:
                entry["Retrying"] = [
                    {
                        "RequestId": event.request_id,
                        "Attempts": event.attempts,
                        "NextAttemptAt": event.next_attempt_at,
                        "Records": [],
                    }
                ]
            entries.append(entry)
        return entries

    def take_failures(self) -> list[dict[str, Any]]:
        """The events given up on since the last take, each once."""
        failures, self._failures = self._failures, []
        return failures

    def queued(self) -> dict[str, list[dict[str, Any]]]:
        """Every event not done, per function ARN (the dashboard's and `eddy tail`'s view)."""
        with self._activity:
            queues: dict[str, list[dict[str, Any]]] = {}
            for event in self.events.values():
                queues.setdefault(event.function_arn, []).append(event.describe())
            return queues

    def figures_of(self) -> dict[str, dict[str, Any]]:
        """Per function ARN: Invocations, Errors, Retries, EventsDropped, LastError."""
        with self._activity:
            return {arn: figures.to_dict() for arn, figures in self.figures.items()}

    # -- lifecycle ---------------------------------------------------------------------------------------

    def close(self) -> None:
        """Start no more attempts, and let those running finish (their outcome written down), so that a clean stop
        repeats nothing; the events not done stay written down for the next start."""
        with self._activity:
            self._stopping.set()
            dispatcher, self._dispatcher = self._dispatcher, None
            self._activity.notify_all()
        if dispatcher is not None:
            dispatcher.join()
        with self._activity:
            while self._running > 0:  # each attempt ends within its function's timeout
                self._activity.wait(1.0)

    def reset(self) -> None:
        """Forget every event and figure (Emulator.reset)."""
        with self._activity:
            self.events.clear()
            self._schedule.clear()
            self._throttled.clear()
            self._ended.clear()
            self.figures.clear()
            self._failures.clear()

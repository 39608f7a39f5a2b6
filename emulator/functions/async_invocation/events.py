"""An event in a function's asynchronous invocation queue, what follows each of its attempts, the figures kept per
function and the report of an event given up on: pure.

Lambda Developer Guide, "Asynchronous invocation" and "Error handling and automatic retries": a function error is
retried twice by default, the first retry 1 minute after the first attempt and the second 2 minutes after the
second (on the emulator's clock here, counted from each attempt's start); PutFunctionEventInvokeConfig's
MaximumRetryAttempts (0..2) and MaximumEventAgeInSeconds (60..21600, 6 hours by default) bound that, the age
counted from when the event was first queued. An event whose next retry would come past its maximum age is
discarded at once (condition EventAgeExceeded, its records sent then): "lambda doesn't even wait for the full 60s
before the OnFailure destination / DLQ is triggered" (LocalStack's AWS-validated TestLambdaDestinationSqs::
test_maxeventage, whose recorded records have approximateInvokeCount 1 with a 60-second age, 2 with 90). A throttled
attempt (the function's reserved
concurrency in use) is not an attempt: "Lambda returns the event to the queue and attempts to run the function
again", with a back-off from 1 second doubling up to 5 minutes, for as long as the event's age allows, or until one
of the function's executions ends, whichever comes first (queue.py's execution_freed: Lambda "reduces the
rate at which it reads events from the queue", but reads it as the function's concurrency allows: LocalStack's
AWS-validated TestLambdaVersions::test_async_invoke_queue_upon_function_update saw 14 events queued behind a 22-second
invocation of a function with one execution all run within its wait, which a back-off doubling in step for every
event does not allow), and it does not count against MaximumRetryAttempts; but a function whose reserved concurrency is 0 never runs: its event is given
up on at once (condition ZeroReservedConcurrency, no attempt made).

An event's state (`to_state`) is what storage/async_queue.py writes down: the payload, the attempts made, the
moment of the next attempt and the last error, so that a restart resumes it where it was.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, ClassVar

from eddy.emulator.triggers.mapping_figures import Figures

RETRY_DELAYS = (60.0, 120.0)
THROTTLE_DELAYS = (1.0, 300.0)  # the first back-off after a throttle, and the longest
DEFAULT_RETRIES = 2
DEFAULT_MAXIMUM_AGE = 21600

SUCCESS, RETRIES_EXHAUSTED, EVENT_AGE_EXCEEDED = "Success", "RetriesExhausted", "EventAgeExceeded"
#: an event of a function whose reserved concurrency is 0: never run, given up on at once (AWS-recorded: LocalStack's
#: test_lambda.snapshot.json, TestLambdaConcurrency::test_reserved_concurrency "msg": approximateInvokeCount 0, and no
#: responseContext or responsePayload in its record)
ZERO_RESERVED_CONCURRENCY = "ZeroReservedConcurrency"
#: the fields of an event's state, as written down
STATE_FIELDS = (
    "request_id",
    "function_arn",
    "payload",
    "source",
    "queued_at",
    "attempts",
    "next_attempt_at",
    "expires",
    "last_error",
    "error_payload",
    "error_message",
    "throttles",
)


@dataclass
class AsyncEvent:
    request_id: str
    function_arn: str
    payload: Any
    #: who queued it: "Invoke", "s3", "sns", a rule's or a pipe's ARN (kept with each invocation for the dashboard)
    source: str
    #: when it was first queued, on the emulator's clock (MaximumEventAgeInSeconds counts from here)
    queued_at: float
    attempts: int = 0
    #: when it is tried next (or, when `expires`, discarded as EventAgeExceeded), on the emulator's clock
    next_attempt_at: float = 0.0
    expires: bool = False
    #: the last attempt's error: "errorType: errorMessage", the body Lambda returned for it, its message alone
    last_error: str | None = None
    error_payload: dict[str, Any] | None = None
    error_message: str | None = None
    #: throttled tries since the last attempt that ran (their back-off doubles)
    throttles: int = 0
    #: an attempt is running (or its records are being sent): not written down, a restart tries it again
    running: bool = field(default=False, compare=False)

    def to_state(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in STATE_FIELDS}

    @classmethod
    def from_state(cls, state: dict[str, Any]) -> "AsyncEvent":
        return cls(**{name: state[name] for name in STATE_FIELDS if name in state})

    @property
    def function_name(self) -> str:
        return self.function_arn.split(":")[
            6
        ]  # a qualified ARN's too (arn:aws:lambda:<region>:<account>:function:<name>)

    def due(self, now: float) -> bool:
        return not self.running and self.next_attempt_at <= now

    def describe(self) -> dict[str, Any]:
        """What wait_idle's Pending and AsyncInvocations.queued() say about it (AWS's words where AWS has them)."""
        state = (
            "Running"
            if self.running
            else "Throttled"
            if self.throttles
            else "Queued"
            if not self.attempts
            else "WaitingForRetry"
        )
        if self.expires and not self.running:
            state = "WaitingToExpire"
        return {
            "RequestId": self.request_id,
            "FunctionArn": self.function_arn,
            "Source": self.source,
            "State": state,
            "Attempts": self.attempts,
            "QueuedAt": self.queued_at,
            "NextAttemptAt": self.next_attempt_at,
            "LastError": self.last_error,
        }


def after_failure(event: AsyncEvent, started: float, retries: int, maximum_age: int) -> str | None:
    """After a failed attempt that began at `started`: the condition that ends the event, or None when it waits
    for a retry (its next_attempt_at set)."""
    if event.attempts > retries:
        return RETRIES_EXHAUSTED
    # counted from the attempt's start: the function's own duration aside, Lambda's delay; and a clock advanced
    # while the function ran counts (a test that saw the attempt begin may move time on)
    due = started + RETRY_DELAYS[min(event.attempts - 1, len(RETRY_DELAYS) - 1)]
    if due - event.queued_at > maximum_age:  # its retry would come too late: Lambda gives up on it now
        return EVENT_AGE_EXCEEDED
    event.next_attempt_at = due
    return None


def after_throttle(event: AsyncEvent, now: float, maximum_age: int) -> None:
    """After a throttled try at `now`: the event tries again after the back-off (or expires at its maximum age)."""
    event.throttles += 1
    due = now + min(THROTTLE_DELAYS[0] * 2 ** (event.throttles - 1), THROTTLE_DELAYS[1])
    if due - event.queued_at > maximum_age:
        event.next_attempt_at, event.expires = event.queued_at + maximum_age, True
    else:
        event.next_attempt_at = due


def limits(config: dict[str, Any] | None) -> tuple[int, int]:
    """(MaximumRetryAttempts, MaximumEventAgeInSeconds) of a function's event invoke config."""
    config = config or {}
    return (
        config.get("MaximumRetryAttempts", DEFAULT_RETRIES),
        config.get("MaximumEventAgeInSeconds", DEFAULT_MAXIMUM_AGE),
    )


def timestamp(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def invocation_record(
    event: AsyncEvent, function: Any, condition: str, now: float, response_payload: Any
) -> dict[str, Any]:
    """The invocation record an OnSuccess or OnFailure destination receives (Lambda Developer Guide, "Capturing
    records of Lambda asynchronous invocations"): functionArn the qualified ARN invoked ($LATEST's when the function
    was invoked unqualified), executedVersion the version that ran (`function`, a functions.function.Function)."""
    record = {
        "version": "1.0",
        "timestamp": timestamp(now),
        "requestContext": {
            "requestId": event.request_id,
            "functionArn": _qualified(event.function_arn),
            "condition": condition,
            "approximateInvokeCount": event.attempts,
        },
        "requestPayload": event.payload,
    }
    if condition == ZERO_RESERVED_CONCURRENCY:  # never ran: nothing answered
        return record
    response_context: dict[str, Any] = {"statusCode": 200, "executedVersion": function.version}
    if condition != SUCCESS:
        response_context["functionError"] = "Unhandled"
    return {**record, "responseContext": response_context, "responsePayload": response_payload}


def _qualified(arn: str) -> str:
    return arn if arn.count(":") > 6 else f"{arn}:$LATEST"


def dead_letter_attributes(event: AsyncEvent) -> dict[str, Any]:
    """The message attributes of a failed event sent to the function's DeadLetterConfig target (AWS-recorded:
    localstack's test_sqs_queue_as_lambda_dead_letter_queue snapshot)."""
    return {
        "RequestID": {"DataType": "String", "StringValue": event.request_id},
        "ErrorCode": {"DataType": "Number", "StringValue": "200"},
        "ErrorMessage": {"DataType": "String", "StringValue": event.error_message or ""},
    }


def failure_report(
    event: AsyncEvent, condition: str, destination: str | None, dead_letter: str | None
) -> dict[str, Any]:
    """wait_idle's Failures entry for an event given up on (`condition`), with where its records went."""
    return {
        "Mapping": f"asynchronous invocation of {event.function_name}",
        "FunctionArn": event.function_arn,
        "RequestId": event.request_id,
        "EventSource": event.source,
        "Condition": condition,
        "ApproximateInvokeCount": event.attempts,
        "OnFailureDestination": destination,
        "DeadLetterTarget": dead_letter,
        "LastError": event.last_error,
        "FailedBatches": 0,
        "RecordsDiscarded": 1,
        "Discarded": [],
    }


@dataclass
class AsyncFigures(Figures):
    """A function's asynchronous invocations (CloudWatch's AsyncEventsDropped and Lambda's Errors in Eddy's words)."""

    NAMES: ClassVar[dict[str, str]] = {
        "invocations": "Invocations",
        "errors": "Errors",
        "retries": "Retries",
        "events_dropped": "EventsDropped",
        "last_error": "LastError",
    }
    events_dropped: int = 0

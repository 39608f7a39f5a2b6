"""What happens after an invocation: AWS Lambda's rules for stream batches, as pure functions.

Given a batch, how its invocation ended and how often it has been tried, `next_step` says how many records
at the front are now done (the checkpoint moves past them), what is tried next, and what goes to the
on-failure destination:
  - success: the whole batch is done;
  - ReportBatchItemFailures: the records before the lowest failed sequence number are done, that record
    and everything after it form a new batch, whose tries count from zero (AWS's recorded answer: with
    MaximumRetryAttempts=3 a failing record is delivered 5 times, the partial failure and then 1 + 3 tries of
    the re-formed batch, `approximateInvokeCount: 4` in the on-failure record); a malformed answer, or the
    first record failing, fails the whole batch;
  - failure with BisectBatchOnFunctionError: the batch splits into two halves, tried in order, without
    counting against MaximumRetryAttempts; a single record is retried as usual;
  - failure: the batch is retried; N retries means N+1 invocations, -1 retries until the records expire;
    when retries run out the batch goes to the on-failure destination and the shard moves on;
  - a retry waits `retry_delay(retries)` on the emulator's clock (Lambda backs off between retries);
  - throttled (the function's reserved concurrency: not invoked): retried, backing off, until the records expire,
    never counted against MaximumRetryAttempts nor bisected (AWS: "Before invocation: if a Lambda event source
    mapping is unable to invoke the function due to throttling ..., it retries until the records expire or exceed
    the maximum age", lambda/latest/dg/kinesis-on-failure-destination.html).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

SUCCESS_RESPONSES = (None, {}, [])


@dataclass(frozen=True)
class Outcome:
    """How an invocation ended: `failed_from` is None for success, else the index of the first record to retry."""

    failed_from: int | None
    reason: str = ""
    #: the function was not invoked: throttled (TooManyRequestsException)
    throttled: bool = False

    @property
    def succeeded(self) -> bool:
        return self.failed_from is None


SUCCEEDED = Outcome(None)


def read_response(response: Any, sequence_numbers: Sequence[str], reports_batch_item_failures: bool) -> Outcome:
    """The outcome of an invocation that returned `response` (the function did not raise)."""
    if not reports_batch_item_failures:
        return SUCCEEDED
    if isinstance(response, (dict, list)) and not response:
        return SUCCEEDED
    if response is None:
        return SUCCEEDED
    if not isinstance(response, dict):
        return Outcome(0, "the function's response is not a batchItemFailures object")
    failures = response.get("batchItemFailures")
    if failures is None or failures == []:
        return SUCCEEDED
    if not isinstance(failures, list):
        return Outcome(0, "batchItemFailures is not a list")
    positions = {number: index for index, number in enumerate(sequence_numbers)}
    failed = []
    for failure in failures:
        identifier = failure.get("itemIdentifier") if isinstance(failure, dict) else None
        if not identifier or identifier not in positions:
            return Outcome(0, f"batchItemFailures names an itemIdentifier that is not in the batch: {identifier!r}")
        failed.append(positions[identifier])
    return Outcome(min(failed), "the function reported batch item failures")


@dataclass(frozen=True)
class Attempt:
    """Records [start, end) of the batch, tried `retries` times so far."""

    start: int
    end: int
    retries: int = 0
    #: throttled invocations in a row (they are not retries: only the back-off grows)
    throttles: int = 0


@dataclass
class Step:
    #: records at the front of the attempt now finished (processed, or given up on)
    done: int
    #: what to try next, in order, replacing the attempt
    next: list[Attempt] = field(default_factory=list)
    #: the [start, end) records given up on: they go to the on-failure destination
    discarded: tuple[int, int] | None = None
    #: seconds to wait before the next attempt (a retry backs off; a bisected half does not wait)
    delay: float = 0.0


def next_step(attempt: Attempt, outcome: Outcome, *, maximum_retry_attempts: int, bisect: bool) -> Step:
    if outcome.succeeded:
        return Step(done=attempt.end - attempt.start)
    if outcome.throttled:
        throttles = attempt.throttles + 1
        return Step(
            done=0, next=[Attempt(attempt.start, attempt.end, attempt.retries, throttles)], delay=retry_delay(throttles)
        )
    failed_at = attempt.start + outcome.failed_from
    partial = outcome.failed_from > 0
    if bisect and not partial and attempt.end - attempt.start > 1:
        middle = (attempt.start + attempt.end + 1) // 2
        return Step(
            done=0,
            next=[Attempt(attempt.start, middle, attempt.retries), Attempt(middle, attempt.end, attempt.retries)],
        )
    if partial:  # the records from the failed one on are a new batch: its tries count from zero
        return Step(done=failed_at - attempt.start, next=[Attempt(failed_at, attempt.end, 0)], delay=retry_delay(1))
    retries = attempt.retries + 1
    if maximum_retry_attempts != -1 and retries > maximum_retry_attempts:
        return Step(done=attempt.end - attempt.start, discarded=(failed_at, attempt.end))
    return Step(
        done=failed_at - attempt.start, next=[Attempt(failed_at, attempt.end, retries)], delay=retry_delay(retries)
    )


#: Lambda's back-off between retries of a failing stream batch: the first retry after FIRST_RETRY_DELAY seconds,
#: each next one after twice as long, never more than MAXIMUM_RETRY_DELAY. AWS does not publish its numbers; this
#: reproduces what it was recorded doing: with MaximumRetryAttempts=-1 and MaximumRecordAgeInSeconds=60, the
#: on-failure record of a record that kept failing said `approximateInvokeCount: 8` (tries at 0, 0.5, 1.5, 3.5,
#: 7.5, 15.5 and 31.5 s; the 8th, due at 63.5 s, finds the record expired), in LocalStack's AWS-validated snapshot
#: test_lambda_integration_kinesis.py::test_kinesis_maximum_record_age_exceeded[expire-while-retrying]. The cap is
#: Eddy's choice (LocalStack caps its back-off at 60 s too).
FIRST_RETRY_DELAY = 0.5
MAXIMUM_RETRY_DELAY = 60.0


def retry_delay(retries: int) -> float:
    """Seconds to wait before retry number `retries` (1 for the first retry) of a failing batch."""
    return min(MAXIMUM_RETRY_DELAY, FIRST_RETRY_DELAY * 2 ** min(max(retries, 1) - 1, 16))

"""What a mapping's failures leave behind: Eddy's log lines, the report wait_idle answers, NotDeliveredError.

- The log: a failed invocation is a WARNING line the first time its error is seen; the same error again is
  counted, and summarized in one line at the 2nd, 4th, 8th, ... time in a row (with the retry back-off growing as
  Lambda's, batch_policy.retry_delay, that is a few lines an hour for a function that can never run); a success
  after failures says how many there were. Records given up on are a WARNING line each time.
- MappingFailures: what failed since the mapping was created or since the last wait (batches that failed, records
  discarded with their keys, the condition and where they went, the last error). wait_idle takes it and starts
  over, so each wait reports what happened since the one before.
- NotDeliveredError: what assert_delivered raises, an AssertionError naming each mapping, its error and the keys of
  the records that were not delivered (discarded, or still being retried when the wait ended), and each
  asynchronous invocation given up on or still pending: its function, error and request id.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass, field
from typing import Any

log = logging.getLogger("eddy.triggers")


@dataclass
class Discarded:
    """Records a mapping gave up on (AWS's on-failure record says the same, without the keys)."""

    shard_id: str
    condition: str
    approximate_invoke_count: int
    records: list[dict[str, Any]]
    destination: str | None
    error: str | None

    def to_dict(self) -> dict[str, Any]:
        return {
            "ShardId": self.shard_id,
            "Condition": self.condition,
            "ApproximateInvokeCount": self.approximate_invoke_count,
            "Records": self.records,
            "OnFailureDestination": self.destination,
            "Error": self.error,
        }


@dataclass
class MappingFailures:
    """One mapping's failures since it was created or since the last wait, and its failure log lines."""

    label: str
    failed_batches: int = 0
    discarded: list[Discarded] = field(default_factory=list)
    last_error: str | None = None
    #: the error of the last failed invocation, and how many invocations in a row failed with it
    _error: str | None = None
    _repeats: int = 0
    _in_a_row: int = 0

    def invocation_failed(
        self,
        shard_id: str,
        size: int,
        error: str,
        retry_in: float | None,
        function_error: bool = True,
        succeeded_in: float | None = None,
    ) -> None:
        """A batch failed; `retry_in` is the back-off before it is tried again (None: no retries left, 0: bisected).
        `succeeded_in` (seconds): the invocation itself succeeded and its answer failed items (batchItemFailures),
        which the batch's one log line says: `batch 5 OK in 4.9 ms, the function reported batch item failures`."""
        self.failed_batches += 1
        self.last_error = error
        self._in_a_row += 1
        then = (
            "no retries left"
            if retry_in is None
            else f"retry in {retry_in:g} s"
            if retry_in
            else "split in two, tried at once"
        )
        level = logging.WARNING if function_error else logging.INFO
        if error != self._error:
            self._error, self._repeats = error, 1
            if succeeded_in is not None:
                log.log(
                    level,
                    "mapping %s shard %s batch %d OK in %.1f ms, %s (%s)",
                    self.label,
                    shard_id,
                    size,
                    succeeded_in * 1000,
                    error,
                    then,
                )
                return
            log.log(level, "mapping %s shard %s batch %d failed: %s (%s)", self.label, shard_id, size, error, then)
            return
        self._repeats += 1
        if self._repeats & (self._repeats - 1) == 0:  # 2, 4, 8, ...: a summary, not a line per retry
            log.log(level, "mapping %s failed %d times in a row with: %s (%s)", self.label, self._repeats, error, then)
        else:
            log.debug("mapping %s shard %s batch %d failed again: %s (%s)", self.label, shard_id, size, error, then)

    def invocation_succeeded(self) -> None:
        if self._in_a_row:
            log.info("mapping %s succeeded again after %d failed batches", self.label, self._in_a_row)
        self._error, self._repeats, self._in_a_row = None, 0, 0

    def records_discarded(self, discarded: Discarded) -> None:
        self.discarded.append(discarded)
        if discarded.error:
            self.last_error = discarded.error
        where = f"sent to {discarded.destination}" if discarded.destination else "no on-failure destination"
        log.warning(
            "mapping %s gave up on %d records of %s (%s after %d invocations, %s): %s",
            self.label,
            len(discarded.records),
            discarded.shard_id,
            discarded.condition,
            discarded.approximate_invoke_count,
            where,
            _keys(discarded.records),
        )

    def take(self) -> dict[str, Any] | None:
        """What failed since the last take (None if nothing did), and start over."""
        if not self.failed_batches and not self.discarded:
            return None
        report = {
            "FailedBatches": self.failed_batches,
            "RecordsDiscarded": sum(len(d.records) for d in self.discarded),
            "Discarded": [d.to_dict() for d in self.discarded],
            "LastError": self.last_error,
        }
        self.failed_batches, self.discarded = 0, []
        return report


class NotDeliveredError(AssertionError):
    """Not every record reached its function: some were discarded, or were still pending when the wait ended.

    `report` is the wait's whole answer (what wait_idle returns); the message names each mapping, its last error
    and the keys of the records concerned.
    """

    def __init__(self, message: str, report: dict[str, Any]) -> None:
        super().__init__(message)
        self.report = report


def not_delivered_message(report: dict[str, Any], timeout: float) -> str | None:
    """What was not delivered, one line per mapping concerned; None when everything was."""
    lines = []
    for failure in report["Failures"]:
        if "RequestId" in failure:  # an asynchronous invocation given up on (functions/async_invocation/queue.py)
            where = (
                ", ".join(
                    f"sent to {arn}" for arn in (failure["OnFailureDestination"], failure["DeadLetterTarget"]) if arn
                )
                or "no on-failure destination or dead-letter queue"
            )
            lines.append(
                f"{failure['Mapping']} (request id {failure['RequestId']}, from {failure['EventSource']}): "
                f"{failure['Condition']} after {failure['ApproximateInvokeCount']} attempts ({where}); "
                f"error: {failure['LastError']}"
            )
        if "TargetArn" in failure:  # an event a rule's target could not take (eventbridge/dead_letters.py)
            where = f"sent to {failure['DeadLetterQueue']}" if failure["DeadLetterQueue"] else "no dead-letter queue"
            lines.append(
                f"{failure['Mapping']}: event {failure['EventId']} not delivered to {failure['TargetArn']} "
                f"({where}); error: {failure['LastError']}"
            )
        if "SubscriptionArn" in failure:  # an SNS notification its HTTP endpoint never took (http_endpoints.py)
            where = f"sent to {failure['DeadLetterQueue']}" if failure["DeadLetterQueue"] else "no dead-letter queue"
            lines.append(
                f"{failure['Mapping']} ({failure['SubscriptionArn']}): not delivered after "
                f"{failure['ApproximateInvokeCount']} attempts ({where}); error: {failure['LastError']}"
            )
        for discarded in failure["Discarded"]:
            where = (
                f"sent to {discarded['OnFailureDestination']}"
                if discarded["OnFailureDestination"]
                else "no on-failure destination"
            )
            lines.append(
                f"mapping {failure['Mapping']}: {len(discarded['Records'])} record(s) of "
                f"{discarded['ShardId']} discarded ({discarded['Condition']} after "
                f"{discarded['ApproximateInvokeCount']} invocations, {where}): {_keys(discarded['Records'])}; "
                f"error: {discarded['Error'] or failure['LastError']}"
            )
    for pending in report["Pending"]:
        if "SubscriptionArn" in pending:
            [retry] = pending["Retrying"]
            lines.append(
                f"{pending['Mapping']} ({pending['SubscriptionArn']}): retrying after {retry['Attempts']} attempts, "
                f"next at {retry['NextAttemptAt']:.3f} on the emulator's clock; last error: {pending['LastError']}"
            )
            continue
        if "RequestId" in pending:
            lines.append(
                f"{pending['Mapping']} (request id {pending['RequestId']}): {pending['State']} after "
                f"{pending['Attempts']} attempts, next at {pending['NextAttemptAt']:.3f} on the emulator's "
                f"clock; last error: {pending['LastError']}"
            )
            continue
        retrying = [record for lane in pending.get("Retrying", []) for record in lane["Records"]]
        what = f"retrying {_keys(retrying)}" if retrying else "records not yet processed"
        lines.append(
            f"mapping {pending['Mapping']}: not caught up after {timeout:g} s, {what}; "
            f"last error: {pending['LastError']}"
        )
    if not lines:
        return None
    return "not everything was delivered:\n  " + "\n  ".join(lines)


def _keys(records: list[dict[str, Any]]) -> str:
    """The records' keys as a short text: DynamoDB keys as JSON, a Kinesis record by its partition key."""
    shown = [
        json.dumps(r["Keys"], sort_keys=True) if "Keys" in r else f"PartitionKey={r.get('PartitionKey')!r}"
        for r in records[:10]
    ]
    more = f" and {len(records) - 10} more" if len(records) > 10 else ""
    return ", ".join(shown) + more

"""The batch processor: one batch of a lane through FilterCriteria to the sender, and what follows the outcome.

What follows is batch_policy.py's (pure functions): a batch that succeeded moves the lane on; one that failed is
retried after a back-off on the emulator's clock (MaximumRetryAttempts), bisected (BisectBatchOnFunctionError), or
moves on past the records a ReportBatchItemFailures answer did not name; records older than
MaximumRecordAgeInSeconds (or the stream's retention) and records retried to exhaustion are discarded: into the
mapping's failure report (failures.py) and to its on-failure destination (destinations.py). A tumbling window's
state goes from each invocation to the next, and its final invocation closes it.
"""

from __future__ import annotations

import logging
import threading
import uuid
from typing import Any

from eddy.emulator.functions.invocation_events import OwnEvent, WrittenEvent, own_copy
from eddy.emulator.kernel import Kernel
from eddy.emulator.streams.records import compact_json
from eddy.emulator.triggers import destinations
from eddy.emulator.triggers.event_source_mappings import EventSourceMapping
from eddy.emulator.triggers.failures import Discarded, MappingFailures
from eddy.emulator.triggers.filters import matches
from eddy.emulator.triggers.mapping_figures import MappingFigures
from eddy.emulator.triggers.pollers import batch_policy
from eddy.emulator.triggers.pollers.lanes import ShardLane
from eddy.emulator.triggers.pollers.sources import StreamShard, StreamSource
from eddy.emulator.triggers.pollers.tumbling_windows import Window, iso, window_start
from eddy.emulator.triggers.senders import Sender, send_batch

log = logging.getLogger("eddy.triggers")


class BatchProcessor:
    """The batches of one mapping's lanes (shared by them: each call is about the lane it is given)."""

    def __init__(
        self,
        kernel: Kernel,
        mapping: EventSourceMapping,
        source: StreamSource,
        sender: Sender,
        *,
        figures: MappingFigures,
        failures: MappingFailures,
        stopping: threading.Event,
    ) -> None:
        self.kernel = kernel
        self.mapping = mapping
        self.source = source
        self.sender = sender
        self.figures = figures
        self.failures = failures
        self.stopping = stopping

    def process(self, lane: ShardLane, records: list[Any]) -> None:
        mapping, source, activity = self.mapping, self.source, self.kernel.activity
        kept = records
        if mapping.filters:
            kept = [r for r in records if matches(mapping.filters, source.filter_view(r, lane.shard.shard_id))]
            self.figures.records_filtered += len(records) - len(kept)
        size = mapping.tumbling_window_in_seconds
        if size and kept and (lane.window is None or lane.window.start != window_start(kept[0].created_at, size)):
            lane.window = Window.of(kept[0].created_at, size)
        attempts = [batch_policy.Attempt(0, len(kept))] if kept else []
        while attempts and not self.stopping.is_set():
            attempt = attempts[0]
            batch = kept[attempt.start : attempt.end]
            expired = self._expired(batch)
            if expired:
                self.discard(
                    lane.shard,
                    batch[:expired],
                    destinations.RECORD_AGE_EXCEEDED,
                    attempt.retries + 1,
                    self.event(lane, batch[:expired]),
                    response_context=None,
                    error=self.failures.last_error if attempt.retries else None,
                )
                lane.advance(batch[expired - 1])
                attempts[0] = batch_policy.Attempt(attempt.start + expired, attempt.end, attempt.retries)
                if attempts[0].start >= attempts[0].end:
                    attempts.pop(0)
                continue
            identifiers = [str(r.sequence_number) for r in batch]  # for the sender and the response's reading
            result = self.invoke(self.sent_event(lane, batch), batch, attempt.retries, identifiers)
            if result.ok:
                outcome = batch_policy.read_response(result.payload, identifiers, mapping.reports_batch_item_failures)
                if (
                    lane.window is not None
                    and isinstance(result.payload, dict)
                    and isinstance(result.payload.get("state"), dict)
                ):
                    lane.window.state = result.payload["state"]
                    lane.window.invoked = True
            else:
                outcome = batch_policy.Outcome(
                    0, f"{result.error.error_type}: {result.error.message}", result.throttled
                )
            step = batch_policy.next_step(
                attempt,
                outcome,
                maximum_retry_attempts=mapping.maximum_retry_attempts,
                bisect=mapping.bisect_batch_on_function_error,
            )
            with activity:  # wait_idle takes the failures report under the same lock
                if outcome.succeeded:  # the batch's one line: OK, or what failed and what follows
                    log.info(
                        "mapping %s shard %s batch %d OK in %.1f ms",
                        mapping.label,
                        lane.shard.shard_id,
                        len(batch),
                        result.duration * 1000,
                    )
                    self.failures.invocation_succeeded()
                else:
                    self.figures.note_error(outcome.reason)
                    self.failures.invocation_failed(
                        lane.shard.shard_id,
                        len(batch),
                        outcome.reason,
                        step.delay if step.next else None,
                        function_error=not result.ok,
                        succeeded_in=result.duration if result.ok else None,
                    )
            if step.discarded:
                start, end = step.discarded
                self.discard(
                    lane.shard,
                    kept[start:end],
                    destinations.RETRY_ATTEMPTS_EXHAUSTED,
                    attempt.retries + 1,
                    self.event(lane, kept[start:end]),
                    error=outcome.reason,
                    response_context=destinations.response_context(result),
                )
            if step.done:
                lane.advance(kept[attempt.start + step.done - 1])
            if lane.window is not None and outcome.succeeded:
                lane.window.invoked = True
                if lane.window.state_too_large():
                    self.final_invoke(lane, terminated_early=True)
            attempts[0:1] = step.next
            if attempts and step.delay:
                self._back_off(lane, step.delay, kept[attempts[0].start : attempts[0].end], attempt.retries + 1)
        with activity:
            lane.retrying = None
        if not attempts:
            lane.advance(records[-1])

    def final_invoke(self, lane: ShardLane, terminated_early: bool) -> None:
        """A tumbling window's last invocation (isFinalInvokeForWindow), after which the window is gone."""
        result = self.invoke(self.sent_event(lane, [], final=True, terminated_early=terminated_early), [], 0)
        if not result.ok:
            log.warning("final invocation of window %s failed: %s", iso(lane.window.start), result.error)
        with self.kernel.activity:
            lane.window = None
            lane.checkpoint()

    def event(
        self, lane: ShardLane, records: list[Any], *, final: bool = False, terminated_early: bool = False
    ) -> dict[str, Any]:
        """The event of a batch: Lambda's Records, and a tumbling window's fields; made for one invocation, nothing in
        it shared (an OwnEvent)."""
        event = OwnEvent(Records=self.source.lambda_records(records, lane.shard.shard_id))
        fields = self._window_fields(lane, final, terminated_early)
        if fields is not None:
            event.update(own_copy(fields))
        return event

    def sent_event(
        self, lane: ShardLane, records: list[Any], *, final: bool = False, terminated_early: bool = False
    ) -> dict[str, Any] | WrittenEvent:
        """The event a batch is sent as: `event`'s, unless the sender only writes it out as JSON (a worker
        subprocess's function): then the same event written as its JSON text (a WrittenEvent, compact), the records'
        from the text the source holds (`written_records`), nothing decoded or copied."""
        if not self.sender.serializes():
            return self.event(lane, records, final=final, terminated_early=terminated_early)
        text = '{"Records":' + self.source.written_records(records, lane.shard.shard_id)
        fields = self._window_fields(lane, final, terminated_early)
        text += "}" if not fields else "," + compact_json(fields)[1:]  # the window's members after the records
        return WrittenEvent(text, len(records))

    def _window_fields(self, lane: ShardLane, final: bool, terminated_early: bool) -> dict[str, Any] | None:
        """What a tumbling window adds to the event (None: the mapping has none, or the lane no window now)."""
        if not self.mapping.tumbling_window_in_seconds or lane.window is None:
            return None
        window, shard_id = lane.window, lane.shard.shard_id
        return window.event_fields(shard_id, self.source.arn, final=final, terminated_early=terminated_early)

    def invoke(
        self, event: dict[str, Any] | WrittenEvent, batch: list[Any], retries: int, identifiers: list[str] | None = None
    ) -> Any:
        """Send the batch's event; `identifiers`: its records' sequence numbers as text, if made already."""
        figures = self.figures
        if batch:
            figures.iterator_age_ms = max(0.0, (self.kernel.clock.now() - batch[-1].created_at) * 1000)
        if retries:
            figures.retries += 1
        if identifiers is None:
            identifiers = [str(r.sequence_number) for r in batch]
        return send_batch(self.sender, self.mapping, figures, event, identifiers)

    def _back_off(self, lane: ShardLane, delay: float, records: list[Any], attempts: int) -> None:
        """Wait `delay` seconds on the emulator's clock before retrying `records` (less if they expire sooner)."""
        clock, activity = self.kernel.clock, self.kernel.activity
        until = min(clock.now() + delay, records[0].created_at + self._age_limit())
        with activity:
            lane.retrying = {"records": records, "attempts": attempts, "next_at": until}
            while not self.stopping.is_set() and (now := clock.now()) < until:
                activity.wait(min(until - now, 1.0))

    def _age_limit(self) -> float:
        """How old a record may be and still be delivered (MaximumRecordAgeInSeconds, the stream's retention)."""
        limit = self.kernel.settings.retention_seconds
        maximum_age = self.mapping.maximum_record_age_in_seconds
        return limit if maximum_age == -1 else min(limit, maximum_age)

    def _expired(self, batch: list[Any]) -> int:
        """How many records at the front of the batch have reached the age limit (MaximumRecordAgeInSeconds,
        retention)."""
        oldest_allowed = self.kernel.clock.now() - self._age_limit()
        count = 0
        for record in batch:
            if record.created_at > oldest_allowed:
                break
            count += 1
        return count

    def discard(
        self,
        shard: StreamShard,
        records: list[Any],
        condition: str,
        invoke_count: int,
        event: dict[str, Any],
        *,
        response_context: dict[str, Any] | None,
        error: str | None,
    ) -> None:
        """Give up on records: they go to the on-failure destination, if the mapping has one, and into the report
        of what failed (failures.py)."""
        mapping, source = self.mapping, self.source
        if not records:
            return
        destination = mapping.on_failure_destination
        with self.kernel.activity:
            self.failures.records_discarded(
                Discarded(
                    shard.shard_id,
                    condition,
                    invoke_count,
                    [source.record_identity(r) for r in records],
                    destination,
                    error,
                )
            )
        if destination is None:
            return
        now = self.kernel.clock.now()
        record = destinations.invocation_record(
            function_arn=mapping.function_arn,
            stream_arn=source.arn,
            shard_id=shard.shard_id,
            records=records,
            condition=condition,
            invoke_count=invoke_count,
            request_id=str(uuid.uuid4()),
            now=now,
            response_context=response_context,
            batch_info_key=source.batch_info_key,
        )
        try:
            destinations.send(
                self.kernel.aws_client,
                destination,
                record,
                mapping_uuid=mapping.uuid,
                shard_id=shard.shard_id,
                event=event,
                now=now,
            )
            self.figures.records_to_destination += len(records)
        except Exception as error:  # the destination is the user's: report it, keep the shard moving
            log.exception("could not send to the on-failure destination %s", destination)
            self.figures.note_error(f"on-failure destination {destination}: {type(error).__name__}: {error}")

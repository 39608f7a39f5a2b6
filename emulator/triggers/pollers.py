"""Pollers: what runs an event source mapping, one lane per shard (ParallelizationFactor lanes per shard).

The source is a DynamoDB stream or a Kinesis data stream (kinesis/sources.py): both show shards with parents
and records, and say how a record is delivered, filtered, sized and assigned to a lane. A MappingRunner follows
the lineage: a shard's lanes start once every parent (one after a rollover or split, two after a merge) is
finished, so parents are processed before children and new shards are picked up by themselves. Each lane takes
its share of the keys in order, waits by notification (the emulator's `activity`), batches (BatchSize, window,
6 MB, never across shards or tumbling windows), filters, invokes and applies batch_policy; a retried batch holds
the lane, so order per key holds. After every batch the lane's position is checkpointed.
"""
from __future__ import annotations

import logging
import threading
import uuid
from dataclasses import asdict
from typing import TYPE_CHECKING, Any

from eddy.emulator.triggers import batch_policy, destinations
from eddy.emulator.triggers.checkpoints import ShardCheckpoint
from eddy.emulator.triggers.failures import Discarded, MappingFailures
from eddy.emulator.errors import FunctionError
from eddy.emulator.triggers.filters import matches
from eddy.emulator.triggers.tumbling_windows import Window, iso, window_start
from eddy.emulator.functions.invocation_results import InvocationResult
from eddy.emulator.streams.records import ChangeRecord
from eddy.emulator.streams.shards import Shard

if TYPE_CHECKING:
    from eddy.emulator.triggers.event_source_mappings import EventSourceMapping
    from eddy.emulator.streams.stream import Stream
    from eddy.emulator.triggers.mapping_registry import Triggers

log = logging.getLogger("eddy.triggers")

MAX_PAYLOAD_BYTES = 6 * 1024 * 1024


class ShardLane(threading.Thread):
    def __init__(self, runner: "MappingRunner", shard: Shard, lane: int, position: int) -> None:
        super().__init__(name=f"eddy-poller-{runner.mapping.uuid[:8]}-{shard.shard_id[-8:]}-{lane}", daemon=True)
        self.runner = runner
        self.shard = shard
        self.lane = lane
        #: the last sequence number this lane has processed (or skipped)
        self.position = position
        self.busy = False
        self.finished = False
        self.window: Window | None = None
        #: the records being retried: {"records", "attempts" made, "next_at" on the emulator's clock}
        self.retrying: dict[str, Any] | None = None

    # -- taking records (with the emulator's lock held) -----------------------------------------------

    def _mine(self, record: ChangeRecord) -> bool:
        lanes = self.runner.mapping.parallelization_factor
        if lanes == 1:
            return True
        return self.runner.stream.partition_of(record) % lanes == self.lane

    def pending(self) -> list[ChangeRecord]:
        """This lane's next batch, as far as it goes now."""
        mapping, records, source = self.runner.mapping, self.shard.records, self.runner.stream
        batch: list[ChangeRecord] = []
        bound, size, window = 0, None, None  # sizes: cheap upper bounds, exact ones once they could pass the limit
        for index in range(self.shard.index_at(self.position + 1), len(records)):
            record = records[index]
            if not self._mine(record):
                continue
            if mapping.tumbling_window_in_seconds:
                start = window_start(record.created_at, mapping.tumbling_window_in_seconds)
                if window is None:
                    window = start
                elif start != window:
                    break
            bound += source.record_bytes_at_most(record)
            if bound > MAX_PAYLOAD_BYTES and batch and (size := (sum(map(source.record_bytes, batch)) if size is None
                                                              else size) + source.record_bytes(record)) > MAX_PAYLOAD_BYTES:
                break
            batch.append(record)
            if len(batch) >= mapping.batch_size:
                break
        return batch

    def caught_up(self) -> bool:
        if self.busy:
            return False
        window = self.window
        if window is not None and window.invoked and (
                not self.shard.is_open or self.runner.emulator.clock.now() >= window.end):
            return False  # the window's final invocation is due
        return self.finished or not self.pending()

    def _take(self) -> tuple[str, list[ChangeRecord]] | None:
        """("batch", records) or ("final", []) for a tumbling window's last invocation; None when done."""
        runner, mapping, shard = self.runner, self.runner.mapping, self.shard
        clock = runner.emulator.clock
        with runner.emulator.activity:
            while not runner.stopping.is_set():
                if self.position < shard.trimmed_through:  # records expired (retention) before we got to them
                    self.position = shard.trimmed_through
                batch = self.pending()
                now = clock.now()
                if self.window is not None and self.window.invoked:
                    if (batch and window_start(batch[0].created_at, mapping.tumbling_window_in_seconds) != self.window.start) or now >= self.window.end or (
                            not batch and not shard.is_open):
                        self.busy = True
                        return "final", []
                if batch:
                    window = mapping.maximum_batching_window_in_seconds
                    full = len(batch) >= mapping.batch_size
                    if window and not full and shard.is_open and now < batch[0].created_at + window:
                        runner.emulator.activity.wait(min(batch[0].created_at + window - now, 1.0))
                        continue
                    self.busy = True
                    return "batch", batch
                if not shard.is_open:
                    return None
                timeout = 1.0
                if self.window is not None and self.window.invoked:
                    timeout = max(0.001, min(timeout, self.window.end - now))
                runner.emulator.activity.wait(timeout)
        return None

    # -- the loop ---------------------------------------------------------------------------------------

    def run(self) -> None:
        runner = self.runner
        try:
            while (taken := self._take()) is not None:
                kind, batch = taken
                try:
                    if kind == "final":
                        ended_early = not self.shard.is_open and runner.emulator.clock.now() < self.window.end
                        self._final_invoke(terminated_early=ended_early)
                    else:
                        self._process(batch)
                finally:
                    with runner.emulator.activity:
                        self.busy = False
                        runner.emulator.activity.notify_all()
            if runner.stopping.is_set():
                return  # stopped, not finished: the checkpoint says where to resume
            with runner.emulator.activity:
                self.finished = True
            runner.lane_finished(self)
        except Exception as error:  # a poller must never die silently: record it where users look
            log.exception("poller %s failed", self.name)
            runner.figures.last_error = f"{type(error).__name__}: {error}"

    def _advance(self, record: ChangeRecord) -> None:
        with self.runner.emulator.activity:
            if record.sequence_number > self.position:
                self.position = record.sequence_number
                self.runner.save_checkpoint(self.shard)

    def _event(self, records: list[ChangeRecord], *, final: bool = False, terminated_early: bool = False) -> dict[str, Any]:
        stream = self.runner.stream
        event: dict[str, Any] = {"Records": [stream.lambda_record(r, self.shard.shard_id) for r in records]}
        if self.runner.mapping.tumbling_window_in_seconds and self.window is not None:
            event.update(self.window.event_fields(self.shard.shard_id, stream.arn, final=final,
                                                  terminated_early=terminated_early))
        return event

    def _final_invoke(self, terminated_early: bool) -> None:
        result = self.runner.invoke(self._event([], final=True, terminated_early=terminated_early), self.shard, [], 0)
        if not result.ok:
            log.warning("final invocation of window %s failed: %s", iso(self.window.start), result.error)
        with self.runner.emulator.activity:
            self.window = None
            self.runner.save_checkpoint(self.shard)

    def _process(self, records: list[ChangeRecord]) -> None:
        runner, mapping = self.runner, self.runner.mapping
        stream = runner.stream
        kept = records
        if mapping.filters:
            kept = [r for r in records if matches(mapping.filters, stream.filter_view(r, self.shard.shard_id))]
            runner.figures.records_filtered += len(records) - len(kept)
        size = mapping.tumbling_window_in_seconds
        if size and kept and (self.window is None or self.window.start != window_start(kept[0].created_at, size)):
            self.window = Window.of(kept[0].created_at, size)
        attempts = [batch_policy.Attempt(0, len(kept))] if kept else []
        while attempts and not runner.stopping.is_set():
            attempt = attempts[0]
            batch = kept[attempt.start:attempt.end]
            expired = self._expired(batch)
            if expired:
                runner.discard(self.shard, batch[:expired], destinations.RECORD_AGE_EXCEEDED, attempt.retries + 1,
                               self._event(batch[:expired]), response_context=None,
                               error=runner.failures.last_error if attempt.retries else None)
                self._advance(batch[expired - 1])
                attempts[0] = batch_policy.Attempt(attempt.start + expired, attempt.end, attempt.retries)
                if attempts[0].start >= attempts[0].end:
                    attempts.pop(0)
                continue
            result = runner.invoke(self._event(batch), self.shard, batch, attempt.retries)
            if result.ok:
                outcome = batch_policy.read_response(result.payload, [str(r.sequence_number) for r in batch],
                                                     mapping.reports_batch_item_failures)
                if self.window is not None and isinstance(result.payload, dict) and isinstance(result.payload.get("state"), dict):
                    self.window.state = result.payload["state"]
                    self.window.invoked = True
            else:
                outcome = batch_policy.Outcome(0, f"{result.error.error_type}: {result.error.message}", result.throttled)
            step = batch_policy.next_step(attempt, outcome, maximum_retry_attempts=mapping.maximum_retry_attempts,
                                          bisect=mapping.bisect_batch_on_function_error)
            with runner.emulator.activity:  # wait_idle takes the failures report under the same lock
                if outcome.succeeded:  # the batch's one line: OK, or what failed and what follows
                    log.info("mapping %s shard %s batch %d OK in %.1f ms", mapping.label, self.shard.shard_id, len(batch), result.duration * 1000)
                    runner.failures.invocation_succeeded()
                else:
                    runner.figures.note_error(outcome.reason)
                    runner.failures.invocation_failed(self.shard.shard_id, len(batch), outcome.reason,
                                                      step.delay if step.next else None, function_error=not result.ok,
                                                      succeeded_in=result.duration if result.ok else None)
            if step.discarded:
                start, end = step.discarded
                runner.discard(self.shard, kept[start:end], destinations.RETRY_ATTEMPTS_EXHAUSTED, attempt.retries + 1,
                               self._event(kept[start:end]), error=outcome.reason,
                               response_context=destinations.response_context(result))
            if step.done:
                self._advance(kept[attempt.start + step.done - 1])
            if self.window is not None and outcome.succeeded:
                self.window.invoked = True
                if self.window.state_too_large():
                    self._final_invoke(terminated_early=True)
            attempts[0:1] = step.next
            if attempts and step.delay:
                self._back_off(step.delay, kept[attempts[0].start:attempts[0].end], attempt.retries + 1)
        with runner.emulator.activity:
            self.retrying = None
        if not attempts:
            self._advance(records[-1])

    def _back_off(self, delay: float, records: list[ChangeRecord], attempts: int) -> None:
        """Wait `delay` seconds on the emulator's clock before retrying `records` (less if they expire sooner)."""
        runner, clock = self.runner, self.runner.emulator.clock
        until = min(clock.now() + delay, records[0].created_at + self._age_limit())
        with runner.emulator.activity:
            self.retrying = {"records": records, "attempts": attempts, "next_at": until}
            while not runner.stopping.is_set() and (now := clock.now()) < until:
                runner.emulator.activity.wait(min(until - now, 1.0))

    def _age_limit(self) -> float:
        """How old a record may be and still be delivered (MaximumRecordAgeInSeconds, the stream's retention)."""
        limit = self.runner.emulator.settings.retention_seconds
        maximum_age = self.runner.mapping.maximum_record_age_in_seconds
        return limit if maximum_age == -1 else min(limit, maximum_age)

    def _expired(self, batch: list[ChangeRecord]) -> int:
        """How many records at the front of the batch have reached the age limit (MaximumRecordAgeInSeconds, retention)."""
        oldest_allowed = self.runner.emulator.clock.now() - self._age_limit()
        count = 0
        for record in batch:
            if record.created_at > oldest_allowed:
                break
            count += 1
        return count


class MappingRunner:
    """The lanes of one enabled event source mapping, following its stream's shard lineage."""

    def __init__(self, triggers: "Triggers", mapping: "EventSourceMapping", stream: "Stream") -> None:
        self.triggers = triggers
        self.emulator = triggers.emulator
        self.mapping = mapping
        self.stream = stream
        self.figures = triggers.figures[mapping.uuid]
        self.failures = triggers.failures.setdefault(mapping.uuid, MappingFailures(mapping.label))
        self.stopping = threading.Event()
        self.lanes: dict[str, list[ShardLane]] = {}
        self.finished: set[str] = set()

    def start(self) -> None:
        with self.emulator.activity:
            self._discover()

    def _discover(self) -> None:
        """Start the lanes of every shard whose parent is finished (or gone); called with the lock held."""
        checkpoints, mapping = self.triggers.checkpoints, self.mapping
        shards = self.stream.shards
        for shard in list(shards.values()):
            shard_id = shard.shard_id
            if shard_id in self.lanes or shard_id in self.finished:
                continue
            saved = checkpoints.get(mapping.uuid, shard_id)
            if saved is not None and saved.finished:
                self.finished.add(shard_id)
                continue
            if any(parent in shards and parent not in self.finished for parent in shard.parent_shard_ids):
                continue  # the one rule of lineage, for splits and merges alike
            if saved is not None:
                positions = saved.lanes if len(saved.lanes) == mapping.parallelization_factor else \
                    [min(saved.lanes)] * mapping.parallelization_factor
            else:
                start = max(shard.trimmed_through, self.triggers.start_positions.get(mapping.uuid, 0))
                positions = [start] * mapping.parallelization_factor
            lanes = [ShardLane(self, shard, lane, position) for lane, position in enumerate(positions)]
            if saved is not None and len(saved.windows) == len(lanes):
                for lane, window in zip(lanes, saved.windows):
                    lane.window = Window(**window) if window else None
            self.lanes[shard_id] = lanes
            for lane in lanes:
                lane.start()

    def lane_finished(self, lane: ShardLane) -> None:
        with self.emulator.activity:
            lanes = self.lanes.get(lane.shard.shard_id, [])
            if lanes and all(other.finished for other in lanes):
                self.finished.add(lane.shard.shard_id)
                self.save_checkpoint(lane.shard, finished=True)
                del self.lanes[lane.shard.shard_id]
                if not self.stopping.is_set():
                    self._discover()
            self.emulator.activity.notify_all()

    def save_checkpoint(self, shard: Shard, finished: bool = False) -> None:
        lanes = self.lanes.get(shard.shard_id, [])
        windows = [asdict(lane.window) if lane.window is not None else None for lane in lanes]
        self.triggers.checkpoints.save(self.mapping.uuid, shard.shard_id,
                                       ShardCheckpoint([lane.position for lane in lanes], finished, windows))

    def caught_up(self) -> bool:
        """Every record of every shard this mapping can reach has been processed (lock held)."""
        shards = self.stream.shards
        for shard in shards.values():
            if shard.shard_id in self.finished:
                continue
            lanes = self.lanes.get(shard.shard_id)
            if lanes is None:
                if shard.records and all(parent in shards for parent in shard.parent_shard_ids):
                    start = self.triggers.start_positions.get(self.mapping.uuid, 0)
                    if shard.records[-1].sequence_number > start:
                        return False
                continue
            if not all(lane.caught_up() for lane in lanes):
                return False
        return True

    def invoke(self, event: dict[str, Any], shard: Shard, batch: list[ChangeRecord], retries: int) -> Any:
        mapping, figures = self.mapping, self.figures
        function = self.emulator.functions.runnable(mapping.function_arn)  # an alias's: by its weights
        now = self.emulator.clock.now()
        if batch:
            figures.iterator_age_ms = max(0.0, (now - batch[-1].created_at) * 1000)
        figures.invocations += 1
        if retries:
            figures.retries += 1
        if function is None:
            result = InvocationResult("", error=FunctionError("ResourceNotFoundException",
                                                              f"Function not found: {mapping.function_arn}"))
        else:
            result = self.emulator.invoker.invoke(function, event, source=mapping.uuid, invoked_arn=mapping.function_arn)
        figures.records_delivered += len(batch)
        if result.ok:  # its log line comes once the answer is read: it may fail items (batchItemFailures)
            mapping.last_processing_result = "OK"
        else:  # failures.py logs it, once it knows what follows (a retry, and when)
            figures.errors += 1
            outcome = f"{result.error.error_type}: {result.error.message}"
            figures.note_error(outcome)
            mapping.last_processing_result = f"PROBLEM: {outcome}"
        return result

    def discard(self, shard: Shard, records: list[ChangeRecord], condition: str, invoke_count: int,
                event: dict[str, Any], *, response_context: dict[str, Any] | None, error: str | None) -> None:
        """Give up on records: they go to the on-failure destination, if the mapping has one, and into the report
        of what failed (failures.py)."""
        mapping = self.mapping
        if not records:
            return
        destination = mapping.on_failure_destination
        with self.emulator.activity:
            self.failures.records_discarded(Discarded(shard.shard_id, condition, invoke_count,
                                                      [self.stream.record_identity(r) for r in records],
                                                      destination, error))
        if destination is None:
            return
        now = self.emulator.clock.now()
        record = destinations.invocation_record(
            function_arn=mapping.function_arn, stream_arn=self.stream.arn, shard_id=shard.shard_id, records=records,
            condition=condition, invoke_count=invoke_count, request_id=str(uuid.uuid4()), now=now,
            response_context=response_context, batch_info_key=self.stream.batch_info_key)
        try:
            destinations.send(self.emulator.aws_client, destination, record, mapping_uuid=mapping.uuid,
                              shard_id=shard.shard_id, event=event, now=now)
            self.figures.records_to_destination += len(records)
        except Exception as error:  # the destination is the user's: report it, keep the shard moving
            log.exception("could not send to the on-failure destination %s", destination)
            self.figures.note_error(f"on-failure destination {destination}: {type(error).__name__}: {error}")

    def stop(self) -> None:
        self.stopping.set()
        with self.emulator.activity:
            self.emulator.activity.notify_all()
            lanes = [lane for group in self.lanes.values() for lane in group]
        for lane in lanes:
            if lane is not threading.current_thread():
                lane.join()
